#!/usr/bin/env python3
"""Runs the hzio::mpi benchmarks side by side and writes bench/mpi/RESULTS.md.

  python3 bench/mpi/run_bench.py --build build-mpi [--reps 5] [--ranks 1,2,4,8]
  python3 bench/mpi/run_bench.py --build build --sizes 64,128,256,512f32 --regimes page,durable,cold \
      --ranks 1,2,4,8 [--reps 5]

The first form is the small-size suite (32³ per rank, every variant); the second the realistic sizes
of issue 18: N³ samples per rank of the S3D case (16 float64 values per sample, "N") or of one
float32 field ("Nf32"), in three regimes — page cache (write and read), durable (every method
fsyncs before it returns), cold (the page cache dropped before every read of every method) — and
writes its tables between the "sizes" markers of RESULTS.md. Combinations that do not fit this
machine's memory or disk are skipped with the reason printed.

Every number in one table comes from the same `hzio_mpi_bench` run (methods interleaved, order
shuffled every repetition, medians of --reps), so ratios are measured side by side. Each time runs
from the first rank's start to the last rank's end (hzio_mpi_bench's Timed)."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import namedtuple

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import page_reporting  # noqa: E402  bench/page_reporting.py

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_osc="^ucx")


def run(cmd):
    out = subprocess.run(cmd, env=ENV, check=True, capture_output=True, text=True, timeout=1800).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def mpiexec(n, *args):
    """Each rank gets its share of the cores (at 1 rank both: a rank of a hybrid MPI + threads code);
    beyond one rank per core, Open MPI's default (ranks share the cores)."""
    cores = os.cpu_count() or 1
    share = ["--map-by", f"slot:PE={cores // n}"] if n < cores else []
    return ["mpiexec", "--oversubscribe", *share, "-n", str(n), *args]


def table(rows, header):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def status(ok):
    return "met" if ok else "NOT met"


# One entry per method: its name in hzio_mpi_bench's write and read lines and its role in the
# ratios ("subject": hzio; "fpp": file-per-process; "peer": the libraries hzio must be ahead of;
# "floor": the HZ floor). Another method (e.g. PIDX) is one more entry here and in the bench.
Method = namedtuple("Method", "write read role")
METHODS = [
    Method("hzio", "hzio two-phase", "subject"),
    Method("file-per-process", "file-per-process", "fpp"),
    Method("mpi-io", "mpi-io", "peer"),
    Method("hdf5", "hdf5", "peer"),
    Method("pnetcdf", "pnetcdf", "peer"),
    Method("hz floor", "hz floor", "floor"),
]
PEERS = tuple(m.write for m in METHODS if m.role == "peer")  # the shared-file libraries hzio must be ahead of
FLOOR = "hz floor"  # file-per-process of HZ-ordered data: the least any HZ writer/reader does (hz_floor.h)
DISK_FLOOR = "disk floor"  # durable writes: the raw bytes, O_DIRECT + fsync, no encoding (disk_floor.h)
CONTROL = "file-per-process again"  # file-per-process under a second name (--control)


