#!/usr/bin/env bash
# Builds the `hzio` Python package as a wheel, the way `python -m build`/`pip wheel` build it for
# users, and installs that wheel into the test venv; every Python test runs against it (ctest
# fixture hzio_python). The CMake build directory of the wheel is kept under the ctest build
# tree, so a rebuild only recompiles what changed.
#
#   install_package.sh PYTHON SOURCE_DIR BUILD_DIR [COMPILER_LAUNCHER]
#
# No build isolation and no dependency resolution: the venv already has the pinned build
# requirements (scripts/setup-deps.sh), so the test suite never needs the network.
set -euo pipefail
PYTHON="$1" SOURCE="$2" BUILD="$3" LAUNCHER="${4:-}"
DIST="$BUILD/dist"
rm -rf "$DIST"
mkdir -p "$DIST"
export SKBUILD_BUILD_DIR="$BUILD/cmake"
if [[ -n "$LAUNCHER" ]]; then
  export SKBUILD_CMAKE_DEFINE="CMAKE_CXX_COMPILER_LAUNCHER=$LAUNCHER;CMAKE_C_COMPILER_LAUNCHER=$LAUNCHER"
fi
start=$SECONDS
"$PYTHON" -m pip wheel --no-build-isolation --no-deps --disable-pip-version-check -w "$DIST" "$SOURCE/python"
wheels=("$DIST"/hzio-*.whl)
[[ ${#wheels[@]} == 1 && -f "${wheels[0]}" ]] || { echo "install_package.sh: expected one wheel in $DIST" >&2; exit 1; }
"$PYTHON" -m pip install --force-reinstall --no-deps --disable-pip-version-check "${wheels[0]}"
echo "built and installed ${wheels[0]##*/} in $(( SECONDS - start )) s"
