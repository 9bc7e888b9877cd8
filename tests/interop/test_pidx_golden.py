"""Datasets PIDX 0.9.3 wrote (shared/testdata/pidx-golden, README there): `(version) 6.1`, PIDX's
extra keys, a 5-D `(box)`, `n*float64` dtypes, `time%09d/` and `%02x` templates, blocksperfile
above the number of blocks, PIDX's bitmasks, hz-ordered raw blocks.

`hzio read` of every unchunked dataset equals the README's formula, for every field and
timestep, at every level, on the whole box and on sub-boxes (the expected coarse grids are the
formula's full array sampled on the §3.4 grid, computed here independently of hzio); OpenVisus
reading the same queries agrees. `hzio info --json` and `hzio verify` describe them. The chunked
dataset (`(compression type) 1`) is refused clearly by every command.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from interop_util import (Mismatches, box_arg, check_hzio, grid_axes, hzio_read, read_idx_geometry,
                          run_hzio, sample_source, sub_boxes)

UNCHUNKED = ["mixed_n2", "mixed_n4", "s3d_n2"]


def pidx_fields(idx: Path) -> list[tuple[str, np.dtype, int]]:
    """(name, numpy dtype, components) of `(fields)`, whose dtypes PIDX writes as `N*type`."""
    text = idx.read_text()
    body = text.split("(fields)\n", 1)[1].split("\n(", 1)[0]
    fields = []
    for piece in body.split("+"):
        name, dtype = piece.split()[:2]
        count, base = dtype.split("*")
        fields.append((name, np.dtype(base), int(count)))
    return fields


def formula(geom, v: int, dtype: np.dtype, ncomp: int) -> np.ndarray:
    """The README: variable v, component c, sample (x, y, z): 100 + v + c + (gx*gy*z + gx*y + x),
    as an array (nz, ny, nx[, c]) of the field's dtype."""
    gx, gy, gz = (geom.box_p2[d] - geom.box_p1[d] for d in range(3))
    z, y, x = np.meshgrid(np.arange(gz), np.arange(gy), np.arange(gx), indexing="ij")
    index = gx * gy * z + gx * y + x
    planes = [100 + v + c + index for c in range(ncomp)]
    return (np.stack(planes, axis=-1) if ncomp > 1 else planes[0]).astype(dtype)


def timesteps(idx: Path) -> list[int]:
    first, last = idx.read_text().split("(time)\n", 1)[1].split()[:2]
    return list(range(int(first), int(last) + 1))


@pytest.mark.parametrize("name", UNCHUNKED)
def test_every_field_time_level_and_box_equals_the_formula(ov, pidx_dir, tmp_path, name):
    idx = pidx_dir / f"{name}.idx"
    geom = read_idx_geometry(idx)
    dims = [geom.box_p2[d] - geom.box_p1[d] for d in range(geom.pdim)]
    db = ov.LoadDataset(str(idx))
    mismatches = Mismatches()
    for v, (field, dtype, ncomp) in enumerate(pidx_fields(idx)):
        source = formula(geom, v, dtype, ncomp)
        for time in timesteps(idx):
            for h in range(geom.maxh + 1):
                for box in sub_boxes(dims):
                    if grid_axes(geom, box[0], box[1], h) is None:
                        # No sample on some axis: OpenVisus refuses such a query, so must hzio.
                        done = run_hzio(["read", idx, "--field", field, "--time", time, "--level", h,
                                         "--box", box_arg(*box), "-o", tmp_path / "none.npy"])
                        if done.returncode == 0:
                            mismatches.add(f"{field} t{time} h{h} box {box}: hzio read an empty grid")
                        continue
                    expected = sample_source(source, geom, *box, h)
                    what = f"{field} t{time} h{h} box {box_arg(*box)}"
                    try:
                        got = hzio_read(idx, tmp_path, field=field, time=time, box=box, level=h)
                    except AssertionError as error:
                        mismatches.add(f"hzio {what}: {str(error).splitlines()[-1]}")
                        continue
                    if got.dtype != expected.dtype or not np.array_equal(got, expected):
                        mismatches.add(f"hzio {what}: {got.dtype}{got.shape} differs from the formula")
                    theirs = db.read(field=field, time=time, logic_box=box, max_resolution=h)
                    if not np.array_equal(theirs, expected):
                        mismatches.add(f"OpenVisus {what}: differs from the formula")
    mismatches.assert_none(idx)


@pytest.mark.parametrize("name", UNCHUNKED)
def test_info_and_verify(pidx_dir, name):
    idx = pidx_dir / f"{name}.idx"
    geom = read_idx_geometry(idx)
    fields = pidx_fields(idx)
    info = json.loads(check_hzio(["info", idx, "--json"]).stdout)
    assert info["version"] == 6
    assert info["dims"] == [geom.box_p2[d] for d in range(3)]
    assert info["bitmask"] == geom.bitmask
    assert info["blocksperfile"] == geom.blocksperfile > info["total_blocks"]
    assert info["time_template"] == "time%09d/"
    assert info["timesteps"] == timesteps(idx)
    assert [(f["name"], f["components"]) for f in info["fields"]] == [(n, c) for n, _, c in fields]
    assert [f["dtype"] for f in info["fields"]] == \
        [(np.dtype(t).name if c == 1 else f"{np.dtype(t).name}[{c}]") for _, t, c in fields]
    done = check_hzio(["verify", idx])
    blocks = info["total_blocks"] * len(fields) * len(timesteps(idx))
    assert f"OK: {blocks} blocks checked, {blocks} present, 0 missing, 0 corrupt" in done.stdout, done.stdout


def test_chunked_layout_is_refused_clearly(pidx_dir, tmp_path):
    idx = pidx_dir / "s3dchunk_n2.idx"
    for args in (["info", idx], ["verify", idx], ["read", idx, "-o", tmp_path / "x.npy"]):
        done = run_hzio(args)
        assert done.returncode != 0, args
        assert "s3dchunk_n2.idx" in done.stderr and "PIDX chunked layout: not yet supported" in done.stderr, \
            done.stderr
