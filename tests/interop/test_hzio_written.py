"""Datasets written by `hzio convert` / `hzio create` must read back in OpenVisus 2.2.149 equal to
the source array sampled on the §3.4 grid at every level (full resolution = the source exactly).

Same matrix as test_openvisus_written.py: dtype x layout x codec, pow2/odd, 2-D/3-D, several block
files per timestep; once as one array converted into a new dataset, once with 2 fields x 3
timesteps built in one of two ways (alternating over the matrix):
  convert: `hzio convert a_t0.npy OUT.idx --field a --time 0 ...` makes the dataset, further
           converts into OUT.idx add the other timesteps and the second field;
  create:  `hzio create OUT.idx --dims .. --field a:T --field b:T --time 0:2 ...`, then one
           `hzio convert X.npy OUT.idx --field F --time T` per field and timestep.
"""
from __future__ import annotations

import numpy as np
import pytest

from interop_util import (SECOND_FIELD, TIMES, Mismatches, block_flags, block_params, check_hzio,
                          expected_flags, grid_axes, hzio_read, make_array, matrix_cases,
                          read_idx_geometry, sample_source, sub_boxes)


def reverse_cases():
    """The matrix, each case built by `convert` or by `create` + `convert` (alternating)."""
    for i, case in enumerate(matrix_cases()):
        flow = "create" if (i // 4) % 2 else "convert"      # each flow meets every dims entry
        yield pytest.param(*case.values, flow, id=f"{case.id}-{flow}")


def build_with_convert(tmp_path, idx, sources, dtypes, layout, codec, dims):
    bpb, bpf = block_params(dims)
    first = True
    for (field, time), source in sources.items():
        npy = tmp_path / f"{field}_{time}.npy"
        np.save(npy, source)
        args = ["convert", npy, idx, "--field", field, "--time", time,
                "--compression", codec, "--layout", layout]
        if "[" in dtypes[field]:
            args += ["--dtype", dtypes[field]]          # the last axis holds the components
        if first:
            args += ["--bitsperblock", bpb, "--blocksperfile", bpf]
            first = False
        check_hzio(args)


def build_with_create(tmp_path, idx, sources, dtypes, layout, codec, dims):
    bpb, bpf = block_params(dims)
    check_hzio(["create", idx, "--dims", ",".join(map(str, dims)),
                *[a for f, t in dtypes.items() for a in ("--field", f"{f}:{t}")],
                "--time", f"{TIMES[0]}:{TIMES[-1]}", "--bitsperblock", bpb,
                "--blocksperfile", bpf, "--compression", codec, "--layout", layout])
    for (field, time), source in sources.items():
        npy = tmp_path / f"{field}_{time}.npy"
        np.save(npy, source)
        args = ["convert", npy, idx, "--field", field, "--time", time]
        if "[" in dtypes[field]:
            args += ["--dtype", dtypes[field]]          # the last axis holds the components
        check_hzio(args)


def check_in_openvisus(ov, idx, sources, dims, mismatches):
    """OpenVisus reads of the dataset against the sources {(field, time): array}: the first
    key's middle timestep at every level on every sub-box, the last key at every level on the
    whole box, every key at full resolution."""
    db = ov.LoadDataset(str(idx))
    geom = read_idx_geometry(idx)
    fields = sorted({f for f, _ in sources})
    times = sorted({t for _, t in sources})
    if sorted(db.getFields()) != fields or db.getTimesteps() != times:
        mismatches.add(f"OpenVisus sees fields {db.getFields()} times {db.getTimesteps()}, "
                       f"expected {fields} and {times}")
        return

    def compare(field, time, box, level):
        what = f"OpenVisus db.read(field={field}, time={time}, box={box}, max_resolution={level})"
        try:
            got = db.read(field=field, time=time, logic_box=box, max_resolution=level)
        except Exception as error:                           # noqa: BLE001
            mismatches.add(f"{what}: raised {error}")
            return
        expected = sample_source(sources[(field, time)], geom, *box, level)
        if got.shape != expected.shape or got.dtype != expected.dtype:
            mismatches.add(f"{what}: {got.dtype}{got.shape}, expected "
                           f"{expected.dtype}{expected.shape}")
        elif not np.array_equal(got, expected):
            bad = np.argwhere(got != expected)
            mismatches.add(f"{what}: {len(bad)} values differ, first at {tuple(bad[0])}: "
                           f"{got[tuple(bad[0])]} vs source {expected[tuple(bad[0])]}")

    keys = list(sources)
    detailed = (keys[0][0], times[len(times) // 2])
    whole = ([0] * len(dims), list(dims))
    for h in range(geom.maxh + 1):
        for box in sub_boxes(dims):
            # A sub-box with no sample on some axis at a coarse level is refused by OpenVisus
            # whoever wrote the data; only queries with samples are compared here.
            if grid_axes(geom, box[0], box[1], h) is not None:
                compare(*detailed, box, h)
        compare(*keys[-1], whole, h)
    for field, time in keys:
        compare(field, time, whole, geom.maxh)


def check_hzio_reads_back(idx, sources, tmp_path, mismatches):
    """hzio reads its own files back too (a quick full-resolution check)."""
    for (field, time), source in sources.items():
        try:
            got = hzio_read(idx, tmp_path, field=field, time=time)
        except AssertionError as error:
            mismatches.add(str(error).splitlines()[-1])
            continue
        if got.shape != source.shape or not np.array_equal(got, source):
            mismatches.add(f"hzio read {idx} --field {field} --time {time}: differs from source")


def check_block_files(idx, layout, codec, min_files):
    flags = block_flags(idx)
    assert flags == {expected_flags(codec, layout)}, \
        f"block flags {sorted(flags)}, expected {expected_flags(codec, layout)}"
    nfiles = len(list(idx.parent.rglob("*.bin")))
    assert nfiles >= min_files, f"expected at least {min_files} block files, got {nfiles}"


@pytest.mark.parametrize("dtype,layout,codec,dims", list(matrix_cases()))
def test_convert_one_array(ov, tmp_path, dtype, layout, codec, dims):
    """The simplest use: one .npy converted into a new dataset (default field and time)."""
    source = make_array(dtype, dims, seed=5)
    npy, idx = tmp_path / "in.npy", tmp_path / "ds" / "visus.idx"
    np.save(npy, source)
    bpb, bpf = block_params(dims)
    args = ["convert", npy, idx, "--compression", codec, "--layout", layout,
            "--bitsperblock", bpb, "--blocksperfile", bpf]
    if "[" in dtype:
        args += ["--dtype", dtype]
    check_hzio(args)
    check_block_files(idx, layout, codec, min_files=2)
    field = read_idx_geometry(idx).field_names[0]
    sources = {(field, 0): source}
    mismatches = Mismatches()
    check_in_openvisus(ov, idx, sources, dims, mismatches)
    check_hzio_reads_back(idx, sources, tmp_path, mismatches)
    mismatches.assert_none(idx)


@pytest.mark.parametrize("dtype,layout,codec,dims,flow", list(reverse_cases()))
def test_two_fields_three_timesteps(ov, tmp_path, dtype, layout, codec, dims, flow):
    dtypes = {"a": dtype, "b": SECOND_FIELD[dtype]}
    sources = {(f, t): make_array(dtypes[f], dims, seed=100 + 10 * ord(f) + t)
               for f in dtypes for t in TIMES}
    idx = tmp_path / "ds" / "visus.idx"
    build = build_with_create if flow == "create" else build_with_convert
    build(tmp_path, idx, sources, dtypes, layout, codec, dims)
    check_block_files(idx, layout, codec, min_files=2 * len(TIMES))
    mismatches = Mismatches()
    check_in_openvisus(ov, idx, sources, dims, mismatches)
    check_hzio_reads_back(idx, sources, tmp_path, mismatches)
    mismatches.assert_none(idx)
