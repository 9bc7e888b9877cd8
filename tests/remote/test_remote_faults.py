"""Faults of ARCO datasets in a bucket, through the command line (the rest of the fault matrix
runs in tests/reader/remote/remote_faults_test.cpp): a block object that is gone (404) is a
missing block — the field's default value, as OpenVisus reads the same dataset without that
file; a block object cut short is an error naming it; a wrong secret is a 403 naming where the
credentials came from. Every error is one line on stderr and exit status 1."""
from __future__ import annotations

import numpy as np
import pytest

from interop_util import make_array
from remote_harness import hzio_read_array, run_hzio


@pytest.fixture(scope="module")
def arco(ov, minio, tmp_path_factory):
    folder = tmp_path_factory.mktemp("arco") / "ds"
    source = make_array("float32", (70, 45, 33), seed=5)
    db = ov.CreateIdx(url=str(folder / "visus.idx"), dims=[70, 45, 33], fields=[ov.Field("v", "float32")],
                      arco="16kb")
    db.write(source)
    db.compress_dataset()
    minio.sync(folder, "s3://data/faults")
    return folder, source


def block_objects(folder):
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.bin"))


def test_a_missing_block_object_reads_as_the_default_value(ov, minio, arco, tmp_path):
    folder, source = arco
    victim = block_objects(folder)[3]
    minio.aws("s3", "rm", f"s3://data/faults/{victim}")
    got = hzio_read_array("s3://data/faults/visus.idx", tmp_path / "a.npy", dict(minio.env(), HZIO_CACHE_DIR="off"))
    (folder / victim).unlink()  # OpenVisus on the same dataset without that file
    want = ov.LoadDataset(str(folder / "visus.idx")).read(field="v")
    assert np.array_equal(got, want)
    assert not np.array_equal(got, source) and np.count_nonzero(got != source) > 0
    assert np.all(got[got != source] == 0)


def test_a_block_object_cut_short_is_an_error_naming_it(minio, arco, tmp_path):
    folder, _ = arco
    victim = block_objects(folder)[5]
    payload = (folder / victim).read_bytes()
    short = tmp_path / "short.bin"
    short.write_bytes(payload[: len(payload) // 2])
    minio.aws("s3", "cp", str(short), f"s3://data/faults/{victim}")
    done = run_hzio(["read", "s3://data/faults/visus.idx", "-o", tmp_path / "x.npy"],
                    dict(minio.env(), HZIO_CACHE_DIR="off"))
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("hzio: "), done.stderr
    assert f"/data/faults/{victim}" in done.stderr and "zip" in done.stderr, done.stderr
    assert not (tmp_path / "x.npy").exists()


def test_wrong_secret_is_access_denied(minio, arco, tmp_path):
    env = dict(minio.env(), AWS_SECRET_ACCESS_KEY="wrong-secret", HZIO_CACHE_DIR="off")
    done = run_hzio(["info", "s3://data/faults/visus.idx"], env)
    assert done.returncode == 1
    assert "HTTP 403" in done.stderr and "SignatureDoesNotMatch" in done.stderr, done.stderr
    assert "taken from the environment" in done.stderr and "wrong-secret" not in done.stderr, done.stderr
    # No credentials at all against a private bucket: said so.
    anonymous = {"AWS_ENDPOINT_URL": minio.endpoint, "HZIO_CACHE_DIR": "off", "AWS_ACCESS_KEY_ID": "",
                 "AWS_SECRET_ACCESS_KEY": "", "HOME": str(tmp_path)}
    done = run_hzio(["info", "s3://data/faults/visus.idx"], anonymous)
    assert done.returncode == 1 and "anonymous request" in done.stderr, done.stderr


def test_a_public_bucket_reads_anonymously(ov, minio, arco, tmp_path):
    """No credentials anywhere: unsigned requests, which a bucket readable by anyone answers."""
    folder, _ = arco
    source = ov.LoadDataset(str(folder / "visus.idx")).read(field="v")  # the folder as the tests left it
    minio.make_bucket("public")
    minio.sync(folder, "s3://public/ds")
    policy = ('{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"AWS":["*"]},'
              '"Action":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::public","arn:aws:s3:::public/*"]}]}')
    minio.aws("s3api", "put-bucket-policy", "--bucket", "public", "--policy", policy)
    anonymous = {"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "HOME": str(tmp_path), "HZIO_CACHE_DIR": "off"}
    for url in ("s3://public/ds/visus.idx", f"{minio.endpoint}/public/ds/visus.idx"):
        env = dict(anonymous, AWS_ENDPOINT_URL=minio.endpoint)
        got = hzio_read_array(url, tmp_path / "p.npy", env)
        assert np.array_equal(got, source), url
