"""Datasets written by OpenVisus 2.2.149, read by `hzio read`: every level, the whole box and
sub-boxes, must equal OpenVisus's own db.read of the same query (shape, dtype, every value).

Matrix (issue 2): dtypes float32/float64/int16/uint8/uint8[3]/float32[3] x layouts hz/row-major
x codecs raw/zip/lz4, power-of-two and odd dims, 2-D and 3-D, 2 fields x 3 timesteps with
several block files per timestep (db.write, then db.compressDataset for zip/lz4), plus
single-field datasets made by CreateIdx(data=..., compression=[...]) (OpenVisus's C++ encoder).
"""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from interop_util import (CODECS, LAYOUTS, SECOND_FIELD, TIMES, Mismatches, block_flags,
                          block_params, box_arg, expected_flags, hzio_read, make_array,
                          matrix_cases, read_idx_geometry, run_hzio, sub_boxes)


def createidx_cases():
    for i, (dtype, layout, codec) in enumerate(itertools.product(
            ["float32", "uint8[3]", "int16"], LAYOUTS, CODECS)):
        dims = [(70, 45, 33), (70, 45), (64, 32, 16)][i % 3]
        name = f"createidx-{dtype}-{layout}-{codec}-{'x'.join(map(str, dims))}"
        yield pytest.param(dtype, layout, codec, dims, id=name)


def compare_query(db, idx, tmp_path, mismatches, *, field, time, box, level):
    """One query through OpenVisus and through hzio; any difference is recorded. box=None is
    a level-only query (the whole dataset, no --box)."""
    options = ["--field", field, "--time", time, "--level", level]
    if box is not None:
        options += ["--box", box_arg(*box)]
    what = f"hzio read {idx} {' '.join(map(str, options))}"
    try:
        expected = db.read(field=field, time=time, logic_box=box, max_resolution=level)
    except Exception:                                        # noqa: BLE001 - OpenVisus refuses
        expected = None
    if expected is None:
        # OpenVisus refuses a query with no sample on some axis (§3.4); hzio must fail too.
        done = run_hzio(["read", idx, *options, "-o", tmp_path / "refused.npy"])
        if done.returncode == 0:
            mismatches.add(f"{what}: OpenVisus refuses this query, hzio exited 0")
        return
    try:
        got = hzio_read(idx, tmp_path, field=field, time=time, box=box, level=level)
    except AssertionError as error:
        mismatches.add(f"{what}: {str(error).splitlines()[-1]}")
        return
    if got.shape != expected.shape or got.dtype != expected.dtype:
        mismatches.add(f"{what}: hzio {got.dtype}{got.shape} vs OpenVisus "
                       f"{expected.dtype}{expected.shape}")
    elif not np.array_equal(got, expected):
        bad = np.argwhere(got != expected)
        mismatches.add(f"{what}: {len(bad)} values differ, first at index {tuple(bad[0])}: "
                       f"hzio {got[tuple(bad[0])]} vs OpenVisus {expected[tuple(bad[0])]}")


def check_against_openvisus(ov, idx, sources, dims, tmp_path):
    """Reads the dataset both ways. sources: {(field, time): array written}.

    Queries: (first field, middle time) at every level on every sub-box; (last field, last
    time) at every level without a box (level-only query); every (field, time) on the whole
    box at full resolution; and the defaults (no --field/--time/--level/--box)."""
    db = ov.LoadDataset(str(idx))
    geom = read_idx_geometry(idx)
    mismatches = Mismatches()
    whole = ([0] * len(dims), list(dims))

    # The test's own premise: OpenVisus wrote what we gave it.
    for (field, time), source in sources.items():
        assert np.array_equal(db.read(field=field, time=time), source), (field, time)

    keys = list(sources)
    detailed = keys[(len(keys) - 1) // 2]
    for h in range(geom.maxh + 1):
        for box in sub_boxes(dims):
            compare_query(db, idx, tmp_path, mismatches, field=detailed[0], time=detailed[1],
                          box=box, level=h)
        compare_query(db, idx, tmp_path, mismatches, field=keys[-1][0], time=keys[-1][1],
                      box=None, level=h)
    for field, time in keys:
        compare_query(db, idx, tmp_path, mismatches, field=field, time=time, box=whole,
                      level=geom.maxh)

    try:
        got = hzio_read(idx, tmp_path)
        if not np.array_equal(got, db.read()) or got.shape != db.read().shape:
            mismatches.add(f"hzio read {idx} (defaults): differs from OpenVisus db.read()")
    except AssertionError as error:
        mismatches.add(f"hzio read {idx} (defaults): {str(error).splitlines()[-1]}")
    mismatches.assert_none(idx)


@pytest.mark.parametrize("dtype,layout,codec,dims", list(matrix_cases()))
def test_two_fields_three_timesteps(ov, tmp_path, dtype, layout, codec, dims):
    idx = tmp_path / "ds" / "visus.idx"
    bpb, bpf = block_params(dims)
    second = SECOND_FIELD[dtype]
    db = ov.CreateIdx(url=str(idx), dims=list(dims), bitsperblock=bpb, blocksperfile=bpf,
                      fields=[ov.Field("a", dtype, layout), ov.Field("b", second, layout)],
                      time=[TIMES[0], TIMES[-1], "time_%02d/"])
    sources = {}
    for t in TIMES:
        for field, ftype in (("a", dtype), ("b", second)):
            sources[(field, t)] = make_array(ftype, dims, seed=10 * ord(field) + t)
            db.write(sources[(field, t)], field=field, time=t)
    if codec != "raw":
        db.compressDataset([codec])
    assert block_flags(idx) == {expected_flags(codec, layout)}, "OpenVisus wrote other codecs"
    nfiles = len(list((tmp_path / "ds").rglob("time_01/**/*.bin")))
    assert nfiles >= 2, f"expected several block files per timestep, got {nfiles}"
    check_against_openvisus(ov, idx, sources, dims, tmp_path)


@pytest.mark.parametrize("dtype,layout,codec,dims", list(createidx_cases()))
def test_createidx_with_data(ov, tmp_path, dtype, layout, codec, dims):
    idx = tmp_path / "ds" / "visus.idx"
    source = make_array(dtype, dims, seed=7)
    bpb, bpf = block_params(dims)
    ov.CreateIdx(url=str(idx), dim=len(dims), data=source, compression=[codec],
                 fields=[ov.Field("data", dtype, layout)], bitsperblock=bpb, blocksperfile=bpf)
    assert block_flags(idx) == {expected_flags(codec, layout)}, "OpenVisus wrote other codecs"
    check_against_openvisus(ov, idx, {("data", 0): source}, dims, tmp_path)
