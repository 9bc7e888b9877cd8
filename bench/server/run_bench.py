#!/usr/bin/env python3
"""Server load benchmark (design.md §7): the same coarse box queries against `hzio serve` and the
OpenVisus server (ModVisus + NetServer) on the same dataset, side by side in one run, at 1, 4 and
16 connections; requests/s and p50/p99 latency, medians of --reps runs. Then (issue 19) the same
queries against hzio over HTTPS with a Bearer token on a dataset with an access list, against plain
HTTP, interleaved in one run. Writes RESULTS.md: each comparison replaces only its own section.

  .venv/bin/python bench/server/run_bench.py --build build [--size 256] [--seconds 5] [--reps 3]
                                             [--only openvisus|secure]
"""
import argparse
import json
import os
import random
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "server"))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_dataset(folder, n):
    idx = os.path.join(folder, "bench%d" % n, "visus.idx")
    if os.path.exists(idx):
        return idx
    import numpy as np
    import OpenVisus as ov
    z, y, x = np.indices((n, n, n), dtype=np.float32)
    data = (np.sin(x * 0.05) * np.cos(y * 0.07) + z * 0.01).astype(np.float32)
    ov.CreateIdx(url=idx, dim=3, data=data)
    return idx


def targets_for(n, maxh, count, seed=1):
    """Coarse box queries as the OpenVisus client sends them (§7.9): zip, fromh=0, inclusive box."""
    rng = random.Random(seed)

    def target(box, toh):
        q = {"action": "boxquery", "box": " ".join("%d %d" % (a, b - 1) for a, b in box), "compression": "zip",
             "dataset": "bench", "field": "DATA", "fromh": "0", "maxh": str(maxh), "time": "%f" % 0, "toh": str(toh)}
        return "/mod_visus?" + urllib.parse.urlencode(sorted(q.items()), quote_via=urllib.parse.quote)

    whole = [(0, n)] * 3
    out = [target(whole, maxh - 12), target(whole, maxh - 9)]
    while len(out) < count:
        box = []
        for _ in range(3):
            size = rng.randint(n // 4, n // 2)
            lo = rng.randint(0, n - size)
            box.append((lo, lo + size))
        out.append(target(box, maxh - 6))
    return out


def wait_http(url, proc, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2).read()
            return
        except Exception:
            if proc.poll() is not None:
                raise RuntimeError("server exited while starting")
            time.sleep(0.2)
    raise RuntimeError("server did not answer " + url)


def cpu_seconds(pid):
    """utime + stime of a process, from /proc (Linux)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run_load(load, port, conns, seconds, targets_file, keepalive=True, extra=(), server_pid=None):
    """One closed-loop run. Adds the CPU milliseconds per request of the load generator (which
    shares the cores with the server) and, given its pid, of the server."""
    args = [load, "--port", str(port), "--connections", str(conns), "--seconds", str(seconds),
            "--targets", targets_file] + ([] if keepalive else ["--no-keepalive"]) + list(extra)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_before = cpu_seconds(server_pid) if server_pid else 0
    r = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    n = max(1, r["requests"])
    r["load_cpu_ms"] = 1000 * (after.ru_utime - children.ru_utime + after.ru_stime - children.ru_stime) / n
    if server_pid:
        r["server_cpu_ms"] = 1000 * (cpu_seconds(server_pid) - server_before) / n
    return r


def load_average():
    return "%.2f %.2f %.2f" % os.getloadavg()


def command_line():
    py = os.path.relpath(sys.executable, REPO) if sys.executable.startswith(REPO) else sys.executable
    return "`%s bench/server/run_bench.py %s`" % (py, " ".join(sys.argv[1:]))


def write_section(path, lines):
    """Replaces the section (from its `## ` heading to the next one) that `lines` starts with in
    RESULTS.md, keeping the other sections; appends it when the file has none."""
    heading = lines[0]
    sections, current = [], None
    if os.path.exists(path):
        with open(path) as f:
            for line in f.read().split("\n"):
                if line.startswith("## ") or current is None:
                    current = [line]
                    sections.append(current)
                else:
                    current.append(line)
    text = "\n".join(lines).rstrip("\n") + "\n"
    out, replaced = [], False
    for sec in sections:
        if sec[0] == heading:
            out.append(text)
            replaced = True
        elif any(line.strip() for line in sec):
            out.append("\n".join(sec).rstrip("\n") + "\n")
    if not replaced:
        out.append(text)
    with open(path, "w") as f:
        f.write("\n".join(out))


def start_hzio(server_bin, args):
    proc = subprocess.Popen([server_bin] + args + ["--port", "0"], stdout=subprocess.PIPE)
    port = int(proc.stdout.readline().decode().rsplit(":", 1)[1].strip().rstrip("/"))
    return proc, port


def same_replies(targets, plain_port, secure_port, ca, token):
    """Every target answers the same samples over HTTPS + Bearer auth as over plain HTTP."""
    import ssl
    context = ssl.create_default_context(cafile=ca)
    for t in targets:
        a = zlib.decompress(urllib.request.urlopen("http://127.0.0.1:%d%s" % (plain_port, t)).read())
        req = urllib.request.Request("https://127.0.0.1:%d%s" % (secure_port, t),
                                     headers={"Authorization": "Bearer " + token})
        b = zlib.decompress(urllib.request.urlopen(req, context=context).read())
        if a != b:
            sys.exit("run_bench.py: HTTPS and plain HTTP disagree on " + t)


def secure_section(args, idx, targets, targets_file, load, server_bin):
    """HTTPS + Bearer auth vs plain HTTP, same dataset and queries, interleaved runs."""
    cli = os.path.join(args.build, "reader", "tools", "hzio")
    folder = os.path.join(args.workdir, "tls")
    os.makedirs(folder, exist_ok=True)
    from secure_support import make_ca  # tests/server: the same throw-away CA as the TLS tests
    ca, cert, key = make_ca(folder)
    token = "bench-token-5f1e0c2a9d"
    digest = subprocess.run([cli, "passwd"], input=token.encode(), capture_output=True, check=True).stdout.decode()
    config = os.path.join(folder, "secure.json")
    with open(config, "w") as f:
        json.dump({"datasets": [{"name": "bench", "path": idx, "readers": ["bench"]}],
                   "users": [{"name": "bench", "secrets": [digest.strip()]}],
                   "tls_cert": cert, "tls_key": key}, f)
    plain, plain_port = start_hzio(server_bin, ["bench=" + idx])
    secure, secure_port = start_hzio(server_bin, ["--config", config])
    auth = ["--tls-ca", ca, "--header", "Authorization: Bearer " + token]
    configs = [("hzio serve, plain HTTP", plain_port, [], plain.pid),
               ("hzio serve, HTTPS + Bearer auth", secure_port, auth, secure.pid)]
    results = {}
    load_before = load_average()
    try:
        same_replies(targets, plain_port, secure_port, ca, token)
        for conns in (1, 4, 16):
            for name, port, extra, pid in configs:
                run_load(load, port, conns, 1, targets_file, extra=extra)  # warm-up (and the token's one KDF)
            for rep in range(args.reps):
                for name, port, extra, pid in configs:
                    r = run_load(load, port, conns, args.seconds, targets_file, extra=extra, server_pid=pid)
                    if r["errors"]:
                        sys.exit("run_bench.py: %d errors from %s" % (r["errors"], name))
                    results.setdefault((name, conns), []).append(r)
                    print("%-42s conns=%-2d rps=%8.1f p50=%7.2fms p99=%7.2fms cpu/request: server %.3f ms, "
                          "load generator %.3f ms" % (name, conns, r["rps"], r["p50_ms"], r["p99_ms"],
                                                      r["server_cpu_ms"], r["load_cpu_ms"]), flush=True)
    finally:
        for p in (plain, secure):
            p.send_signal(signal.SIGTERM)
            p.wait()

    def med(name, conns, key):
        return statistics.median(r[key] for r in results[(name, conns)])

    lines = ["## Server: HTTPS + authentication vs plain HTTP (issue 19)", "",
             "Command: %s (%s, load average %s before, %s after)." % (
                 command_line(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), load_before, load_average()), "",
             "Same dataset and coarse box queries as above (each answered with the same samples over both, checked "
             "before timing); hzio over HTTPS (TLS 1.3, P-256 certificate of a test CA, `hzio_http_load "
             "--tls-ca`) with `Authorization: Bearer` on a dataset with an access list (PBKDF2 secret, verified "
             "once and then cached), against hzio over plain HTTP; runs interleaved, medians of %d. CPU per "
             "request: the server process's and the load generator's (which shares the same 2 cores and decrypts "
             "every HTTPS reply), from /proc and getrusage over each run; with both cores busy, requests/s go as the "
             "inverse of the two together, and their ratio (last column) holds when other work on the machine makes "
             "requests/s noisy." % args.reps, "",
             "| connections | server | requests/s | p50 ms | p99 ms | req/s vs plain | server CPU ms/req | "
             "load generator CPU ms/req | CPU/req, plain ÷ this |", "|---|---|---|---|---|---|---|---|---|"]

    def cpu(name, conns):
        return med(name, conns, "server_cpu_ms") + med(name, conns, "load_cpu_ms")

    for conns in (1, 4, 16):
        base = med(configs[0][0], conns, "rps")
        for name, _, _, _ in configs:
            rps = med(name, conns, "rps")
            lines.append("| %d | %s | %.0f | %.2f | %.2f | %.2f× | %.3f | %.3f | %.2f× |" % (
                conns, name, rps, med(name, conns, "p50_ms"), med(name, conns, "p99_ms"), rps / base if base else 0,
                med(name, conns, "server_cpu_ms"), med(name, conns, "load_cpu_ms"),
                cpu(configs[0][0], conns) / cpu(name, conns)))
    lines += ["", "Target (design.md §7, issue 19): HTTPS + auth ≥ 0.8× plain requests/s, p99 ≤ 50 ms at 16 "
              "connections.", ""]
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(REPO, "build"))
    ap.add_argument("--workdir", default="/tmp/hzio_server_bench")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--targets", type=int, default=48)
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS.md"))
    ap.add_argument("--only", choices=["openvisus", "secure"], help="run one of the two comparisons")
    args = ap.parse_args()

    server_bin = os.path.join(args.build, "server", "hzio-server")
    load = os.path.join(args.build, "bench", "server", "hzio_http_load")
    for p in (server_bin, load):
        if not os.path.exists(p):
            sys.exit("run_bench.py: %s is missing; build the hzio-server and hzio_http_load targets" % p)
    os.makedirs(args.workdir, exist_ok=True)
    os.environ.setdefault("VISUS_DISABLE_WRITE_LOCK", "1")
    idx = make_dataset(args.workdir, args.size)
    maxh = 3 * (args.size - 1).bit_length()
    targets = targets_for(args.size, maxh, args.targets)
    targets_file = os.path.join(args.workdir, "targets.txt")
    with open(targets_file, "w") as f:
        f.write("\n".join(targets) + "\n")

    if args.only == "secure":
        lines = secure_section(args, idx, targets, targets_file, load, server_bin)
        write_section(args.out, lines)
        print("\n".join(lines))
        return
    load_before = load_average()

    ov_port = free_port()
    ov_proc = subprocess.Popen([sys.executable, os.path.join(REPO, "tests", "server", "openvisus_server.py"),
                                str(ov_port), "bench=" + idx], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hz_proc = subprocess.Popen([server_bin, "bench=" + idx, "--port", "0"], stdout=subprocess.PIPE)
    hz_port = int(hz_proc.stdout.readline().decode().rsplit(":", 1)[1].strip().rstrip("/"))
    try:
        wait_http("http://127.0.0.1:%d/mod_visus?action=list" % ov_port, ov_proc)
        wait_http("http://127.0.0.1:%d/mod_visus?action=list" % hz_port, hz_proc)
        # Same answers from both servers before timing anything.
        for t in targets:
            a = zlib.decompress(urllib.request.urlopen("http://127.0.0.1:%d%s" % (ov_port, t)).read())
            b = zlib.decompress(urllib.request.urlopen("http://127.0.0.1:%d%s" % (hz_port, t)).read())
            if a != b:
                sys.exit("run_bench.py: the servers disagree on " + t)
        configs = [("OpenVisus server", ov_port, True), ("hzio serve (keep-alive)", hz_port, True),
                   ("hzio serve (new connection per request)", hz_port, False)]
        results = {}
        for conns in (1, 4, 16):
            for name, port, keep in configs:
                run_load(load, port, conns, 1, targets_file, keep)  # warm-up
            for rep in range(args.reps):
                for name, port, keep in configs:  # interleaved, so drift hits every server alike
                    r = run_load(load, port, conns, args.seconds, targets_file, keep)
                    results.setdefault((name, conns), []).append(r)
                    print("%-42s conns=%-2d rps=%8.1f p50=%7.2fms p99=%7.2fms errors=%d" %
                          (name, conns, r["rps"], r["p50_ms"], r["p99_ms"], r["errors"]), flush=True)
    finally:
        ov_proc.kill()
        hz_proc.send_signal(signal.SIGTERM)
        ov_proc.wait()
        hz_proc.wait()

    def med(name, conns, key):
        return statistics.median(r[key] for r in results[(name, conns)])

    lines = ["## Server: hzio serve vs the OpenVisus server (coarse box queries)", "",
             "Command: %s (%s, load average %s before, %s after)." % (
                 command_line(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), load_before, load_average()), "",
             "Dataset: %d³ float32 written by OpenVisus `CreateIdx(dim=3, data=...)` (zip, row-major, maxh %d). "
             "Queries: %d boxquery targets as the OpenVisus client sends them (compression=zip): the whole volume at "
             "toh=%d and %d, and random sub-boxes (1/4–1/2 of each axis) at toh=%d; both servers return identical "
             "bytes (checked before timing). Closed loop, `hzio_http_load`, %g s per run, medians of %d interleaved "
             "runs. OpenVisus: `ModVisus` + `NetServer` (8 threads) of OpenVisusNoGui 2.2.149, which closes the "
             "connection after every reply; hzio: default options (worker threads = cores; a plain `zip` reply is deflated at level 1, `--zip-level`, where OpenVisus uses level 6; any zlib stream decodes the same). Load generator and "
             "servers share the same 2 cores." % (args.size, maxh, len(targets), maxh - 12, maxh - 9, maxh - 6,
                                                  args.seconds, args.reps), "",
             "| connections | server | requests/s | p50 ms | p99 ms | req/s vs OpenVisus |",
             "|---|---|---|---|---|---|"]
    for conns in (1, 4, 16):
        base = med("OpenVisus server", conns, "rps")
        for name, _, _ in configs:
            rps = med(name, conns, "rps")
            lines.append("| %d | %s | %.0f | %.2f | %.2f | %.1f× |" % (
                conns, name, rps, med(name, conns, "p50_ms"), med(name, conns, "p99_ms"), rps / base if base else 0))
    lines += ["", "Target (design.md §7): ≥ 5× the OpenVisus server's requests/s; p99 ≤ 50 ms at 16 connections.", ""]
    write_section(args.out, lines)
    print("\n".join(lines))
    if args.only != "openvisus":
        lines = secure_section(args, idx, targets, targets_file, load, server_bin)
        write_section(args.out, lines)
        print("\n".join(lines))


if __name__ == "__main__":
    main()
