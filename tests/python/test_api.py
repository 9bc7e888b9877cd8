"""hzio.open, Dataset metadata, read with hzio's and OpenVisus's keywords, grids, progressive
reads, out=: checked against the arrays OpenVisus wrote (conftest.small3d)."""
from __future__ import annotations

import numpy as np
import pytest

import hzio
from conftest import assert_same


@pytest.fixture(scope="module")
def ds(small3d):
    return hzio.open(small3d[0])


def test_metadata(ds, small3d):
    idx, _ = small3d
    assert ds.source == str(idx)
    assert ds.dims == (70, 45, 33) and ds.shape == (33, 45, 70) and ds.ndim == 3
    assert ds.logic_box == ((0, 0, 0), (70, 45, 33))
    assert ds.physic_box == ((0.0, 0.0, 0.0), (70.0, 45.0, 33.0))
    assert ds.timesteps == (0, 1, 2) and ds.time == 0
    assert ds.bitmask.startswith("V") and ds.maxh == len(ds.bitmask) - 1 == 19
    assert ds.bitsperblock == 10 and ds.blocksperfile == 8
    assert ds.field_names == ["a", "rgb"]
    a, rgb = ds.fields
    assert (a.name, a.dtype, a.numpy_dtype, a.components) == ("a", "float32", np.dtype("float32"), 1)
    assert (rgb.dtype, rgb.numpy_dtype, rgb.components) == ("uint8[3]", np.dtype("uint8"), 3)
    assert a.compression == "zip" and a.layout == "hzorder"
    assert ds.field("rgb") is rgb and ds.field(1) is rgb and ds.field(-1) is rgb and ds.field() is a
    assert "(fields)" in ds.header and "(bits)" in ds.header


def test_repr_says_what_it_is(ds, small3d):
    r = repr(ds)
    for part in (str(small3d[0]), "3-D 70 x 45 x 33 (x, y, z)", "maxh 19", "a float32 (zip, hzorder)",
                 "rgb uint8[3]", "timesteps: 0..2 (3)", ds.bitmask):
        assert part in r, (part, r)
    assert repr(ds["a"]).startswith("<hzio field view 'a' float32 level 19")


def test_full_reads_equal_what_openvisus_wrote(ds, small3d):
    _, sources = small3d
    for (field, time), source in sources.items():
        assert_same(ds.read(field, time), source, f"{field} t{time}")
    assert_same(ds.read(), sources[("a", 0)], "defaults: first field, first timestep")
    assert_same(ds.read(field=1, time=2), sources[("rgb", 2)], "field by index")


def test_box_forms_agree(ds, small3d):
    source = small3d[1][("a", 1)]
    expected = source[4:20, 5:30, 7:61]
    for kwargs in (dict(box=((7, 5, 4), (61, 30, 20))), dict(box="7:61,5:30,4:20"),
                   dict(logic_box=([7, 5, 4], [61, 30, 20])), dict(x=[7, 61], y=[5, 30], z=[4, 20])):
        assert_same(ds.read("a", 1, **kwargs), expected, str(kwargs))
    # OpenVisus: floats are fractions of the extent; unspecified axes are whole.
    assert_same(ds.read("a", 1, x=[0.0, 0.5]), source[:, :, :35], "x fractions")
    assert_same(ds.read("a", 1, z=[10, 11]), source[10:11], "one slice keeps its axis")


def test_levels_and_grids(ds, small3d):
    source = small3d[1][("a", 0)]
    for level in (0, 5, 12, 16, 18, 19):
        g = ds.grid(level=level)
        array = ds.read(level=level)
        assert array.shape == g.shape
        zs, ys, xs = g.logic_coords()
        assert_same(array, source[np.ix_(zs, ys, xs)], f"level {level} on its grid")
        assert g.level == level
        assert g.logic_box[0] == g.origin
    g = ds.grid(level=16, box=((7, 5, 4), (61, 30, 20)))
    assert all(o >= lo for o, lo in zip(g.origin, (7, 5, 4)))
    assert all(o % s == 0 for o, s in zip(g.origin, g.stride))
    np.testing.assert_allclose(g.physic_coords()[2], g.logic_coords()[2])  # physic box = logic box


def test_quality_and_max_resolution_follow_openvisus(ds):
    maxh = ds.maxh
    assert ds.read(max_resolution=13).shape == ds.read(level=13).shape
    assert ds.read(quality=-3).shape == ds.read(level=maxh - 3).shape
    assert ds.read(max_resolution=15, quality=-2).shape == ds.read(level=13).shape
    # q > 0 is max_resolution + q - maxh in OpenVisus: an absolute level when max_resolution is maxh.
    assert ds.read(quality=7).shape == ds.read(level=7).shape
    with pytest.raises(hzio.InvalidArgumentError, match="not both"):
        ds.read(level=3, max_resolution=3)


