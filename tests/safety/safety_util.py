"""Helpers of the crash-consistency, concurrency and output-path tests (tests/safety/).

Environment (set by CMakeLists.txt): HZIO_BIN, HZIO_MPI_BIN, HZIO_SAFETY_WRITER, MPIEXEC.
"""
import contextlib
import hashlib
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import numpy as np

HZIO = os.environ.get("HZIO_BIN", "hzio")
HZIO_MPI = os.environ.get("HZIO_MPI_BIN", "")
SAFETY_WRITER = os.environ.get("HZIO_SAFETY_WRITER", "")
MPIEXEC = os.environ.get("MPIEXEC", "mpiexec")

# Files of a dataset directory that are not the dataset: the inputs and the writers' lock.
IGNORED_SUFFIXES = (".npy", ".lock")


def run(argv, cwd=None, env=None, check=True, timeout=120, **kw):
    """Runs a command; with check, fails the test with its output when the exit status is not 0."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    p = subprocess.run([str(a) for a in argv], cwd=cwd, env=full_env, capture_output=True, timeout=timeout, **kw)
    if check and p.returncode != 0:
        raise AssertionError(f"{argv} exited {p.returncode}\nstdout: {p.stdout.decode(errors='replace')}\n"
                             f"stderr: {p.stderr.decode(errors='replace')}")
    return p


def mpi_argv(ranks, argv):
    return [MPIEXEC, "--oversubscribe", "-n", str(ranks)] + [str(a) for a in argv]


def save_npy(path: Path, seed: int, shape=(20, 48, 64), dtype=np.float32):
    """A deterministic array of `shape` for `seed` (distinct seeds give distinct arrays)."""
    a = (np.arange(np.prod(shape), dtype=np.float64).reshape(shape) * 0.5 + seed * 1000.0).astype(dtype)
    np.save(path, a)
    return a


@contextlib.contextmanager
def deadline(seconds: float):
    """Raises when the block runs longer than `seconds` (a hang is a failure, not a stuck CI job)."""
    def alarm(signum, frame):
        raise TimeoutError(f"took more than {seconds} s")
    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def dataset_state(idx: Path):
    """The dataset as readers see it: None when it is absent, else (header text, digest of every
    field at every timestep at full resolution — all levels — and of a coarse read), read through
    hzio::core in one process (hzio_safety_writer digest)."""
    if not idx.exists():
        return None
    return idx.read_text(), run([SAFETY_WRITER, "digest", idx]).stdout.decode()


def tree(root: Path):
    """Every file under `root` (but inputs and locks) by relative path, with its content's hash."""
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.name.endswith(IGNORED_SUFFIXES):
            out[str(p.relative_to(root))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def du(root: Path):
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def kill_group(proc: subprocess.Popen):
    """SIGKILL to a process started with start_new_session=True and everything it started."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    # MPI ranks are mpiexec's children, not ours: wait until every one has exited (its locks and
    # files closed) before anyone looks at what they left. Zombies have already exited.
    deadline = time.monotonic() + 60
    while _living_members(proc.pid):
        if time.monotonic() > deadline:
            raise AssertionError(f"processes of group {proc.pid} survive SIGKILL: {_living_members(proc.pid)}")
        time.sleep(0.02)


def _living_members(pgid: int) -> list:
    """PIDs of the process group's members that have not exited (not zombies), from /proc."""
    living = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, group = fields[0], int(fields[2])
        if group == pgid and state not in ("Z", "X"):
            living.append(int(entry))
    return living


@contextlib.contextmanager
def tmpfs(path: Path, size: str):
    """A small tmpfs mounted at `path` (needs root); yields False when mounting is impossible."""
    path.mkdir(parents=True, exist_ok=True)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if p.returncode != 0:
        yield False
        return
    try:
        yield True
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def free_bytes(path: Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


def fill_disk(path: Path, leave: int):
    """Fills the file system of `path` so that about `leave` bytes stay free."""
    filler = path / "filler"
    room = free_bytes(path) - leave
    if room > 0:
        fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            os.posix_fallocate(fd, 0, room)
        finally:
            os.close(fd)
    return filler


def copy_dir(src: Path, dst: Path):
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)


def wait_gone(pid: int, seconds=30):
    end = time.time() + seconds
    while time.time() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.01)
    raise AssertionError(f"process {pid} still alive")
