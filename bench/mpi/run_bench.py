#!/usr/bin/env python3
"""Runs the hzio::mpi benchmarks side by side and writes bench/mpi/RESULTS.md.

  python3 bench/mpi/run_bench.py --build build-mpi [--reps 5] [--ranks 1,2,4,8]

Every number in one table comes from the same `hzio_mpi_bench` run (methods interleaved, order
shuffled every repetition, medians of --reps), so ratios are measured side by side."""
import argparse
import json
import os
import subprocess
import time

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_osc="^ucx")


def run(cmd):
    out = subprocess.run(cmd, env=ENV, check=True, capture_output=True, text=True, timeout=1800).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def mpiexec(n, *args):
    return ["mpiexec", "--oversubscribe", "-n", str(n), *args]


def table(rows, header):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def status(ok):
    return "met" if ok else "NOT met"


PEERS = ("mpi-io", "hdf5", "pnetcdf")  # the shared-file libraries hzio must be ahead of
FLOOR = "hz floor"  # file-per-process of HZ-ordered data: the least any HZ writer/reader does (hz_floor.h)


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build-mpi")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ranks", default="1,2,4,8")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "RESULTS.md"))
    args = ap.parse_args()
    bench = os.path.join(args.build, "bench/mpi/hzio_mpi_bench")
    tool = os.path.join(args.build, "reader/tools/hzio-mpi")
    ranks = [int(x) for x in args.ranks.split(",")]
    load = os.getloadavg()[0]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    md = ["## Parallel I/O (hzio::mpi): S3D-IO-like weak scaling", "",
          f"Run {started} on this 2-core machine, `mpiexec --oversubscribe` (ranks > 2 share 2 cores), page cache,",
          f"no fsync for any method; 1-minute load average at start {load:.1f}. Absolute numbers are noisy here:",
          "GiB/s columns are medians of the repetitions; ratio columns are medians of per-repetition ratios",
          "(every repetition runs each method once, back to back, in a shuffled order), which cancel the",
          "machine's slow spells. Per rank: pressure, temperature, velocity[3],",
          "species[11] float64 = 128 bytes/sample. Every method writes from and reads into pre-touched user",
          "buffers; hzio's own aggregation buffers come from its process-wide buffer pool, so repetitions after",
          "the first reuse warm memory, as a simulation checkpointing repeatedly would. The hzio restart read",
          "fetches all four variables in one collective call (`ParallelReader::ReadInto` with several fields).",
          "\"hzio\" uses its default node-shared aggregation windows (ranks on an aggregator's node store into",
          "and load from its memory directly); \"rma-windows\" is the same with MPI_Win_create windows, where every",
          "transfer to another rank is an MPI_Put/MPI_Get, as between nodes of a cluster. \"hzio\" writes the",
          "OpenVisus default layout (2^16-sample blocks, 256 blocks per file: one file for up to 8 ranks here,",
          "written by one rank per node); \"hzio files=ranks\" the same data with a block per rank's worth of",
          "samples and a block per file, so each aggregator writes a file of its own, as file-per-process does.",
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
           "get), block tables and, in the default layout, one shared file: ext4 serialises the writers of one",
           "file, so one rank per node writes it (as ROMIO keeps one collective-buffering aggregator per node).",
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
