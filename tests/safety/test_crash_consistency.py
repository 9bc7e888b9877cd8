"""Crash consistency of every write path (issue 14): killed at many points — deterministic crash
points inside the writer (HZIO_TEST_CRASH_AT, util/crash_point.h) spread over the whole
operation, plus kills at random times; for MPI one rank killed, or mpiexec — or stopped by a
full disk, a dataset is exactly its old state or exactly its new state (a new dataset: absent),
`hzio verify` agrees, and after `hzio verify --repair` no leftover remains: the files are
byte-identical to those of the old or the new state.
"""
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from safety_util import HZIO, copy_dir, dataset_state, fill_disk, free_bytes, kill_group, run, tmpfs, tree, du
from write_paths import IDX, MPI_PATHS, SERIAL_PATHS

MIN_POINTS = 10        # crash points per write path (every one, for writes of the header alone)
MIN_HEADER_POINTS = 6  # lock, header written, before and after its rename, cleanup, unlock


class Reference:
    """The old and new states of one write path, and its crash points."""

    def __init__(self, path, root: Path):
        self.path = path
        self.base = root / "base"
        path.setup(self.base)
        self.old = dataset_state(self.base / IDX)
        self.old_tree = tree(self.base / "data")
        clean = root / "clean"
        copy_dir(self.base, clean)
        started = time.monotonic()
        run(path.command, cwd=clean)
        self.seconds = time.monotonic() - started
        self.new = dataset_state(clean / IDX)
        self.new_tree = tree(clean / "data")
        self.growth = du(clean / "data") - du(self.base / "data")
        assert self.new is not None and self.new != self.old, "the write must change the dataset"
        # Crash points: one traced run, lines "<rank> <n> <what>".
        traced = root / "traced"
        copy_dir(self.base, traced)
        trace = root / "trace.txt"
        run(path.command, cwd=traced, env={"HZIO_TEST_CRASH_TRACE": str(trace)})
        self.points = {}
        for line in trace.read_text().splitlines():
            rank, n, what = line.split(" ", 2)
            self.points.setdefault(rank, []).append((int(n), what))

    def crash_cases(self):
        """(value of HZIO_TEST_CRASH_AT, description): points spread over the operation and the
        commit's own steps; for MPI, rank 0 (the one that commits) and, one at a time, the last
        rank (a writer among others), at least MIN_POINTS in all."""
        def spread(points, count):
            n = len(points)
            picks = {round(k * (n - 1) / max(1, count - 1)) for k in range(min(count, n))}
            return [points[i] for i in sorted(picks)]

        cases = []
        if self.path.ranks:
            last = self.points.get(str(self.path.ranks - 1), [])
            others = spread(last, 3)
            cases += [(f"{n}@{self.path.ranks - 1}", n, len(last), what, self.path.ranks - 1) for n, what in others]
            rank0 = self.points["0"]
            cases += [(f"{n}@0", n, len(rank0), what, 0) for n, what in spread(rank0, MIN_POINTS - len(others))]
        else:
            points = self.points["-"]
            cases += [(str(n), n, len(points), what, "-") for n, what in spread(points, MIN_POINTS)]
        # The commit's own steps, whatever the spread picked.
        points = self.points["0" if self.path.ranks else "-"]
        for n, what in points:
            if ("rename" in what and what.endswith(".idx")) or what.startswith("remove"):
                at = f"{n}@0" if self.path.ranks else str(n)
                if all(c[0] != at for c in cases):
                    cases.append((at, n, len(points), what, "0" if self.path.ranks else "-"))
        return [(at, f"point {n}/{count} on rank {rank}: {what}") for at, n, count, what, rank in cases]

    def check(self, case: Path, how: str):
        """The dataset in `case` after `how` went wrong: old or new, verified, repaired clean."""
        state = dataset_state(case / IDX)
        assert state in (self.old, self.new), f"{how}: the dataset is neither its old nor its new state"
        if state is None:
            # A new dataset that never committed is absent; writing it again gives the new state.
            run(self.path.command, cwd=case)
            assert tree(case / "data") == self.new_tree, f"{how}: rewriting after the crash"
            return
        verify = run([HZIO, "verify", IDX], cwd=case, check=False)
        out = verify.stdout.decode()
        assert verify.returncode == 0 and " 0 corrupt" in out, f"{how}: verify disagrees:\n{out}"
        run([HZIO, "gc", IDX], cwd=case)
        # The files are byte for byte those of the old or new state (no leftover; and with the
        # same header, the same reads).
        expected_tree = self.new_tree if (state == self.new or self.path.repairs) else self.old_tree
        assert tree(case / "data") == expected_tree, f"{how}: not the old or new files after verify --repair"


