"""`hzio read ... -o out.npy` streams large results to the file in slabs: the whole process's
peak memory grows far slower than the result (four times deeper: under twice the peak) and stays
well under it, and the file equals the library's read (issue 17, the CLI part).

What still grows: blocks taller than a slab (coarse levels) are decoded whole in every slab they
cross."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import hzio
from conftest import hzio_binary

# Runs a command and prints the peak resident memory (KiB) of that child alone.
PEAK = ("import resource, subprocess, sys; done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(done.returncode)")


_Y, _X = np.meshgrid(np.arange(256, dtype=np.float32), np.arange(256, dtype=np.float32), indexing="ij")
WAVES = np.sin(_X * 0.05) * np.cos(_Y * 0.03)


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    """256 x 256 x D float32 (D = 128 and 512: 32 and 128 MiB), raw and zip, written by hzio."""
    root = tmp_path_factory.mktemp("cli")
    out = {}
    for depth in (128, 512):
        for compression in ("raw", "zip"):
            idx = root / f"d{depth}{compression}" / "visus.idx"
            ds = hzio.create(idx, dims=(256, 256, depth), fields={"v": "float32"}, compression=compression)
            with ds.writer() as w:
                for z in range(0, depth, 64):
                    zz = np.arange(z, z + 64, dtype=np.float32)[:, None, None]
                    w.write(WAVES + zz * 0.001, "v", box=((0, 0, z), (256, 256, z + 64)))
            out[(depth, compression)] = idx
    return out


def peak_kib(args) -> int:
    done = subprocess.run([sys.executable, "-c", PEAK, *map(str, args)], capture_output=True, text=True,
                          timeout=300)
    # hzio's own message says why it failed: show it instead of a bare exit status.
    assert done.returncode == 0, f"{' '.join(map(str, args))} exited {done.returncode}: {done.stderr.strip()}"
    return int(done.stdout.strip())


def read_with_peak(idx, tmp_path, box=None):
    out = tmp_path / "out.npy"
    peak = peak_kib([hzio_binary(), "read", idx, "-o", out, "--slab-mb", "4"] + (["--box", box] if box else []))
    expected = hzio.open(idx).read(box=box)
    got = np.load(out)
    assert got.shape == expected.shape and np.array_equal(got, expected), f"{idx} {box}"
    return peak, expected.nbytes // 1024


@pytest.mark.parametrize("compression", ["raw", "zip"])
def test_read_to_npy_in_bounded_memory(datasets, tmp_path, compression):
    small, small_result = read_with_peak(datasets[(128, compression)], tmp_path)
    big, big_result = read_with_peak(datasets[(512, compression)], tmp_path)
    assert big_result == 4 * small_result
    assert big < 2 * small, f"peak {small} KiB for {small_result} KiB, {big} KiB for {big_result} KiB"
    assert big < 0.5 * big_result, f"peak RSS {big} KiB for a {big_result} KiB result"
    part, part_result = read_with_peak(datasets[(512, compression)], tmp_path, "3:250,1:255,5:509")
    assert part < 0.5 * part_result, f"peak RSS {part} KiB for a {part_result} KiB sub-box"
