"""xarray.open_dataset(..., engine="hzio", level=H): dims, coordinates from the physic box,
lazy reads of only what is selected, equal to hzio's reads."""
from __future__ import annotations

import numpy as np
import pytest
import xarray as xr

import hzio
from conftest import assert_same
from hzio import _views
from interop_util import make_array


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """3-D, two fields (one a vector), three timesteps, a physic box unlike the logic box."""
    idx = tmp_path_factory.mktemp("xr") / "sim.idx"
    ds = hzio.create(idx, dims=(48, 40, 20), fields={"t": "float32", "v": "int16[2]"}, timesteps=range(3),
                     compression="lz4", bitsperblock=10, physic_box=((-1.0, 0.0, 100.0), (1.0, 4.0, 120.0)))
    sources = {}
    for time in range(3):
        for name, dtype in (("t", "float32"), ("v", "int16[2]")):
            sources[(name, time)] = make_array(dtype, (48, 40, 20), seed=time + len(dtype))
            ds.write(sources[(name, time)], name, time)
    return idx, sources


class CountingReads:
    """Records the keys FieldView.__getitem__ is called with (every read the backend makes)."""

    def __init__(self, monkeypatch):
        self.keys = []
        original = _views.FieldView.__getitem__

        def counted(view, key):
            if not isinstance(key, str):
                self.keys.append(key)
            return original(view, key)
        monkeypatch.setattr(_views.FieldView, "__getitem__", counted)


def test_dims_coords_and_values(sim):
    idx, sources = sim
    x = xr.open_dataset(idx, engine="hzio", level=15)
    ds = hzio.open(idx)
    g = ds.grid(level=15)
    assert dict(x.sizes) == {"time": 3, "z": g.shape[0], "y": g.shape[1], "x": g.shape[2], "component": 2}
    assert x["t"].dims == ("time", "z", "y", "x") and x["v"].dims == ("time", "z", "y", "x", "component")
    assert list(x["time"].values) == [0, 1, 2]
    zs, ys, xs = g.physic_coords()
    np.testing.assert_allclose(x["x"].values, xs)
    np.testing.assert_allclose(x["z"].values, zs)
    # physic = p0 + (logic - l0) * (p1 - p0) / (l1 - l0): x spans -1..1 over 48 samples.
    np.testing.assert_allclose(xs, -1.0 + g.logic_coords()[2] * (2.0 / 48))
    assert x.attrs["level"] == 15 and x.attrs["maxh"] == ds.maxh and x.attrs["bitmask"] == ds.bitmask
    assert x["v"].attrs["idx_dtype"] == "int16[2]"
    assert_same(x["t"].sel(time=2).values, ds.read("t", 2, level=15), "t at level 15")
    assert_same(x["v"].values[1], ds.read("v", 1, level=15), "v at level 15")


def test_reads_are_lazy_and_boxed(sim, monkeypatch):
    idx, sources = sim
    reads = CountingReads(monkeypatch)
    x = xr.open_dataset(idx, engine="hzio")                     # full resolution
    assert reads.keys == [], "opening reads no samples"
    part = x["t"].isel(time=1, z=slice(4, 9), y=7, x=slice(10, 30, 2)).values
    assert_same(part, sources[("t", 1)][4:9, 7, 10:30:2], "a selection")
    assert len(reads.keys) == 1
    key = reads.keys[0]
    assert key[0] == 1 and key[1] == slice(4, 9, 1) and key[2] == 7, key
    near = x["t"].sel(time=0, x=0.0, y=2.0, z=110.0, method="nearest").values
    ds = hzio.open(idx)
    k = int(np.argmin(np.abs(ds.grid().physic_coords()[2] - 0.0)))
    assert near == sources[("t", 0)][10, 20, k]


def test_fields_drop_and_guess(sim):
    idx, _ = sim
    only = xr.open_dataset(idx, engine="hzio", fields=["v"], level=10)
    assert list(only.data_vars) == ["v"]
    dropped = xr.open_dataset(idx, engine="hzio", drop_variables="v")
    assert list(dropped.data_vars) == ["t"]
    guessed = xr.open_dataset(idx)                                   # .idx: engine found by guess
    assert list(guessed.data_vars) == ["t", "v"]


def test_preferred_chunks_follow_blocks(sim):
    idx, _ = sim
    for level in (8, 14, 17):
        x = xr.open_dataset(idx, engine="hzio", level=level)
        chunks = x["t"].encoding["preferred_chunks"]
        assert chunks["time"] == 1
        ds = hzio.open(idx)
        if level > ds.bitsperblock:
            _, stride, count = ds._core.block_grid(1 << (level - ds.bitsperblock - 1))
            g = ds.grid(level=level)
            for name, d in (("x", 0), ("y", 1), ("z", 2)):
                block = max(1, count[d] * stride[d] // g.stride[d])
                assert chunks[name] % block == 0 or chunks[name] == g.count[d], (level, name, chunks, block)
