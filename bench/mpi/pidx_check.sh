#!/usr/bin/env bash
# PIDX 0.9.3 reads what `hzio-mpi write --pidx-compatible` writes (issue 18): every case below is
# written at 1, 2, 4 and 8 ranks and each result read back through PIDX's API at 1, 2, 4 and 8
# ranks by hzio_pidx_read_check (built with -DPIDX_DIR, README.md), which compares every sample
# with the formula. Prints one line per read; exits non-zero when any read differs or fails.
#
#   bench/mpi/pidx_check.sh BUILD_DIR [SCRATCH_DIR]
set -euo pipefail
build=${1:?usage: pidx_check.sh BUILD_DIR [SCRATCH_DIR]}
scratch=${2:-$(mktemp -d "${TMPDIR:-/tmp}/hzio-pidx-check.XXXXXX")}
hzio_mpi=$build/reader/tools/hzio-mpi
check=$build/bench/mpi/hzio_pidx_read_check
[[ -x $hzio_mpi ]] || { echo "no $hzio_mpi (build the hzio-mpi target)" >&2; exit 2; }
[[ -x $check ]] || { echo "no $check (configure with -DPIDX_DIR=<PIDX install>, build hzio_pidx_read_check)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_osc=^ucx
mpirun() { mpiexec --oversubscribe -n "$@"; }

# name | hzio-mpi write options
cases=(
  "s3d|--dims 64,64,64 --fields pressure:float64,temperature:float64,velocity:float64[3] --timesteps 2"
  "irregular|--dims 30,20,17 --fields p:float64,v:float64[3],t:float32,f:int32 --timesteps 2 --bitsperblock 8 --blocksperfile 4 --blocks-per-rank 2"
  "dtypes|--dims 48,40,24 --fields c:uint8,n:uint16[4],i:int64,w:float32[3] --bitsperblock 10 --blocksperfile 8"
)
failures=0
for c in "${cases[@]}"; do
  name=${c%%|*}
  opts=${c#*|}
  for w in 1 2 4 8; do
    idx=$scratch/$name-w$w/$name.idx
    # shellcheck disable=SC2086
    mpirun "$w" "$hzio_mpi" write "$idx" $opts --pidx-compatible > /dev/null
    for r in 1 2 4 8; do
      # PIDX prints its own timing lines ("[<file> ...]"); keep the checker's verdict.
      if out=$(mpirun "$r" "$check" "$idx" 2>&1); then
        grep '^PIDX 0.9.3 read' <<< "$out" | sed "s|^|written at $w ranks: |"
      else
        failures=$((failures + 1))
        echo "written at $w ranks, read at $r: FAILED"
        grep -v '^\[' <<< "$out" | head -5
      fi
    done
  done
done
[[ -z ${2:-} ]] && rm -rf "$scratch"
echo "pidx_check: $failures failed reads"
exit $((failures > 0))
