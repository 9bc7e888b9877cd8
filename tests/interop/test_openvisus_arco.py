"""ARCO datasets (idx-format.md §4.12: one file per block, no block headers, `(arco)` in the header)
written by OpenVisus 2.2.149 with its documented API — `ov.create_idx(...)` + `db.write(a)` (raw
blocks of 1 MB), then `compress_dataset()` (zip) — read by `hzio read`: every level, the whole box
and sub-boxes, every field and timestep, equal to OpenVisus's own db.read (shape, dtype, values).

ARCO datasets written by `hzio convert --arco SIZE` are read by OpenVisus equal to the source
array (and by hzio equal to OpenVisus at every level).

Cases: 3-D and 2-D, float32/float64/int16/uint8[3] (a vector dtype), two fields each; and
CreateIdx(..., arco="16kb") with two fields and two timesteps, small blocks so that there are
many block files, absent ones outside the box included.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from interop_util import check_hzio, hzio_read, make_array, read_idx_geometry, run_hzio
from test_openvisus_written import check_against_openvisus

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

# (shape, slowest axis first as create_idx takes it; [(field, dtype)]). More than 1 MB per field
# at the finest level, so that create_idx's 1 MB blocks give several block files.
CREATE_IDX_CASES = [
    pytest.param((40, 72, 100), [("temperature", "float32"), ("color", "uint8[3]")], id="3d-float32-rgb"),
    pytest.param((24, 50, 130), [("pressure", "float64"), ("level", "int16")], id="3d-float64-int16"),
    pytest.param((600, 700), [("image", "uint8[3]"), ("height", "float32")], id="2d-rgb-float32"),
]


def block_files(idx: Path) -> list[Path]:
    """The ARCO block files of the dataset: `<idx without extension>/<time>/<field>/xxxx/xxxx/xxxx/xxxx.bin`."""
    return sorted(idx.with_suffix("").glob("*/*/[0-9a-f][0-9a-f][0-9a-f][0-9a-f]/*/*/*.bin"))


def check_raw_then_zip(ov, idx: Path, sources, tmp_path):
    dims = read_idx_geometry(idx).box_p2
    text = idx.read_text()
    assert "(arco)" in text and "default_compression" not in text.replace("default_compression(raw)", ""), text
    files = block_files(idx)
    assert len(files) >= 2 * len({f for f, _ in sources}), f"expected several block files, got {files}"
    info = check_hzio(["info", idx]).stdout
    assert "ARCO, one file per block of at most" in info, info
    check_against_openvisus(ov, idx, sources, dims, tmp_path)

    ov.LoadDataset(str(idx)).compress_dataset()
    assert "default_compression(zip)" in idx.read_text()
    for f in block_files(idx):  # every payload is now a zlib stream (§5)
        assert f.read_bytes()[:1] == b"\x78", f
    check_against_openvisus(ov, idx, sources, dims, tmp_path)


@pytest.mark.parametrize("shape,fields", CREATE_IDX_CASES)
def test_create_idx_raw_then_zip(ov, tmp_path, shape, fields):
    idx = tmp_path / "ds" / "visus.idx"
    db = ov.create_idx(url=str(idx), shape=shape, fields=[ov.Field(name, dtype) for name, dtype in fields])
    sources = {}
    for i, (name, dtype) in enumerate(fields):
        sources[(name, 0)] = make_array(dtype, tuple(reversed(shape)), seed=31 + i)
        db.write(sources[(name, 0)], field=db.getField(name))
    assert "(arco)\n1048576" in idx.read_text().replace("\r", "")
    check_raw_then_zip(ov, idx, sources, tmp_path)


SMALL_BLOCK_FIELDS = [("pressure", "float32"), ("color", "uint8[3]")]


def write_small_blocks(ov, idx: Path, dims) -> dict:
    """OpenVisus's `CreateIdx(..., arco="16kb")` of SMALL_BLOCK_FIELDS and two timesteps, written with
    `db.write`: many small raw block files. Returns the source arrays by (field, time)."""
    db = ov.CreateIdx(url=str(idx), dims=list(dims), fields=[ov.Field(n, d) for n, d in SMALL_BLOCK_FIELDS],
                      arco="16kb", time=[0, 1, "%00000d/"])
    sources = {}
    for t in (0, 1):
        for name, dtype in SMALL_BLOCK_FIELDS:
            sources[(name, t)] = make_array(dtype, dims, seed=10 * t + len(name))
            db.write(sources[(name, t)], field=db.getField(name), time=t)
    return sources


@pytest.mark.parametrize("dims", [(70, 45, 33), (300, 201)], ids=["3d", "2d"])
def test_two_fields_two_timesteps_small_blocks(ov, tmp_path, dims):
    idx = tmp_path / "ds" / "visus.idx"
    sources = write_small_blocks(ov, idx, dims)
    assert len(block_files(idx)) > 20
    check_raw_then_zip(ov, idx, sources, tmp_path)


@pytest.mark.parametrize("dtype,dims,codec", [("float32", (70, 45, 33), "zip"), ("uint8[3]", (300, 201), "raw"),
                                              ("int16", (64, 32, 16), "lz4"), ("float64", (90, 61), "zip")],
                         ids=["3d-float32-zip", "2d-rgb-raw", "3d-int16-lz4", "2d-float64-zip"])
def test_hzio_convert_arco_read_by_openvisus(ov, tmp_path, dtype, dims, codec):
    source = make_array(dtype, dims, seed=5)
    npy = tmp_path / "source.npy"
    np.save(npy, source)
    idx = tmp_path / "out" / "visus.idx"
    args = ["convert", npy, idx, "--field", "v", "--arco", "16kb", "--compression", codec]
    if "[" in dtype:
        args += ["--dtype", dtype]
    check_hzio(args)
    text = idx.read_text()
    arco = int(text.split("(arco)\n")[1].split()[0])  # 16 KiB rounded down to whole samples of a power of two
    assert 8192 < arco <= 16384 and len(block_files(idx)) >= 4, text
    db = ov.LoadDataset(str(idx))
    got = db.read(field="v")
    assert got.dtype == source.dtype and np.array_equal(got, source), "OpenVisus reads other values"
    check_against_openvisus(ov, idx, {("v", 0): source}, dims, tmp_path)


def test_hzio_copy_classic_to_arco_and_back_read_by_openvisus(ov, tmp_path):
    """`hzio copy` of OpenVisus's classic zip dataset to ARCO (raw), and of that back to classic
    (zip, another bitsperblock): OpenVisus reads both equal to the source, hzio equal to OpenVisus."""
    dims = (70, 45, 33)
    source = make_array("float32", dims, seed=9)
    classic = tmp_path / "classic" / "visus.idx"
    ov.CreateIdx(url=str(classic), dim=3, data=source, compression=["zip"])
    field = read_idx_geometry(classic).field_names[0]
    arco = tmp_path / "arco" / "visus.idx"
    check_hzio(["copy", classic, arco, "--arco", "16kb", "--compression", "raw"])
    assert "(arco)\n16384" in arco.read_text() and len(block_files(arco)) > 4
    assert np.array_equal(ov.LoadDataset(str(arco)).read(field=field), source)
    check_against_openvisus(ov, arco, {(field, 0): source}, dims, tmp_path)
    back = tmp_path / "back" / "visus.idx"
    check_hzio(["copy", arco, back, "--compression", "zip", "--bitsperblock", "12"])
    text = back.read_text()
    assert "(arco)\n0" in text and "(bitsperblock)\n12" in text, text
    assert np.array_equal(ov.LoadDataset(str(back)).read(field=field), source)


def test_hzio_create_arco_filled_by_openvisus(ov, tmp_path):
    """`hzio create --arco SIZE`: an empty ARCO dataset (its header alone, raw as ov.create_idx's)
    that OpenVisus reads as default values and fills with db.write; hzio reads OpenVisus's values at
    every level, before and after OpenVisus's compress_dataset(). hzio itself refuses to write into
    it (an existing ARCO dataset), leaving every file as it was."""
    dims = (300, 201)
    idx = tmp_path / "made" / "visus.idx"
    out = check_hzio(["create", idx, "--dims", ",".join(map(str, dims)), "--field", "pressure:float32",
                      "--field", "color:uint8[3]", "--time", "0:1", "--arco", "16kb"]).stdout
    assert "ARCO blocks of at most 16384 bytes" in out, out
    assert block_files(idx) == [] and not idx.with_suffix("").exists()
    assert "(hzio written)" not in idx.read_text()  # OpenVisus fills it without telling the header
    db = ov.LoadDataset(str(idx))
    assert not db.read(field="pressure", time=1).any()
    assert np.array_equal(hzio_read(idx, tmp_path, field="pressure", time=1), np.zeros(tuple(reversed(dims)), np.float32))
    sources = {}
    for t in (0, 1):
        for name, dtype in (("pressure", "float32"), ("color", "uint8[3]")):
            sources[(name, t)] = make_array(dtype, dims, seed=20 * t + len(name))
            db.write(sources[(name, t)], field=db.getField(name), time=t)
    assert len(block_files(idx)) > 20

    npy = tmp_path / "more.npy"
    np.save(npy, sources[("pressure", 0)] + 1)
    before = {f: f.read_bytes() for f in block_files(idx)}
    header = idx.read_text()
    res = run_hzio(["convert", npy, idx, "--field", "pressure", "--time", "0"])
    assert res.returncode != 0 and "an existing ARCO dataset cannot be changed yet" in res.stderr, res.stderr
    assert str(idx) in res.stderr, res.stderr
    assert idx.read_text() == header and {f: f.read_bytes() for f in block_files(idx)} == before

    check_raw_then_zip(ov, idx, sources, tmp_path)
