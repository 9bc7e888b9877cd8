#!/usr/bin/env bash
# A dataset larger than this machine's memory (issue 18): N^3 float32 (N=2048: 32 GiB, 24 GiB of
# RAM here) written by serial `hzio convert` from a generator through a pipe (no raw copy on disk),
# then read back with `hzio read` in full to a raw stream that is compared sample by sample with
# the generator's formula, and at 1/8 of the samples (level maxh-3) to a .npy stream whose header
# and data are checked too (streams: the disk holds the dataset only). Every step runs under /usr/bin/time -v; prints a markdown table of wall time and
# peak RSS per process, then deletes the dataset.
#
#   [REUSE=1] bash bench/core/run_large.sh build/reader/tools/hzio build/bench/core/hzio-bench-core WORKDIR [N]
#
# Needs N^3*4 bytes free in WORKDIR; the page cache is dropped
# (root) before each read so that they are cold.
set -euo pipefail
HZIO="$(realpath "$1")" BENCH="$(realpath "$2")" WORK="$3" N="${4:-2048}"
mkdir -p "$WORK"
cd "$WORK"
# REUSE=1 keeps a dataset (and conv.time/gen.time) that an earlier run of this script wrote.
[[ "${REUSE:-0}" == 1 && -f big.idx ]] || rm -rf big big.idx big.idx.lock
ROWS=()
measure() {  # measure NAME TIMEFILE...: one table row per /usr/bin/time -v output
  local name="$1"
  shift
  local cells=""
  for f in "$@"; do
    local wall rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/{print $2}' "$f")
    rss=$(awk -F': ' '/Maximum resident set size/{printf "%.0f", $2 / 1024}' "$f")
    cells+=" $wall | $rss MiB |"
  done
  ROWS+=("| $name |$cells")
}
drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }

BYTES=$((N * N * N * 4))
if [[ ! -f big.idx ]]; then
  /usr/bin/time -v -o gen.time "$BENCH" generate "$N,$N,$N" |
    /usr/bin/time -v -o conv.time "$HZIO" convert - big.idx --dims "$N,$N,$N" --dtype float32 --compression raw
fi
measure "\`generate \\| hzio convert - big.idx\` (raw)" conv.time gen.time
DISK=$(du -sb big | cut -f1)

drop
/usr/bin/time -v -o read.time "$HZIO" read big.idx -o - |
  /usr/bin/time -v -o check.time "$BENCH" check "$N,$N,$N"
measure "\`hzio read big.idx -o - \\| check\` (full, cold)" read.time check.time

MAXH=$("$HZIO" info big.idx | grep -o 'maxh [0-9]*' | head -1 | cut -d' ' -f2)
LEVEL=$((MAXH - 3))
STRIDES=$("$HZIO" info big.idx | awk -v l="$LEVEL" '$1 == l && NF >= 4 {s = $NF} END {gsub(/[()]/, "", s); print s}')
drop
/usr/bin/time -v -o npy.time "$HZIO" read big.idx --level "$LEVEL" --npy -o - |
  /usr/bin/time -v -o npycheck.time "$BENCH" check "$N,$N,$N" --strides "$STRIDES" --npy
measure "\`hzio read big.idx --level $LEVEL --npy -o - \\| check --npy\` (1/8, cold)" npy.time npycheck.time

echo
echo "${N}^3 float32: $((BYTES >> 30)) GiB of samples, dataset $((DISK >> 20)) MiB on disk; level $LEVEL strides $STRIDES"
echo
echo "| step | wall (hzio) | peak RSS (hzio) | wall (generator / checker) | peak RSS (generator / checker) |"
echo "|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
rm -rf big big.idx big.idx.lock
