"""`hzio read -o PATH` never damages anything (issue 14): the dataset's own files are refused,
a regular file is replaced only whole (a failure or a full disk leaves the old one), devices and
FIFOs are written in place and never removed, `-o -` writes to standard output.
"""
import io
import os
import stat
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

from safety_util import HZIO, run, save_npy, tmpfs

SHAPE = (20, 48, 64)


@pytest.fixture(scope="module")
def ds(tmp_path_factory):
    d = tmp_path_factory.mktemp("ds")
    a = save_npy(d / "a.npy", 1, SHAPE)
    run([HZIO, "convert", d / "a.npy", d / "ds.idx", "--time", "0"])
    run([HZIO, "convert", d / "a.npy", d / "ds.idx", "--field", "b", "--time", "0"])  # a generation: ds.g2/
    return d, a


def read(ds_dir, *args, check=False):
    return run([HZIO, "read", ds_dir / "ds.idx"] + list(args), check=check)


def snapshot(d: Path):
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file() and p.suffix != ".lock"}


def test_the_datasets_own_files_are_refused(ds, tmp_path):
    d, _ = ds
    before = snapshot(d)
    block = sorted((d / "ds.g2").rglob("*.bin"))[0]
    (tmp_path / "link.npy").symlink_to(d / "ds.idx")
    for target, why in ((d / "ds.idx", "is the .idx"), (block, "inside the data directory"),
                        (d / "ds.g2" / "new.npy", "inside the data directory"), (d / "ds.idx.lock", "lock file"),
                        (tmp_path / "link.npy", "is the .idx")):
        p = read(d, "-o", target)
        err = p.stderr.decode()
        assert p.returncode == 1 and why in err and "write the output somewhere else" in err, (target, err)
    assert snapshot(d) == before


def test_regular_files_are_replaced_whole(ds, tmp_path):
    d, a = ds
    out = tmp_path / "out.npy"
    out.write_bytes(b"old")
    os.chmod(out, 0o600)
    read(d, "-o", out, check=True)
    assert np.array_equal(np.load(out), a)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.npy"]  # no temporary left
    # A directory is not a file name.
    p = read(d, "-o", tmp_path)
    assert p.returncode == 1 and "is a directory" in p.stderr.decode()


def test_devices_and_fifos_are_written_in_place(ds, tmp_path):
    d, a = ds
    p = read(d, "-o", "/dev/null", check=True)
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    p = read(d, "-o", "/dev/full")
    assert p.returncode == 1 and "/dev/full" in p.stderr.decode() and "No space left on device" in p.stderr.decode()
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode), "a device that could not be written must never be removed"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = {}
    reader = threading.Thread(target=lambda: got.setdefault("bytes", fifo.read_bytes()))
    reader.start()
    read(d, "-o", fifo, check=True)
    reader.join(timeout=60)
    assert got["bytes"] == a.tobytes()
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_standard_output(ds):
    d, a = ds
    raw = read(d, "-o", "-", check=True)
    assert raw.stdout == a.tobytes()
    assert b"wrote standard output" in raw.stderr
    npy = read(d, "--npy", "-o", "-", check=True)
    assert np.array_equal(np.load(io.BytesIO(npy.stdout)), a)


def test_read_only_directory_and_full_disk_leave_the_old_file(ds, tmp_path):
    d, _ = ds
    disk = tmp_path / "disk"
    with tmpfs(disk, "1m") as mounted:
        if not mounted:
            pytest.skip("cannot mount a tmpfs here (needs root / CAP_SYS_ADMIN)")
        out = disk / "out.raw"
        out.write_bytes(b"old contents")
        # The result (240 KiB) does not fit next to this filler.
        (disk / "filler").write_bytes(b"\0" * (1024 * 1024 - 200 * 1024))
        p = read(d, "-o", out)
        err = p.stderr.decode()
        assert p.returncode == 1 and "No space left on device" in err and "out.raw" in err, err
        assert out.read_bytes() == b"old contents"
        assert sorted(x.name for x in disk.iterdir()) == ["filler", "out.raw"]
        (disk / "filler").unlink()
        assert subprocess.run(["mount", "-o", "remount,ro", str(disk)]).returncode == 0
        p = read(d, "-o", out)
        err = p.stderr.decode()
        assert p.returncode == 1 and "Read-only file system" in err and "temporary file" in err, err
        assert out.read_bytes() == b"old contents"


def test_parts_never_written_are_noted(tmp_path):
    run([HZIO, "create", tmp_path / "c.idx", "--dims", "16,8", "--field", "v:uint8", "--time", "0:1"])
    p = run([HZIO, "read", tmp_path / "c.idx", "--time", "1", "-o", tmp_path / "v.raw"])
    assert "field 'v' at timestep 1" in p.stderr.decode() and "never written" in p.stderr.decode()
    assert (tmp_path / "v.raw").read_bytes() == bytes(16 * 8)