def test_read_progressive(ds, small3d):
    source = small3d[1][("rgb", 2)]
    got = list(ds.read_progressive("rgb", 2, num_refinements=3, grids=True))
    assert [g.level for g, _ in got] == [13, 16, 19]
    for g, array in got:
        zs, ys, xs = g.logic_coords()
        assert_same(array, source[np.ix_(zs, ys, xs)], f"level {g.level}")
    assert [a.shape for a in ds.read_progressive(levels=[9, 3, 6])] == \
           [ds.read(level=h).shape for h in (3, 6, 9)]
    # OpenVisus's spelling: read(num_refinements=n) is the generator.
    assert len(list(ds.read("a", num_refinements=2, max_resolution=10))) == 2
    assert [a.shape for a in ds.read_progressive(num_refinements=30, level=5)] == \
           [ds.read(level=h).shape for h in (2, 5)]


def test_read_into_out(ds, small3d):
    out = np.zeros((20 - 4, 30 - 5, 61 - 7), np.float32)
    got = ds.read("a", 2, box=((7, 5, 4), (61, 30, 20)), out=out)
    assert got is out
    assert_same(out, small3d[1][("a", 2)][4:20, 5:30, 7:61], "out=")
    with pytest.raises(hzio.InvalidArgumentError, match="out= has shape"):
        ds.read("a", 2, out=np.zeros((3, 3, 3), np.float32))
    with pytest.raises(hzio.InvalidArgumentError, match="out= has shape"):
        ds.read("a", 2, box=((7, 5, 4), (61, 30, 20)), out=np.zeros(out.shape, np.float64))


def _rss_bytes() -> int:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS:"))


def test_empty_is_aligned_memory_freed_with_its_arrays():
    huge = 2 << 20
    a = hzio.empty((128, 256, 256), np.float32)
    assert a.shape == (128, 256, 256) and a.dtype == np.float32 and a.flags.c_contiguous and a.flags.writeable
    assert a.ctypes.data % huge == 0, "large arrays start on a 2 MiB boundary"
    b = hzio.empty(40 << 20, "u1")
    assert b.ctypes.data % huge == 0 and b.shape == (40 << 20,) and b.dtype == np.uint8
    small = hzio.empty((3, 4), np.uint16)
    assert small.shape == (3, 4) and small.dtype == np.uint16, "below 32 MiB: numpy's own memory"
    assert hzio.empty(0).shape == (0,)
    with pytest.raises(ValueError, match="negative dimensions"):
        hzio.empty((2, -1))
    # More than the machine has is an exception, as numpy's MemoryError (not a kill when touched).
    with pytest.raises(hzio.TooLargeError, match=f"cannot map {1 << 46} bytes"):
        hzio.empty(1 << 46, np.uint8)
    # The memory goes when the last array viewing it does (not when the first view is dropped).
    del a, b
    before = _rss_bytes()
    c = hzio.empty((256 << 20,), np.uint8)
    view = c[1:]
    c[...] = 1
    del c
    assert _rss_bytes() - before >= (250 << 20)
    assert view[-1] == 1
    del view
    assert _rss_bytes() - before < (32 << 20), "256 MiB of hzio.empty memory was not freed"


def test_large_results_are_aligned(tmp_path):
    # 256 x 256 x 160 float32 (40 MiB): new arrays of reads and views come from hzio.empty.
    shape = (160, 256, 256)
    source = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    ds = hzio.create(tmp_path / "big.idx", shape=shape, fields={"v": "float32"}, compression="raw")
    ds.write(source)
    for got, what in ((ds.read(), "read()"), (ds["v"][0], "view")):
        assert got.ctypes.data % (2 << 20) == 0, what
        assert_same(got, source, what)
    out = hzio.empty(shape, np.float32)
    assert ds.read(out=out) is out
    assert_same(out, source, "out=hzio.empty")
    assert_same(ds.read(box=((0, 0, 8), (256, 256, 16))), source[8:16], "small results: numpy memory")


def test_open_accepts_pathlike_and_limits(small3d):
    ds = hzio.open(small3d[0], threads=1, max_query_bytes=1000)
    assert ds.read(level=5).size > 0
    with pytest.raises(hzio.TooLargeError, match="over the limit of 1000"):
        ds.read()


def test_context_manager_closes(small3d):
    with hzio.open(small3d[0]) as ds:
        assert ds.read(level=0).shape == (1, 1, 1)
    assert ds.source == str(small3d[0]) and ds.dims == (70, 45, 33), "metadata stays"
    with pytest.raises(hzio.InvalidArgumentError, match="the dataset is closed"):
        ds.read()
