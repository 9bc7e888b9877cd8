#!/usr/bin/env bash
# Installs everything hzio builds and tests with on a fresh Debian 12 machine, then makes the
# Python venv (<repo>/.venv) the interoperability tests use. Idempotent: a second run only checks
# (dpkg-query for the packages, the venv's installed distributions) and returns in about a second.
#
#   bash scripts/setup-deps.sh [--profile full|run]
#
#   full (default)  every package: build, tests, fuzzing (clang), browser tests, bench baselines
#   run             what scripts/run.sh needs: build the tree and serve a demo dataset
#
# Runs as root, or through `sudo -n` when not root. Non-interactive (CI=true, no stdin).
# HZIO_SKIP_APT=1 skips the apt part (a machine where someone else manages packages).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PROFILE=full
while [[ $# -gt 0 ]]; do
  case "$1" in
    --profile) PROFILE="${2:?--profile needs full or run}"; shift 2 ;;
    --profile=*) PROFILE="${1#--profile=}"; shift ;;
    -h|--help) sed -n '2,12p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "setup-deps.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
case "$PROFILE" in full|run) ;; *) echo "setup-deps.sh: unknown profile '$PROFILE' (full|run)" >&2; exit 2 ;; esac

export DEBIAN_FRONTEND=noninteractive

# --- packages of the core build (needed by every profile) ---
# libboost-dev is Debian 12's Boost 1.74; libboost1.81-dev conflicts with it, do not add it.
RUN_PACKAGES=(
  build-essential cmake ninja-build pkg-config git
  python3 python3-venv python3-pip
  zlib1g-dev liblz4-dev libdeflate-dev libboost-dev nlohmann-json3-dev libcurl4-openssl-dev
  libpng-dev libjpeg62-turbo-dev libzfp-dev   # png/jpg/zfp block codecs (idx-format.md §5)
  libgtest-dev googletest
  libopenmpi-dev openmpi-bin
)

# --- packages only the full test suite and the benchmarks need ---
TEST_PACKAGES=(
  clang libclang-rt-14-dev          # libFuzzer targets
  chromium xvfb                     # browser (Playwright) and desktop-viewer tests
  nodejs                            # npm: see below
  libhdf5-openmpi-dev libpnetcdf-dev  # bench baselines: parallel HDF5, PnetCDF
)

# --- packages added by other components ---
# Each component appends its own line here: EXTRA_PACKAGES+=(pkg ...)   # component: why
EXTRA_PACKAGES=()
EXTRA_PACKAGES+=(libvtk9-dev libvtk9-qt-dev qtbase5-dev xvfb xauth)   # viewer: Qt5 + VTK 9.1
EXTRA_PACKAGES+=(libssl-dev openssl curl nginx)   # server: TLS (Beast over OpenSSL), test CAs, two instances behind nginx
EXTRA_PACKAGES+=(gfortran)   # capi: the Fortran module `hzio` and examples (mpi_f08 comes with libopenmpi-dev)
# --- end of packages added by other components ---

# The Python packages of <repo>/.venv (interop tests, demo data).
PIP_REQUIREMENTS=(OpenVisusNoGui==2.2.149 numpy pytest)
PIP_REQUIREMENTS+=(prometheus-client)  # server: /metrics parsed by the real Prometheus text parser
# python/ (the `hzio` package): what builds it without build isolation (the test suite installs
# it into this venv, see tests/python/) and what its tests and example notebook use.
PIP_REQUIREMENTS+=(scikit-build-core==1.1.2 nanobind==3.1.0 build==1.6.1
                   xarray==2026.9.0 matplotlib==3.11.2 nbclient==0.11.0 nbformat==5.11.1
                   ipykernel==7.4.0)

log() { echo "[setup-deps] $*"; }

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo -n -E "$@"
  else echo "setup-deps.sh: need root (or sudo) to run: $*" >&2; return 1
  fi
}

# Prints the packages of "$@" that dpkg does not report as installed.
missing_packages() {
  local status
  status="$(dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null || true)"
  local p
  for p in "$@"; do
    # dpkg-query prints arch-qualified names for multi-arch packages; match the bare name.
    if ! grep -Eq "^${p}(:[a-z0-9]+)? install ok installed$" <<<"$status"; then
      echo "$p"
    fi
  done
}

install_apt_packages() {
  local wanted=("${RUN_PACKAGES[@]}" "${EXTRA_PACKAGES[@]}")
  if [[ "$PROFILE" == full ]]; then
    wanted+=("${TEST_PACKAGES[@]}")
    # Debian's npm conflicts with NodeSource's nodejs, which ships npm itself.
    command -v npm >/dev/null 2>&1 || wanted+=(npm)
  fi
  local missing
  mapfile -t missing < <(missing_packages "${wanted[@]}")
  if [[ ${#missing[@]} -eq 0 ]]; then
    log "apt packages: all ${#wanted[@]} installed"
    return
  fi
  log "apt packages to install: ${missing[*]}"
  as_root apt-get update -q
  as_root apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
}

# Debian 12's python3 is 3.11 (the version OpenVisusNoGui 2.2.149 wheels are built for).
pick_python() {
  local candidate
  for candidate in /usr/bin/python3.11 python3.11 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
      echo "$candidate"; return
    fi
  done
  echo "setup-deps.sh: no Python 3.11 found (install python3 on Debian 12)" >&2
  return 1
}

venv_is_complete() {
  local py="$REPO/.venv/bin/python"
  [[ -x "$py" ]] || return 1
  "$py" - "${PIP_REQUIREMENTS[@]}" <<'EOF' 2>/dev/null
import sys, importlib.metadata as md
for req in sys.argv[1:]:
    name, _, version = req.partition("==")
    try:
        installed = md.version(name)
    except md.PackageNotFoundError:
        sys.exit(1)
    if version and installed != version:
        sys.exit(1)
EOF
}

make_venv() {
  if venv_is_complete; then
    log "venv: $REPO/.venv has ${PIP_REQUIREMENTS[*]}"
    return
  fi
  local python
  python="$(pick_python)"
  if [[ ! -x "$REPO/.venv/bin/python" ]]; then
    log "venv: creating $REPO/.venv with $python"
    "$python" -m venv "$REPO/.venv"
  fi
  log "venv: pip install ${PIP_REQUIREMENTS[*]}"
  PIP_NO_INPUT=1 "$REPO/.venv/bin/python" -m pip install -q --disable-pip-version-check \
    "${PIP_REQUIREMENTS[@]}" </dev/null
  venv_is_complete || { echo "setup-deps.sh: $REPO/.venv is still missing packages" >&2; return 1; }
}

if [[ "${HZIO_SKIP_APT:-0}" == 1 ]]; then
  log "apt packages: skipped (HZIO_SKIP_APT=1)"
else
  install_apt_packages
fi
make_venv

# The browser viewer's test tools (web/package-lock.json pins playwright-core, which drives
# Debian's chromium; it never downloads a browser of its own).
install_web_packages() {
  [[ "$PROFILE" == full && -f "$REPO/web/package-lock.json" ]] || return 0
  if (cd "$REPO/web" && npm ls --depth=0 >/dev/null 2>&1); then
    log "npm: web/node_modules is complete"
    return 0
  fi
  log "npm: installing web/ test packages"
  (cd "$REPO/web" && npm ci --no-audit --no-fund </dev/null) || { echo "setup-deps.sh: npm ci in web/ failed" >&2; return 1; }
}
install_web_packages
log "done (profile $PROFILE)"
