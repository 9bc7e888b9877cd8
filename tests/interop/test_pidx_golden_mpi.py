"""`hzio-mpi read` of the datasets PIDX 0.9.3 wrote (shared/testdata/pidx-golden, README there), at
1 to 4 ranks, two-phase and one-phase: every field, timestep and level, on the whole box and on a
sub-box, written collectively with `--out` to one .npy per field and level and compared with the
README's formula sampled on the §3.4 grid (pidx_golden.py; for the chunked dataset that of its
bitmask extended by the chunk's bits). The chunked dataset reads one-phase in both modes, and says
so in the run's report. The fields come out the same whether read together, in groups
(`--results-budget`), with `--direct-io --no-owner-reads`, with `--no-direct-io` or with `--threads 3`;
a malformed budget, contradictory direct-read options and a negative thread count are refused by name.
The report counts the window rounds (none for a single rank).

Environment: HZIO_MPI_BIN = the hzio-mpi executable, MPIEXEC = mpiexec (Open MPI, oversubscribed).
"""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

from interop_util import Mismatches, box_arg, grid_axes, sample_source, sub_boxes
from pidx_golden import CHUNKED, DATASETS, dataset_dims, formula, geometry, pidx_fields, timesteps


def hzio_mpi_read(ranks: int, idx: Path, out: Path, *args) -> dict:
    """Runs `mpiexec -n ranks hzio-mpi read idx --out out ... --json`; returns rank 0's report."""
    binary = os.environ.get("HZIO_MPI_BIN", "")
    assert Path(binary).is_file(), f"HZIO_MPI_BIN must name the hzio-mpi executable (got '{binary}')"
    command = [os.environ.get("MPIEXEC", "mpiexec"), "--oversubscribe", "-n", str(ranks), binary, "read",
               str(idx), "--out", str(out), "--json", *map(str, args)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{command}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    reports = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(reports) == 1, done.stdout
    return json.loads(reports[0])


@pytest.mark.parametrize("ranks", [1, 2, 3, 4])
@pytest.mark.parametrize("name", DATASETS)
def test_every_field_time_level_and_box_equals_the_formula(pidx_dir, tmp_path, name, ranks):
    idx = pidx_dir / f"{name}.idx"
    geom = geometry(idx)
    dims = dataset_dims(geom)
    fields = pidx_fields(idx)
    mismatches = Mismatches()
    files = 0
    for mode in ("two-phase", "one-phase"):
        for time in timesteps(idx):
            for box in sub_boxes(dims)[:2]:  # the whole box, and one with unaligned corners
                levels = [h for h in range(geom.maxh + 1) if grid_axes(geom, box[0], box[1], h) is not None]
                out = tmp_path / f"{mode}-t{time}-{{field}}-{{level}}.npy"
                report = hzio_mpi_read(ranks, idx, out, "--mode", mode, "--time", time, "--box", box_arg(*box),
                                       "--level", ",".join(map(str, levels)))
                one_phase_instead = name in CHUNKED and mode == "two-phase" and ranks > 1
                assert ("note" in report) == one_phase_instead, report
                if one_phase_instead:
                    assert "PIDX chunked dataset: read one-phase" in report["note"], report
                for v, (field, dtype, ncomp) in enumerate(fields):
                    source = formula(geom, v, dtype, ncomp)
                    for h in levels:
                        path = Path(str(out).format(field=field, level=h))
                        got = np.load(path)
                        path.unlink()
                        files += 1
                        expected = sample_source(source, geom, *box, h)
                        if got.dtype != expected.dtype or not np.array_equal(got, expected):
                            mismatches.add(f"{ranks} ranks {mode} {field} t{time} h{h} box {box_arg(*box)}: "
                                           f"{got.dtype}{got.shape} differs from the formula {expected.shape}")
    mismatches.assert_none(idx)
    assert files >= 2 * len(fields) * (geom.maxh + 1), files  # every level of every field was read


@pytest.mark.parametrize("options", [["--results-budget", "1"], ["--results-budget", "128k"], [],
                                     ["--direct-io", "--no-owner-reads"], ["--no-direct-io"], ["--threads", "3"]])
def test_fields_read_together_or_in_groups_equal_the_formula(pidx_dir, tmp_path, options):
    # mixed_n2 at 2 ranks holds 32k (pressure), 96k (velocity), 16k (temperature) and 16k (flag) of
    # results per rank: a budget of 1 byte reads one field at a time, 128k reads two groups of two
    # fields, the default (1g) all four in one read.
    idx = pidx_dir / "mixed_n2.idx"
    geom = geometry(idx)
    dims = dataset_dims(geom)
    out = tmp_path / "{field}-{level}.npy"
    report = hzio_mpi_read(2, idx, out, "--time", 1, *options)
    assert report["bytes"] == sum(np.dtype(dtype).itemsize * ncomp for _, dtype, ncomp in pidx_fields(idx)) * \
        int(np.prod(dims)), report
    for v, (field, dtype, ncomp) in enumerate(pidx_fields(idx)):
        got = np.load(Path(str(out).format(field=field, level=geom.maxh)))
        expected = sample_source(formula(geom, v, dtype, ncomp), geom, [0, 0, 0], dims, geom.maxh)
        assert got.dtype == expected.dtype and np.array_equal(got, expected), (options, field)


def test_the_report_counts_the_window_rounds(pidx_dir, tmp_path):
    """A single rank reads without a window: its report says 0 rounds (it said 1, the starting value
    of the total it kept). With every block sent through the aggregators, 2 ranks make one."""
    idx = pidx_dir / "mixed_n2.idx"
    out = tmp_path / "{field}-{level}.npy"
    assert hzio_mpi_read(1, idx, out, "--time", 1)["rounds"] == 0
    assert hzio_mpi_read(2, idx, out, "--time", 1, "--no-owner-reads")["rounds"] == 1


@pytest.mark.parametrize("options,named", [(["--results-budget", "lots"], "--results-budget"),
                                           (["--direct-io", "--no-direct-io"], "--no-direct-io"),
                                           (["--threads", "-1"], "--threads")])
def test_malformed_or_contradictory_read_options_are_refused_by_name(pidx_dir, tmp_path, options, named):
    command = [os.environ.get("MPIEXEC", "mpiexec"), "--oversubscribe", "-n", "2", os.environ["HZIO_MPI_BIN"], "read",
               str(pidx_dir / "mixed_n2.idx"), *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and named in done.stderr + done.stdout, done
