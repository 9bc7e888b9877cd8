"""Remote reads through `hzio serve` (mod_visus): the same metadata, arrays and errors as the
local dataset; several threads at once; writes refused."""
from __future__ import annotations

import socket
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
import xarray as xr

import hzio
from conftest import assert_same


@pytest.fixture(scope="module")
def pair(server, small3d):
    return hzio.open(server.url("small3d")), hzio.open(small3d[0])


def test_metadata_over_http(pair, server):
    remote, local = pair
    assert remote.source == server.url("small3d")
    for attr in ("dims", "shape", "timesteps", "maxh", "bitmask", "logic_box", "physic_box", "field_names"):
        assert getattr(remote, attr) == getattr(local, attr), attr
    assert [f.dtype for f in remote.fields] == ["float32", "uint8[3]"]
    assert server.url("small3d") in repr(remote)


def test_reads_over_http_equal_local(pair):
    remote, local = pair
    for field, time, box, level in [("a", 0, None, None), ("rgb", 2, ((3, 4, 5), (60, 40, 30)), None),
                                    ("a", 1, None, 12), ("rgb", 1, ((10, 0, 0), (11, 45, 33)), 17)]:
        assert_same(remote.read(field, time, box=box, level=level), local.read(field, time, box=box, level=level),
                    f"{field} t{time} {box} level {level}")
    assert_same(remote["rgb"][2, 3:9, ::4, 7], local["rgb"][2, 3:9, ::4, 7], "a view")
    assert [a.shape for a in remote.read_progressive("a", num_refinements=3)] == \
           [a.shape for a in local.read_progressive("a", num_refinements=3)]


def test_threads_over_http(pair):
    remote, local = pair
    levels = [19, 16, 13, 10] * 4
    with ThreadPoolExecutor(max_workers=6) as pool:
        got = list(pool.map(lambda h: remote.read("a", h % 3, level=h), levels))
    for h, array in zip(levels, got):
        assert_same(array, local.read("a", h % 3, level=h), f"level {h}")


def test_xarray_over_http(server, small3d):
    x = xr.open_dataset(server.url("small3d"), engine="hzio", level=16)
    assert_same(x["rgb"].isel(time=2).values, hzio.open(small3d[0]).read("rgb", 2, level=16), "xarray")


def test_remote_errors(pair, server):
    remote, _ = pair
    with pytest.raises(hzio.NotFoundError, match="unknown field 'zz'"):
        remote.read("zz")
    with pytest.raises(hzio.UnsupportedError, match="remote datasets are read-only"):
        remote.write(np.zeros((33, 45, 70), np.float32))
    with pytest.raises(hzio.NotFoundError, match="HTTP 404: Cannot find dataset\\(no_such_dataset\\)"):
        hzio.open(server.url("no_such_dataset"))
    with socket.socket() as s:                                 # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(hzio.UnavailableError, match=f"127.0.0.1:{port}"):
        hzio.open(f"http://127.0.0.1:{port}/mod_visus?dataset=x")


def test_a_dataset_on_a_web_server_with_a_disk_cache(small3d, tmp_path):
    """hzio.open of a plain web server's .idx (nginx, Range requests), blocks kept in cache_dir."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "remote"))
    from remote_harness import Nginx
    idx = Path(small3d[0])
    nginx = Nginx(idx.parent, tmp_path / "nginx")
    try:
        url = nginx.url(idx.name)
        cache = tmp_path / "cache"
        remote, local = hzio.open(url, cache_dir=cache), hzio.open(idx)
        assert remote.source == url
        assert_same(remote.read("a", 1), local.read("a", 1), "full resolution")
        assert_same(remote.read("rgb", 2, level=14), local.read("rgb", 2, level=14), "level 14")
        assert any(f.is_file() for f in cache.rglob("*")), "nothing was cached"
        nginx.stop()
        # The server is gone: what the cache holds still answers, the rest says so.
        offline = hzio.open(url, cache_dir=cache)
        assert_same(offline.read("a", 1), local.read("a", 1), "from the disk cache")
        with pytest.raises(hzio.UnavailableError, match="were in the disk cache"):
            offline.read("a", 0)
    finally:
        nginx.stop()
