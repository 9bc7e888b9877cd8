"""Helpers for the desktop viewer tests: run hzio-viewer in scripted mode, decode its PNG
screenshots, compare them (PSNR), start `hzio serve`, and put a slow proxy in front of it.

Environment: HZIO_VIEWER (hzio-viewer), HZIO_CLI (hzio), HZIO_TEST_ARTIFACTS (screenshots go
there), HZIO_VIEWER_DATA (folder for generated datasets). The tests run under xvfb-run.
"""
import http.client
import http.server
import json
import os
import re
import struct
import subprocess
import sys
import threading
import time
import zlib
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
VIEWER = os.environ.get("HZIO_VIEWER", "")
CLI = os.environ.get("HZIO_CLI", "")
ARTIFACTS = Path(os.environ.get("HZIO_TEST_ARTIFACTS", REPO / "test-artifacts" / "viewer"))
DATA = Path(os.environ.get("HZIO_VIEWER_DATA", REPO / "build" / "viewer-test-data"))


def read_png(path):
    """Decodes an 8-bit RGB or RGBA non-interlaced PNG into an (h, w, 3) uint8 array."""
    data = Path(path).read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, color, _, _, interlace = header
    if depth != 8 or color not in (2, 6) or interlace:
        raise ValueError(f"{path}: only 8-bit RGB/RGBA non-interlaced PNGs are supported")
    channels = 3 if color == 2 else 4
    stride = width * channels
    raw = np.frombuffer(zlib.decompress(idat), dtype=np.uint8).reshape(height, stride + 1)
    out = np.zeros((height, stride), dtype=np.int32)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        kind, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if kind == 0:
            cur = line
        elif kind == 2:
            cur = (line + prev) & 255
        else:  # Sub, Average and Paeth depend on the decoded left neighbour: go pixel by pixel
            cur = np.zeros(stride, dtype=np.int32)
            for x in range(stride):
                left = cur[x - channels] if x >= channels else 0
                up = prev[x]
                upleft = prev[x - channels] if x >= channels else 0
                if kind == 1:
                    pred = left
                elif kind == 3:
                    pred = (left + up) // 2
                elif kind == 4:
                    p = left + up - upleft
                    pa, pb, pc = abs(p - left), abs(p - up), abs(p - upleft)
                    pred = left if pa <= pb and pa <= pc else (up if pb <= pc else upleft)
                else:
                    raise ValueError(f"{path}: bad PNG filter {kind}")
                cur[x] = (line[x] + pred) & 255
        out[y] = cur
        prev = cur
    return out.reshape(height, width, channels)[:, :, :3].astype(np.uint8)


def psnr(a, b):
    """Peak signal-to-noise ratio in dB of two uint8 images (inf when identical)."""
    if a.shape != b.shape:
        raise ValueError(f"image shapes differ: {a.shape} vs {b.shape}")
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def non_background_fraction(image):
    """Share of pixels that differ from the corner pixel (the background)."""
    background = image[0, 0].astype(np.int32)
    diff = np.abs(image.astype(np.int32) - background).sum(axis=2)
    return float(np.mean(diff > 12))


def run_viewer(dataset, name, *args, timeout=240):
    """Runs hzio-viewer --screenshot --stats; returns (stats dict, image array, png path)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    png = ARTIFACTS / f"{name}.png"
    if png.exists():
        png.unlink()
    cmd = [VIEWER, str(dataset), "--screenshot", str(png), "--stats", *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr}")
    lines = [l for l in proc.stdout.splitlines() if l.startswith("{")]
    if len(lines) != 1:
        raise AssertionError(f"expected one JSON line from hzio-viewer, got:\n{proc.stdout}\n{proc.stderr}")
    return json.loads(lines[0]), read_png(png), png


def make_demo(size):
    """The demo dataset (scripts/make-demo.sh) at size^3, made once per build tree."""
    out = DATA / f"demo{size}"
    idx = out / "demo.idx"
    if not idx.exists():
        subprocess.run([str(REPO / "scripts" / "make-demo.sh"), "--size", str(size), "--hzio", CLI,
                        "--out", str(out)], check=True, capture_output=True, timeout=600)
    return idx


def dataset_info(path):
    return json.loads(subprocess.run([CLI, "info", str(path), "--json"], check=True, capture_output=True,
                                     text=True, timeout=60).stdout)


class Server:
    """`hzio serve` on a free port; the URL of dataset NAME is url(NAME)."""

    def __init__(self, *datasets):
        self.proc = subprocess.Popen([CLI, "serve", *map(str, datasets), "--port", "0"],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        deadline = time.time() + 30
        self.base = None
        while time.time() < deadline and self.base is None:
            line = self.proc.stdout.readline()
            if not line:
                break
            m = re.search(r"listening on (http://127\.0\.0\.1:\d+)/", line)
            if m:
                self.base = m.group(1)
        if self.base is None:
            self.proc.kill()
            raise AssertionError("hzio serve did not report its port")
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()  # drain the log

    def url(self, name):
        return f"{self.base}/mod_visus?dataset={name}"

    def close(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class SlowProxy:
    """Forwards GET requests to `upstream` (http://127.0.0.1:PORT) after sleeping `delay` seconds,
    so the viewer sees a slow server. Counts the requests it delayed."""

    def __init__(self, upstream, delay):
        host, port = upstream.split("//")[1].split(":")
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                time.sleep(proxy.delay)
                proxy.requests += 1
                conn = http.client.HTTPConnection(host, int(port), timeout=120)
                conn.request("GET", self.path)
                reply = conn.getresponse()
                body = reply.read()
                self.send_response(reply.status)
                for key, value in reply.getheaders():
                    if key.lower() not in ("content-length", "connection", "transfer-encoding"):
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                conn.close()

            def log_message(self, *args):
                pass

        self.delay = delay
        self.requests = 0
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, name):
        return f"{self.base}/mod_visus?dataset={name}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def camera_arg(position, focal, up=(0, 0, 1)):
    return ",".join(f"{v:g}" for v in (*position, *focal, *up))


def log(*args):
    print(*args, file=sys.stderr, flush=True)
