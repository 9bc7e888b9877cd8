"""pytest setup of the remote-dataset tests (run by ctest, see CMakeLists.txt): the interop
helpers of tests/interop and the server harness of tests/server are importable; OpenVisus's
write lock is off and its block cache goes to a private folder."""
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "interop"))
sys.path.insert(0, str(HERE.parent / "server"))
os.environ.setdefault("VISUS_DISABLE_WRITE_LOCK", "1")
os.environ.setdefault("VISUS_CACHE", tempfile.mkdtemp(prefix="hzio_visus_cache_"))
# hzio's disk cache never goes to the user's ~/.cache from a test: each test names its own.
os.environ["HZIO_CACHE_DIR"] = "off"

import pytest  # noqa: E402

from remote_harness import Minio  # noqa: E402


@pytest.fixture(scope="session")
def ov():
    import OpenVisus
    return OpenVisus


@pytest.fixture(scope="module")
def minio(tmp_path_factory):
    """A MinIO server with a bucket `data`, for the tests of one module."""
    server = Minio(tmp_path_factory.mktemp("minio"))
    server.make_bucket("data")
    yield server
    server.stop()
