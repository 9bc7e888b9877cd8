#!/usr/bin/env bash
# THE test command (README, .ci/run): installs what it needs, builds everything, runs the fuzz
# targets for a bounded time (when clang and fuzz/ exist) and then the whole ctest suite.
# Exits non-zero when anything fails.
#
#   bash scripts/test.sh [extra ctest arguments, e.g. -R interop]
#
# Environment knobs (all optional):
#   HZIO_BUILD_DIR     build directory (default <repo>/build)
#   HZIO_JOBS          build parallelism (default 2: the machines have 2 cores)
#   HZIO_WERROR        ON to build with -Werror (default OFF)
#   HZIO_FUZZ_SECONDS  seconds per fuzz target (default 30; 0 skips fuzzing)
#   HZIO_TEST_TIMEOUT  default per-test ctest timeout in seconds (default 900)
set -uo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${HZIO_BUILD_DIR:-$REPO/build}"
FUZZ_BUILD="${BUILD}-fuzz"
JOBS="${HZIO_JOBS:-2}"
FUZZ_SECONDS="${HZIO_FUZZ_SECONDS:-30}"
START=$SECONDS

step() { echo; echo "=== [test.sh $(( SECONDS - START ))s] $*"; }
die() { echo "test.sh: $*" >&2; exit 1; }

# Open MPI refuses to run as root without these; its UCX one-sided component is broken in
# containers (osc=^ucx), see README.
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_osc="${OMPI_MCA_osc:-^ucx}"

# Remote datasets read by the tests keep their blocks here, not in the user's ~/.cache/hzio.
export HZIO_CACHE_DIR="${HZIO_CACHE_DIR:-$BUILD/test-cache}"

step "dependencies"
bash "$REPO/scripts/setup-deps.sh" </dev/null || die "scripts/setup-deps.sh failed"

# The desktop viewer is built and tested whenever setup-deps installed Qt5 + VTK.
VIEWER=OFF
dpkg -s libvtk9-qt-dev qtbase5-dev >/dev/null 2>&1 && VIEWER=ON

step "configure $BUILD (viewer $VIEWER)"
cmake -S "$REPO" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DHZIO_WERROR="${HZIO_WERROR:-OFF}" -DHZIO_BUILD_VIEWER="$VIEWER" || die "cmake configure failed"

# A broken target fails the run, but everything else is still built and tested (-k 0) so that
# the log shows all problems at once.
step "build (-j$JOBS)"
BUILD_STATUS=0
BUILD_LOG="$BUILD/test-sh-build.log"
mkdir -p "$BUILD"
cmake --build "$BUILD" --parallel "$JOBS" -- -k 0 2>&1 | tee "$BUILD_LOG"
[[ ${PIPESTATUS[0]} == 0 ]] || BUILD_STATUS=1
[[ $BUILD_STATUS == 0 ]] || echo "test.sh: BUILD FAILED (see above); running the tests that built"

