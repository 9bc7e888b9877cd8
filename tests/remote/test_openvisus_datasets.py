"""Datasets written by OpenVisus 2.2.149 and laid out in an S3 store (MinIO) exactly as its
copyDatasetToCloud lays them out — `aws s3 sync` of the dataset folder — or put on a web server
(nginx), read by `hzio read` from there: every level, the whole box and sub-boxes, must equal
OpenVisus's own db.read of the local dataset (issue 16, "What must be shown").

ARCO datasets come from `ov.create_idx` (raw: `db.write`, then `compress_dataset()` zip) and from
`CreateIdx(..., arco=...)` with two fields (one a vector dtype) and two timesteps; classic ones
from CreateIdx(data=...) (OpenVisus's zip encoder) and db.write + compressDataset. Also shown:
OpenVisus's own S3 reader reads the zip ARCO objects hzio reads, and misreads the raw ones
(it assumes zip, which hzio does not); the OpenVisus client reads an S3 dataset through
`hzio serve`.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np
import pytest

from interop_util import Mismatches, box_arg, make_array, read_idx_geometry, sub_boxes
from remote_harness import Nginx, StoreProxy, check_hzio, hzio_read_array, run_hzio

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def compare_levels(ov, local_idx, url, env, dims, sources, tmp_path) -> None:
    """hzio reading `url` vs OpenVisus reading `local_idx`: every level on every sub-box for the
    first (field, time), full resolution for every (field, time)."""
    db = ov.LoadDataset(str(local_idx))
    geom = read_idx_geometry(local_idx)
    mismatches = Mismatches()
    out = tmp_path / "read.npy"
    for (field, time), source in sources.items():
        assert np.array_equal(db.read(field=field, time=time), source), (field, time)  # the premise
        got = hzio_read_array(url, out, env, field=field, time=time)
        if got.shape != source.shape or not np.array_equal(got, source):
            mismatches.add(f"{field} t{time} full resolution: hzio {got.dtype}{got.shape} != source")
    field, time = next(iter(sources))
    for h in range(geom.maxh + 1):
        for box in sub_boxes(dims):
            query = dict(field=field, time=time, level=h, box=box_arg(*box))
            try:
                expected = db.read(field=field, time=time, logic_box=box, max_resolution=h)
            except Exception:                                    # noqa: BLE001 - OpenVisus refuses
                expected = None
            if expected is None:  # no sample of the level in the box: hzio must refuse too
                args = ["read", url, "--field", field, "--time", time, "--level", h, "--box", box_arg(*box),
                        "-o", out]
                if run_hzio(args, env).returncode == 0:
                    mismatches.add(f"{query}: OpenVisus refuses, hzio read it")
                continue
            got = hzio_read_array(url, out, env, **query)
            if got.shape != expected.shape or got.dtype != expected.dtype or not np.array_equal(got, expected):
                mismatches.add(f"{query}: hzio {got.dtype}{got.shape} vs OpenVisus {expected.dtype}{expected.shape}")
    mismatches.assert_none(url)


def arco_create_idx(ov, folder, shape=(48, 70, 90)):
    """ov.create_idx (1 MB ARCO blocks) + db.write, as OpenVisus's documented API does it."""
    source = make_array("float32", tuple(reversed(shape)), seed=7)
    db = ov.create_idx(url=str(folder / "visus.idx"), shape=shape, fields=[ov.Field("temperature", "float32")])
    db.write(source)
    return {("temperature", 0): source}


def arco_fields_and_times(ov, folder, dims=(70, 45, 33)):
    """CreateIdx with small ARCO blocks (many objects), a float32 and a uint8[3] field, two
    timesteps."""
    fields = [ov.Field("pressure", "float32"), ov.Field("color", "uint8[3]")]
    db = ov.CreateIdx(url=str(folder / "visus.idx"), dims=list(dims), fields=fields, arco="16kb",
                      time=[0, 1, "%00000d/"])
    sources = {}
    for t in (0, 1):
        for f, spec in (("pressure", "float32"), ("color", "uint8[3]")):
            sources[(f, t)] = make_array(spec, dims, seed=10 * t + len(f))
            db.write(sources[(f, t)], field=db.getField(f), time=t)
    return sources


