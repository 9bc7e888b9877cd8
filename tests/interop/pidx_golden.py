"""The datasets PIDX 0.9.3 wrote (shared/testdata/pidx-golden, README there), as the tests that read
them through every hzio path (CLI, hzio-mpi, hzio serve, Python) expect them: their fields, the
README's formula of every value, and the result grid of any query.

Independent of hzio's C++ code on purpose. A chunked dataset (`(compression type) 1`) is expected
as the full sample grid whose bitmask is PIDX's `(bits)` (over the grid of 4x4x4 chunks) followed by
the chunk's own bits, which PIDX guesses like any patch's: largest axis first, z before y before x
on ties ("210210"); reads at every level must equal the formula sampled on the §3.4 grid of that
bitmask.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from interop_util import IdxGeometry, grid_axes, read_idx_geometry, sample_source, sub_boxes

DATASETS = ["mixed_n2", "mixed_n4", "s3d_n2", "s3dchunk_n2"]
CHUNKED = ["s3dchunk_n2"]


def header_value(idx: Path, key: str) -> str | None:
    """The value of `(key)` in the text header, or None."""
    lines = [line.strip() for line in Path(idx).read_text().splitlines()]
    for i, line in enumerate(lines):
        if line == f"({key})" and i + 1 < len(lines):
            return lines[i + 1]
    return None


def pidx_fields(idx: Path) -> list[tuple[str, np.dtype, int]]:
    """(name, numpy dtype, components) of `(fields)`, whose dtypes PIDX writes as `N*type`."""
    text = Path(idx).read_text()
    body = text.split("(fields)\n", 1)[1].split("\n(", 1)[0]
    fields = []
    for piece in body.split("+"):
        name, dtype = piece.split()[:2]
        count, base = dtype.split("*")
        fields.append((name, np.dtype(base), int(count)))
    return fields


def timesteps(idx: Path) -> list[int]:
    first, last = Path(idx).read_text().split("(time)\n", 1)[1].split()[:2]
    return list(range(int(first), int(last) + 1))


def chunk_bits(chunk: list[int]) -> str:
    """PIDX's bit string of a patch of `chunk` samples (x first): halve the largest axis, z first."""
    n, bits = list(chunk), ""
    while max(n) > 1:
        axis = max(range(len(n)), key=lambda d: (n[d], d))
        bits += str(axis)
        n[axis] //= 2
    return bits


def geometry(idx: Path) -> IdxGeometry:
    """The geometry hzio presents: as written, or for a chunked dataset the bitmask extended by the
    chunk's bits (and bitsperblock by their count)."""
    geom = read_idx_geometry(idx)
    if header_value(idx, "compression type") == "1":
        within = chunk_bits([4] * geom.pdim)
        geom.bitmask += within
        geom.bitsperblock += len(within)
    return geom


def formula(geom: IdxGeometry, v: int, dtype: np.dtype, ncomp: int) -> np.ndarray:
    """The README: variable v, component c, sample (x, y, z): 100 + v + c + (gx*gy*z + gx*y + x),
    as an array (nz, ny, nx[, c]) of the field's dtype."""
    gx, gy, gz = (geom.box_p2[d] - geom.box_p1[d] for d in range(3))
    z, y, x = np.meshgrid(np.arange(gz), np.arange(gy), np.arange(gx), indexing="ij")
    index = gx * gy * z + gx * y + x
    planes = [100 + v + c + index for c in range(ncomp)]
    return (np.stack(planes, axis=-1) if ncomp > 1 else planes[0]).astype(dtype)


def dataset_dims(geom: IdxGeometry) -> list[int]:
    return [geom.box_p2[d] - geom.box_p1[d] for d in range(geom.pdim)]


def expected_reads(idx: Path, geom: IdxGeometry, boxes=None, include_empty: bool = False):
    """(field, time, level, box, expected array) for every field, timestep and level of the dataset
    and every box (default: sub_boxes of the dataset), the expected array being the formula sampled
    on the query's §3.4 grid. Queries whose grid has no sample on some axis are skipped, or yielded
    with None as expected when include_empty."""
    boxes = sub_boxes(dataset_dims(geom)) if boxes is None else boxes
    for v, (field, dtype, ncomp) in enumerate(pidx_fields(idx)):
        source = formula(geom, v, dtype, ncomp)
        for time in timesteps(idx):
            for h in range(geom.maxh + 1):
                for box in boxes:
                    if grid_axes(geom, box[0], box[1], h) is not None:
                        yield field, time, h, box, sample_source(source, geom, *box, h)
                    elif include_empty:
                        yield field, time, h, box, None
