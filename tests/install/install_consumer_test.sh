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

# The C API (hzio::c) and the Fortran module (hzio::fortran) through find_package, then the same
# programs built by plain compiler commands from the installed pkg-config files (relocatable:
# they find the prefix from their own location).
libdir=$(dirname "$(ls "$work"/prefix/lib*/libhzio_c.so "$work"/prefix/lib/*/libhzio_c.so 2>/dev/null | head -1)")
if [ "$libdir" = "." ]; then echo "no libhzio_c.so installed"; exit 1; fi
consumer_src="$source_dir/tests/install/consumer"
expect() {  # expect NAME WANT COMMAND...: runs COMMAND, compares its output with WANT
  local name=$1 want=$2; shift 2
  local got
  got=$("$@") || { echo "$name failed"; exit 1; }
  echo "$name printed: $got"
  [ "$got" = "$want" ] || { echo "$name: expected '$want'"; exit 1; }
}
has_mpi=0; [ -f "$work/prefix/include/hzio_mpi.h" ] && has_mpi=1
has_fortran=0; [ -f "$libdir/libhzio_fortran.so" ] && has_fortran=1
[ -x "$work/build/c_serial_consumer" ] || { echo "hzio::c is installed but the consumer did not get it"; exit 1; }
expect "c serial consumer (find_package)" "4x4 0" "$work/build/c_serial_consumer" "$golden/tiny/hz.idx"
if [ $has_mpi = 1 ]; then
  expect "c mpi consumer (find_package)" "8x8x8 49" mpiexec -n 2 "$work/build/c_mpi_consumer" "$work/c_out/visus.idx"
fi
if [ $has_fortran = 1 ]; then
  [ -x "$work/build/fortran_consumer" ] || { echo "hzio::fortran is installed but the consumer did not get it"; exit 1; }
  expect "fortran consumer (find_package)" "8x8x8 49" mpiexec -n 2 "$work/build/fortran_consumer" "$work/f_out/visus.idx"
fi

export PKG_CONFIG_PATH="$libdir/pkgconfig"
mkdir -p "$work/pc" && cd "$work/pc"
# shellcheck disable=SC2046  # pkg-config's flags are meant to be split
${CC:-cc} -std=c99 -Wall -Werror "$consumer_src/c_serial_main.c" $(pkg-config --cflags --libs hzio) \
  -Wl,-rpath,"$libdir" -o c_serial
expect "c serial consumer (pkg-config hzio)" "4x4 0" ./c_serial "$golden/tiny/hz.idx"
if [ $has_mpi = 1 ]; then
  # shellcheck disable=SC2046
  ${CC:-cc} -std=c99 -Wall -Werror "$consumer_src/c_mpi_main.c" $(pkg-config --cflags --libs hzio-mpi) \
    -Wl,-rpath,"$libdir" -o c_mpi
  expect "c mpi consumer (pkg-config hzio-mpi)" "8x8x8 49" mpiexec -n 2 ./c_mpi "$work/pc_c_out/visus.idx"
fi
if [ $has_fortran = 1 ]; then
  # shellcheck disable=SC2046
  ${FC:-gfortran} -Wall "$consumer_src/fortran_main.f90" $(pkg-config --cflags --libs hzio-fortran) \
    -Wl,-rpath,"$libdir" -o fortran
  expect "fortran consumer (pkg-config hzio-fortran)" "8x8x8 49" mpiexec -n 2 ./fortran "$work/pc_f_out/visus.idx"
fi
