"""Two writers at once (issue 14): on different fields, on different (new) timesteps, on the same
field, 20 repetitions each, half of them with --wait. Every run ends with each part equal to
what its writer reported — written, or refused with a clear lock error naming the holder — and
readers looping meanwhile only ever see the old or a new version of each part (a read that
crossed a commit — the .idx changed under it — is discarded and retried, as readers do on
kChanged, TEAM contract 3).
"""
import hashlib
import os
import subprocess
import threading
from pathlib import Path

import pytest

from safety_util import HZIO, copy_dir, run, save_npy, deadline
from write_paths import IDX, _fields_and_times

REPETITIONS = 20
LOCKED = "is being written by pid"

# (name, writer A (field, time, input seed), writer B (field, time, input seed))
SCENARIOS = [
    ("different_fields", ("a", 0, 11), ("b", 0, 12)),
    ("different_timesteps", ("a", 5, 13), ("a", 6, 14)),
    ("same_field", ("a", 0, 15), ("a", 0, 16)),
]


def read_part(case: Path, field: str, time: int):
    """The part's samples (hash), "absent" when its timestep is not declared, or None when the
    .idx changed while it was read (the read may mix versions: discard it)."""
    idx = case / IDX

    def version():
        st = os.stat(idx)
        return st.st_ino, st.st_mtime_ns, st.st_ctime_ns, st.st_size

    before = version()
    p = subprocess.run([HZIO, "read", str(idx), "--field", field, "--time", str(time), "-o", "-"],
                       capture_output=True, timeout=60)
    if version() != before:
        return None
    err = p.stderr.decode()
    if p.returncode != 0:
        if "changed" in err:  # kChanged: the reader noticed a commit itself
            return None
        if "not in the dataset" in err:
            return "absent"
        raise AssertionError(f"read of {field}@{time} failed: {err}")
    return hashlib.sha256(p.stdout).hexdigest()


class Readers:
    """Threads that read the given parts in a loop and record every version they see."""

    def __init__(self, case, parts):
        self.case, self.parts = case, parts
        self.seen = {part: [] for part in parts}
        self.errors = []
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.loop, args=(part,)) for part in parts]

    def loop(self, part):
        try:
            while not self.stop.is_set():
                got = read_part(self.case, *part)
                if got is not None:
                    self.seen[part].append(got)
        except Exception as e:  # reported by the test, not swallowed
            self.errors.append(e)

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join()


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    d = tmp_path_factory.mktemp("base")
    _fields_and_times(d)
    for _, a, b in SCENARIOS:
        for field, time, seed in (a, b):
            save_npy(d / "in" / f"s{seed}.npy", seed)
    return d


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s[0])
def test_two_writers(scenario, base, tmp_path):
    name, a, b = scenario
    # What each writer's data reads as, and the old versions, from private copies.
    new = {}
    for field, time, seed in (a, b):
        own = tmp_path / f"own{seed}"
        copy_dir(base, own)
        run([HZIO, "convert", f"in/s{seed}.npy", IDX, "--field", field, "--time", time], cwd=own)
        new[seed] = read_part(own, field, time)
    old = {(f, t): read_part(base, f, t) for f, t, _ in (a, b)}
    outcomes = {"written": 0, "locked": 0, "waited": 0}
    for rep in range(REPETITIONS):
        case = tmp_path / "case"
        copy_dir(base, case)
        wait = rep % 2 == 0
        parts = sorted({(a[0], a[1]), (b[0], b[1])})
        with deadline(120), Readers(case, parts) as readers:
            procs = [subprocess.Popen([HZIO, "convert", f"in/s{seed}.npy", IDX, "--field", field, "--time", str(time)]
                                      + (["--wait"] if wait else []), cwd=case, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE)
                     for field, time, seed in (a, b)]
            results = [(p.wait(timeout=60), p.stderr.read().decode()) for p in procs]
        assert not readers.errors, readers.errors
        written = []
        for (field, time, seed), (rc, err) in zip((a, b), results):
            if rc == 0:
                written.append(seed)
                outcomes["waited" if "waiting" in err else "written"] += 1
            else:
                assert rc == 1 and LOCKED in err and "--wait" in err and not wait, f"rep {rep}: exit {rc}: {err}"
                outcomes["locked"] += 1
        # Each part is what its writer(s) reported.
        for part in parts:
            writers = [seed for field, time, seed in (a, b) if (field, time) == part and seed in written]
            final = read_part(case, *part)
            if not writers:
                assert final == old[part], f"rep {rep}: {part} changed though its writer failed"
            elif len(writers) == 1:
                assert final == new[writers[0]], f"rep {rep}: {part} is not what its writer wrote"
            else:
                assert final in (new[writers[0]], new[writers[1]]), f"rep {rep}: {part} is a mix"
            allowed = {old[part]} | {new[s] for field, time, s in (a, b) if (field, time) == part}
            bad = [v for v in readers.seen[part] if v not in allowed]
            assert not bad, f"rep {rep}: a reader saw a version of {part} that never existed"
        verify = run([HZIO, "verify", IDX], cwd=case).stdout.decode()
        assert " 0 corrupt" in verify and "leftover" not in verify, verify
    reads = sum(len(v) for v in readers.seen.values())
    print(f"{name}: {outcomes}, {reads} reads checked in the last repetition")
    # Both kinds of outcome happened: the lock was contended, and --wait let both through.
    assert outcomes["locked"] > 0 or outcomes["waited"] > 0, outcomes
    assert outcomes["written"] + outcomes["waited"] >= REPETITIONS, outcomes
