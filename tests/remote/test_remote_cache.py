"""The disk cache of remote blocks across `hzio` processes (issue 16, "What must be shown"): a
second read fetches no block from the store, only the header's revalidation (a conditional GET
answered 304); with the store stopped, cached queries still answer and uncached ones fail with a
clear error in bounded time; two processes filling one cache at once lose nothing; an entry
truncated on disk is detected and fetched again; a dataset replaced in the store is never served
from the blocks of its earlier version. Requests are counted by a proxy in front of MinIO."""
from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from interop_util import box_arg, make_array
from remote_harness import Minio, StoreProxy, hzio_binary, hzio_read_array, run_hzio

DIMS = (64, 48, 40)


@pytest.fixture(scope="module")
def datasets(ov, tmp_path_factory):
    """An ARCO zip dataset (ov.create_idx + compress_dataset) and a classic one (CreateIdx)."""
    root = tmp_path_factory.mktemp("datasets")
    source = make_array("float32", DIMS, seed=11)
    arco = ov.CreateIdx(url=str(root / "arco" / "visus.idx"), dims=list(DIMS), fields=[ov.Field("v", "float32")],
                        arco="32kb")
    arco.write(source)
    arco.compress_dataset()
    ov.CreateIdx(url=str(root / "classic" / "visus.idx"), dim=3, data=source)
    changed = source + 1.0
    ov.CreateIdx(url=str(root / "changed" / "visus.idx"), dim=3, data=changed)
    return root, source, changed


@pytest.fixture
def store(datasets, tmp_path):
    root, _, _ = datasets
    minio = Minio(tmp_path / "minio")
    minio.make_bucket("data")
    minio.sync(root / "arco", "s3://data/arco")
    minio.sync(root / "classic", "s3://data/classic")
    proxy = StoreProxy(minio.port)
    yield minio, proxy
    proxy.stop()
    minio.stop()


def env_of(minio: Minio, proxy: StoreProxy, cache: Path) -> dict:
    return dict(minio.env(), AWS_ENDPOINT_URL=proxy.endpoint, HZIO_CACHE_DIR=str(cache))


def block_requests(proxy: StoreProxy) -> list:
    return [r for r in proxy.requests() if r[1].endswith(".bin")]


@pytest.mark.parametrize("kind", ["arco", "classic"])
def test_second_read_fetches_no_blocks(datasets, store, tmp_path, kind):
    _, source, _ = datasets
    minio, proxy = store
    env = env_of(minio, proxy, tmp_path / "cache")
    url = f"s3://data/{kind}/visus.idx"
    assert np.array_equal(hzio_read_array(url, tmp_path / "a.npy", env), source)
    first = proxy.requests()
    assert block_requests(proxy), first
    proxy.reset()
    assert np.array_equal(hzio_read_array(url, tmp_path / "b.npy", env), source)
    # A coarser read of a sub-box needs only blocks the first read cached.
    hzio_read_array(url, tmp_path / "c.npy", env, level=10, box=box_arg([5, 7, 3], [50, 40, 33]))
    second = proxy.requests()
    assert not block_requests(proxy), second
    # Each open revalidates the header: a conditional GET of the .idx answered 304, and the
    # upload marker (absent).
    assert sorted(second) == sorted([("GET", f"/data/{kind}/visus.idx", 304),
                                     ("GET", f"/data/{kind}/visus.idx.hzio-upload", 404)] * 2), second


def test_offline_reads_cached_queries_and_fails_others_clearly(datasets, store, tmp_path):
    _, source, _ = datasets
    minio, proxy = store
    env = env_of(minio, proxy, tmp_path / "cache")
    url = "s3://data/arco/visus.idx"
    coarse = dict(level=12)
    cached = hzio_read_array(url, tmp_path / "coarse.npy", env, **coarse)
    proxy.stop()
    minio.stop()
    start = time.monotonic()
    assert np.array_equal(hzio_read_array(url, tmp_path / "again.npy", env, **coarse), cached)
    info = run_hzio(["info", url], env)
    assert info.returncode == 0 and "64 x 48 x 40" in info.stdout, info.stderr
    full = run_hzio(["read", url, "-o", tmp_path / "full.npy"], env)
    assert full.returncode == 1
    assert proxy.endpoint in full.stderr and "were in the disk cache" in full.stderr, full.stderr
    assert not (tmp_path / "full.npy").exists()
    assert time.monotonic() - start < 30
    # Without a cache nothing answers, with an error naming the store.
    nothing = run_hzio(["info", url, "--no-cache"], env)
    assert nothing.returncode == 1 and proxy.endpoint in nothing.stderr, nothing.stderr


def test_two_processes_fill_one_cache(datasets, store, tmp_path):
    _, source, _ = datasets
    minio, proxy = store
    cache = tmp_path / "cache"
    env = env_of(minio, proxy, cache)
    url = "s3://data/classic/visus.idx"
    runs = [subprocess.Popen([hzio_binary(), "read", url, "-o", str(tmp_path / f"p{i}.npy"), *extra],
                             env=dict(os.environ, **env), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for i, extra in enumerate([[], ["--box", box_arg([0, 0, 0], [40, 48, 40])]])]
    for p in runs:
        _, err = p.communicate(timeout=300)
        assert p.returncode == 0, err.decode()
    assert np.array_equal(np.load(tmp_path / "p0.npy"), source)
    assert not [f for f in cache.rglob("*") if ".tmp." in f.name]
    proxy.stop()
    minio.stop()
    # Everything both wrote is there: both reads answer from the cache alone.
    assert np.array_equal(hzio_read_array(url, tmp_path / "q0.npy", env), source)
    assert np.array_equal(hzio_read_array(url, tmp_path / "q1.npy", env, box=box_arg([0, 0, 0], [40, 48, 40])),
                          source[:, :, :40])


def test_truncated_cache_entry_is_fetched_again(datasets, store, tmp_path):
    _, source, _ = datasets
    minio, proxy = store
    cache = tmp_path / "cache"
    env = env_of(minio, proxy, cache)
    url = "s3://data/arco/visus.idx"
    hzio_read_array(url, tmp_path / "a.npy", env)
    entries = sorted((f for f in cache.rglob("*") if f.is_file() and f.parent != cache), key=lambda f: f.stat().st_size)
    largest = entries[-1]  # a block (the header entries are small)
    with open(largest, "r+b") as f:
        f.truncate(largest.stat().st_size // 3)
    proxy.reset()
    assert np.array_equal(hzio_read_array(url, tmp_path / "b.npy", env), source)
    assert len(block_requests(proxy)) == 1, proxy.requests()
    proxy.reset()
    assert np.array_equal(hzio_read_array(url, tmp_path / "c.npy", env), source)
    assert not block_requests(proxy)  # stored whole again


def test_replaced_dataset_is_not_served_stale(datasets, store, tmp_path):
    root, source, changed = datasets
    minio, proxy = store
    env = env_of(minio, proxy, tmp_path / "cache")
    url = "s3://data/classic/visus.idx"
    assert np.array_equal(hzio_read_array(url, tmp_path / "a.npy", env), source)
    time.sleep(1.1)  # Last-Modified has whole seconds
    # New blocks and an .idx of the same bytes (S3 gives it the same ETag, a new Last-Modified).
    minio.aws("s3", "cp", "--recursive", "--only-show-errors", str(root / "changed"), "s3://data/classic")
    assert np.array_equal(hzio_read_array(url, tmp_path / "b.npy", env), changed)
