"""pytest setup for the OpenVisus interoperability tests (run by ctest, see CMakeLists.txt).

Environment: HZIO_BIN = the hzio executable; HZIO_GOLDEN_DIR = shared/testdata/idx-golden;
HZIO_PIDX_GOLDEN_DIR = shared/testdata/pidx-golden.
"""
import os
import sys
from pathlib import Path

# OpenVisus's write lock (a `.lock` side file per block file) only slows the tests down.
os.environ.setdefault("VISUS_DISABLE_WRITE_LOCK", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def ov():
    """The OpenVisus Python module (OpenVisusNoGui 2.2.149 from the project's venv)."""
    import OpenVisus
    return OpenVisus


def testdata_dir(variable: str, name: str) -> Path:
    path = Path(os.environ.get(variable, ""))
    if not (path / "README.md").is_file():
        raise RuntimeError(f"{variable} must name shared/testdata/{name} (got '{path}')")
    return path


@pytest.fixture(scope="session")
def golden_dir() -> Path:
    return testdata_dir("HZIO_GOLDEN_DIR", "idx-golden")


@pytest.fixture(scope="session")
def pidx_dir() -> Path:
    """Datasets PIDX 0.9.3 wrote, with the formula of every value in its README."""
    return testdata_dir("HZIO_PIDX_GOLDEN_DIR", "pidx-golden")