@pytest.fixture(scope="module")
def env(minio, tmp_path_factory):
    return dict(minio.env(), HZIO_CACHE_DIR=str(tmp_path_factory.mktemp("cache")))


@pytest.mark.parametrize("make", [arco_create_idx, arco_fields_and_times], ids=["create_idx", "fields_times"])
def test_arco_raw_then_zip_from_s3(ov, minio, env, tmp_path, make):
    folder = tmp_path / "ds"
    sources = make(ov, folder)
    dims = read_idx_geometry(folder / "visus.idx").box_p2
    assert "(arco)" in (folder / "visus.idx").read_text()
    name = make.__name__
    # Raw blocks, as db.write leaves them: hzio decodes them raw (the header names no codec).
    minio.sync(folder, f"s3://data/{name}/raw")
    compare_levels(ov, folder / "visus.idx", f"s3://data/{name}/raw/visus.idx", env, dims, sources, tmp_path)
    # compress_dataset(): every block object zip, the header says so.
    ov.LoadDataset(str(folder / "visus.idx")).compress_dataset()
    assert "default_compression(zip)" in (folder / "visus.idx").read_text()
    minio.sync(folder, f"s3://data/{name}/zip")
    url = minio.openvisus_url("data", f"{name}/zip/visus.idx")  # OpenVisus's URL form, no environment
    compare_levels(ov, folder / "visus.idx", url, {"HZIO_CACHE_DIR": env["HZIO_CACHE_DIR"]}, dims, sources,
                   tmp_path)


def test_copy_dataset_to_cloud(ov, minio, env, tmp_path, monkeypatch):
    """OpenVisus's own upload tool: a classic dataset copied to local ARCO, zip-compressed and
    synced to the bucket (with its `.done` marker object)."""
    dims = (64, 40, 24)
    source = make_array("float32", dims, seed=3)
    src = ov.CreateIdx(url=str(tmp_path / "src" / "visus.idx"), dim=3, data=source)
    monkeypatch.setenv("HOME", str(minio.aws_home()))
    monkeypatch.setenv("AWS_PROFILE", minio.PROFILE)
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ['PATH']}")  # its `aws s3 sync`
    local = tmp_path / "local" / "visus.idx"
    src.copyDatasetToCloud(local=str(local), remote="s3://data/cloud/visus.idx", done="s3://data/cloud/visus.idx.done",
                           arco="64kb", compression="zip", clean_local=False)
    listing = minio.aws("s3", "ls", "--recursive", "s3://data/cloud/").stdout
    assert "cloud/visus.idx.done" in listing and "cloud/visus/0/DATA/" in listing, listing
    compare_levels(ov, local, "s3://data/cloud/visus.idx", env, dims, {("DATA", 0): source}, tmp_path)


