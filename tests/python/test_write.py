"""Writing with hzio (create, write, writer transactions, convert in slabs, add_field,
add_timestep) and reading back with OpenVisus 2.2.149 in the same process."""
from __future__ import annotations

import numpy as np
import pytest

import hzio
from conftest import assert_same
from interop_util import block_flags, expected_flags, make_array


def test_create_write_read_back_with_openvisus(ov, tmp_path):
    idx = tmp_path / "sim.idx"
    ds = hzio.create(idx, dims=(40, 24, 18), fields={"temperature": "float32", "velocity": "float32[3]",
                                                     "mask": np.uint8},
                     timesteps=range(2, 5), compression="lz4", layout="hzorder", bitsperblock=9)
    assert ds.dims == (40, 24, 18) and ds.timesteps == (2, 3, 4) and ds.bitsperblock == 9
    assert [(f.name, f.dtype, f.compression, f.layout) for f in ds.fields] == [
        ("temperature", "float32", "lz4", "hzorder"), ("velocity", "float32[3]", "lz4", "hzorder"),
        ("mask", "uint8", "lz4", "hzorder")]
    assert not ds.read("velocity", 3).any(), "unwritten samples read as the default value"
    sources = {}
    for t in (2, 3, 4):
        for name, dtype in (("temperature", "float32"), ("velocity", "float32[3]"), ("mask", "uint8")):
            sources[(name, t)] = make_array(dtype, (40, 24, 18), seed=t * 7 + len(name))
            ds.write(sources[(name, t)], field=name, time=t)
    db = ov.LoadDataset(str(idx))
    for (name, t), source in sources.items():
        assert_same(db.read(field=name, time=t), source, f"OpenVisus reads {name} t{t}")
        assert_same(ds.read(name, t), source, f"hzio reads {name} t{t}")
    assert block_flags(idx) == {expected_flags("lz4", "hzorder")}


def test_pieces_in_one_transaction(ov, tmp_path):
    """An array written box by box (as one larger than memory would be) in one transaction."""
    idx = tmp_path / "pieces" / "visus.idx"
    source = make_array("int16", (64, 32, 20), seed=3)
    ds = hzio.create(idx, shape=source.shape, fields=[("v", "int16")], compression="zip")
    assert ds.dims == (64, 32, 20)
    with ds.writer() as w:
        for z in range(0, 20, 3):
            for y in (0, 16):
                w.write(source[z:z + 3, y:y + 16], "v", box=((0, y, z), (64, y + 16, min(z + 3, 20))))
    assert_same(ov.LoadDataset(str(idx)).read(), source, "OpenVisus reads the pieces")
    assert_same(ds.read(), source, "the dataset object sees the commit")


def test_openvisus_style_offsets_and_slices(ov, tmp_path):
    idx = tmp_path / "slices.idx"
    ds = hzio.create(idx, dims=(30, 20, 10), fields=["rgb:uint8[3]"], compression="raw")
    source = make_array("uint8[3]", (30, 20, 10), seed=5)
    for k in range(10):                                  # db.write(slice, z=k) as in OpenVisus
        ds.write(source[k], z=k)
    patch = np.full((4, 5, 6, 3), 7, np.uint8)
    ds.write(patch, x=20, y=10, z=3)
    expected = source.copy()
    expected[3:7, 10:15, 20:26] = 7
    assert_same(ov.LoadDataset(str(idx)).read(), expected, "OpenVisus reads the slices and the patch")


def test_lossless_casts_only(tmp_path):
    ds = hzio.create(tmp_path / "cast.idx", dims=(8, 8), fields={"f": "float32"})
    ds.write(np.arange(64, dtype=np.int16).reshape(8, 8))
    assert_same(ds.read(), np.arange(64, dtype=np.float32).reshape(8, 8), "int16 -> float32")
    with pytest.raises(hzio.InvalidArgumentError, match=r"field 'f' is float32 but the data is float64"):
        ds.write(np.zeros((8, 8)))


def test_abandoned_transaction_leaves_the_dataset(tmp_path):
    idx = tmp_path / "keep.idx"
    ds = hzio.create(idx, dims=(16, 16, 16), fields={"a": "uint8"}, compression="raw")
    ds.write(np.full((16, 16, 16), 5, np.uint8))
    with pytest.raises(RuntimeError, match="stop"):
        with ds.writer() as w:
            w.write(np.full((8, 16, 16), 9, np.uint8), "a", box=((0, 0, 0), (16, 16, 8)))
            raise RuntimeError("stop")
    assert (hzio.open(idx).read() == 5).all()
    with pytest.raises(hzio.InvalidArgumentError, match="already closed"):
        w.write(np.zeros((16, 16, 16), np.uint8))


