"""pytest setup of the `hzio` Python package tests (run by ctest, see CMakeLists.txt): the package
is the wheel the python.install fixture built and installed into the venv.

Environment: HZIO_BIN = the hzio executable (for `hzio serve` and CLI comparisons),
HZIO_PYTHON_WHEEL_DIR = where the wheel was built, HZIO_SOURCE_DIR = the checkout.
"""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
from pathlib import Path

# OpenVisus's write lock (a `.lock` side file per block file) only slows the tests down.
os.environ.setdefault("VISUS_DISABLE_WRITE_LOCK", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "interop"))   # interop_util: make_array, sub_boxes, ...

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import hzio  # noqa: E402
from interop_util import make_array  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def installed_package():
    """The tests are meant for the installed wheel, not a source tree on sys.path."""
    assert "site-packages" in hzio.__file__, f"hzio imported from {hzio.__file__}, not the installed wheel"
    return hzio


@pytest.fixture(scope="session")
def ov():
    """OpenVisus 2.2.149's Python module, in the same process as hzio."""
    import OpenVisus
    return OpenVisus


def hzio_binary() -> str:
    path = os.environ.get("HZIO_BIN", "")
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError(f"HZIO_BIN must name the hzio executable (got '{path}')")
    return path


def ov_create(ov, idx: Path, dims, fields: dict[str, str], *, times=None, layout="hzorder",
              codec="raw", seed=1, bitsperblock=None, blocksperfile=None) -> dict:
    """A dataset written by OpenVisus: every (field, time) filled with make_array; returns the
    arrays written, keyed by (field, time)."""
    times = [0] if times is None else list(times)
    args = dict(url=str(idx), dims=list(dims), fields=[ov.Field(n, t, layout) for n, t in fields.items()])
    if times != [0]:
        args["time"] = [times[0], times[-1], "time_%02d/"]
    if bitsperblock:
        args["bitsperblock"] = bitsperblock
    if blocksperfile:
        args["blocksperfile"] = blocksperfile
    db = ov.CreateIdx(**args)
    sources = {}
    for t in times:
        for i, (name, dtype) in enumerate(fields.items()):
            sources[(name, t)] = make_array(dtype, dims, seed=seed + 100 * i + t)
            db.write(sources[(name, t)], field=name, time=t)
    if codec != "raw":
        db.compressDataset([codec])
    return sources


@pytest.fixture(scope="session")
def small3d(ov, tmp_path_factory):
    """A 3-D dataset written by OpenVisus: fields a (float32) and rgb (uint8[3]), timesteps 0..2,
    odd dims, several block files per timestep, zip. Returns (idx path, sources)."""
    idx = tmp_path_factory.mktemp("small3d") / "visus.idx"
    sources = ov_create(ov, idx, (70, 45, 33), {"a": "float32", "rgb": "uint8[3]"}, times=[0, 1, 2],
                        codec="zip", bitsperblock=10, blocksperfile=8)
    return idx, sources


class Server:
    """`hzio serve NAME=PATH ... --port 0` on 127.0.0.1; the port comes from its first line."""

    def __init__(self, datasets: dict[str, Path]):
        args = [hzio_binary(), "serve", *[f"{k}={v}" for k, v in datasets.items()], "--port", "0"]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     stdin=subprocess.DEVNULL)
        ready, _, _ = select.select([self.proc.stdout], [], [], 30)
        line = self.proc.stdout.readline().decode() if ready else ""
        if "listening on http://127.0.0.1:" not in line:
            self.proc.kill()
            raise RuntimeError(f"hzio serve did not start: {line!r} {self.proc.stderr.read().decode()}")
        self.base = line.split("listening on ", 1)[1].strip().rstrip("/")

    def url(self, name: str) -> str:
        return f"{self.base}/mod_visus?dataset={name}"

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


@pytest.fixture(scope="session")
def server(small3d):
    """hzio serve with small3d as 'small3d'."""
    s = Server({"small3d": small3d[0]})
    yield s
    s.stop()


def assert_same(got: np.ndarray, expected: np.ndarray, what: str = ""):
    assert got.shape == expected.shape and got.dtype == expected.dtype, \
        f"{what}: hzio {got.dtype}{got.shape} vs {expected.dtype}{expected.shape}"
    if not np.array_equal(got, expected):
        bad = np.argwhere(got != expected)
        raise AssertionError(f"{what}: {len(bad)} values differ, first at {tuple(bad[0])}: "
                             f"{got[tuple(bad[0])]} vs {expected[tuple(bad[0])]}")
