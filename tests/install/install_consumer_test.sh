#!/usr/bin/env bash
# Installs the configured hzio build into a temporary prefix, builds tests/install/consumer against
# it with find_package(hzio), and checks that the consumer reads a golden dataset.
set -euo pipefail
build_dir=$1 source_dir=$2 golden=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source_dir/tests/install/consumer" -B "$work/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
out=$("$work/build/consumer" "$golden/tiny/hz.idx")
echo "consumer printed: $out"
[ "$out" = "(4,4) 0" ]
# A build with MPI installs hzio::mpi: the consumer must find it, and its writer must work.
if [ -f "$work/prefix/lib/cmake/hzio/hzioMpiTargets.cmake" ] || ls "$work"/prefix/lib*/cmake/hzio/hzioMpiTargets.cmake >/dev/null 2>&1; then
  [ -x "$work/build/mpi_consumer" ] || { echo "hzio::mpi is installed but the consumer did not get it"; exit 1; }
  out=$(mpiexec -n 1 "$work/build/mpi_consumer" "$work/mpi_out/visus.idx")
  echo "mpi consumer printed: $out"
  [ "$out" = "(8,8,8) 49" ]
fi
