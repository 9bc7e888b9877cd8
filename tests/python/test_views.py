"""Numpy-style slicing: ds["field"][t, z0:z1, y0:y1, x0:x1] equals numpy's indexing of the array
(time axis first, components last), at full resolution and at a level, and grid_of tells where
the samples are."""
from __future__ import annotations

import numpy as np
import pytest

import hzio
from conftest import assert_same


@pytest.fixture(scope="module")
def ds(small3d):
    return hzio.open(small3d[0])


@pytest.fixture(scope="module")
def stacked(small3d):
    """{field: array (nt, nz, ny, nx[, c])} of what OpenVisus wrote."""
    sources = small3d[1]
    return {f: np.stack([sources[(f, t)] for t in (0, 1, 2)]) for f in ("a", "rgb")}


KEYS = [
    (0, slice(3, 20), slice(5, 40), slice(7, 61)),
    (2, 10),
    (1, Ellipsis, 2),
    (slice(None), 4, slice(None, None, 3), slice(60, 2, -7)),
    (slice(0, 3, 2), slice(-5, None), -1),
    Ellipsis,
    (1, slice(10, 10)),                    # empty selection
    (-1, slice(None, None, -1), 0, 0),
    (np.int64(1), slice(2, 30, 4), slice(1, 44, 5), slice(None, None, 9)),
]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
@pytest.mark.parametrize("field", ["a", "rgb"])
def test_full_resolution_slicing_is_numpy(ds, stacked, field, key):
    view = ds[field]
    assert view.shape == stacked[field].shape and view.dtype == stacked[field].dtype
    assert_same(view[key], stacked[field][key], f"{field}{key!r}")


def test_component_indexing(ds, stacked):
    assert_same(ds["rgb"][0, 5, 6, :, 2], stacked["rgb"][0, 5, 6, :, 2], "last component")
    assert_same(ds["rgb"][1, ..., ::-1], stacked["rgb"][1, ..., ::-1], "reversed components")
    assert_same(ds["rgb"][1, ..., 0:2], stacked["rgb"][1, ..., 0:2], "two components")


def test_first_field_shortcut(ds, stacked):
    assert_same(ds[1, 2:5], stacked["a"][1, 2:5], "ds[key] indexes the first field")
    assert_same(np.asarray(ds["a"]), stacked["a"], "__array__ reads the whole view")


@pytest.mark.parametrize("level", [8, 13, 16, 18])
def test_level_view_indexes_the_level_grid(ds, stacked, level):
    view = ds.level(level, "rgb")
    assert view.level == level
    full_grid = view.grid
    zs, ys, xs = full_grid.logic_coords()
    on_grid = stacked["rgb"][:, zs][:, :, ys][:, :, :, xs]
    assert view.shape == on_grid.shape
    assert_same(view[...], on_grid, f"level {level} whole")
    key = (2, slice(1, None), slice(None, None, 2), slice(1, -1))
    assert_same(view[key], on_grid[key], f"level {level} {key}")
    assert_same(ds.level(level)["rgb"][key], on_grid[key], "switching field keeps the level")
    assert_same(view[key], ds.read("rgb", 2, level=level, box=_box_of(view.grid_of(key)))[:, ::2],
                "grid_of gives a box read returns the same samples of")


def _box_of(grid):
    """A box holding exactly the grid's samples when read at the same level (stride 1 along x)."""
    p1 = list(grid.origin)
    p2 = [o + (c - 1) * abs(s) + 1 for o, c, s in zip(grid.origin, grid.count, grid.stride)]
    # z/y were sliced with step 1 and 2 (grid strides 1x and 2x the level's); read every sample.
    return p1, p2


def test_grid_of_places_samples(ds):
    view = ds.level(16)
    g = view.grid_of((0, slice(2, 9, 3), 4, slice(None, None, -1)))
    base = view.grid
    assert g.count == (base.count[0], 1, 3)
    assert g.origin == (base.origin[0] + (base.count[0] - 1) * base.stride[0],
                        base.origin[1] + 4 * base.stride[1], base.origin[2] + 2 * base.stride[2])
    assert g.stride == (-base.stride[0], base.stride[1], 3 * base.stride[2])
    zs, ys, xs = g.physic_coords()
    assert zs[1] - zs[0] == 3 * base.stride[2] and xs[0] > xs[-1]


def test_bad_keys(ds):
    with pytest.raises(hzio.OutOfRangeError, match="index 3 is out of bounds for axis 0 with size 3"):
        ds["a"][3]
    with pytest.raises(IndexError, match="out of bounds for axis 2 with size 45"):
        ds["a"][0, 0, 45]
    with pytest.raises(hzio.OutOfRangeError, match="too many indices"):
        ds["a"][0, 0, 0, 0, 0]
    with pytest.raises(hzio.InvalidArgumentError, match="only integers, slices"):
        ds["a"][[0, 1]]
    with pytest.raises(hzio.InvalidArgumentError, match="single ellipsis"):
        ds["a"][..., 0, ...]
    with pytest.raises(hzio.NotFoundError, match="unknown field 'nope'"):
        ds["nope"]
    with pytest.raises(hzio.OutOfRangeError, match="level 20 is outside 0..19"):
        ds.level(20)
