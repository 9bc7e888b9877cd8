"""Datasets PIDX 0.9.3 wrote (shared/testdata/pidx-golden, README there): `(version) 6.1`, PIDX's
extra keys, a 5-D `(box)`, `n*float64` dtypes, `time%09d/` and `%02x` templates, blocksperfile
above the number of blocks, PIDX's bitmasks, hz-ordered raw blocks, and its chunked layout
(`(compression type) 1`, PIDX_CHUNKING_ONLY).

`hzio read` of every dataset equals the README's formula, for every field and timestep, at every
level, on the whole box and on sub-boxes (the expected coarse grids are the formula's full array
sampled on the §3.4 grid, computed here independently of hzio; for the chunked dataset that of
its bitmask extended by the chunks' bits, pidx_golden.py). OpenVisus agrees on the unchunked
ones and misreads the chunked one (wrong shapes). `hzio info --json` and `hzio verify` describe
them; writing into the chunked dataset is refused.
"""
from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from interop_util import Mismatches, box_arg, check_hzio, hzio_read, run_hzio
from pidx_golden import CHUNKED, DATASETS, expected_reads, formula, geometry, header_value, pidx_fields, timesteps


@pytest.mark.parametrize("name", DATASETS)
def test_every_field_time_level_and_box_equals_the_formula(ov, pidx_dir, tmp_path, name):
    idx = pidx_dir / f"{name}.idx"
    geom = geometry(idx)
    db = ov.LoadDataset(str(idx)) if name not in CHUNKED else None  # OpenVisus misreads chunks
    mismatches = Mismatches()
    queries = 0
    for field, time, h, box, expected in expected_reads(idx, geom, include_empty=True):
        what = f"{field} t{time} h{h} box {box_arg(*box)}"
        if expected is None:
            # No sample on some axis: OpenVisus refuses such a query, so must hzio.
            done = run_hzio(["read", idx, "--field", field, "--time", time, "--level", h,
                             "--box", box_arg(*box), "-o", tmp_path / "none.npy"])
            if done.returncode == 0:
                mismatches.add(f"{what}: hzio read an empty grid")
            continue
        queries += 1
        try:
            got = hzio_read(idx, tmp_path, field=field, time=time, box=box, level=h)
        except AssertionError as error:
            mismatches.add(f"hzio {what}: {str(error).splitlines()[-1]}")
            continue
        if got.dtype != expected.dtype or not np.array_equal(got, expected):
            mismatches.add(f"hzio {what}: {got.dtype}{got.shape} differs from the formula")
        if db is not None:
            theirs = db.read(field=field, time=time, logic_box=box, max_resolution=h)
            if not np.array_equal(theirs, expected):
                mismatches.add(f"OpenVisus {what}: differs from the formula")
    mismatches.assert_none(idx)
    assert queries >= 4 * (geom.maxh + 1), queries  # every level of every field was read


def test_chunked_is_presented_as_pidx_writes_it_unchunked(pidx_dir, tmp_path):
    """s3dchunk_n2 is the run of s3d_n2 with chunking on: hzio presents it with s3d_n2's bitmask,
    dims and levels, and every level of timestep 0 reads the same."""
    chunked, plain = pidx_dir / "s3dchunk_n2.idx", pidx_dir / "s3d_n2.idx"
    assert header_value(chunked, "bits") == "V2210210" and header_value(plain, "bits") == "V2210210210210"
    a, b = (json.loads(check_hzio(["info", p, "--json"]).stdout) for p in (chunked, plain))
    for key in ("dims", "bitmask", "maxh"):
        assert a[key] == b[key], key
    for field, _, _ in pidx_fields(chunked):
        for h in range(a["maxh"] + 1):
            x = hzio_read(chunked, tmp_path, field=field, time=0, level=h)
            y = hzio_read(plain, tmp_path, field=field, time=0, level=h)
            assert x.shape == y.shape and np.array_equal(x, y), (field, h)


def test_openvisus_misreads_the_chunked_layout(ov, pidx_dir):
    """Evidence for reading it in hzio: OpenVisus 2.2.149 takes `(bits)` as the sample grid and
    returns arrays of the chunk grid's shape, not the dataset's."""
    idx = pidx_dir / "s3dchunk_n2.idx"
    geom = geometry(idx)
    field, dtype, ncomp = pidx_fields(idx)[0]
    db = ov.LoadDataset(str(idx))
    theirs = np.asarray(db.read(field=field, time=0))
    expected = formula(geom, 0, dtype, ncomp)
    assert theirs.shape != expected.shape, theirs.shape
    assert theirs.shape == (8, 4, 4), theirs.shape  # the 4x4x8 grid of chunks


