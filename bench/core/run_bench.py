#!/usr/bin/env python3
"""Serial read and write of a 512^3 float32 dataset: hzio vs OpenVisus 2.2.149 vs memcpy, side by
side in one run (issue 2, design.md §7). Writes bench/core/RESULTS.md.

    .venv/bin/python bench/core/run_bench.py --bench build/bench/core/hzio-bench-core \
        --hzio build/reader/tools/hzio [--size 512] [--repeat 5]

OpenVisus writes the dataset (raw, row-major, its default layout); both libraries then read those
same files from the page cache, full resolution and coarser levels. The same array is also stored
as ARCO (one file per block: `ov.create_idx` + `db.write`, raw, and `compress_dataset()`, zip) and
classic zip, each read by both libraries. Writes: both write the same
in-memory array with the same bitsperblock/blocksperfile, raw and zip; and `hzio convert` of the
same array as a .npy file (page cache) is timed end to end as a scientist would run it. Every figure is a median of
--repeat runs; ratios are computed from medians measured in this run.

With --cold (issue 18; root, as it drops the page cache) only the cold-cache reads run, see
cold_reads(). Each mode replaces only its own section of RESULTS.md.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import page_reporting  # noqa: E402  bench/page_reporting.py

os.environ.setdefault("VISUS_DISABLE_WRITE_LOCK", "1")
import OpenVisus as ov  # noqa: E402


def median_time(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def hzio(bench, *args):
    out = subprocess.run([bench, *map(str, args)], check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def make_array(n):
    z, y, x = np.meshgrid(*(np.arange(n, dtype=np.float32),) * 3, indexing="ij")
    a = np.sin(x * 0.05) * np.cos(y * 0.03) + np.sin(z * 0.11) + 0.001 * x * y / n
    return np.ascontiguousarray(a.astype(np.float32))


def replace_section(path, heading, text):
    """Writes `text` (starting with `heading`) into the markdown file `path` in place of the
    section that starts with that heading, keeping the other sections (each mode of this script
    owns one)."""
    print(text)
    old = open(path).read() if os.path.exists(path) else ""
    sections, current = [], []
    for line in old.splitlines():
        if line.startswith("## ") and current:
            sections.append(current)
            current = []
        current.append(line)
    if current:
        sections.append(current)
    body = [text.rstrip("\n").splitlines()]
    done = False
    out = []
    for sec in sections:
        if sec[0] == heading and not done:
            out += body
            done = True
        elif sec[0] != heading:
            out.append(sec)
    if not done:
        out += body
    with open(path, "w") as f:
        f.write("\n\n".join("\n".join(sec).strip("\n") for sec in out) + "\n")


def drop_caches():
    subprocess.run(["sync"], check=True)
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def write_source_slabs(n, path, planes=32):
    """The benchmark array (make_array's formula) written to `path` a few z-planes at a time, so
    generating a 4 GiB array needs no more than the array itself."""
    y, x = np.meshgrid(np.arange(n, dtype=np.float32), np.arange(n, dtype=np.float32), indexing="ij")
    base = np.sin(x * 0.05) * np.cos(y * 0.03) + 0.001 * x * y / n
    with open(path, "wb") as f:
        for z0 in range(0, n, planes):
            z = np.arange(z0, min(n, z0 + planes), dtype=np.float32)[:, None, None]
            (base[None] + np.sin(z * 0.11)).astype(np.float32).tofile(f)


def cold_reads(args):
    """Issue 18: cold-cache reads of an n^3 float32 dataset written by OpenVisus (raw, row-major):
    full resolution, 1/8, 1/512 of the samples and a 256^3 sub-box at full resolution, hzio
    (library via hzio-bench-core; CLI whole process `hzio read -o /dev/null`) vs OpenVisus
    (Python, in-process), against the disk's sequential buffered read of the same block files
    (hzio-bench-core seqread, 1 MiB reads). The page cache is dropped before every timed run."""
    n, rep = args.size, args.repeat
    work = args.workdir or tempfile.mkdtemp(prefix="hzio_bench_cold_")
    os.makedirs(work, exist_ok=True)
    raw = os.path.join(work, "source.raw")
    write_source_slabs(n, raw)
    ov_dir = os.path.join(work, "ov")
    idx = os.path.join(ov_dir, "visus.idx")
    shutil.rmtree(ov_dir, ignore_errors=True)
    t0 = time.perf_counter()
    a = np.fromfile(raw, dtype=np.float32).reshape(n, n, n)
    os.remove(raw)  # only the dataset stays on disk
    db = ov.CreateIdx(url=idx, dims=[n, n, n], fields=[ov.Field("data", "float32", "row_major")])
    db.write(a)
    ov_write_s = time.perf_counter() - t0
    header = open(idx).read().split()
    maxh = len(header[header.index("(bits)") + 1]) - 1
    bpb = int(header[header.index("(bitsperblock)") + 1])
    bpf = int(header[header.index("(blocksperfile)") + 1])
    lo, hi = n // 2 - min(n, 256) // 2, n // 2 + min(n, 256) // 2
    box_check = a[lo:hi, lo:hi, lo:hi].copy()
    del a
    db = ov.LoadDataset(idx)
    assert np.array_equal(db.read(logic_box=[[lo] * 3, [hi] * 3]), box_check)
    del box_check
    files = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(ov_dir) for f in fs if f.endswith(".bin"))
    disk_bytes = sum(os.path.getsize(f) for f in files)

    def ov_cold(**kw):
        times = []
        for _ in range(rep):
            drop_caches()
            t = time.perf_counter()
            db.read(**kw)
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    def cli_cold(*extra):
        times, rss = [], []
        for _ in range(rep):
            drop_caches()
            t = time.perf_counter()
            r = subprocess.run(["/usr/bin/time", "-f", "%M", args.hzio, "read", idx, "-o", "/dev/null", *extra],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            times.append(time.perf_counter() - t)
            rss.append(int(r.stderr.strip().splitlines()[-1]) / 1024)
        return statistics.median(times), max(rss)

    seq = hzio(args.bench, "seqread", *files, "--repeat", rep, "--cold")
    box_range = ",".join([f"{lo}:{hi}"] * 3)
    queries = [
        ("full resolution", n ** 3, dict(max_resolution=maxh), ["--level", maxh], ["--level", str(maxh)]),
        ("1/8 (level %d)" % (maxh - 3), n ** 3 // 8, dict(max_resolution=maxh - 3), ["--level", maxh - 3],
         ["--level", str(maxh - 3)]),
        ("1/512 (level %d)" % (maxh - 9), n ** 3 // 512, dict(max_resolution=maxh - 9), ["--level", maxh - 9],
         ["--level", str(maxh - 9)]),
        ("%d^3 sub-box, full resolution" % (hi - lo), (hi - lo) ** 3, dict(logic_box=[[lo] * 3, [hi] * 3]),
         ["--box", box_range], ["--box", box_range]),
    ]
    rows = []
    for name, samples, ov_kw, bench_args, cli_args in queries:
        hz = hzio(args.bench, "read", idx, *bench_args, "--repeat", rep, "--cold")
        cli_s, cli_rss = cli_cold(*cli_args)
        ov_s = ov_cold(**ov_kw)
        rows.append((name, samples, ov_s, hz["median_s"], hz["cpu_s"], cli_s, cli_rss))
    load = os.getloadavg()
    seq_gbs = seq["gb_per_s"]
    lines = [
        "## Cold reads at %d^3 (issue 18)" % n,
        "",
        f"{n}^3 float32 ({n ** 3 * 4 / 2**30:.0f} GiB) written by OpenVisus 2.2.149 (`CreateIdx` + `db.write`, raw, "
        f"row-major; {ov_write_s:.1f} s including reading the source), bitmask of maxh {maxh}, bitsperblock {bpb}, "
        f"blocksperfile {bpf}, {len(files)} block files ({disk_bytes / 2**30:.2f} GiB). The page cache is dropped "
        f"(`sync; echo 3 > /proc/sys/vm/drop_caches`) before every timed run; {args.page_reporting}; medians of {rep} "
        "runs, all in one run of:",
        "",
        f"    sudo .venv/bin/python bench/core/run_bench.py --cold --size {n} --repeat {rep} "
        "--bench build/bench/core/hzio-bench-core --hzio build/reader/tools/hzio" +
        (" --keep-page-reporting" if args.keep_page_reporting else ""),
        "",
        f"Disk, sequential buffered read of the same block files one after the other (1 MiB `read`s, as `cat`): "
        f"**{seq['median_s']:.2f} s, {seq_gbs:.2f} GB/s** (runs {', '.join('%.2f' % t for t in seq['runs'])}).",
        "",
        "| query | samples | OpenVisus (s) | hzio library (s) | hzio CPU (s) | speed-up | hzio GB/s | "
        "hzio / disk sequential | `hzio read -o /dev/null` (s) | its peak RSS (MiB) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, samples, ov_s, hz_s, cpu_s, cli_s, cli_rss in rows:
        gbs = samples * 4 / hz_s / 1e9
        lines.append(f"| {name} | {samples} | {ov_s:.3f} | {hz_s:.3f} | {cpu_s:.2f} | {ov_s / hz_s:.1f}x | {gbs:.2f} | "
                     f"{gbs / seq_gbs:.2f}x | {cli_s:.3f} | {cli_rss:.0f} |")
    lines += ["", f"Load average at the end of the run: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} (2 cores, shared).", ""]
    replace_section(args.out, lines[0], "\n".join(lines))
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True)
    ap.add_argument("--hzio", required=True)
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "RESULTS.md"))
    ap.add_argument("--cold", action="store_true",
                    help="only the cold-cache reads of issue 18 (--size 1024, root: drops the page cache)")
    ap.add_argument("--keep-page-reporting", action="store_true",
                    help="with --cold: leave a virtual machine's free page reporting on (held off by default: "
                    "bench/page_reporting.py)")
    args = ap.parse_args()
    if args.cold:
        with page_reporting.held(not args.keep_page_reporting) as args.page_reporting:
            return cold_reads(args)
    n, rep = args.size, args.repeat
    work = args.workdir or tempfile.mkdtemp(prefix="hzio_bench_core_")
    os.makedirs(work, exist_ok=True)
    a = make_array(n)
    raw = os.path.join(work, "source.raw")
    a.tofile(raw)
    nbytes = a.nbytes
    rows = []

    # --- OpenVisus writes the dataset both libraries read -----------------------------------------
    ov_dir = os.path.join(work, "ov")
    idx = os.path.join(ov_dir, "visus.idx")

    def ov_write_raw():
        shutil.rmtree(ov_dir, ignore_errors=True)
        db = ov.CreateIdx(url=idx, dims=[n, n, n], fields=[ov.Field("data", "float32", "row_major")])
        db.write(a)

    ov_raw_s = median_time(ov_write_raw, max(1, rep // 2))
    header = open(idx).read().split()
    bpb = int(header[header.index("(bitsperblock)") + 1])
    bpf = int(header[header.index("(blocksperfile)") + 1])
    maxh = len(header[header.index("(bits)") + 1]) - 1

    zip_dir = os.path.join(work, "ovzip")

    def ov_write_zip():
        shutil.rmtree(zip_dir, ignore_errors=True)
        ov.CreateIdx(url=os.path.join(zip_dir, "visus.idx"), dim=3, data=a, compression=["zip"],
                     bitsperblock=bpb, blocksperfile=bpf)

    ov_zip_s = median_time(ov_write_zip, max(1, rep // 2))
    hz_raw = hzio(args.bench, "write", raw, os.path.join(work, "hz_raw/visus.idx"), "--dims", f"{n},{n},{n}",
                  "--dtype", "float32", "--bitsperblock", bpb, "--blocksperfile", bpf, "--repeat", max(1, rep // 2))
    hz_zip = hzio(args.bench, "write", raw, os.path.join(work, "hz_zip/visus.idx"), "--dims", f"{n},{n},{n}",
                  "--dtype", "float32", "--compression", "zip", "--bitsperblock", bpb, "--blocksperfile", bpf,
                  "--repeat", max(1, rep // 2))
    npy = os.path.join(work, "source.npy")
    np.save(npy, a)

    def convert(codec):
        out = os.path.join(work, f"conv_{codec}")
        shutil.rmtree(out, ignore_errors=True)
        subprocess.run([args.hzio, "convert", npy, os.path.join(out, "visus.idx"), "--compression", codec,
                        "--bitsperblock", str(bpb), "--blocksperfile", str(bpf)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    conv_raw = median_time(lambda: convert("raw"), max(1, rep // 2))
    conv_zip = median_time(lambda: convert("zip"), max(1, rep // 2))
    rows.append(("write raw (library, from memory)", ov_raw_s, hz_raw["median_s"]))
    rows.append(("write zip (library, from memory)", ov_zip_s, hz_zip["median_s"]))
    rows.append(("`hzio convert` .npy -> raw (CLI)", ov_raw_s, conv_raw))
    rows.append(("`hzio convert` .npy -> zip (CLI)", ov_zip_s, conv_zip))

    # --- reads of OpenVisus's files ---------------------------------------------------------------
    db = ov.LoadDataset(idx)
    assert np.array_equal(db.read(), a)
    memcpy = hzio(args.bench, "memcpy", nbytes, "--repeat", rep)
    read_rows = []
    for h in [maxh, maxh - 1, maxh - 3, maxh - 6, maxh - 9]:
        db.read(max_resolution=h)  # warm
        ov_s = median_time(lambda: db.read(max_resolution=h), rep)
        hz = hzio(args.bench, "read", idx, "--level", h, "--repeat", rep)
        read_rows.append((h, hz["samples"], ov_s, hz["median_s"]))

    # --- the same array stored classic vs ARCO (one file per block, idx-format.md §4.12) --------------
    # OpenVisus's documented API writes the ARCO copies: ov.create_idx (1 MB blocks) + db.write
    # (raw), and the same again + compress_dataset() (zip). Every row reads those very files with
    # both libraries, full resolution and a coarse level.
    layouts = [("classic raw", idx), ("classic zip", os.path.join(zip_dir, "visus.idx"))]
    for codec in ("raw", "zip"):
        arco_idx = os.path.join(work, f"arco_{codec}", "visus.idx")
        shutil.rmtree(os.path.dirname(arco_idx), ignore_errors=True)
        adb = ov.create_idx(url=arco_idx, shape=a.shape, fields=[ov.Field("data", "float32")])
        adb.write(a)
        if codec == "zip":
            ov.LoadDataset(arco_idx).compress_dataset()
        layouts.append((f"ARCO {codec} (1 MB blocks)", arco_idx))
    layout_rows = []
    for name, path in layouts:
        ldb = ov.LoadDataset(path)
        assert np.array_equal(ldb.read(), a), name
        for h in (maxh, maxh - 6):
            ldb.read(max_resolution=h)  # warm
            ov_s = median_time(lambda: ldb.read(max_resolution=h), rep)
            hz = hzio(args.bench, "read", path, "--level", h, "--repeat", rep)
            layout_rows.append((name, h, ov_s, hz["median_s"]))

    # --- report -----------------------------------------------------------------------------------
    full_hz = read_rows[0][3]
    lines = [
        "## Serial read and write (issue 2)",
        "",
        f"{n}^3 float32 ({nbytes / 2**20:.0f} MiB), bitmask of maxh {maxh}, bitsperblock {bpb}, "
        f"blocksperfile {bpf}; medians of {rep} runs (writes: {max(1, rep // 2)}), all measured in one run of:",
        "",
        "    .venv/bin/python bench/core/run_bench.py --bench build/bench/core/hzio-bench-core --hzio build/reader/tools/hzio",
        "",
        "OpenVisus writes: `CreateIdx(dims, fields)` + `db.write(array)` (raw); `CreateIdx(data=array, "
        "compression=['zip'])` (zip).",
        "",
        "| operation | OpenVisus 2.2.149 (s) | hzio (s) | hzio speed-up |",
        "|---|---|---|---|",
    ]
    for name, ov_s, hz_s in rows:
        lines.append(f"| {name} | {ov_s:.3f} | {hz_s:.3f} | {ov_s / hz_s:.1f}x |")
    lines += ["", "| read level H | samples | OpenVisus (s) | hzio (s) | hzio speed-up | hzio GB/s | hzio time / full-res time |",
              "|---|---|---|---|---|---|---|"]
    for h, samples, ov_s, hz_s in read_rows:
        lines.append(f"| {h} | {samples} | {ov_s:.4f} | {hz_s:.4f} | {ov_s / hz_s:.1f}x | "
                     f"{samples * 4 / hz_s / 1e9:.2f} | {hz_s / full_hz:.3f} |")
    lines += ["", "Classic vs ARCO: the same array in each layout, read by both libraries (box query of the "
              "whole dataset at level H; ARCO written by `ov.create_idx` + `db.write`, zip by "
              "`compress_dataset()`).", "",
              "| layout | level H | OpenVisus (s) | hzio (s) | hzio speed-up | hzio GB/s |", "|---|---|---|---|---|---|"]
    for name, h, ov_s, hz_s in layout_rows:
        samples = [r[1] for r in read_rows if r[0] == h]
        gbs = f"{samples[0] * 4 / hz_s / 1e9:.2f}" if samples else "-"
        lines.append(f"| {name} | {h} | {ov_s:.4f} | {hz_s:.4f} | {ov_s / hz_s:.1f}x | {gbs} |")
    mc = memcpy["median_s"]
    lines += ["", f"memcpy of {nbytes / 2**20:.0f} MiB (pre-touched buffers): {mc:.4f} s "
              f"({nbytes / mc / 1e9:.2f} GB/s); hzio full-resolution read = "
              f"**{mc / full_hz:.2f}x memcpy bandwidth**.", ""]
    replace_section(args.out, lines[0], "\n".join(lines))
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