PATHS = SERIAL_PATHS + MPI_PATHS
_references = {}


@pytest.fixture
def ref(request, tmp_path_factory):
    """The path's Reference, made once per session."""
    path = request.param
    if path.name not in _references:
        _references[path.name] = Reference(path, tmp_path_factory.mktemp(path.name))
    return _references[path.name]


@pytest.mark.parametrize("ref", PATHS, ids=lambda p: p.name, indirect=True)
def test_killed_at_every_step(ref, tmp_path):
    path = ref.path
    cases = ref.crash_cases()
    least = MIN_HEADER_POINTS if path.header_only else MIN_POINTS
    assert len(cases) >= least, f"only {len(cases)} crash points: {ref.points}"
    for at, how in cases:
        case = tmp_path / "case"
        copy_dir(ref.base, case)
        p = run(path.command, cwd=case, env={"HZIO_TEST_CRASH_AT": at}, check=False)
        assert p.returncode != 0, f"{how}: the write was not killed"
        if not path.ranks:
            assert p.returncode == -signal.SIGKILL, f"{how}: exit {p.returncode} {p.stderr.decode()}"
        ref.check(case, how)


@pytest.mark.parametrize("ref", PATHS, ids=lambda p: p.name, indirect=True)
def test_killed_at_random_times(ref, tmp_path):
    path = ref.path
    rng = random.Random(f"{path.name}")
    for i in range(3):
        case = tmp_path / "case"
        copy_dir(ref.base, case)
        delay = rng.uniform(0.0, ref.seconds)
        proc = subprocess.Popen([str(a) for a in path.command], cwd=case, start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        # kill -9 of the process (for MPI: of mpiexec), then of anything it left running.
        proc.send_signal(signal.SIGKILL)
        kill_group(proc)
        ref.check(case, f"killed after {delay:.3f} s of {ref.seconds:.3f} s")


@pytest.mark.parametrize("ref", PATHS, ids=lambda p: p.name, indirect=True)
def test_full_disk(ref, tmp_path):
    path = ref.path
    disk = tmp_path / "disk"
    with tmpfs(disk, "64m") as mounted:
        if not mounted:
            pytest.skip("cannot mount a tmpfs here (needs root / CAP_SYS_ADMIN) to fill a disk")
        case = disk / "case"
        copy_dir(ref.base, case)
        filler = fill_disk(disk, max(0, ref.growth // 2))
        assert free_bytes(disk) < max(ref.growth, 4096)
        p = run(path.command, cwd=case, check=False)
        err = p.stderr.decode()
        assert p.returncode != 0, "the write succeeded on a full disk"
        assert "No space left on device" in err and ("ds" in err or "lock" in err), err
        filler.unlink()
        assert dataset_state(case / IDX) == ref.old, "a write that ran out of space changed the dataset"
        # What the failed write staged is gone (no verify --repair needed).
        assert tree(case / "data") == ref.old_tree or (ref.old is None and not (case / IDX).exists())
        run(path.command, cwd=case)
        assert dataset_state(case / IDX) == ref.new