@pytest.mark.parametrize("name", DATASETS)
def test_info_and_verify(pidx_dir, name):
    idx = pidx_dir / f"{name}.idx"
    geom = geometry(idx)
    fields = pidx_fields(idx)
    info = json.loads(check_hzio(["info", idx, "--json"]).stdout)
    assert info["version"] == 6
    assert info["dims"] == [geom.box_p2[d] for d in range(3)]
    assert info["bitmask"] == geom.bitmask
    assert info["bitsperblock"] == geom.bitsperblock
    assert info["blocksperfile"] == geom.blocksperfile > info["total_blocks"]
    assert info["time_template"] == "time%09d/"
    assert info["timesteps"] == timesteps(idx)
    assert [(f["name"], f["components"]) for f in info["fields"]] == [(n, c) for n, _, c in fields]
    assert [f["dtype"] for f in info["fields"]] == \
        [(np.dtype(t).name if c == 1 else f"{np.dtype(t).name}[{c}]") for _, t, c in fields]
    chunked = name in CHUNKED
    if chunked:
        assert info["pidx_chunking"] == {"chunk": [4, 4, 4], "stored_bitmask": header_value(idx, "bits"),
                                         "stored_bitsperblock": int(header_value(idx, "bitsperblock")),
                                         "restructure_box": [16, 16, 16]}, info["pidx_chunking"]
        text = check_hzio(["info", idx]).stdout
        assert "PIDX chunked" in text and "4 x 4 x 4" in text and "V2210210" in text, text
    else:
        assert "pidx_chunking" not in info
    done = check_hzio(["verify", idx])
    # A chunked dataset's blocks are checked as presented: each built from the stored chunk records.
    blocks = info["total_blocks"] * len(fields) * len(timesteps(idx))
    assert f"OK: {blocks} blocks checked, {blocks} present, 0 missing, 0 corrupt" in done.stdout, done.stdout


def test_writing_into_the_chunked_layout_is_refused(pidx_dir, tmp_path):
    shutil.copytree(pidx_dir / "s3dchunk_n2", tmp_path / "s3dchunk_n2")
    idx = tmp_path / "s3dchunk_n2.idx"
    shutil.copy(pidx_dir / "s3dchunk_n2.idx", idx)
    before = {p: p.read_bytes() for p in [idx, *sorted((tmp_path / "s3dchunk_n2").rglob("*.bin"))]}
    array = tmp_path / "a.npy"
    np.save(array, np.zeros((32, 16, 16), np.float64))
    for args in (["convert", array, idx, "--field", "variable_0", "--time", "0"],
                 ["convert", array, idx, "--field", "extra", "--time", "0"],
                 ["verify", idx, "--repair"]):
        done = run_hzio(args)
        assert done.returncode != 0, args
        assert "s3dchunk_n2.idx" in done.stderr and "PIDX chunked dataset" in done.stderr and \
            "read-only" in done.stderr, done.stderr
    assert {p: p.read_bytes() for p in before} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.npy", "s3dchunk_n2", "s3dchunk_n2.idx"]


def test_truncated_chunk_records_are_a_clear_error(pidx_dir, tmp_path):
    shutil.copytree(pidx_dir / "s3dchunk_n2", tmp_path / "s3dchunk_n2")
    idx = tmp_path / "s3dchunk_n2.idx"
    shutil.copy(pidx_dir / "s3dchunk_n2.idx", idx)
    data = tmp_path / "s3dchunk_n2" / "time000000000" / "00.bin"
    data.chmod(0o644)
    with open(data, "r+b") as f:
        f.truncate(300000)  # inside the records of variable_1
    for args in (["read", idx, "--field", "variable_1", "-o", tmp_path / "x.npy"],
                 ["read", idx, "--field", "variable_0", "--level", "5", "-o", tmp_path / "y.npy"],
                 ["verify", idx]):
        done = run_hzio(args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert "00.bin: corrupt block table" in done.stdout + done.stderr and \
            "lies outside the file's 300000 bytes" in done.stdout + done.stderr, (args, done.stdout, done.stderr)
    assert not (tmp_path / "x.npy").exists() and not (tmp_path / "y.npy").exists()
