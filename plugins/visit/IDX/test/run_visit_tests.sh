#!/usr/bin/env bash
# Runs the IDX plugin against an installed VisIt (it does not build VisIt; see ../../README.md):
# visitconvert_ser_lite and visitconvert_par_lite read hzio datasets, local and by URL, through the
# plugin, and every value equals `hzio read`; then the multiresolution driver checks its cameras.
#
#   run_visit_tests.sh WORK_DIR
#
# Environment (all required):
#   VISIT_ARCH_DIR  installed VisIt's architecture folder (bin/visitconvert_ser_lite, plugins/)
#   IDX_BUILD_DIR   the plugin's build folder (plugins/databases/lib*IDXDatabase*.so, idx_multires_driver)
#   HZIO            an `hzio` binary (create data, read references)
#   HZIO_MPI        an `hzio-mpi` binary (synthetic multi-field, multi-timestep data)
#   HZIO_SERVE      an `hzio` binary built with the server (`hzio serve`)
#   PYTHON          a Python with numpy
# Optional: RANKS (default 3), the parallel engine's rank count.
set -euo pipefail

work=${1:?usage: run_visit_tests.sh WORK_DIR}
here=$(cd "$(dirname "$0")" && pwd)
ranks=${RANKS:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_osc=^ucx
# What VisIt's launcher sets up for its binaries: the plugin search path and VisIt's libraries.
export VISITPLUGINDIR="$IDX_BUILD_DIR/plugins:$VISIT_ARCH_DIR/plugins"
export LD_LIBRARY_PATH="$VISIT_ARCH_DIR/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ser="$VISIT_ARCH_DIR/bin/visitconvert_ser_lite"
par="$VISIT_ARCH_DIR/bin/visitconvert_par_lite"
compare="$PYTHON $here/compare_vtk.py"
failures=0
server_pid=""
cleanup() { if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi; }
trap cleanup EXIT

rm -rf "$work" && mkdir -p "$work" && cd "$work"

echo "== datasets"
"$PYTHON" - <<'EOF'
import numpy as np
y, x = np.mgrid[0:512, 0:512]; np.save("plane.npy", (x + 1000 * y).astype(np.float32))
z, y, x = np.mgrid[0:64, 0:64, 0:64]; np.save("cube.npy", (x + 1000 * y + 1000000 * z).astype(np.float32))
y, x = np.mgrid[0:200, 0:300]; np.save("rgb.npy", np.stack([x % 256, y % 256, (x + y) % 256], -1).astype(np.uint8))
y, x = np.mgrid[0:80, 0:100]; np.save("uv.npy", np.stack([x * 0.5, y * 0.25], -1).astype(np.float32))
EOF
"$HZIO" convert plane.npy plane/visus.idx --field value
"$HZIO" convert cube.npy cube/visus.idx --field value
"$HZIO" convert rgb.npy rgb/visus.idx --dtype "uint8[3]" --field color
"$HZIO" convert uv.npy uv/visus.idx --dtype "float32[2]" --field uv
mpiexec -n 1 "$HZIO_MPI" write multi3d/visus.idx --dims 40,30,20 --timesteps 2 \
  --fields "pressure:float64,temperature:float32,velocity:float32[3],flags:uint16,species:float32[5]"

# ref NAME DATASET FIELD TIME [hzio read options...]: the reference .npy (component fields split).
ref() {
  local name=$1 ds=$2 field=$3 time=$4; shift 4
  "$HZIO" read "$ds" --field "$field" --time "$time" "$@" -o "ref_$name.npy" > /dev/null
}
split_components() {  # split_components NAME N: ref_NAME.npy -> ref_NAME_cI.npy
  "$PYTHON" -c "
import numpy as np, sys
a = np.load('ref_$1.npy')
for c in range($2): np.save('ref_$1_c%d.npy' % c, np.ascontiguousarray(a[..., c]))"
}
check() {  # check REF VAR FILES...
  if $compare "$@"; then :; else failures=$((failures + 1)); fi
}
# convert TOOL INPUT OUTDIR [visitconvert options...]: "1" answers VisIt's VTK writer prompt
# (Legacy Binary), the empty line keeps Tetrahedralize off.
convert() {
  local tool=$1 input=$2 out=$3; shift 3
  mkdir -p "$out"
  (cd "$out" && printf '1\n\n' | $tool "$input" out.vtk VTK "$@" > convert.log 2>&1) || {
    echo "visitconvert failed for $input:"; cat "$out/convert.log"; failures=$((failures + 1)); }
}

for t in 0 1; do
  for f in pressure temperature velocity flags species; do ref "multi3d_${f}_t$t" multi3d/visus.idx $f $t; done
  split_components "multi3d_species_t$t" 5
done
ref rgb rgb/visus.idx color 0
ref uv uv/visus.idx uv 0
ref plane plane/visus.idx value 0

# pieces OUTDIR NAME: the .vtk files VisIt wrote for NAME: NAME.vtk (one domain) or the blocks
# listed by NAME.visit (parallel engine: one file per domain in the folder NAME/).
pieces() {
  local out=$1 name=$2
  if [ -f "$out/$name.visit" ]; then
    grep -v '^!' "$out/$name.visit" | sed "s|^|$out/|"
  else
    echo "$out/$name.vtk"
  fi
}

# multi3d_checks OUTDIR: both timesteps of every field.
multi3d_checks() {
  local out=$1
  for t in 0 1; do
    local files
    mapfile -t files < <(pieces "$out" "000$t.out.vtk")
    for f in pressure temperature velocity flags; do check "ref_multi3d_${f}_t$t.npy" $f "${files[@]}"; done
    for c in 0 1 2 3 4; do check "ref_multi3d_species_t${t}_c$c.npy" "species_c$c" "${files[@]}"; done
  done
}

echo "== serial engine (visitconvert_ser_lite), local datasets"
convert "$ser" "$work/multi3d/visus.idx" ser_multi3d
multi3d_checks ser_multi3d
convert "$ser" "$work/rgb/visus.idx" ser_rgb
check ref_rgb.npy color $(pieces ser_rgb out.vtk)
convert "$ser" "$work/uv/visus.idx" ser_uv
check ref_uv.npy uv $(pieces ser_uv out.vtk)
# Read options (prompted with -assume_format): level 12, box 100:400,50:300.
mkdir -p ser_plane_level
(cd ser_plane_level && printf '12\n100:400,50:300\n\n1\n\n' | "$ser" "$work/plane/visus.idx" out.vtk VTK -assume_format IDX > convert.log 2>&1)
ref plane_l12 plane/visus.idx value 0 --level 12 --box 100:400,50:300
check ref_plane_l12.npy value $(pieces ser_plane_level out.vtk)

echo "== parallel engine (mpiexec -n $ranks visitconvert_par_lite), local datasets"
convert "mpiexec --oversubscribe -n $ranks $par" "$work/multi3d/visus.idx" par_multi3d
multi3d_checks par_multi3d
convert "mpiexec --oversubscribe -n $ranks $par" "$work/plane/visus.idx" par_plane
check ref_plane.npy value $(pieces par_plane out.vtk)

# Level 1 of the plane has 2 cells: with $ranks ranks some ranks have none (empty grids).
mkdir -p par_plane_level1
(cd par_plane_level1 && printf '1\n\n\n1\n\n' | mpiexec --oversubscribe -n "$ranks" "$par" "$work/plane/visus.idx" out.vtk VTK \
   -assume_format IDX > convert.log 2>&1)
ref plane_l1 plane/visus.idx value 0 --level 1
check ref_plane_l1.npy value $(pieces par_plane_level1 out.vtk)

echo "== datasets by URL (hzio serve + .idxurl descriptors)"
"$HZIO_SERVE" serve multi3d="$work/multi3d/visus.idx" plane="$work/plane/visus.idx" --port 0 > serve.log 2>&1 &
server_pid=$!
for _ in $(seq 50); do grep -q "listening on" serve.log && break; sleep 0.2; done
url=$(grep -o 'http://[0-9.]*:[0-9]*' serve.log | head -1)
[ -n "$url" ] || { echo "server did not start:"; cat serve.log; exit 1; }
printf '# hzio test server\n%s/mod_visus?dataset=multi3d\n' "$url" > multi3d.idxurl
printf '%s/mod_visus?dataset=plane\n' "$url" > plane.idxurl
convert "$ser" "$work/multi3d.idxurl" url_ser_multi3d
multi3d_checks url_ser_multi3d
convert "mpiexec --oversubscribe -n $ranks $par" "$work/plane.idxurl" url_par_plane
check ref_plane.npy value $(pieces url_par_plane out.vtk)

echo "== multiresolution driver"
if "$IDX_BUILD_DIR/idx_multires_driver" "$work/plane/visus.idx" "$work/cube/visus.idx"; then :; else
  failures=$((failures + 1)); fi

echo "== $failures failure(s)"
[ "$failures" -eq 0 ]
