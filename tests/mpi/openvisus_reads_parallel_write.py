#!/usr/bin/env python3
"""OpenVisus (OpenVisusNoGui 2.2.149) reads what `hzio-mpi write` writes.

Writes with several rank counts, irregular grids, --blocks-per-rank > 1, vector dtypes, several
timesteps, raw/zip and the PIDX-compatible form, then reads every field and timestep at every level with OpenVisus and
compares with the synthetic formula of design.md §4 evaluated on the grid OpenVisus returns."""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import OpenVisus as ov


def expected(dtype, shape, field, comp_count, time, origin, stride):
    """The §4 values on a grid with the given (x,y,z) origin and stride; shape is numpy order."""
    nd = len(origin)
    axes = [origin[d] + stride[d] * np.arange(shape[nd - 1 - d], dtype=np.int64) for d in range(nd)]
    grids = np.meshgrid(*reversed(axes), indexing="ij")  # slowest axis first
    s = np.zeros(grids[0].shape, dtype=np.int64)
    for d in range(nd):
        s += grids[nd - 1 - d] * (1000 ** d)
    if comp_count > 1:
        s = s[..., None]
        c = np.arange(comp_count, dtype=np.int64)
    else:
        c = 0
    if dtype.kind == "f":
        return (s.astype(np.float64) + 0.125 * c + 0.0625 * field + 1e9 * time).astype(dtype)
    mask = np.uint64((1 << (8 * dtype.itemsize)) - 1)
    v = (s + 7 * c + 11 * field + 13 * time).astype(np.uint64) & mask
    return v.astype(np.dtype(f"u{dtype.itemsize}")).view(dtype)


def cumulative_stride(bits, level):
    """D_level of idx-format.md §3.3: 2^count(d, level+1..maxh)."""
    pattern = bits[1:]
    nd = 1 + max(int(ch) for ch in pattern)
    return [2 ** sum(1 for ch in pattern[level:] if int(ch) == d) for d in range(nd)]


def check(idx, dims, failures):
    db = ov.LoadDataset(idx)
    bits = db.getBitmask().toString()
    maxh = db.getMaxResolution()
    for fi, name in enumerate(db.getFields()):
        field = db.getField(name)
        comps = field.dtype.ncomponents()
        for t in [int(x) for x in db.getTimesteps()]:
            for level in range(maxh + 1):
                a = db.read(field=name, time=t, max_resolution=level)
                stride = cumulative_stride(bits, level)
                # The box query grid starts at 0 and steps by D_level (idx-format.md §3.4).
                want = expected(a.dtype, a.shape, fi, comps, t, [0] * len(dims), stride)
                if not np.array_equal(a, want):
                    failures.append(f"{idx}: field {name} time {t} level {level} differs (shape {a.shape})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mpiexec", required=True)
    ap.add_argument("--hzio-mpi", required=True)
    args = ap.parse_args()
    runs = [
        (3, ["--dims", "37,29,11", "--grid", "1,3,1", "--blocks-per-rank", "2", "--compression", "zip",
             "--fields", "p:float64,v:float32[3],c:uint8", "--timesteps", "2", "--bitsperblock", "9",
             "--blocksperfile", "8", "--aggregators", "2"]),
        (4, ["--dims", "40,24,16", "--compression", "raw", "--fields", "t:float32,k:int16", "--timesteps", "2",
             "--bitsperblock", "10", "--restructure", "expanded"]),
        (2, ["--dims", "100,60", "--fields", "rgb:uint8[3]", "--bitsperblock", "8", "--blocksperfile", "4",
             "--blocks-per-rank", "3"]),
        # Two raw blocks for four ranks: aggregators write sub-ranges of blocks into one shared file.
        (4, ["--dims", "40,27,13", "--compression", "raw", "--fields", "p:float64,c:uint8", "--bitsperblock", "14"]),
        # A memory budget far below a file: written in rounds of one file, shared by the aggregators.
        (3, ["--dims", "45,31,17", "--compression", "zip", "--fields", "p:float64,v:float32[3]", "--timesteps", "2",
             "--bitsperblock", "10", "--blocksperfile", "2", "--memory-budget", "4k"], "rounds"),
        (2, ["--dims", "40,27,13", "--compression", "raw", "--fields", "p:float64,c:uint8", "--bitsperblock", "12",
             "--blocksperfile", "2", "--memory-budget", "4k"], "rounds"),
        # What PIDX 0.9.3 reads too (its file names, `3*float64`): OpenVisus still reads it.
        (3, ["--dims", "30,20,17", "--fields", "p:float64,v:float64[3],t:float32,f:int32", "--timesteps", "2",
             "--bitsperblock", "8", "--blocksperfile", "4", "--blocks-per-rank", "2", "--pidx-compatible"]),
        (4, ["--dims", "64,32,32", "--fields", "v:float32[3],n:uint16[4]", "--bitsperblock", "10",
             "--grid", "2,2,1", "--pidx-compatible"]),
    ]
    failures = []
    with tempfile.TemporaryDirectory(prefix="hzio-ov-") as tmp:
        for i, (ranks, opts, *expect) in enumerate(runs):
            idx = os.path.join(tmp, f"run{i}", "visus.idx")
            cmd = [args.mpiexec, "--oversubscribe", "-n", str(ranks), args.hzio_mpi, "write", idx] + opts
            out = subprocess.run(cmd, check=True, timeout=120, capture_output=True, text=True).stdout
            if expect and " rounds (memory budget)" not in out:
                failures.append(f"{idx}: expected a write in rounds, the report says: {out.strip()}")
            dims = [int(x) for x in opts[opts.index("--dims") + 1].split(",")]
            if "--pidx-compatible" in opts:
                text = open(idx).read()
                if "*float" not in text or "(filename_template)\n./visus/%0" not in text:
                    failures.append(f"{idx}: not the PIDX form (counted dtypes, ./visus/ template):\n{text}")
            check(idx, dims, failures)
    # A malformed budget: a clear error naming the option, nothing written.
    with tempfile.TemporaryDirectory(prefix="hzio-ov-") as tmp:
        idx = os.path.join(tmp, "bad", "visus.idx")
        r = subprocess.run([args.mpiexec, "--oversubscribe", "-n", "2", args.hzio_mpi, "write", idx, "--dims", "16,16,16",
                            "--memory-budget", "lots"], timeout=120, capture_output=True, text=True)
        if r.returncode != 1 or "--memory-budget" not in r.stderr or os.path.exists(idx):
            failures.append(f"--memory-budget lots: exit {r.returncode}, stderr {r.stderr.strip()!r}")
    for f in failures:
        print("FAIL", f)
    print("ok" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
