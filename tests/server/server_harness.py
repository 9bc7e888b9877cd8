"""Shared helpers of the server's end-to-end tests: start/stop hzio-server and the OpenVisus
server on loopback, create small datasets with OpenVisus, and read files with OpenVisus."""
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.environ.get("HZIO_SERVER", "")
CLI = os.environ.get("HZIO_CLI", "")
GOLDEN = os.environ.get("HZIO_GOLDEN_DIR", os.path.join(HERE, "..", "..", "..", "shared", "testdata", "idx-golden"))
os.environ.setdefault("VISUS_DISABLE_WRITE_LOCK", "1")
# The OpenVisus client's block cache (cached=1) goes to a private folder per test run.
os.environ.setdefault("VISUS_CACHE", tempfile.mkdtemp(prefix="hzio_visus_cache_"))

import OpenVisus as ov  # noqa: E402  (after the environment above)


class HzioServer:
    """hzio-server on 127.0.0.1 with --port 0; the chosen port is parsed from its first line."""

    def __init__(self, datasets, extra=(), stderr_path=None, port=0):
        if not SERVER:
            raise RuntimeError("HZIO_SERVER is not set")
        args = [SERVER] + list(datasets) + ["--port", str(port)] + list(extra)
        # A server that logs a lot must write to a file: a full pipe would block it.
        self.stderr_file = open(stderr_path, "ab") if stderr_path else None
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE,
                                     stderr=self.stderr_file if self.stderr_file else subprocess.PIPE)
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        if not ready:
            self.proc.kill()
            raise RuntimeError("hzio-server did not start in 30 s")
        line = self.proc.stdout.readline().decode()
        if "listening on http://127.0.0.1:" not in line and "listening on https://127.0.0.1:" not in line:
            err = "" if self.stderr_file else self.proc.stderr.read().decode()
            self.proc.kill()
            raise RuntimeError("hzio-server failed: " + line + err)
        self.scheme = "https" if "https://" in line else "http"
        self.port = int(line.rsplit(":", 1)[1].strip().rstrip("/"))
        self.base = "%s://127.0.0.1:%d" % (self.scheme, self.port)
        # A second line announces the plain listener beside HTTPS (--http-port).
        self.http_port = None
        if "--http-port" in extra:
            extra_line = self.proc.stdout.readline().decode()
            if "listening on http://" in extra_line:
                self.http_port = int(extra_line.rsplit(":", 1)[1].strip().rstrip("/"))

    def url(self, name, extra=""):
        return "%s/mod_visus?dataset=%s%s" % (self.base, name, extra)

    def stop(self):
        """SIGTERM, expecting a graceful exit with status 0."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            return None
        finally:
            self.proc.stdout.close()
            if self.stderr_file:
                self.stderr_file.close()
            else:
                self.proc.stderr.close()

    def terminate_timed(self, limit=10):
        """SIGTERM; returns (seconds until the process exited, exit status)."""
        t0 = time.time()
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(timeout=limit)
        return time.time() - t0, self.proc.returncode

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OpenVisusServer:
    """The OpenVisus server (ModVisus + NetServer, loopback only) serving NAME=PATH datasets."""

    def __init__(self, datasets):
        # OpenVisus needs its port named in advance: another test may take a free port before it
        # binds it (tests run in parallel), so a server that exits at start gets another port.
        for attempt in range(5):
            if self._start(datasets):
                return
        raise RuntimeError("the OpenVisus server exited at start on 5 ports in a row")

    def _start(self, datasets):
        self.port = free_port()
        args = [sys.executable, os.path.join(HERE, "openvisus_server.py"), str(self.port)] + \
               ["%s=%s" % (k, v) for k, v in datasets.items()]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = "http://127.0.0.1:%d" % self.port
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                urllib.request.urlopen(self.base + "/mod_visus?action=list", timeout=2).read()
                return True
            except Exception:
                if self.proc.poll() is not None:
                    return False
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("the OpenVisus server did not answer in 60 s")

    def url(self, name):
        return "%s/mod_visus?dataset=%s" % (self.base, name)

    def stop(self):
        self.proc.kill()
        self.proc.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


def golden_datasets():
    g = GOLDEN
    return {"rgb": g + "/rgb_hz_raw/visus.idx", "rgbzip": g + "/rgb_hz_zip/visus.idx", "f32": g + "/f32/visus.idx",
            "lz": g + "/lz/visus.idx", "tinyhz": g + "/tiny/hz.idx", "tinyrm": g + "/tiny/rm.idx"}


def synthetic(shape, dtype, field=0, time_=0):
    """design.md §4 values for a C-order 2-D or 3-D array of `shape` (slowest axis first)."""
    idx = np.indices(shape)
    s = idx[-1] + 1000 * idx[-2] + (1000000 * idx[-3] if len(shape) == 3 else 0)
    if np.dtype(dtype).kind == "f":
        return (s.astype(np.float64) + 0.0625 * field + 1e9 * time_).astype(dtype)
    bits = np.dtype(dtype).itemsize * 8
    return ((s + 11 * field + 13 * time_) % (2 ** bits)).astype(dtype)


def make_datasets(folder):
    """Small datasets written by OpenVisus itself, covering what the golden files do not."""
    out = {}
    # 3-D float32, non power of two, zip row-major (CreateIdx with data: one block per level range).
    vol = synthetic((11, 29, 37), np.float32)
    ov.CreateIdx(url=folder + "/vol/visus.idx", dim=3, data=vol, bitsperblock=9)
    out["vol"] = folder + "/vol/visus.idx"
    # 2-D uint16, hz layout, raw, several files, absent blocks outside the box.
    img = synthetic((45, 70), np.uint16)
    db = ov.CreateIdx(url=folder + "/hz16/visus.idx", dims=[70, 45],
                      fields=[ov.Field("v", "uint16", "hzorder")], bitsperblock=6, blocksperfile=8)
    db.write(img)
    out["hz16"] = folder + "/hz16/visus.idx"
    # 3 fields x 3 timesteps, zip.
    db = ov.CreateIdx(url=folder + "/multi/visus.idx", dims=[20, 12, 6],
                      fields=[ov.Field("temperature", "float32"), ov.Field("pressure", "float64"),
                              ov.Field("mask", "uint8")],
                      time=[0, 2, "time_%02d/"], bitsperblock=7)
    for t in range(3):
        for f, (name, dt) in enumerate([("temperature", np.float32), ("pressure", np.float64), ("mask", np.uint8)]):
            db.write(synthetic((6, 12, 20), dt, f, t), field=name, time=t)
    db.compressDataset(["zip"])
    out["multi"] = folder + "/multi/visus.idx"
    return out


def make_arco_datasets(folder):
    """ARCO datasets (one file per block, idx-format.md §4.12) written by OpenVisus's own API."""
    out = {}
    # ov.create_idx (1 MB blocks) + db.write: raw blocks, several of them.
    shape = (30, 72, 100)
    db = ov.create_idx(url=folder + "/arco/visus.idx", shape=shape, fields=[ov.Field("temperature", "float32")])
    db.write(synthetic(shape, np.float32))
    out["arco"] = folder + "/arco/visus.idx"
    # Small blocks, two fields (one a vector) and two timesteps, then compress_dataset(): zip.
    db = ov.CreateIdx(url=folder + "/arcozip/visus.idx", dims=[40, 26, 9], arco="4kb", time=[0, 1, "%00000d/"],
                      fields=[ov.Field("pressure", "float32"), ov.Field("color", "uint8[3]")])
    for t in range(2):
        db.write(synthetic((9, 26, 40), np.float32, 0, t), field=db.getField("pressure"), time=t)
        rgb = np.stack([synthetic((9, 26, 40), np.uint8, c, t) for c in range(3)], axis=-1)
        db.write(rgb, field=db.getField("color"), time=t)
    ov.LoadDataset(folder + "/arcozip/visus.idx").compress_dataset()
    out["arcozip"] = folder + "/arcozip/visus.idx"
    return out


def load(path_or_url):
    return ov.LoadDataset(path_or_url)


def field_names(db):
    return [f.name for f in db.getFields()] if hasattr(db, "getFields") else list(db.getFields())


def sub_boxes(db):
    """The whole box and a few sub-boxes (exclusive upper corners), as ([p1], [p2]) pairs."""
    box = db.getLogicBox()
    p1, p2 = list(box[0]), list(box[1])
    n = len(p1)
    size = [p2[d] - p1[d] for d in range(n)]
    boxes = [(p1, p2)]
    boxes.append(([p1[d] + size[d] // 4 for d in range(n)], [p2[d] - size[d] // 5 for d in range(n)]))
    boxes.append(([p1[d] + size[d] // 2 for d in range(n)], p2))
    boxes.append(([p1[d] + 1 if size[d] > 1 else p1[d] for d in range(n)],
                  [min(p2[d], p1[d] + 3) for d in range(n)]))
    return boxes
