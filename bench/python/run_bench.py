#!/usr/bin/env python3
"""Python and CLI reads of an N^3 float32 dataset (default 512^3): hzio vs OpenVisus 2.2.149 on
the same files, side by side in one run (issue 17, design.md §7). Writes bench/python/RESULTS.md.

    .venv/bin/python bench/python/run_bench.py --bench build/bench/core/hzio-bench-core \\
        --hzio build/reader/tools/hzio [--size 512] [--repeat 5] [--out bench/python/RESULTS.md]

Needs the `hzio` package in the venv (ctest -R python.install, or pip install ./python).

OpenVisus writes the dataset (raw, row-major, its default layout); everything then reads those
files from the page cache:
  * in-process reads of the whole box at full resolution and coarser levels: hzio's
    `ds.read()` (a new array, as users call it), `ds.read(out=...)` into a touched array (the
    library's own work), OpenVisus's `db.read(max_resolution=H)`, and the C++ library's read
    into a touched buffer (`hzio-bench-core read`, a separate process: what the Python binding
    must stay within 10% of);
  * both touched buffers are the same kind of memory: hzio::LargeAllocation (2 MiB-aligned,
    advised as huge pages), pre-touched; in Python `hzio.empty` (what `ds.read()` returns) filled
    with ones. The read into a touched numpy array (`np.ones`, 16 bytes past a page boundary, so
    each row shares its end lines with its neighbours) is shown beside it;
  * whole processes: `hzio read DATASET -o out.npy` (start, read, write the .npy to the page
    cache, exit), its peak RSS, against OpenVisus's in-process read.
Every figure is a median of --repeat runs; ratios are medians measured in this run.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("VISUS_DISABLE_WRITE_LOCK", "1")
import OpenVisus as ov  # noqa: E402

import hzio  # noqa: E402

# The array and the timing of bench/core (issue 2's serial benchmark), so both measure the same.
_spec = importlib.util.spec_from_file_location(
    "core_run_bench", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "core", "run_bench.py"))
_core = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_core)
make_array, median_time = _core.make_array, _core.median_time

# Runs a command; prints its wall time and the peak RSS (KiB) of that child alone.
PEAK = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
        "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL); "
        "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def library_read(bench: str, idx: str, level: int, repeat: int) -> tuple[float, float]:
    """Median wall time and mean CPU time (all threads) of the C++ library's read."""
    out = subprocess.run([bench, "read", idx, "--level", str(level), "--repeat", str(repeat)], check=True,
                         capture_output=True, text=True).stdout
    result = json.loads(out.strip().splitlines()[-1])
    return result["median_s"], result["cpu_s"]


def cpu_seconds() -> float:
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime


def mean_cpu(fn, repeat: int) -> float:
    """CPU time (user + system, every thread of this process) per call, as hzio-bench-core's
    cpu_s: a steadier comparison than wall time when other processes share the cores."""
    c0 = cpu_seconds()
    for _ in range(repeat):
        fn()
    return (cpu_seconds() - c0) / repeat