def speed(by, a, b):
    """How much faster method a is than method b in one run: the median over repetitions of b's time
    over a's in the same repetition (the methods of a repetition run back to back, so this cancels
    the slow spells of a shared machine that medians taken separately would not)."""
    ta, tb = by[a]["times"], by[b]["times"]
    ratios = sorted(y / x for x, y in zip(ta, tb))
    return ratios[len(ratios) // 2]


def vs_best_peer(by, a):
    """a's speed relative to the fastest of MPI-IO, HDF5 and PnetCDF (repetition by repetition)."""
    return min(speed(by, a, m) for m in PEERS if m in by)


def floor_note(value, target, above=True):
    """How the HZ floor itself fares against a target: where it misses, no HZ layout can meet it."""
    ok = value >= target if above else value <= target
    return f"floor {value:.2f}" + ("" if ok else ", out of reach for any HZ layout here")


def verdicts(writes, reads, levels, balance):
    """One line per target of design.md §7, from this run's numbers."""
    out = []
    ranks = sorted({n for (_, n) in writes})
    g = lambda by, m: by[m]["gib_per_s"]
    w = {n: speed(writes[(32, n)], "hzio", "file-per-process") for n in ranks}
    wf = {n: speed(writes[(32, n)], FLOOR, "file-per-process") for n in ranks}
    out.append("* write >= 0.9x file-per-process: " + ", ".join(
        f"{n} ranks {w[n]:.2f} ({status(w[n] >= 0.9)}; {floor_note(wf[n], 0.9)})" for n in ranks))
    for method in ("hzio", "hzio files=ranks"):
        ahead = {n: vs_best_peer(writes[(32, n)], method) for n in ranks}
        af = {n: vs_best_peer(writes[(32, n)], FLOOR) for n in ranks}
        out.append(f"* write ahead of MPI-IO, HDF5 and PnetCDF ({method}): " + ", ".join(
            f"{n} ranks {ahead[n]:.2f}x the best ({status(ahead[n] > 1)}; {floor_note(af[n], 1.0)})" for n in ranks))
    irr = {n: g(writes[(30, n)], "hzio") / g(writes[(32, n)], "hzio") for n in ranks}  # two runs: medians
    out.append("* irregular (30³) within 10% of regular (32³), GiB/s ratio of the medians: " +
               ", ".join(f"{n} ranks {irr[n]:.2f} ({status(irr[n] >= 0.9)})" for n in ranks))
    r = {n: speed(reads[n], "hzio two-phase", "file-per-process") for n in ranks}
    rf = {n: speed(reads[n], FLOOR, "file-per-process") for n in ranks}
    out.append("* restart read >= 0.9x file-per-process: " + ", ".join(
        f"{n} ranks {r[n]:.2f} ({status(r[n] >= 0.9)}; {floor_note(rf[n], 0.9)})" for n in ranks))
    m = {n: speed(reads[n], "hzio two-phase", "mpi-io") for n in ranks}
    mf = {n: speed(reads[n], FLOOR, "mpi-io") for n in ranks}
    out.append("* restart read ahead of MPI-IO collective: " + ", ".join(
        f"{n} ranks {m[n]:.2f}x ({status(m[n] > 1)}; {floor_note(mf[n], 1.0)})" for n in ranks))
    half = [row for row in levels if row[0] == "1/2" and row[2] == "hzio two-phase"]
    if half:
        out.append(f"* half-resolution read <= 0.6x full (two-phase, {ranks[-1]} ranks): {half[0][5]} ({status(float(half[0][5]) <= 0.6)})")
    worst = max(float(row[4]) for row in balance)
    out.append(f"* max/mean bytes per aggregator <= 1.25 at every level: worst {worst:.3f} ({status(worst <= 1.25)})")
    return out


REGIMES = {  # name -> (bench op, extra flags, title)
    "page": [("write", [], "page-cache write"), ("read", [], "page-cache read")],
    "durable": [("write", ["--sync"], "durable write (every method fsyncs before returning)")],
    "cold": [("read", ["--cold"], "cold read (page cache dropped before every read)")],
}


def parse_size(token):
    """"256" -> (256, "s3d"): the S3D case, 16 float64 values per sample; "512f32" -> (512, "float32")."""
    if token.endswith("f32"):
        return int(token[:-3]), "float32"
    return int(token), "s3d"


def size_label(n, kind):
    return f"{n}³ × 16 float64" if kind == "s3d" else f"{n}³ float32"


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def fits(op, per_rank_bytes, ranks, methods, scratch, cold):
    """None when the combination fits this machine, else the reason it does not. Memory per rank:
    the case's data, the HZ floor's encoded copy, hzio's aggregation window (<= the data) and, for
    reads, the read-back buffer, plus the libraries' buffers (2.6-3.1 GB per rank were seen reading or
    writing 512³ float32, 0.5 GiB of data); disk: a write keeps one method's files at a time, a read every
    method's."""
    # Peak RSS per rank (`/usr/bin/time -v`, 2026-11-28): reads of 256³ × 16 float64 with the methods of
    # the matrix, 6.7 GB at 1 rank and 6.9 GB at 2 (3.2x the data: the case, the read-back buffer and the
    # HZ floor's encoded copy), MemAvailable never below 9 GiB of 21; reads of 128³ × 16 float64 at 8
    # ranks 1.2-1.4 GB per rank; durable writes of 512³ float32 at 8 ranks held ~3 GB per rank. (An
    # earlier run of reads was killed by the OOM killer at 2 ranks x 2 GiB under an estimate of 4.5x;
    # what held the memory then was not recorded.)
    need_mem = ranks * (3.5 * per_rank_bytes + ((1024 if op == "read" else 1536) << 20))
    avail = mem_available()
    if need_mem > 0.9 * avail:
        return f"needs ~{need_mem / 2**30:.1f} GiB of memory, {avail / 2**30:.1f} GiB available now"
    copies = 1 if op == "write" else len(methods)
    need_disk = int(1.1 * copies * ranks * per_rank_bytes)
    os.makedirs(scratch, exist_ok=True)
    free = shutil.disk_usage(scratch).free
    if need_disk > 0.9 * free:
        return f"needs ~{need_disk / 2**30:.1f} GiB of disk in {scratch}, {free / 2**30:.1f} GiB free"
    if cold and not os.access("/proc/sys/vm/drop_caches", os.W_OK):
        return "cold reads need root (/proc/sys/vm/drop_caches)"
    return None


def run_sizes(args):
    """The realistic sizes of issue 18 (module docstring); returns the markdown section."""
    bench = os.path.join(args.build, "bench/mpi/hzio_mpi_bench")
    ranks = [int(x) for x in args.ranks.split(",")]
    sizes = [parse_size(t) for t in args.sizes.split(",")]
    # PIDX 0.9.3 only when hzio_mpi_bench was built with -DPIDX_DIR (README.md): it is what hzio must
    # beat everywhere, so it gets a ratio column of its own rather than a place among the peers.
    methods = METHODS + ([Method("pidx", "pidx", "pidx")] if args.pidx else [])
    # The control: file-per-process measured twice under two names in the same run. Its ratio is
    # what a ratio of this run is worth: the spread of one method against itself.
    if args.control:
        methods.append(Method(CONTROL, CONTROL, "control"))
    regimes = args.regimes.split(",")
    ops = args.ops.split(",")
    for o in ops:
        if o not in ("write", "read"):
            sys.exit(f"--ops: unknown operation '{o}' (write, read)")
    for r in regimes:
        if r not in REGIMES:
            sys.exit(f"--regimes: unknown regime '{r}' (page, durable, cold)")
    load = os.getloadavg()[0]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    t_start = time.time()
    cmd = (f"python3 bench/mpi/run_bench.py --build {args.build} --sizes {args.sizes} --regimes {args.regimes} "
           f"--ranks {args.ranks} --reps {args.reps}" + (" --pidx" if args.pidx else "") +
           (f" --ops {args.ops}" if ops != ["write", "read"] else "") + (" --control" if args.control else "") +
           (" --keep-page-reporting" if args.keep_page_reporting else ""))
    md = ["<!-- sizes:begin (written by run_bench.py --sizes) -->",
          "## Issue 18: realistic sizes, three regimes", "",
          f"Run {started}, `mpiexec --oversubscribe` on this 2-core machine (ranks > 2 share 2 cores; at 2 ranks",
          "Open MPI binds each rank to a core of its own; 1 rank gets both, `--map-by slot:PE=2`); 1-minute load",
          f"average at start {load:.1f}. Per rank N³ samples of the S3D case (pressure, temperature, velocity[3],",
          "species[11] float64: 128 bytes per sample) or of one float32 field. Every method writes from and reads",
          "into pre-touched buffers; each table row is one `hzio_mpi_bench` run, methods interleaved in a shuffled",
          "order every repetition; GiB/s are medians, ratios medians of per-repetition ratios. A time runs from",
          "the first rank's start to the last rank's end (section \"the clock of a parallel operation\"). \"best peer\" is the",
          "fastest of " + ", ".join(PEERS) + ". \"disk floor\" (durable writes) writes each rank's bytes as they are,",
          "the way hzio writes a durable file (O_DIRECT, then fsync; bench/mpi/disk_floor.h): what this disk takes",
          f"to make them durable. Memory: {args.page_reporting}. Command:", "", "    " + cmd, ""]
    skipped, crashes = [], []
    for regime in regimes:
        for op, flags, title in REGIMES[regime]:
            if op not in ops:
                continue
            names = [m.write if op == "write" else m.read for m in methods]
            # Durable writes: the disk's own bound beside them (the bytes as they are, written the
            # way hzio writes a durable file: disk_floor.h).
            bound = DISK_FLOOR if op == "write" and "--sync" in flags else None
            if bound:
                names.append(bound)
            subject = names[0]
            order = ("restructure", "hz", "aggregate", "io") if op == "write" else ("io", "aggregate", "hz", "restructure")
            rows, phases = [], []
            header = None
            for n, kind in sizes:
                per_rank_bytes = n ** 3 * (128 if kind == "s3d" else 4)
                for k in ranks:
                    why = fits(op, per_rank_bytes, k, methods, args.scratch, "--cold" in flags)
                    if why:
                        skipped.append(f"{title}, {size_label(n, kind)} per rank, {k} ranks: {why}")
                        print(f"skip: {skipped[-1]}", file=sys.stderr, flush=True)
                        continue
                    t0 = time.time()
                    row = lambda only: run(mpiexec(k, bench, op, "--per-rank", str(n), "--fields", kind, "--reps",
                                                   str(args.reps), "--dir", args.scratch, "--only", ",".join(only), *flags))
                    try:
                        res = row(names)
                    except subprocess.CalledProcessError as e:
                        if "pidx" not in names:
                            raise
                        # PIDX 0.9.3 itself crashes on some cases (segfaults on 512³ float32 at 1-4
                        # ranks): the row is measured again without it, and says so.
                        shutil.rmtree(args.scratch, ignore_errors=True)
                        res = row([m for m in names if m != "pidx"])
                        crashes.append(f"{title}, {size_label(n, kind)} per rank, {k} ranks: exit {e.returncode} "
                                       "with PIDX among the methods; measured without PIDX")
                        print(f"pidx: {crashes[-1]}", file=sys.stderr, flush=True)
                    shutil.rmtree(args.scratch, ignore_errors=True)  # the next run's disk check sees it free
                    print(f"{title}, {size_label(n, kind)}, {k} ranks: {time.time() - t0:.0f} s", file=sys.stderr,
                          flush=True)
                    by = {r["method"]: r for r in res}
                    peers = [m for m in PEERS if m in by]
                    ratios = [f'{speed(by, subject, names[1]):.2f}' if names[1] in by else "-",
                              f'{min(speed(by, subject, m) for m in peers):.2f}' if peers else "-",
                              f'{speed(by, subject, FLOOR):.2f}' if FLOOR in by else "-"]
                    cols = ["size per rank", "ranks"] + [f"{m} GiB/s" for m in names] + [
                        "hzio / fpp", "hzio / best peer", "hzio / hz floor"]
                    if args.pidx:
                        ratios.append(f'{speed(by, subject, "pidx"):.2f}' if "pidx" in by else "-")
                        cols.append("hzio / pidx")
                    if args.control:
                        ratios.append(f'{speed(by, CONTROL, names[1]):.2f}' if CONTROL in by else "-")
                        cols.append("fpp again / fpp")
                    if bound:
                        ratios += [f'{speed(by, subject, bound):.2f}' if bound in by else "-",
                                   f'{speed(by, names[1], bound):.2f}' if bound in by and names[1] in by else "-"]
                        cols += ["hzio / disk floor", "fpp / disk floor"]
                    header = header or cols
                    rows.append([size_label(n, kind), k] +
                                [f'{by[m]["gib_per_s"]:.3f}' if m in by else "-" for m in names] + ratios)
                    p = by[subject]["phases"]
                    phases.append([size_label(n, kind), k, f'{by[subject]["median_s"]:.3f}'] + [f"{p[x]:.3f}" for x in order])
            if rows:
                md += [f"### {title}", "", table(rows, header), "",
                       f"hzio phase split ({'writer' if op == 'write' else 'reader'}, max over ranks, seconds):", "",
                       table(phases, ["size per rank", "ranks", "total"] + list(order)), ""]
    if skipped:
        md += ["Skipped (do not fit this machine now):", ""] + [f"* {s}" for s in skipped] + [""]
    if crashes:
        md += ["Rows measured again without PIDX (the run with it failed):", ""] + [f"* {s}" for s in crashes] + [""]
    md += [f"Whole run: {(time.time() - t_start) / 60:.1f} min; 1-minute load average at the end {os.getloadavg()[0]:.1f}.",
           "<!-- sizes:end -->"]
    return "\n".join(md)


def replace_section(path, text):
    """Puts `text` between the sizes markers of `path` (appended when the file has none)."""
    old = open(path).read() if os.path.exists(path) else ""
    begin, end = old.find("<!-- sizes:begin"), old.find("<!-- sizes:end -->")
    if begin >= 0 and end > begin:
        new = old[:begin] + text + old[end + len("<!-- sizes:end -->"):]
    else:
        new = old.rstrip("\n") + "\n\n" + text + "\n"
    with open(path, "w") as f:
        f.write(new)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build-mpi")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ranks", default="1,2,4,8")
    ap.add_argument("--sizes", help="realistic sizes, e.g. 64,128,256,512f32 (N: S3D case N³ per rank; Nf32: one float32 field)")
    ap.add_argument("--regimes", default="page,durable,cold", help="with --sizes: any of page, durable, cold")
    ap.add_argument("--ops", default="write,read",
                    help="with --sizes: the operations of each regime to run (write, read; e.g. write for a writer A/B)")
    ap.add_argument("--pidx", action="store_true",
                    help="with --sizes: PIDX 0.9.3 too (hzio_mpi_bench built with -DPIDX_DIR, README.md)")
    ap.add_argument("--control", action="store_true",
                    help="with --sizes: file-per-process a second time, as \"file-per-process again\" (its ratio to the first is the run's noise)")
    ap.add_argument("--keep-page-reporting", action="store_true",
                    help="leave a virtual machine's free page reporting on (by default held off for the run: bench/page_reporting.py)")
    ap.add_argument("--scratch", default="/tmp/hzio-mpi-bench", help="where the benchmark's files go")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md"))
    args = ap.parse_args()
    with page_reporting.held(not args.keep_page_reporting) as args.page_reporting:
        run_suite(args)


