"""What the remote-dataset tests start and share: MinIO (the S3 server, built by
scripts/setup-deps.sh into <repo>/.tools/bin), nginx (a static web server with Range support),
the counting/delaying proxy (store_proxy.py), and `hzio` runs with a chosen environment.

Environment: HZIO_BIN (the hzio executable), HZIO_SERVER (hzio-server), HZIO_MINIO_BIN
(optional; default <repo>/.tools/bin/minio).
"""
from __future__ import annotations

import ctypes
import json
import os
import select
import signal
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
VENV_BIN = Path(sys.executable).parent


def _die_with_parent() -> None:
    """preexec_fn of the servers a test starts: SIGTERM when the test process dies, even killed."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise RuntimeError(f"{what} within {seconds} s")


def http_status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return 0


def minio_binary() -> str:
    path = os.environ.get("HZIO_MINIO_BIN") or str(REPO / ".tools" / "bin" / "minio")
    if not os.access(path, os.X_OK):
        raise RuntimeError(f"MinIO is not installed at {path}: run scripts/setup-deps.sh (it builds it)")
    return path


class Minio:
    """A MinIO server on a free loopback port with its own data folder; stop() and start() again
    serve the same objects on the same port."""
    ACCESS_KEY = "hziotest"
    SECRET_KEY = "hziotest-secret-key"
    PROFILE = "hziotest"

    def __init__(self, root: Path):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.proc = None
        self.start()

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        log = open(self.root / "minio.log", "ab")
        env = {"PATH": os.environ.get("PATH", ""), "HOME": str(self.root),
               "MINIO_ROOT_USER": self.ACCESS_KEY, "MINIO_ROOT_PASSWORD": self.SECRET_KEY,
               "MINIO_BROWSER": "off", "MINIO_UPDATE": "off"}
        self.proc = subprocess.Popen(
            [minio_binary(), "server", str(self.root / "data"), "--address", f"127.0.0.1:{self.port}",
             "--console-address", f"127.0.0.1:{free_port()}", "--quiet"],
            stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env, preexec_fn=_die_with_parent)
        wait_until(lambda: self.proc.poll() is not None or
                   http_status(self.endpoint + "/minio/health/ready") == 200, 60,
                   f"MinIO did not become ready (see {self.root / 'minio.log'})")
        if self.proc.poll() is not None:
            raise RuntimeError(f"MinIO exited: {(self.root / 'minio.log').read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def env(self) -> dict:
        """What hzio needs in its environment for s3:// URLs on this server."""
        return {"AWS_ACCESS_KEY_ID": self.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": self.SECRET_KEY,
                "AWS_ENDPOINT_URL": self.endpoint, "AWS_REGION": "us-east-1"}

    def openvisus_url(self, bucket: str, key: str, endpoint: str | None = None) -> str:
        """OpenVisus's URL form: the store's own host, credentials as parameters."""
        return (f"{endpoint or self.endpoint}/{bucket}/{key}?access_key={self.ACCESS_KEY}"
                f"&secret_key={self.SECRET_KEY}&region=us-east-1")

    def aws_home(self) -> Path:
        """A HOME whose ~/.aws names this server as profile `hziotest`, in the nested form
        OpenVisus's S3 class reads (copyDatasetToCloud uses it, and `aws s3 sync`)."""
        home = self.root / "home"
        (home / ".aws").mkdir(parents=True, exist_ok=True)
        (home / ".aws" / "config").write_text(
            f"[profile {self.PROFILE}]\nregion = us-east-1\ns3 =\n    endpoint_url = {self.endpoint}\n")
        (home / ".aws" / "credentials").write_text(
            f"[{self.PROFILE}]\naws_access_key_id = {self.ACCESS_KEY}\n"
            f"aws_secret_access_key = {self.SECRET_KEY}\n")
        return home

    def aws(self, *args: str) -> subprocess.CompletedProcess:
        """The AWS command line against this server."""
        env = dict(os.environ, **self.env())
        done = subprocess.run([str(VENV_BIN / "aws"), "--endpoint-url", self.endpoint, *args],
                              capture_output=True, text=True, env=env, timeout=300)
        if done.returncode != 0:
            raise AssertionError(f"aws {' '.join(args)}: {done.stderr}")
        return done

    def make_bucket(self, bucket: str) -> None:
        # On a loaded machine MinIO answers its readiness probe before its object layer is up and
        # refuses S3 requests meanwhile (503 XMinioServerNotInitialized): wait for it, bounded.
        deadline = time.monotonic() + 60
        while True:
            try:
                self.aws("s3", "mb", f"s3://{bucket}")
                return
            except AssertionError as e:
                if "XMinioServerNotInitialized" not in str(e) or time.monotonic() > deadline:
                    raise
            time.sleep(0.2)

    def sync(self, folder, url: str) -> None:
        """`aws s3 sync FOLDER URL`: the upload step of OpenVisus's copyDatasetToCloud."""
        self.aws("s3", "sync", str(folder), url, "--only-show-errors", "--no-progress")