def test_write_errors(tmp_path):
    idx = tmp_path / "err.idx"
    ds = hzio.create(idx, dims=(16, 8, 4), fields={"a": "float32", "v": "float32[2]"}, timesteps=[0, 1])
    cases = [
        (lambda: ds.write(np.zeros((4, 8, 17), np.float32)), hzio.OutOfRangeError,
         "write box 0:17,0:8,0:4 is not inside the dataset box 0:16,0:8,0:4"),
        (lambda: ds.write(np.zeros((2, 2), np.float32), x=15), hzio.OutOfRangeError, "is not inside"),
        (lambda: ds.write(np.zeros((4, 8, 16), np.float32), time=5), hzio.NotFoundError,
         "timestep 5 is not declared"),
        (lambda: ds.write(np.zeros((4, 8, 16), np.float32), field="w"), hzio.NotFoundError, "unknown field 'w'"),
        (lambda: ds.write(np.zeros((4, 8, 16, 3), np.float32), field="v"), hzio.InvalidArgumentError,
         "does not fit field 'v' (float32[2])"),
        (lambda: ds.write(np.zeros((2, 4, 8, 16), np.float32)), hzio.InvalidArgumentError, "does not fit"),
        (lambda: ds.write(np.zeros((4, 8, 8), np.float32), box=((0, 0, 0), (16, 8, 4))),
         hzio.InvalidArgumentError, "holds (16, 8, 4) samples (x first) but the data has (8, 8, 4)"),
        (lambda: hzio.create(idx, dims=(4, 4), fields={"a": "uint8"}), hzio.InvalidArgumentError,
         "already exists"),
        (lambda: hzio.create(tmp_path / "n.idx", dims=(4, 4), fields={"a b": "uint8"}),
         hzio.InvalidArgumentError, "may only use letters"),
        (lambda: hzio.create(tmp_path / "n.idx", dims=(4, 4), fields={"a": "float16"}),
         hzio.InvalidArgumentError, "float16 cannot be stored"),
        (lambda: hzio.create(tmp_path / "n.idx", dims=(4, 4), fields={"a": "uint8"}, arco="1mb"),
         hzio.UnsupportedError, "ARCO"),
        (lambda: hzio.create(tmp_path / "n.idx", dims=(4, 4), fields={"a": "uint8"}, timesteps=[0, 2]),
         hzio.InvalidArgumentError, "consecutive"),
        (lambda: hzio.create(tmp_path / "n.idx", dims=(4, 4), fields={"a": "uint8"}, layout="zorder"),
         hzio.InvalidArgumentError, "layout must be"),
        (lambda: hzio.create(tmp_path / "n.idx", dims=(4, 4), fields={"a": "float32"}, compression="jpg"),
         hzio.UnsupportedError, "compression 'jpg'"),
        (lambda: hzio.create(tmp_path / "n.idx", fields={"a": "uint8"}), hzio.InvalidArgumentError,
         "give dims="),
    ]
    for fn, cls, message in cases:
        with pytest.raises(cls) as caught:
            fn()
        assert message in str(caught.value), (message, str(caught.value))
    assert not (tmp_path / "n.idx").exists()


def test_convert_memmap_in_slabs(ov, tmp_path):
    source = make_array("float64", (50, 30, 20), seed=11)
    npy = tmp_path / "big.npy"
    np.save(npy, source)
    idx = tmp_path / "conv" / "visus.idx"
    ds = hzio.convert(npy, idx, field="pressure", slab_bytes=3 * 50 * 30 * 8, compression="zip")
    assert ds.field_names == ["pressure"] and ds.dims == (50, 30, 20)
    assert_same(ov.LoadDataset(str(idx)).read(), source, "OpenVisus reads the slabs")
    # Into the existing dataset: a new field, then a new timestep of it needs a time template.
    other = make_array("uint8", (50, 30, 20), seed=12)
    hzio.convert(other, idx, field="flags")
    assert_same(ov.LoadDataset(str(idx)).read(field="flags"), other, "added field")
    with pytest.raises(hzio.Error, match="time"):
        hzio.convert(other, idx, field="flags", time=1)


def test_convert_vectors_timesteps_and_2d(ov, tmp_path):
    rgb = make_array("uint8[3]", (33, 21), seed=2)
    idx = tmp_path / "img.idx"
    ds = hzio.convert(rgb, idx, dtype="uint8[3]", field="rgb", time=0)
    assert ds.ndim == 2 and ds.fields[0].dtype == "uint8[3]"
    later = make_array("uint8[3]", (33, 21), seed=3)
    hzio.convert(later, idx, field="rgb", time=1)
    db = ov.LoadDataset(str(idx))
    assert_same(db.read(time=0), rgb, "t0")
    assert_same(db.read(time=1), later, "t1 (added)")
    flat = tmp_path / "flat.idx"
    ds = hzio.convert(make_array("int16", (9, 7), seed=4)[np.newaxis], flat)
    assert ds.dims == (9, 7), "a leading axis of extent 1 is dropped"
    with pytest.raises(hzio.InvalidArgumentError, match=r"field 'rgb' of .*img.idx \(uint8\[3\]\) does not "
                                                        r"match the array's float32"):
        hzio.convert(np.zeros((21, 33, 3), np.float32), idx, field="rgb")
    with pytest.raises(hzio.InvalidArgumentError, match="dims"):
        hzio.convert(np.zeros((5, 5, 3), np.uint8), idx, dtype="uint8[3]")


def test_add_field_and_timestep(ov, tmp_path):
    idx = tmp_path / "grow.idx"
    ds = hzio.create(idx, dims=(12, 10), fields={"a": "int32"}, timesteps=[0])
    ds.write(np.arange(120, dtype=np.int32).reshape(10, 12))
    ds.add_timestep(1)
    ds.add_field("b", "float64[2]", compression="raw")
    assert ds.timesteps == (0, 1) and ds.field_names == ["a", "b"]
    b = make_array("float64[2]", (12, 10), seed=9)
    ds.write(b, "b", time=1)
    db = ov.LoadDataset(str(idx))
    assert_same(db.read(field="a", time=0), np.arange(120, dtype=np.int32).reshape(10, 12), "a survives")
    assert_same(db.read(field="b", time=1), b, "b t1")