def run_suite(args):
    if args.sizes:
        text = run_sizes(args)
        replace_section(args.out, text)
        print(text)
        return
    bench = os.path.join(args.build, "bench/mpi/hzio_mpi_bench")
    tool = os.path.join(args.build, "reader/tools/hzio-mpi")
    ranks = [int(x) for x in args.ranks.split(",")]
    load = os.getloadavg()[0]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    md = ["## Parallel I/O (hzio::mpi): S3D-IO-like weak scaling", "",
          f"Run {started} on this 2-core machine, `mpiexec --oversubscribe` (ranks > 2 share 2 cores), page cache,",
          f"no fsync for any method; 1-minute load average at start {load:.1f}; {args.page_reporting}. Absolute numbers are noisy here:",
          "GiB/s columns are medians of the repetitions; ratio columns are medians of per-repetition ratios",
          "(every repetition runs each method once, back to back, in a shuffled order), which cancel the",
          "machine's slow spells. A time runs from the first rank's start to the last rank's end. Per rank: pressure, temperature, velocity[3],",
          "species[11] float64 = 128 bytes/sample. Every method writes from and reads into pre-touched user",
          "buffers; hzio's own aggregation buffers come from its process-wide buffer pool and are reused, as a",
          "simulation checkpointing repeatedly would; every method runs once untimed before the timed repetitions",
          "(`--warmup 1`, the default), so no first call of a process pays page faults the others do not. The hzio restart read",
          "fetches all four variables in one collective call (`ParallelReader::ReadInto` with several fields).",
          "\"hzio\" uses its default node-shared aggregation windows (ranks on an aggregator's node store into",
          "and load from its memory directly); \"rma-windows\" is the same with MPI_Win_create windows, where every",
          "transfer to another rank is an MPI_Put/MPI_Get, as between nodes of a cluster. \"hzio\" writes the",
          "parallel writer's default layout (2^16-sample blocks; files of at most 128 MiB, cut so that each",
          "aggregator writes whole files of its own); \"hzio files=ranks\" the same data with a block per rank's",
          "worth of samples and a block per file (one file per rank, as file-per-process writes).",
          "\"hz floor\" is a yardstick, not a format (bench/mpi/hz_floor.h): each rank HZ-encodes its own box",
          "with hzio's encoder and writes it to a file of its own (reads: one read, one scatter) — the least work",
          "any HZ layout needs, with no exchange, aggregation or block tables. Where the floor itself misses a",
          "target, no HZ-ordered writer or reader can meet it on this machine.",
          "Command:", "",
          f"    python3 bench/mpi/run_bench.py --build {args.build} --reps {args.reps} --ranks {args.ranks}", ""]

    writes = {}  # (per_rank, ranks) -> {method: result}
    # Writes: regular 32^3 and irregular 30^3 per rank.
    for per_rank, label in ((32, "regular 32³"), (30, "irregular 30³")):
        rows, phases = [], []
        for n in ranks:
            res = run(mpiexec(n, bench, "write", "--per-rank", str(per_rank), "--reps", str(args.reps)))
            by = {r["method"]: r for r in res}
            writes[(per_rank, n)] = by
            ratios = ([f'{speed(by, "hzio", "file-per-process"):.2f}', f'{vs_best_peer(by, "hzio"):.2f}'] +
                      ([f'{speed(by, "hzio", FLOOR):.2f}'] if FLOOR in by else []))
            rows.append([n] + [f'{by[m]["gib_per_s"]:.3f}' for m in by] + ratios)
            p = by["hzio"]["phases"]
            phases.append([n, f'{by["hzio"]["median_s"]:.4f}'] + [f"{p[k]:.4f}" for k in ("restructure", "hz", "aggregate", "io")])
            header = (["ranks"] + [f"{m} GiB/s" for m in by] + ["hzio / fpp", "hzio / best of MPI-IO, HDF5, PnetCDF"] +
                      (["hzio / hz floor"] if FLOOR in by else []))
        md += [f"### Write, {label} per rank", "", table(rows, header), "",
               "hzio phase split (max over ranks, seconds):", "",
               table(phases, ["ranks", "total", "restructure", "hz", "aggregate", "io"]), ""]

    # Effect of the restructuring box and of the aggregator count (largest rank count).
    n = ranks[-1]
    res = run(mpiexec(n, bench, "write", "--per-rank", "32", "--reps", str(args.reps), "--variants"))
    rows = [[r["method"], f'{r["median_s"]:.4f}', f'{r["gib_per_s"]:.3f}'] +
            [f'{r["phases"][k]:.4f}' for k in ("restructure", "hz", "aggregate", "io")]
            for r in res if r["method"].startswith("hzio")]
    md += [f"### Write variants, {n} ranks, 32³ per rank", "",
           table(rows, ["method", "seconds", "GiB/s", "restructure", "hz", "aggregate", "io"]), ""]

    # Restart reads.
    rows = []
    reads = {}
    for n in ranks:
        res = run(mpiexec(n, bench, "read", "--per-rank", "32", "--reps", str(args.reps)))
        by = {r["method"]: r for r in res}
        reads[n] = by
        rows.append([n] + [f'{by[m]["gib_per_s"]:.3f}' for m in by] +
                    [f'{speed(by, "hzio two-phase", m):.2f}' for m in ("file-per-process", "mpi-io", FLOOR)])
        header = ["ranks"] + [f"{m} GiB/s" for m in by] + ["two-phase / fpp", "two-phase / mpi-io", "two-phase / hz floor"]
    md += ["### Restart read, 32³ per rank (each method reads back its own files; all verified equal)", "",
           table(rows, header), ""]

    res = run(mpiexec(n, bench, "read", "--per-rank", "32", "--reps", str(args.reps), "--levels"))
    levels = [r for r in res if r["op"] == "read-level"]
    full = {r["method"]: r["median_s"] for r in levels if r["fraction"] == "1/1"}
    rows = [[r["fraction"], r["level"], r["method"], r["bytes"], f'{r["median_s"]:.4f}',
             f'{r["median_s"] / full[r["method"]]:.2f}'] for r in levels]
    levels = rows
    md += [f"### Multiresolution read, {n} ranks, 32³ per rank", "",
           table(rows, ["samples", "level", "method", "bytes", "seconds", "time / full"]), ""]

    # Aggregator balance at every level on a larger dataset.
    idx = "/tmp/hzio-mpi-bench/balance/visus.idx"
    subprocess.run(mpiexec(n, tool, "write", idx, "--dims", "512,256,256", "--fields", "density:float32",
                           "--blocksperfile", "64"), env=ENV, check=True, capture_output=True, timeout=1800)
    maxh = sum((d - 1).bit_length() for d in (512, 256, 256))  # padded power-of-two extents
    rows = []
    for k in range(10):
        out = subprocess.run(mpiexec(n, tool, "read", idx, "--json", "--verify", "--level", str(maxh - k)),
                             env=ENV, check=True, capture_output=True, text=True, timeout=600)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        b = [a["bytes"] for a in r["aggregators"]]
        rows.append([f"1/{2 ** k}", maxh - k, len(b), max(b), f"{max(b) / (sum(b) / len(b)):.3f}", f'{r["seconds"]:.4f}',
                     r.get("verify", "-")])
    balance = rows
    md += [f"### Aggregator balance, 512×256×256 float32, {n} ranks, two-phase", "",
           table(rows, ["samples", "level", "aggregators", "max bytes", "max / mean", "seconds", "verify"]), ""]

    # Larger per-rank data (64^3, 32 MiB per rank): how the ratios move once fixed costs amortise;
    # and durable writes (every method fsyncs its files before it returns), as a checkpoint needs.
    rows = []
    for op, per_rank, extra, title in (("write", "64", [], "write, 64³ per rank (32 MiB per rank)"),
                                       ("read", "64", [], "read, 64³ per rank (32 MiB per rank)"),
                                       ("write", "32", ["--sync"], "durable write (files fsynced before returning), 32³ per rank")):
        for n in ranks:
            by = {r["method"]: r for r in run(mpiexec(n, bench, op, "--per-rank", per_rank, "--reps", str(args.reps), *extra))}
            method = "hzio" if op == "write" else "hzio two-phase"
            rows.append([op, n] + [f'{by[m]["gib_per_s"]:.3f}' for m in by] +
                        [f'{speed(by, method, "file-per-process"):.2f}', f'{vs_best_peer(by, method):.2f}',
                         f'{speed(by, method, FLOOR):.2f}'])
            header = ["op", "ranks"] + [f"{m} GiB/s" for m in by] + ["hzio / fpp", "hzio / best of MPI-IO, HDF5, PnetCDF", "hzio / hz floor"]
        md += [f"### Supplement: {title}", "", table(rows, header), ""]
        rows = []

    # File bytes of the irregular and regular 8-rank domains (IDX pads both to 64³).
    padded = {}
    for side in (60, 64):
        d = f"/tmp/hzio-mpi-bench/padding{side}"
        subprocess.run(["rm", "-rf", d], check=True)
        subprocess.run(mpiexec(2, tool, "write", d + "/visus.idx", "--dims", f"{side},{side},{side}"), env=ENV, check=True,
                       capture_output=True, timeout=600)
        padded[side] = sum(os.path.getsize(os.path.join(root, f)) for root, _, fs in os.walk(d + "/visus") for f in fs)

    md += ["### Against design.md §7 (computed from the tables above)", ""] + verdicts(writes, reads, levels, balance) + [""]
    md += ["Reading these numbers: the files live in the page cache, so file-per-process is one copy per rank",
           "and one barrier (a 4 MiB restart read takes ~0.2 ms), while HZ order must move every sample once more",
           "(the encoder's gather, the decoder's scatter): the hz floor rows measure that cost alone, and it is",
           "what bounds the ratios to file-per-process. hzio adds to the floor the exchange between ranks",
           "(two-phase aggregation: with node-shared windows a direct load or store, with rma-windows a put or",
           "get) and block tables; where a layout has fewer files than aggregators (more ranks than blocks, or",
           "a --blocksperfile given), the shared files: ext4 serialises the writers of one file, so one rank per",
           "node writes each (as ROMIO keeps one collective-buffering aggregator per node).",
           "With more ranks than the 2 cores, every collective step also waits for descheduled ranks, which",
           "dominates the 4- and 8-rank rows of every collective method. The irregular case holds (30/32)³ = 0.82",
           "of the regular case's samples, but IDX pads the domain to powers of two and every block of it meets",
           f"the data, so its files are as large (this run, S3D fields: 60³ {padded[60]:,} bytes, 64³ {padded[64]:,}):",
           "written at the same speed, its GiB/s of user data would be 0.82 of the regular one before",
           "restructuring (moving the parts of the 30³ boxes that fall into other ranks' 32³ cells) costs",
           "anything. What aggregation into few large files buys on a parallel file system is not measured on",
           "this machine.", ""]

    with open(args.out, "w") as f:
        f.write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
