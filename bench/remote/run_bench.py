#!/usr/bin/env python3
"""Remote reads (issue 16, design.md §7): a 512^3 float32 ARCO zip dataset made by OpenVisus
(`ov.create_idx`, 1 MB blocks, `compress_dataset()`) in an S3 server (MinIO, uploaded with
`aws s3 sync` as copyDatasetToCloud does), every request delayed by 20 ms by a proxy; hzio and
OpenVisus's own S3 reader read the same objects in one run. Writes bench/remote/RESULTS.md.

    .venv/bin/python bench/remote/run_bench.py --bench build/bench/remote/hzio-bench-remote \\
        --hzio build/reader/tools/hzio [--size 512] [--repeat 3] [--delay-ms 20]

Measured (medians of --repeat runs, each opening the dataset anew):
  * full resolution and the 1/512 coarse level (maxh - 9), hzio vs OpenVisus (CloudStorageAccess,
    its 64 connections); round trips of the coarse read counted from the proxy's log (requests
    arriving together form one);
  * hzio reading from its disk cache (filled beforehand) vs hzio reading the same dataset from the
    local disk (page cache).
  * the proxy itself: hzio's full-resolution read from the store directly and through the proxy
    without delay (it must pass bytes at loopback speed), the coarse read directly and through the
    delaying proxy (it must add the delay per round trip and nothing else);
  * CPU seconds of hzio (or OpenVisus), the store and the proxy in the full-resolution reads: on a
    machine of few cores they share the cores, so the store's and the proxy's part matter.
Targets: full resolution >= 3x OpenVisus; the coarse read in <= 3 round trips; the disk-cache
re-read >= 0.5x the speed of the local read.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO / "tests" / "remote"))
sys.path.insert(0, str(REPO / "bench" / "core"))
os.environ.setdefault("VISUS_DISABLE_WRITE_LOCK", "1")

from remote_harness import Minio, StoreProxy  # noqa: E402
from run_bench import make_array  # noqa: E402  (bench/core's smooth field)

import OpenVisus as ov  # noqa: E402


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process `pid` so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def bench_read(bench: str, dataset: str, env: dict, *args) -> dict:
    done = subprocess.run([bench, "read", dataset, *map(str, args)], capture_output=True, text=True,
                          env=dict(os.environ, **env), timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"hzio-bench-remote read {dataset}: {done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def openvisus_read(url: str, level: int, repeat: int, expected: np.ndarray | None) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        db = ov.LoadDataset(url)
        data = db.read(max_resolution=level)
        times.append(time.perf_counter() - t0)
        if expected is not None and not np.array_equal(data, expected):
            raise RuntimeError(f"OpenVisus read {url} at level {level} differs from the source")
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bench", required=True, help="build/bench/remote/hzio-bench-remote")
    ap.add_argument("--hzio", required=True, help="build/reader/tools/hzio")
    ap.add_argument("--size", type=int, default=512)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--delay-ms", type=float, default=20.0)
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--out", default=str(HERE / "RESULTS.md"))
    args = ap.parse_args()
    n, rep = args.size, args.repeat
    work = Path(args.workdir or tempfile.mkdtemp(prefix="hzio_bench_remote_"))
    work.mkdir(parents=True, exist_ok=True)

    # The dataset, as OpenVisus's documented API makes it.
    a = make_array(n)
    local = work / "arco"
    shutil.rmtree(local, ignore_errors=True)
    t0 = time.perf_counter()
    db = ov.create_idx(url=str(local / "visus.idx"), shape=a.shape, fields=[ov.Field("data", "float32")])
    db.write(a)
    db.compress_dataset()
    made_s = time.perf_counter() - t0
    header = (local / "visus.idx").read_text().split()
    bpb = int(header[header.index("(bitsperblock)") + 1])
    maxh = ov.LoadDataset(str(local / "visus.idx")).getMaxResolution()
    objects = list(local.rglob("*.bin"))
    stored = sum(p.stat().st_size for p in objects)

    minio = Minio(work / "minio")
    minio.make_bucket("bench")
    minio.sync(local, "s3://bench/arco")
    hzio_proxy = StoreProxy(minio.port, delay_ms=args.delay_ms)
    # OpenVisus signs `host:` without the port; this proxy presents the Host it signed.
    ov_proxy = StoreProxy(minio.port, delay_ms=args.delay_ms, host_header="127.0.0.1")
    plain_proxy = StoreProxy(minio.port, delay_ms=0)  # the proxy's own cost
    env = dict(minio.env(), AWS_ENDPOINT_URL=hzio_proxy.endpoint)
    url = "s3://bench/arco/visus.idx"
    ov_url = minio.openvisus_url("bench", "arco/visus.idx", ov_proxy.endpoint)
    coarse = maxh - 9
    rows = []
    try:
        cpu = {}  # CPU seconds per full-resolution read: (reader, store, proxy)
        for level, what in ((maxh, "full resolution"), (coarse, "1/512 (level maxh-9)")):
            expected = a if level == maxh else None
            before = (own_cpu(resource.RUSAGE_SELF), cpu_seconds(minio.proc.pid), cpu_seconds(ov_proxy.proc.pid))
            ov_s = openvisus_read(ov_url, level, rep, expected)
            if level == maxh:
                cpu["OpenVisus"] = [(x - y) / rep for x, y in zip(
                    (own_cpu(resource.RUSAGE_SELF), cpu_seconds(minio.proc.pid), cpu_seconds(ov_proxy.proc.pid)), before)]
            hzio_proxy.reset()
            before = (own_cpu(resource.RUSAGE_CHILDREN), cpu_seconds(minio.proc.pid), cpu_seconds(hzio_proxy.proc.pid))
            hz = bench_read(args.bench, url, env, "--level", level, "--repeat", rep)
            if level == maxh:  # the child's CPU includes its untimed first allocation of the result
                cpu["hzio"] = [(x - y) / rep for x, y in zip(
                    (own_cpu(resource.RUSAGE_CHILDREN), cpu_seconds(minio.proc.pid), cpu_seconds(hzio_proxy.proc.pid)),
                    before)]
            requests = len(hzio_proxy.requests()) / rep
            connections = hzio_proxy.connections() / rep
            rows.append((what, level, hz["samples"], ov_s, hz["median_s"], requests, connections))
        # The proxy's own cost: the full read from the store directly and through it without delay;
        # the coarse read directly and through the delaying proxy.
        direct = bench_read(args.bench, url, dict(env, AWS_ENDPOINT_URL=minio.endpoint), "--repeat", rep)
        undelayed = bench_read(args.bench, url, dict(env, AWS_ENDPOINT_URL=plain_proxy.endpoint), "--repeat", rep)
        coarse_direct = bench_read(args.bench, url, dict(env, AWS_ENDPOINT_URL=minio.endpoint), "--level", coarse,
                                   "--repeat", 2 * rep + 1)
        # Round trips of one coarse read.
        hzio_proxy.reset()
        bench_read(args.bench, url, env, "--level", coarse, "--repeat", 1)
        round_trips = hzio_proxy.round_trips(gap_ms=args.delay_ms / 2)
        coarse_requests = hzio_proxy.requests()
        # The disk cache against the local disk.
        cache = work / "cache"
        shutil.rmtree(cache, ignore_errors=True)
        cached = bench_read(args.bench, url, env, "--cache-dir", cache, "--warm", "--repeat", rep)
        try:
            local_read = bench_read(args.bench, str(local / "visus.idx"), {}, "--warm", "--repeat", rep)
            local_what = "the same ARCO dataset on the local disk"
        except RuntimeError:
            # This hzio reads no local ARCO folder yet: the same data, blocks and codec as a classic
            # dataset (one file), converted by hzio.
            np.save(work / "a.npy", a)
            classic = work / "classic" / "visus.idx"
            shutil.rmtree(classic.parent, ignore_errors=True)
            subprocess.run([args.hzio, "convert", work / "a.npy", classic, "--field", "data", "--compression", "zip",
                            "--bitsperblock", str(bpb), "--blocksperfile", "-1"], check=True, capture_output=True)
            local_read = bench_read(args.bench, str(classic), {}, "--warm", "--repeat", rep)
            local_what = (f"the same data as a classic zip dataset of {bpb}-bit blocks on the local disk "
                          "(this hzio reads no local ARCO folder)")
    finally:
        hzio_proxy.stop()
        ov_proxy.stop()
        plain_proxy.stop()
        minio.stop()

    load = os.getloadavg()[0]
    lines = [
        "## Remote reads from S3 (issue 16)", "",
        f"{n}^3 float32 ({a.nbytes / 2**20:.0f} MiB), made by OpenVisus (`ov.create_idx` 1 MB ARCO blocks, "
        f"`compress_dataset()`): {len(objects)} block objects of {bpb}-bit blocks, {stored / 2**20:.0f} MiB stored "
        f"(made in {made_s:.0f} s); MinIO on loopback behind a proxy adding {args.delay_ms:.0f} ms to every request; "
        f"medians of {rep} runs, each opening the dataset anew; one run of:", "",
        "    .venv/bin/python bench/remote/run_bench.py --bench build/bench/remote/hzio-bench-remote "
        f"--hzio build/reader/tools/hzio --size {n} --repeat {rep} --delay-ms {args.delay_ms:g}", "",
        "| read | level | samples | OpenVisus S3 reader (s) | hzio (s) | hzio speed-up | hzio requests | hzio connections |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for what, level, samples, ov_s, hz_s, req, conns in rows:
        lines.append(f"| {what} | {level} | {samples} | {ov_s:.3f} | {hz_s:.3f} | {ov_s / hz_s:.1f}x | {req:.0f} | "
                     f"{conns:.0f} |")
    coarse_delayed = rows[1][4]
    lines += [
        "",
        "CPU seconds per full-resolution read (all on the same cores):",
        "",
        "| reader | reader CPU (s) | store (MinIO) CPU (s) | proxy CPU (s) |",
        "|---|---|---|---|",
    ] + [f"| {who} | {c[0]:.2f} | {c[1]:.2f} | {c[2]:.2f} |" for who, c in cpu.items()] + [
        "",
        f"The proxy: hzio's full-resolution read took {direct['median_s']:.3f} s from MinIO directly and "
        f"{undelayed['median_s']:.3f} s through the proxy without delay ({undelayed['median_s'] / direct['median_s']:.2f}x); "
        f"the coarse read took {coarse_direct['median_s'] * 1000:.0f} ms directly and {coarse_delayed * 1000:.0f} ms through "
        f"the {args.delay_ms:.0f} ms proxy, i.e. {(coarse_delayed - coarse_direct['median_s']) * 1000 / max(1, round_trips):.0f} ms "
        f"added per round trip.",
    ]
    full_ratio = rows[0][3] / rows[0][4]
    cache_ratio = local_read["median_s"] / cached["median_s"]
    lines += [
        "",
        f"Coarse read: {round_trips} round trips ({len(coarse_requests)} requests: "
        + ", ".join(f"{m} {p.rsplit('/', 1)[-1]} {s}" for m, p, s in coarse_requests) + ").",
        "",
        f"Disk cache: a full-resolution read from hzio's disk cache took {cached['median_s']:.3f} s; reading "
        f"{local_what} took {local_read['median_s']:.3f} s: the cache runs at **{cache_ratio:.2f}x** the local read.",
        "",
        f"Against design.md §7 (this run, load average {load:.1f}):",
        f"* full resolution **{full_ratio:.1f}x OpenVisus's S3 reader** (target >= 3x: {'met' if full_ratio >= 3 else 'missed'});",
        f"* the 1/512 read in **{round_trips} round trips** (target <= 3: {'met' if round_trips <= 3 else 'missed'});",
        f"* disk-cache re-read **{cache_ratio:.2f}x** the local read (target >= 0.5x: "
        f"{'met' if cache_ratio >= 0.5 else 'missed'}).",
        "",
    ]
    Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
