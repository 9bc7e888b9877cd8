"""`hzio-mpi read` of ARCO datasets (idx-format.md §4.12) written by OpenVisus 2.2.149
(`CreateIdx(..., arco="16kb")`: many small block files, absent ones outside the box included), raw
and after `compress_dataset()` (zip), at 1 to 3 ranks in both modes: every field, timestep and
level, on the whole box and on a sub-box, equal to the source array sampled on the §3.4 grid. With
more than one rank a two-phase read of an ARCO dataset goes one-phase (one file per block: no
shared file ranges to aggregate) and the report says so.

Environment: HZIO_MPI_BIN = the hzio-mpi executable, MPIEXEC = mpiexec (Open MPI, oversubscribed).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from interop_util import Mismatches, box_arg, grid_axes, read_idx_geometry, sample_source, sub_boxes
from test_openvisus_arco import SMALL_BLOCK_FIELDS as FIELDS, write_small_blocks
from test_pidx_golden_mpi import hzio_mpi_read

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

DIMS = (70, 45, 33)


@pytest.fixture(scope="module", params=["raw", "zip"])
def arco_dataset(ov, tmp_path_factory, request):
    idx = tmp_path_factory.mktemp(f"arco-{request.param}") / "ds" / "visus.idx"
    sources = write_small_blocks(ov, idx, DIMS)
    if request.param == "zip":
        ov.LoadDataset(str(idx)).compress_dataset()
        assert "default_compression(zip)" in idx.read_text()
    return idx, sources


def check_every_read(idx: Path, sources, ranks: int, tmp_path: Path):
    geom = read_idx_geometry(idx)
    mismatches = Mismatches()
    files = 0
    for mode in ("two-phase", "one-phase"):
        for time in (0, 1):
            for box in sub_boxes(DIMS)[:2]:  # the whole box, and one with unaligned corners
                levels = [h for h in range(geom.maxh + 1) if grid_axes(geom, box[0], box[1], h) is not None]
                out = tmp_path / f"{mode}-t{time}-{{field}}-{{level}}.npy"
                report = hzio_mpi_read(ranks, idx, out, "--mode", mode, "--time", time, "--box", box_arg(*box),
                                       "--level", ",".join(map(str, levels)))
                one_phase_instead = mode == "two-phase" and ranks > 1
                assert ("note" in report) == one_phase_instead, report
                if one_phase_instead:
                    assert "ARCO dataset: read one-phase" in report["note"], report
                for field, _ in FIELDS:
                    for h in levels:
                        path = Path(str(out).format(field=field, level=h))
                        got = np.load(path)
                        path.unlink()
                        files += 1
                        expected = sample_source(sources[(field, time)], geom, *box, h)
                        if got.dtype != expected.dtype or not np.array_equal(got, expected):
                            mismatches.add(f"{ranks} ranks {mode} {field} t{time} h{h} box {box_arg(*box)}: "
                                           f"{got.dtype}{got.shape} differs from the source {expected.shape}")
    mismatches.assert_none(idx)
    assert files >= 2 * 2 * len(FIELDS) * (geom.maxh + 1), files  # every level of every field, both modes


@pytest.mark.parametrize("ranks", [1, 2, 3])
def test_every_field_time_level_and_box_equals_the_source(arco_dataset, tmp_path, ranks):
    idx, sources = arco_dataset
    check_every_read(idx, sources, ranks, tmp_path)
