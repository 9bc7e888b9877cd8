"""Helpers shared by the OpenVisus interoperability tests.

Independent of hzio's C++ code on purpose: the block table is parsed from idx-format.md §4.5 and
the box-query result grid is computed from §3.3/§3.4, so that a test compares hzio and OpenVisus
against each other and against the source arrays, never hzio against itself.
"""
from __future__ import annotations

import glob
import itertools
import math
import os
import re
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

# Compression codes of a block entry's flags (idx-format.md §4.5) and the row-major layout bit.
CODEC_CODES = {"raw": 0, "zip": 3, "jpg": 4, "png": 6, "lz4": 7, "zfp": 8}
ROW_MAJOR_BIT = 0x10


def hzio_binary() -> str:
    path = os.environ.get("HZIO_BIN", "")
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError(f"HZIO_BIN must name the hzio executable (got '{path}')")
    return path


def run_hzio(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs `hzio ARGS`; the result carries returncode, stdout and stderr (text)."""
    return subprocess.run([hzio_binary(), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def check_hzio(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs hzio and fails with its command line and stderr when it exits non-zero."""
    done = run_hzio(args, timeout)
    if done.returncode != 0:
        raise AssertionError(f"hzio {' '.join(map(str, args))} exited {done.returncode}:\n"
                             f"{done.stderr.strip()}")
    return done


def box_arg(p1, p2) -> str:
    """`x0:x1,y0:y1[,z0:z1]` as design.md §3 writes boxes (exclusive upper bounds)."""
    return ",".join(f"{a}:{b}" for a, b in zip(p1, p2))


def hzio_read(dataset, out_dir, *, field=None, time=None, box=None, level=None) -> np.ndarray:
    """`hzio read` into a fresh .npy under out_dir and returns the array."""
    out = Path(out_dir) / "hzio_read.npy"
    if out.exists():
        out.unlink()
    args = ["read", dataset]
    if field is not None:
        args += ["--field", field]
    if time is not None:
        args += ["--time", time]
    if box is not None:
        args += ["--box", box_arg(*box)]
    if level is not None:
        args += ["--level", level]
    check_hzio(args + ["-o", out])
    return np.load(out)


# ---------------------------------------------------------------------------------------------
# The .idx header, read just enough to know the geometry (idx-format.md §1).

@dataclass
class IdxGeometry:
    box_p1: list[int]
    box_p2: list[int]          # exclusive
    bitmask: str               # e.g. "V012012"
    bitsperblock: int
    blocksperfile: int
    field_names: list[str]

    @property
    def maxh(self) -> int:
        return len(self.bitmask) - 1

    @property
    def pdim(self) -> int:
        return 1 + max(int(c) for c in self.bitmask[1:])

    @property
    def pow2(self) -> list[int]:
        return [2 ** self.bitmask[1:].count(str(d)) for d in range(self.pdim)]

    def cumulative_stride(self, h: int) -> list[int]:
        """D_h of §3.3: stride of the grid of levels 0..h."""
        tail = self.bitmask[h + 1:]
        return [2 ** tail.count(str(d)) for d in range(self.pdim)]


def read_idx_geometry(idx_path) -> IdxGeometry:
    text = Path(idx_path).read_text()
    sections: dict[str, list[str]] = {}
    key = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("(") and stripped.endswith(")"):
            key = stripped[1:-1]
            sections[key] = []
        elif key is not None and stripped:
            sections[key].append(stripped)
    box = [int(v) for v in sections["box"][0].split()]
    p1, p2 = box[0::2], [v + 1 for v in box[1::2]]     # the text header's upper bound is inclusive
    fields = []
    for line in sections["fields"]:
        fields.append(line.lstrip("+ ").split()[0])
    return IdxGeometry(p1, p2, sections["bits"][0], int(sections["bitsperblock"][0]),
                       int(sections["blocksperfile"][0]), fields)


# ---------------------------------------------------------------------------------------------
# Expected results.

def grid_axes(geom: IdxGeometry, p1, p2, h: int) -> list[np.ndarray] | None:
    """Coordinates along each axis (x first) of a box query [p1,p2) at level h (§3.4, s = 0);
    None when some axis has no sample (OpenVisus then refuses the query)."""
    stride = geom.cumulative_stride(h)
    axes = []
    for d in range(geom.pdim):
        c1, c2 = max(p1[d], 0), min(p2[d], geom.pow2[d])
        first = -(-c1 // stride[d]) * stride[d]
        last = ((c2 - 1) // stride[d]) * stride[d]
        if c2 <= c1 or last < first:
            return None
        axes.append(np.arange(first, last + 1, stride[d]))
    return axes


def sample_source(source: np.ndarray, geom: IdxGeometry, p1, p2, h: int) -> np.ndarray:
    """The source array (C order, slowest axis first, components last) sampled on the §3.4 grid
    of the query; the query box must lie inside the dataset box."""
    axes = grid_axes(geom, p1, p2, h)
    assert axes is not None, "query has an empty axis"
    index = np.ix_(*[a - geom.box_p1[d] for d, a in reversed(list(enumerate(axes)))])
    return source[index]


# ---------------------------------------------------------------------------------------------
# Block files (idx-format.md §4.5): which codec/layout flags the payloads really carry.

def block_flags(idx_path) -> set[int]:
    """The flags word of every present block entry (size != 0 and offset != 0) in every .bin
    file beside the dataset, so a test can prove which codec and layout a writer used."""
    geom = read_idx_geometry(idx_path)
    nentries = geom.blocksperfile * len(geom.field_names)
    root = Path(idx_path).parent
    flags = set()
    for path in glob.glob(str(root / "**" / "*.bin"), recursive=True):
        with open(path, "rb") as f:
            raw = f.read(40 + 40 * nentries)
        for e in range(nentries):
            words = struct.unpack(">10I", raw[40 + 40 * e: 80 + 40 * e])
            offset, size = words[2] | (words[3] << 32), words[4]
            if offset != 0 and size != 0:
                flags.add(words[5])
    return flags


def expected_flags(codec: str, layout: str) -> int:
    """`codec` may carry options ("zfp-accuracy=0.01", "jpg-JPEG_QUALITYSUPERB")."""
    return CODEC_CODES[codec.split("-")[0]] | (ROW_MAJOR_BIT if layout == "rowmajor" else 0)


# ---------------------------------------------------------------------------------------------
# Test data.

# The matrix of issue 2: every dtype x layout x codec, on power-of-two and odd, 2-D and 3-D dims.
DTYPES = ["float32", "float64", "int16", "uint8", "uint8[3]", "float32[3]"]
LAYOUTS = ["hzorder", "rowmajor"]
CODECS = ["raw", "zip", "lz4"]
DIMS = [(70, 45, 33), (32, 16, 8), (70, 45), (64, 32)]
SECOND_FIELD = {"float32": "uint8", "float64": "int16", "int16": "float32", "uint8": "float64",
                "uint8[3]": "float32", "float32[3]": "uint8[3]"}
TIMES = [0, 1, 2]


def maxh_of(dims) -> int:
    return sum(math.ceil(math.log2(n)) for n in dims)


def block_params(dims) -> tuple[int, int]:
    """bitsperblock and blocksperfile giving tens of blocks and several files per timestep."""
    return max(4, maxh_of(dims) - 7), 8


def matrix_cases():
    """pytest params (dtype, layout, codec, dims) of the whole matrix; ids name all four."""
    for i, (dtype, layout, codec) in enumerate(itertools.product(DTYPES, LAYOUTS, CODECS)):
        dims = DIMS[i % len(DIMS)]
        yield pytest.param(dtype, layout, codec, dims,
                           id=f"{dtype}-{layout}-{codec}-{'x'.join(map(str, dims))}")


def dtype_of(spec: str) -> tuple[np.dtype, int]:
    """numpy dtype and component count of an IDX dtype string such as `uint8[3]`."""
    m = re.fullmatch(r"([a-z]+[0-9]+)(?:\[(\d+)\])?", spec)
    assert m, spec
    return np.dtype(m.group(1)), int(m.group(2) or 1)


def make_array(spec: str, dims_xyz, seed: int) -> np.ndarray:
    """A deterministic array of IDX dtype `spec` with shape (nz, ny, nx[, ncomp]) where every
    sample differs from its neighbours (catches any misplaced sample)."""
    dtype, ncomp = dtype_of(spec)
    shape = tuple(reversed(dims_xyz)) + ((ncomp,) if ncomp > 1 else ())
    n = int(np.prod(shape))
    rng = np.random.default_rng(seed)
    if dtype.kind == "f":
        values = rng.standard_normal(n) * 1000.0
    else:
        info = np.iinfo(dtype)
        values = rng.integers(info.min, int(info.max) + 1, size=n, dtype=np.int64)
    return values.astype(dtype).reshape(shape)


def sub_boxes(dims_xyz) -> list[tuple[list[int], list[int]]]:
    """The whole box, plus sub-boxes with non-zero, non-aligned origins (one of them one sample
    thick on the slowest axis, one at the far corner)."""
    dims = list(dims_xyz)
    boxes = [([0] * len(dims), dims)]
    boxes.append(([max(1, n // 5) + 1 for n in dims], [max(2, n - n // 7 - 1) for n in dims]))
    boxes.append(([3 if n > 4 else 0 for n in dims[:-1]] + [dims[-1] // 2],
                  [max(4, n - 2) if n > 4 else n for n in dims[:-1]] + [dims[-1] // 2 + 1]))
    boxes.append(([n // 2 + 1 for n in dims], dims))
    return boxes


class Mismatches:
    """Collects every failing query of a dataset so one run reports them all."""

    def __init__(self):
        self.items: list[str] = []

    def add(self, what: str):
        self.items.append(what)

    def assert_none(self, dataset):
        if self.items:
            shown = "\n  ".join(self.items[:25])
            more = f"\n  ... and {len(self.items) - 25} more" if len(self.items) > 25 else ""
            pytest.fail(f"{len(self.items)} query mismatches on {dataset}:\n  {shown}{more}")
