"""hzio.open of the datasets PIDX 0.9.3 wrote (shared/testdata/pidx-golden, README there): every
field, timestep and level, whole and sub-boxes, equal to the README's formula sampled on the §3.4
grid (tests/interop/pidx_golden.py; for the chunked dataset that of its bitmask extended by the
chunk's bits). Writing into the chunked dataset raises UnsupportedError and changes nothing."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest

import hzio
from pidx_golden import CHUNKED, DATASETS, dataset_dims, expected_reads, geometry


@pytest.fixture(scope="module")
def pidx_dir() -> Path:
    path = Path(os.environ.get("HZIO_SOURCE_DIR", "")) / ".." / "shared" / "testdata" / "pidx-golden"
    assert (path / "README.md").is_file(), f"{path}: the PIDX golden datasets are missing"
    return path


@pytest.mark.parametrize("name", DATASETS)
def test_every_field_time_level_and_box_equals_the_formula(pidx_dir, name):
    idx = pidx_dir / f"{name}.idx"
    geom = geometry(idx)
    dims = dataset_dims(geom)
    ds = hzio.open(idx)
    assert ds.maxh == geom.maxh and list(ds.dims) == dims
    bad, queries = [], 0
    for field, time, h, (p1, p2), expected in expected_reads(idx, geom):
        got = ds.read(field, time, box=(p1, p2), level=h)
        queries += 1
        if got.dtype != expected.dtype or not np.array_equal(got, expected):
            bad.append(f"{field} t{time} h{h} box {p1}-{p2}: {got.dtype}{got.shape} != {expected.shape}")
    assert not bad, "\n".join(bad[:20])
    assert queries >= 4 * (geom.maxh + 1), queries


@pytest.mark.parametrize("name", CHUNKED)
def test_writing_into_the_chunked_dataset_is_refused(pidx_dir, tmp_path, name):
    shutil.copytree(pidx_dir / name, tmp_path / name)
    idx = tmp_path / f"{name}.idx"
    shutil.copy(pidx_dir / f"{name}.idx", idx)
    before = {p: p.read_bytes() for p in [idx, *sorted((tmp_path / name).rglob("*.bin"))]}
    ds = hzio.open(idx)
    with pytest.raises(hzio.UnsupportedError, match="PIDX chunked dataset .* is read-only"):
        ds.write(np.zeros((32, 16, 16)), field="variable_0", time=0)
    assert {p: p.read_bytes() for p in before} == before