FUZZ_STATUS=0
FUZZ_FAILURES=()
# libFuzzer targets need clang; they get their own build directory (the main one uses the
# default compiler) where the library too is built with coverage instrumentation and ASan/UBSan.
# Each target runs for FUZZ_SECONDS on a scratch corpus seeded from fuzz/corpus/<target>/ (or
# <target without _fuzzer>/) when that exists; crashes land in $FUZZ_BUILD/artifacts/.
run_fuzzers() {
  if [[ ! -f "$REPO/fuzz/CMakeLists.txt" ]]; then
    echo "no fuzz/CMakeLists.txt: nothing to fuzz"; return 0
  fi
  if ! command -v clang >/dev/null || ! command -v clang++ >/dev/null; then
    echo "clang not found: fuzz targets skipped"; return 0
  fi
  if [[ "$FUZZ_SECONDS" == 0 ]]; then
    echo "HZIO_FUZZ_SECONDS=0: fuzz targets skipped"; return 0
  fi
  CC=clang CXX=clang++ cmake -S "$REPO" -B "$FUZZ_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" \
      -DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" \
      -DHZIO_BUILD_FUZZ=ON -DHZIO_BUILD_TESTS=OFF -DHZIO_BUILD_BENCH=OFF -DHZIO_BUILD_MPI=OFF \
      -DHZIO_BUILD_SERVER=OFF -DHZIO_BUILD_REMOTE=OFF -DHZIO_BUILD_WEB=OFF \
      || { echo "fuzz configure failed"; return 1; }
  # Only the targets under fuzz/ (Ninja's per-folder `all`), not the rest of the tree again.
  cmake --build "$FUZZ_BUILD" --parallel "$JOBS" --target fuzz/all \
      || { echo "fuzz build failed"; return 1; }
  local targets=() status=0 target name scratch seeds dir
  mapfile -t targets < <(find "$FUZZ_BUILD/fuzz" -maxdepth 1 -type f -executable | sort)
  [[ ${#targets[@]} -gt 0 ]] || { echo "fuzz/ built no executable"; return 1; }
  mkdir -p "$FUZZ_BUILD/artifacts"
  for target in "${targets[@]}"; do
    name="$(basename "$target")"
    scratch="$FUZZ_BUILD/corpus/$name"
    mkdir -p "$scratch"
    seeds=()
    for dir in "$REPO/fuzz/corpus/$name" "$REPO/fuzz/corpus/${name%_fuzzer}"; do
      [[ -d "$dir" ]] && { seeds=("$dir"); break; }
    done
    echo "--- $name (${FUZZ_SECONDS}s)"
    if "$target" "$scratch" "${seeds[@]}" -max_total_time="$FUZZ_SECONDS" -timeout=10 \
         -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$FUZZ_BUILD/artifacts/$name-" \
         </dev/null > "$FUZZ_BUILD/$name.log" 2>&1; then
      echo "$name: ok ($(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$FUZZ_BUILD/$name.log" | grep -Eo '[0-9]+$' || echo '?') runs)"
    else
      echo "$name: FAILED, last lines of $FUZZ_BUILD/$name.log:"; tail -n 40 "$FUZZ_BUILD/$name.log"
      FUZZ_FAILURES+=("$name")
      status=1
    fi
  done
  return $status
}
step "fuzz targets"
run_fuzzers || FUZZ_STATUS=1
echo "fuzz: $([[ $FUZZ_STATUS == 0 ]] && echo ok || echo FAILED)"

# ctest runs last so that its summary closes the output.
step "ctest"
ctest --test-dir "$BUILD" --output-on-failure --timeout "${HZIO_TEST_TIMEOUT:-900}" "$@"
CTEST_STATUS=$?

# What failed before ctest, repeated after its summary: a CI log is often read from its end.
step "summary"
if [[ $BUILD_STATUS != 0 ]]; then
  echo "build: FAILED; the failing steps:"
  grep -E -A12 '^FAILED: ' "$BUILD_LOG" | head -n 120
else
  echo "build: ok"
fi
if [[ $FUZZ_STATUS != 0 ]]; then
  echo "fuzz: FAILED (${FUZZ_FAILURES[*]:-the fuzz build})"
  for name in "${FUZZ_FAILURES[@]}"; do
    echo "--- $name: last lines of $FUZZ_BUILD/$name.log"
    grep -v -E '^(#[0-9]+\s+(NEW|REDUCE|pulse|INITED)|\s+NEW_FUNC)' "$FUZZ_BUILD/$name.log" | tail -n 30
    # The input that failed, so that it can be replayed elsewhere (`base64 -d > crash; TARGET crash`).
    for artifact in "$FUZZ_BUILD/artifacts/$name-"*; do
      [[ -f "$artifact" ]] || continue
      echo "input $(basename "$artifact") ($(stat -c %s "$artifact") bytes), base64:"
      head -c 4096 "$artifact" | base64 -w 120
    done
  done
else
  echo "fuzz: ok"
fi
echo "ctest: $([[ $CTEST_STATUS == 0 ]] && echo ok || echo FAILED)"
[[ $BUILD_STATUS == 0 && $FUZZ_STATUS == 0 && $CTEST_STATUS == 0 ]]
