"""pytest setup for the OpenVisus interoperability tests (run by ctest, see CMakeLists.txt).

Environment: HZIO_BIN = the hzio executable; HZIO_GOLDEN_DIR = shared/testdata/idx-golden.
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


@pytest.fixture(scope="session")
def golden_dir() -> Path:
    path = Path(os.environ.get("HZIO_GOLDEN_DIR", ""))
    if not (path / "README.md").is_file():
        raise RuntimeError(f"HZIO_GOLDEN_DIR must name shared/testdata/idx-golden (got '{path}')")
    return path
