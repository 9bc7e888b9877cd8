"""`hzio copy SRC s3://...`: datasets uploaded into a real S3 server (MinIO) as ARCO objects
(issue 16, "Write and upload"). An upload is read back by hzio equal to the source at every level
and by OpenVisus's own S3 reader (CloudStorageAccess) equal to the source; an upload that fails
(a store answering 500 for good) or is killed leaves a dataset that hzio refuses as incomplete,
and running it again completes it; a wrong secret is a 403 before anything is written; a complete
dataset is never overwritten; classic block files and `hzio convert/create` to a bucket are
refused with a message saying what to do instead.
"""
from __future__ import annotations

import os
import signal
import subprocess
import time

import numpy as np
import pytest

from interop_util import make_array, read_idx_geometry
from remote_harness import VENV_BIN, StoreProxy, check_hzio, hzio_binary, hzio_read_array, run_hzio
from test_openvisus_datasets import arco_fields_and_times, compare_levels

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

INCOMPLETE = "an upload into this dataset has not finished"


@pytest.fixture(scope="module")
def env(minio):
    return dict(minio.env(), HZIO_CACHE_DIR="off")


@pytest.fixture(scope="module")
def classic(ov, tmp_path_factory):
    """A classic OpenVisus dataset (CreateIdx with data: zip block files)."""
    folder = tmp_path_factory.mktemp("classic")
    source = make_array("float32", (64, 40, 24), seed=3)
    ov.CreateIdx(url=str(folder / "visus.idx"), dim=3, data=source)
    return folder / "visus.idx", source


def listing(minio, prefix: str) -> list[str]:
    """The keys under `prefix` (`aws s3 ls` exits 1 when there are none: not an error here)."""
    done = subprocess.run([str(VENV_BIN / "aws"), "--endpoint-url", minio.endpoint, "s3", "ls", "--recursive",
                           f"s3://data/{prefix}"], capture_output=True, text=True,
                          env=dict(os.environ, **minio.env()), timeout=120)
    assert done.returncode in (0, 1) and not done.stderr.strip(), done.stderr
    return [line.split()[-1] for line in done.stdout.splitlines() if line.strip()]


def marker(minio, key: str) -> str:
    return minio.aws("s3", "cp", f"s3://data/{key}.hzio-upload", "-").stdout


def test_classic_upload_read_by_hzio_and_openvisus(ov, minio, env, classic, tmp_path):
    """A classic source re-laid out as zip ARCO on the way; OpenVisus's S3 reader (which assumes
    zip for ARCO blocks) reads the objects hzio wrote."""
    idx, source = classic
    done = check_hzio(["copy", idx, "s3://data/up/classic/visus.idx", "--compression", "zip", "--arco", "64kb"], env)
    assert "uploaded" in done.stdout and "s3://data/up/classic/visus.idx" in done.stdout, done.stdout
    keys = listing(minio, "up/classic/")
    assert "up/classic/visus.idx" in keys and "up/classic/visus.idx.hzio-upload" in keys, keys
    blocks = [k for k in keys if k.startswith("up/classic/visus/0/DATA/") and k.endswith(".bin")]
    assert len(blocks) >= 4, keys
    text = marker(minio, "up/classic/visus.idx")
    assert "state complete" in text and f"objects {len(blocks) + 1}" in text, text
    assert "(arco)" in minio.aws("s3", "cp", "s3://data/up/classic/visus.idx", "-").stdout
    dims = read_idx_geometry(idx).box_p2
    compare_levels(ov, idx, "s3://data/up/classic/visus.idx", env, dims, {("DATA", 0): source}, tmp_path)
    # OpenVisus signs `host:` without the port: the proxy presents the Host it signed.
    proxy = StoreProxy(minio.port, host_header="127.0.0.1")
    try:
        remote = ov.LoadDataset(minio.openvisus_url("data", "up/classic/visus.idx", proxy.endpoint))
        assert np.array_equal(remote.read(field="DATA"), source)
        local = ov.LoadDataset(str(idx))
        for h in (0, 5, 10, remote.getMaxResolution() - 1):
            assert np.array_equal(remote.read(field="DATA", max_resolution=h), local.read(field="DATA", max_resolution=h)), h
        fetched = {path for _, path, status in proxy.requests() if path.endswith(".bin") and status == 200}
        assert fetched == {f"/data/{k}" for k in blocks}, fetched
    finally:
        proxy.stop()


def test_upload_with_credentials_in_openvisus_url_form(ov, minio, tmp_path):
    """Two fields (one uint8[3]), two timesteps, an ARCO source (its block size kept), credentials
    and endpoint in the URL only (no AWS_* in the environment)."""
    folder = tmp_path / "src"
    sources = arco_fields_and_times(ov, folder)
    url = minio.openvisus_url("data", "up/ovform/visus.idx")
    bare = {"HZIO_CACHE_DIR": "off", "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_ENDPOINT_URL": "",
            "HOME": str(tmp_path)}
    done = check_hzio(["copy", folder / "visus.idx", url], bare)
    assert "OpenVisus's S3 reader misreads" in done.stderr, done.stderr  # raw blocks: a note says so
    assert minio.SECRET_KEY not in done.stdout + done.stderr, done.stdout + done.stderr
    header = minio.aws("s3", "cp", "s3://data/up/ovform/visus.idx", "-").stdout
    assert "(arco)\n16384" in header, header  # the source's 16kb blocks
    dims = read_idx_geometry(folder / "visus.idx").box_p2
    compare_levels(ov, folder / "visus.idx", url, bare, dims, sources, tmp_path)
    # Copied back down from the same URL: the summary names the source without its credentials.
    down = check_hzio(["copy", url, tmp_path / "down" / "visus.idx"], bare)
    assert minio.SECRET_KEY not in down.stdout + down.stderr, down.stdout + down.stderr
    assert "copied " in down.stdout, down.stdout


