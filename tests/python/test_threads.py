"""Reads from several Python threads at once give the same arrays as one thread, and a read
releases the GIL: another Python thread keeps running while the library reads."""
from __future__ import annotations

import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import hzio
from conftest import assert_same


def test_concurrent_reads_are_correct(small3d):
    ds = hzio.open(small3d[0])
    queries = []
    for i in range(48):
        field = ("a", "rgb")[i % 2]
        time = i % 3
        level = (19, 17, 14, 10)[i % 4]
        box = ((i % 7, i % 5, i % 3), (70 - i % 11, 45 - i % 9, 33 - i % 4))
        queries.append((field, time, box, level))
    expected = [ds.read(f, t, box=b, level=h) for f, t, b, h in queries]
    shared = hzio.open(small3d[0])                 # one Dataset shared by every thread
    with ThreadPoolExecutor(max_workers=8) as pool:
        got = list(pool.map(lambda q: shared.read(q[0], q[1], box=q[2], level=q[3]), queries * 3))
    for i, array in enumerate(got):
        assert_same(array, expected[i % len(queries)], f"query {queries[i % len(queries)]}")
    with ThreadPoolExecutor(max_workers=4) as pool:   # slicing views from threads too
        slices = list(pool.map(lambda t: shared["rgb"][t % 3, 5:25, ::2], range(12)))
    for t, array in enumerate(slices):
        assert_same(array, small3d[1][("rgb", t % 3)][5:25, ::2], f"view t{t % 3}")


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """256^3 float32 (64 MiB), raw: a read long enough to watch."""
    idx = tmp_path_factory.mktemp("big") / "big.idx"
    ds = hzio.create(idx, dims=(256, 256, 256), fields={"v": "float32"}, compression="raw")
    data = np.arange(256 ** 3, dtype=np.float32).reshape(256, 256, 256)
    ds.write(data)
    return hzio.open(idx), data


def test_reads_release_the_gil(big):
    """While one thread is inside a read, another Python thread keeps running: the longest pause
    of a spinning thread during the read stays far below the read's duration (with the GIL held
    through the call, the spinner would stop for all of it)."""
    ds, data = big
    out = np.empty(data.shape, np.float32)
    ds.read(out=out)                                  # warm the page cache
    pauses = []                                       # (start, end) of spinner pauses > 1 ms
    stop = threading.Event()

    def spin():
        last = time.perf_counter()
        while not stop.is_set():
            now = time.perf_counter()
            if now - last > 1e-3:
                pauses.append((last, now))
            last = now

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-3)
    spinner = threading.Thread(target=spin)
    spinner.start()
    ratios = []
    try:
        for _ in range(5):
            start = time.perf_counter()
            ds.read(out=out)                          # one call into the library
            end = time.perf_counter()
            longest = max([min(b, end) - max(a, start) for a, b in pauses if b > start and a < end],
                          default=0.0)
            ratios.append(longest / (end - start))
            if ratios[-1] < 0.5:
                break
    finally:
        stop.set()
        spinner.join()
        sys.setswitchinterval(old_interval)
    assert_same(out, data, "the read under contention")
    assert min(ratios) < 0.5, f"the other thread stopped for most of every read (pause/read: {ratios})"