def cli_read(hzio_bin: str, idx: str, out: str, repeat: int) -> tuple[float, int]:
    """Median wall time and max peak RSS (KiB) of `hzio read IDX -o OUT.npy`."""
    times, peaks = [], []
    for _ in range(repeat):
        if os.path.exists(out):
            os.remove(out)
        done = subprocess.run([sys.executable, "-c", PEAK, hzio_bin, "read", idx, "-o", out], check=True,
                              capture_output=True, text=True).stdout.split()
        times.append(float(done[0]))
        peaks.append(int(done[1]))
    return statistics.median(times), max(peaks)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bench", required=True, help="hzio-bench-core (the C++ library's read)")
    ap.add_argument("--hzio", required=True, help="the hzio command line")
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--out", default=None, help="write the results as markdown here")
    args = ap.parse_args()
    n, rep = args.size, args.repeat
    work = args.workdir or tempfile.mkdtemp(prefix="hzio_bench_python_")
    os.makedirs(work, exist_ok=True)
    idx = os.path.join(work, "ov", "visus.idx")
    shutil.rmtree(os.path.dirname(idx), ignore_errors=True)
    a = make_array(n)
    db = ov.CreateIdx(url=idx, dims=[n, n, n], fields=[ov.Field("data", "float32", "row_major")])
    db.write(a)
    db = ov.LoadDataset(idx)
    ds = hzio.open(idx)
    maxh = ds.maxh
    assert np.array_equal(ds.read(), a) and np.array_equal(db.read(), a), "the dataset does not hold the array"

    load_start = os.getloadavg()
    rows = []
    for h in (maxh, maxh - 3, maxh - 6):
        shape = ds.grid(level=h).shape
        touched = hzio.empty(shape, np.float32)  # as hzio-bench-core's buffer: LargeAllocation, touched
        touched[...] = 1
        touched_numpy = np.ones(shape, np.float32)
        ds.read(level=h, out=touched)            # warm the page cache and the block tables
        ds.read(level=h, out=touched_numpy)
        db.read(max_resolution=h)
        assert np.array_equal(ds.read(level=h), db.read(max_resolution=h))
        t_ov = median_time(lambda: db.read(max_resolution=h), rep)
        t_new = median_time(lambda: ds.read(level=h), rep)
        t_into = median_time(lambda: ds.read(level=h, out=touched), rep)
        t_into_numpy = median_time(lambda: ds.read(level=h, out=touched_numpy), rep)
        cpu_into = mean_cpu(lambda: ds.read(level=h, out=touched), rep)
        t_lib, cpu_lib = library_read(args.bench, idx, h, rep)
        rows.append({"level": h, "samples": int(np.prod(shape)), "openvisus_s": t_ov, "hzio_read_s": t_new,
                     "hzio_read_out_s": t_into, "hzio_read_out_numpy_s": t_into_numpy, "library_s": t_lib,
                     "hzio_read_out_cpu_s": cpu_into, "library_cpu_s": cpu_lib})
        del touched, touched_numpy

    out_npy = os.path.join(work, "out.npy")
    t_cli, peak_kib = cli_read(args.hzio, idx, out_npy, rep)
    assert np.array_equal(np.load(out_npy, mmap_mode="r")[::37, ::41, ::43], a[::37, ::41, ::43])
    t_ov_full = rows[0]["openvisus_s"]
    load_end = os.getloadavg()

    nbytes = a.nbytes
    lines = [
        "## Python and CLI reads (issue 17)",
        "",
        f"{n}^3 float32 ({nbytes / 2**20:.0f} MiB) written by OpenVisus (raw, row-major), read from the page "
        f"cache; medians of {rep} runs, measured side by side in one run (load average "
        f"{load_start[0]:.2f} at the start, {load_end[0]:.2f} at the end; {os.cpu_count()} cores):",
        "",
        "    " + " ".join(["python", *sys.argv]),
        "",
        "| level H | samples | OpenVisus db.read (s) | hzio ds.read (s) | x OpenVisus | hzio ds.read(out=) (s) "
        "| C++ ReadInto (s) | out= / C++ | CPU s: out= / C++ | out= np.ones (s) | np.ones / C++ |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['level']} | {r['samples']} | {r['openvisus_s']:.4f} | {r['hzio_read_s']:.4f} | "
                     f"**{r['openvisus_s'] / r['hzio_read_s']:.1f}x** | {r['hzio_read_out_s']:.4f} | "
                     f"{r['library_s']:.4f} | **{r['hzio_read_out_s'] / r['library_s']:.2f}** | "
                     f"{r['hzio_read_out_cpu_s']:.4f} / {r['library_cpu_s']:.4f} = "
                     f"{r['hzio_read_out_cpu_s'] / r['library_cpu_s']:.2f} | {r['hzio_read_out_numpy_s']:.4f} | {r['hzio_read_out_numpy_s'] / r['library_s']:.2f} |")
    full = rows[0]
    lines += [
        "",
        f"`hzio read DATASET -o out.npy` as a whole process: {t_cli:.3f} s, **{t_ov_full / t_cli:.1f}x** "
        f"OpenVisus's in-process read ({t_ov_full:.3f} s), peak RSS {peak_kib / 1024:.0f} MiB for a "
        f"{nbytes / 2**20:.0f} MiB result (**{peak_kib * 1024 / nbytes:.2f}x** the result).",
        "",
        f"* full resolution, in process: {full['openvisus_s'] / full['hzio_read_s']:.1f}x OpenVisus with a new "
        f"array (target >= 5x), the binding {100 * (full['hzio_read_out_s'] / full['library_s'] - 1):+.0f}% "
        f"against the C++ library's read into a touched buffer in wall time, "
        f"{100 * (full['hzio_read_out_cpu_s'] / full['library_cpu_s'] - 1):+.0f}% in CPU time "
        f"(target within 10%); a new array adds the "
        f"first touch of {nbytes / 2**20:.0f} MiB of fresh memory "
        f"({full['hzio_read_s'] - full['hzio_read_out_s']:+.3f} s: the kernel zeroes each huge page at its "
        f"first write, here while the read's threads fill it; populating it ahead with "
        f"MADV_POPULATE_WRITE cost more, on one thread).",
        f"* out= and C++ read into the same kind of touched memory (hzio::LargeAllocation: 2 MiB-aligned, "
        f"huge-page advised; `hzio.empty` in Python, which is also what `ds.read()` returns). A touched "
        f"`np.ones` array starts 16 bytes past a page boundary: every row of the result then shares its "
        f"first and last cache lines with its neighbours, which take ordinary stores (a read of the line "
        f"from memory first) instead of streaming ones; at full resolution a block's rows are short "
        f"(128 and 256 bytes here), so that costs {100 * (full['hzio_read_out_numpy_s'] / full['hzio_read_out_s'] - 1):+.0f}% "
        f"(np.ones column).",
        f"* CLI: {t_ov_full / t_cli:.1f}x OpenVisus (target >= 3x), peak RSS "
        f"{peak_kib * 1024 / nbytes:.2f}x the result (target: well under it).",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    print(json.dumps({"size": n, "rows": rows, "cli_s": t_cli, "cli_peak_kib": peak_kib,
                      "loadavg_start": load_start, "loadavg_end": load_end}))
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