def test_a_failing_store_leaves_an_incomplete_dataset_that_a_rerun_completes(minio, env, classic, tmp_path):
    idx, source = classic
    url = "s3://data/up/failing/visus.idx"
    # The marker and 3 blocks go through, then every PUT gets 500 (after hzio's retries, an error).
    proxy = StoreProxy(minio.port, fail_puts_after=4)
    try:
        started = time.monotonic()
        done = run_hzio(["copy", idx, url, "--arco", "16kb"],
                        dict(env, AWS_ENDPOINT_URL=proxy.endpoint, HZIO_HTTP_ATTEMPTS="3"))
        assert done.returncode == 1, done.stdout + done.stderr
        assert "HTTP 500" in done.stderr and "InternalError" in done.stderr, done.stderr
        assert "/data/up/failing/visus" in done.stderr, done.stderr
        assert time.monotonic() - started < 60
        puts = [r for r in proxy.requests() if r[0] == "PUT"]
        assert any(status == 500 for _, _, status in puts) and not any(p.endswith("/visus.idx") for _, p, _ in puts)
    finally:
        proxy.stop()
    assert "state uploading" in marker(minio, "up/failing/visus.idx")
    refused = run_hzio(["read", url, "-o", tmp_path / "x.npy"], env)
    assert refused.returncode == 1 and INCOMPLETE in refused.stderr, refused.stderr
    again = check_hzio(["copy", idx, url, "--arco", "16kb"], env)
    assert "over an interrupted upload" in again.stdout, again.stdout
    assert "did not finish" in again.stderr, again.stderr
    assert np.array_equal(hzio_read_array(url, tmp_path / "y.npy", env), source)


def test_a_killed_upload_is_refused_until_run_again(minio, env, classic, tmp_path):
    idx, source = classic
    url = "s3://data/up/killed/visus.idx"
    proxy = StoreProxy(minio.port, delay_ms=150)  # slow enough to kill it in the middle
    try:
        proc = subprocess.Popen([hzio_binary(), "copy", str(idx), url, "--arco", "16kb"],
                                env=dict(os.environ, **dict(env, AWS_ENDPOINT_URL=proxy.endpoint)),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while not any(p.endswith(".bin") for m, p, _ in proxy.requests() if m == "PUT"):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    finally:
        proxy.stop()
    assert "state uploading" in marker(minio, "up/killed/visus.idx")
    refused = run_hzio(["info", url], env)
    assert refused.returncode == 1 and INCOMPLETE in refused.stderr, refused.stderr
    check_hzio(["copy", idx, url, "--arco", "16kb"], env)
    assert "state complete" in marker(minio, "up/killed/visus.idx")
    assert np.array_equal(hzio_read_array(url, tmp_path / "y.npy", env), source)


def test_wrong_secret_is_a_403_before_anything_is_written(minio, env, classic):
    idx, _ = classic
    done = run_hzio(["copy", idx, "s3://data/up/denied/visus.idx"], dict(env, AWS_SECRET_ACCESS_KEY="wrong-secret"))
    assert done.returncode == 1
    assert "HTTP 403" in done.stderr and "access denied" in done.stderr and "SignatureDoesNotMatch" in done.stderr, \
        done.stderr
    assert "wrong-secret" not in done.stderr
    assert listing(minio, "up/denied/") == []


def test_refusals(minio, env, classic, tmp_path):
    idx, _ = classic
    check_hzio(["copy", idx, "s3://data/up/once/visus.idx"], env)
    again = run_hzio(["copy", idx, "s3://data/up/once/visus.idx"], env)
    assert again.returncode == 1 and "a dataset is there already" in again.stderr, again.stderr
    # A dataset another tool put there (no marker) is not overwritten either.
    minio.aws("s3", "cp", str(idx), "s3://data/up/foreign/visus.idx")
    foreign = run_hzio(["copy", idx, "s3://data/up/foreign/visus.idx"], env)
    assert foreign.returncode == 1 and "written by another tool" in foreign.stderr, foreign.stderr
    no_bucket = run_hzio(["copy", idx, "s3://nosuchbucket/x/visus.idx"], env)
    assert no_bucket.returncode == 1 and "the bucket 'nosuchbucket' does not exist" in no_bucket.stderr, \
        no_bucket.stderr
    classic_dst = run_hzio(["copy", idx, "s3://data/up/classic-dst/visus.idx", "--blocksperfile", "4"], env)
    assert classic_dst.returncode == 1 and "ARCO datasets only" in classic_dst.stderr, classic_dst.stderr
    assert listing(minio, "up/classic-dst/") == []
    raw = tmp_path / "a.raw"
    raw.write_bytes(np.zeros((4, 4), np.float32).tobytes())
    convert = run_hzio(["convert", raw, "s3://data/up/conv/visus.idx", "--dims", "4,4", "--dtype", "float32"], env)
    assert convert.returncode == 1 and "hzio convert writes local datasets" in convert.stderr \
        and "hzio copy" in convert.stderr, convert.stderr
    create = run_hzio(["create", "s3://data/up/create/visus.idx", "--dims", "4,4", "--field", "a:float32"], env)
    assert create.returncode == 1 and "hzio create writes local datasets" in create.stderr, create.stderr