class Nginx:
    """nginx serving `root` at http://127.0.0.1:PORT/."""

    def __init__(self, root: Path, work: Path):
        self.port = free_port()
        work = Path(work)
        (work / "tmp").mkdir(parents=True, exist_ok=True)
        conf = work / "nginx.conf"
        conf.write_text(
            "daemon off;\nmaster_process off;\nworker_processes 1;\n"
            f"pid {work}/nginx.pid;\nerror_log {work}/error.log;\nevents {{ worker_connections 512; }}\n"
            f"http {{\n  access_log off;\n" +
            "".join(f"  {t}_temp_path {work}/tmp;\n" for t in
                    ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")) +
            f"  server {{\n    listen 127.0.0.1:{self.port};\n    root {root};\n    location / {{ }}\n  }}\n}}\n")
        binary = shutil.which("nginx") or "/usr/sbin/nginx"
        self.proc = subprocess.Popen([binary, "-p", str(work), "-c", str(conf), "-e", str(work / "error.log")],
                                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     preexec_fn=_die_with_parent)
        wait_until(lambda: self.proc.poll() is not None or http_status(self.url("")) != 0, 30,
                   "nginx did not start")
        if self.proc.poll() is not None:
            raise RuntimeError("nginx exited: " + self.proc.stderr.read().decode())

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=15)


class StoreProxy:
    """store_proxy.py in front of a store: counts requests, optionally delays, rewrites Host or
    fails PUTs."""

    def __init__(self, upstream_port: int, delay_ms: float = 0, host_header: str | None = None,
                 fail_puts_after: int | None = None):
        args = [sys.executable, str(HERE / "store_proxy.py"), "--upstream", f"127.0.0.1:{upstream_port}",
                "--delay-ms", str(delay_ms)]
        if host_header is not None:
            args += ["--host-header", host_header]
        if fail_puts_after is not None:
            args += ["--fail-puts-after", str(fail_puts_after)]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                     preexec_fn=_die_with_parent)
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline().decode() if ready else ""
        if not line.startswith("listening on "):
            self.proc.kill()
            raise RuntimeError(f"store_proxy.py did not start: '{line}'")
        self.port = int(line.split()[-1])

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def timed_requests(self) -> list[tuple[str, str, int, float]]:
        """(method, path, status, arrival in ms) of every request since the last reset."""
        with urllib.request.urlopen(self.endpoint + "/__proxy/stats", timeout=10) as r:
            return [tuple(x) for x in json.loads(r.read())["requests"]]

    def connections(self) -> int:
        """Client connections accepted since the last reset."""
        with urllib.request.urlopen(self.endpoint + "/__proxy/stats", timeout=10) as r:
            return json.loads(r.read())["connections"]

    def requests(self) -> list[tuple[str, str, int]]:
        return [r[:3] for r in self.timed_requests()]

    def round_trips(self, gap_ms: float) -> int:
        """Waves of requests: a request arriving more than `gap_ms` after the previous one starts
        a new wave (requests sent together arrive within a few ms of each other)."""
        times = sorted(r[3] for r in self.timed_requests())
        return sum(1 for i, t in enumerate(times) if i == 0 or t - times[i - 1] > gap_ms)

    def reset(self) -> None:
        urllib.request.urlopen(self.endpoint + "/__proxy/reset", timeout=10).read()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=15)


def hzio_binary() -> str:
    path = os.environ.get("HZIO_BIN", "")
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError(f"HZIO_BIN must name the hzio executable (got '{path}')")
    return path


def run_hzio(args, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """`hzio ARGS` with os.environ plus `env`."""
    return subprocess.run([hzio_binary(), *map(str, args)], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL, env=dict(os.environ, **(env or {})))


def check_hzio(args, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    done = run_hzio(args, env, timeout)
    if done.returncode != 0:
        raise AssertionError(f"hzio {' '.join(map(str, args))} exited {done.returncode}:\n{done.stderr.strip()}")
    return done


def hzio_read_array(dataset: str, out: Path, env: dict | None = None, **query):
    """`hzio read DATASET [--field/--time/--level/--box] -o OUT.npy` and the array it wrote."""
    import numpy as np
    args = ["read", dataset]
    for key in ("field", "time", "level", "box"):
        if query.get(key) is not None:
            args += [f"--{key}", query[key]]
    out = Path(out)
    if out.exists():
        out.unlink()
    check_hzio(args + ["-o", out], env)
    return np.load(out)