def test_classic_datasets_from_s3_and_a_web_server(ov, minio, env, tmp_path):
    """Classic block files read with Range requests: from the bucket and from nginx."""
    root = tmp_path / "www"
    dims = (70, 45, 33)
    sources = {}
    db = ov.CreateIdx(url=str(root / "multi" / "visus.idx"), dims=list(dims),
                      fields=[ov.Field("a", "float32"), ov.Field("b", "int16")], time=[0, 1, "time%02d/"],
                      bitsperblock=10, blocksperfile=4)
    for t in (0, 1):
        for f, spec in (("a", "float32"), ("b", "int16")):
            sources[(f, t)] = make_array(spec, dims, seed=t * 5 + len(f))
            db.write(sources[(f, t)], field=db.getField(f), time=t)
    db.compressDataset("zip")
    one = make_array("uint8[3]", (50, 30), seed=9)
    ov.CreateIdx(url=str(root / "rgb" / "visus.idx"), dim=2, data=one)
    minio.sync(root, "s3://data/classic")
    nginx = Nginx(root, tmp_path / "nginx")
    try:
        for url in ("s3://data/classic/multi/visus.idx", nginx.url("multi/visus.idx")):
            compare_levels(ov, root / "multi" / "visus.idx", url, env, dims, sources, tmp_path)
        for url in ("s3://data/classic/rgb/visus.idx", nginx.url("rgb/visus.idx")):
            compare_levels(ov, root / "rgb" / "visus.idx", url, env, (50, 30), {("DATA", 0): one}, tmp_path)
    finally:
        nginx.stop()


def test_openvisus_s3_reader_on_the_same_objects(ov, minio, env, tmp_path):
    """OpenVisus's CloudStorageAccess reads the zip ARCO objects as hzio does; on raw ones it
    assumes zip and fails, where hzio decodes what the header names."""
    folder = tmp_path / "ds"
    sources = arco_create_idx(ov, folder, shape=(32, 40, 50))
    source = sources[("temperature", 0)]
    minio.sync(folder, "s3://data/ovread/raw")
    ov.LoadDataset(str(folder / "visus.idx")).compress_dataset()
    minio.sync(folder, "s3://data/ovread/zip")
    # OpenVisus signs `host:` without the port: its requests verify only when the store sees the
    # Host it signed, which the proxy presents.
    proxy = StoreProxy(minio.port, host_header="127.0.0.1")
    try:
        zipped = ov.LoadDataset(minio.openvisus_url("data", "ovread/zip/visus.idx", proxy.endpoint))
        assert np.array_equal(zipped.read(field="temperature"), source)
        raw = ov.LoadDataset(minio.openvisus_url("data", "ovread/raw/visus.idx", proxy.endpoint))
        assert not np.array_equal(raw.read(field="temperature"), source)  # OpenVisus's zip assumption
        assert any(path.endswith(".bin") and status == 200 for _, path, status in proxy.requests())
    finally:
        proxy.stop()
    for prefix in ("raw", "zip"):
        got = hzio_read_array(f"s3://data/ovread/{prefix}/visus.idx", tmp_path / "h.npy", env)
        assert np.array_equal(got, source), prefix


def test_openvisus_client_through_hzio_serve(ov, minio, env, tmp_path, monkeypatch):
    """`hzio serve` as a gateway to a dataset in the bucket: the OpenVisus client reads it over
    mod_visus (box queries at several levels, and block queries with cached=1)."""
    from server_harness import HzioServer  # tests/server, imported here so its env stays its own
    folder = tmp_path / "ds"
    sources = arco_fields_and_times(ov, folder)
    ov.LoadDataset(str(folder / "visus.idx")).compress_dataset()
    minio.sync(folder, "s3://data/gateway")
    local = ov.LoadDataset(str(folder / "visus.idx"))
    for key, value in env.items():  # the server reads the bucket with these credentials
        monkeypatch.setenv(key, value)
    with HzioServer(["lab=s3://data/gateway/visus.idx", "--cache-dir", str(tmp_path / "gw-cache")]) as server:
        for extra in ("", "&cached=1"):
            remote = ov.LoadDataset(server.url("lab", extra))
            for (field, t), source in sources.items():
                assert np.array_equal(remote.read(field=field, time=t), source), (field, t, extra)
            maxh = local.getMaxResolution()
            for h in (maxh - 6, maxh - 3, maxh):
                box = ([3, 5, 2], [60, 40, 30])
                want = local.read(field="pressure", time=1, logic_box=box, max_resolution=h)
                got = remote.read(field="pressure", time=1, logic_box=box, max_resolution=h)
                assert np.array_equal(got, want), (h, extra)
