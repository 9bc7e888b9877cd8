"""The wheel python.install built (as `pip wheel`/`python -m build` build it) carries what the
package needs: the extension with hzio::core linked in statically, stubs, py.typed, the xarray
entry point; only system libraries (README) are left to the machine; nothing of hzio's C++
install (headers, libraries, tools) comes along."""
from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

import pytest

import hzio

# What the extension may load from the system (python/README.md lists the Debian packages).
SYSTEM_LIBRARIES = {"libdeflate.so.0", "liblz4.so.1", "libcurl.so.4", "libcrypto.so.3", "libpng16.so.16", "libjpeg.so.62", "libzfp.so.1",
                    "libstdc++.so.6", "libm.so.6",
                    "libgcc_s.so.1", "libc.so.6", "ld-linux-x86-64.so.2"}


@pytest.fixture(scope="module")
def wheel() -> Path:
    wheels = sorted(Path(os.environ["HZIO_PYTHON_WHEEL_DIR"]).glob("hzio-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_contents(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    package = {n for n in names if n.startswith("hzio/")}
    for wanted in ("hzio/__init__.py", "hzio/_dataset.py", "hzio/xarray_backend.py", "hzio/py.typed",
                   "hzio/_hzio.pyi"):
        assert wanted in package, (wanted, sorted(package))
    assert [n for n in package if n.startswith("hzio/_hzio.") and n.endswith(".so")], sorted(package)
    stray = [n for n in names if n.endswith((".a", ".h", ".cmake")) or "/bin/" in n or n.startswith(("include", "lib"))]
    assert not stray, stray
    meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
    metadata = zipfile.ZipFile(wheel).read(meta).decode()
    assert "Requires-Python: >=3.10" in metadata and "Requires-Dist: numpy" in metadata
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    points = zipfile.ZipFile(wheel).read(entry).decode()
    assert "[xarray.backends]" in points and "hzio = hzio.xarray_backend:HzioBackendEntrypoint" in points


def test_extension_needs_only_system_libraries():
    extension = next(Path(hzio.__file__).parent.glob("_hzio.*.so"))
    dynamic = subprocess.run(["readelf", "-d", str(extension)], check=True, capture_output=True, text=True).stdout
    needed = {line.split("[")[1].split("]")[0] for line in dynamic.splitlines() if "(NEEDED)" in line}
    assert needed <= SYSTEM_LIBRARIES, needed - SYSTEM_LIBRARIES
    assert not any("hzio" in n for n in needed)
    symbols = subprocess.run(["nm", "-D", "--defined-only", str(extension)], check=True, capture_output=True,
                             text=True).stdout
    assert "PyInit__hzio" in symbols
    assert "_ZN4hzio" not in symbols, "hzio::core's symbols leak out of the extension"


def test_installed_package_is_the_wheel(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    installed = Path(hzio.__file__).parent
    for name in names:
        if name.startswith("hzio/") and not name.endswith("/"):
            assert (installed.parent / name).read_bytes() == zipfile.ZipFile(wheel).read(name), name


def test_stubs_describe_the_extension():
    stub = (Path(hzio.__file__).parent / "_hzio.pyi").read_text()
    for name in ("def open(", "class Dataset", "def read_into(", "class Writer", "def create_dataset("):
        assert name in stub, name
