#!/usr/bin/env bash
# THE main command (README): installs what it needs, builds hzio, makes a demo dataset when
# demo-data/ has none, and serves it (mod_visus + JSON API + web viewer) on 127.0.0.1:8080.
#
#   bash scripts/run.sh [extra `hzio serve` arguments, e.g. more datasets]
#
# Environment knobs: HZIO_PORT (default 8080), HZIO_BUILD_DIR (default <repo>/build),
# HZIO_JOBS (default 2), HZIO_DEMO_DIR (default <repo>/demo-data), HZIO_DEMO_SIZE (edge of the
# demo cube made by scripts/make-demo.sh, its default when unset).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${HZIO_BUILD_DIR:-$REPO/build}"
DEMO_DIR="${HZIO_DEMO_DIR:-$REPO/demo-data}"
PORT="${HZIO_PORT:-8080}"
HOST=127.0.0.1

echo "[run.sh] dependencies"
bash "$REPO/scripts/setup-deps.sh" --profile run </dev/null

echo "[run.sh] build hzio in $BUILD"
# Same configuration as scripts/test.sh, so both share one build directory.
cmake -S "$REPO" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --parallel "${HZIO_JOBS:-2}" --target hzio
HZIO="$BUILD/reader/tools/hzio"
export HZIO_BIN="$HZIO"

has_dataset() { [[ -d "$DEMO_DIR" ]] && [[ -n "$(find "$DEMO_DIR" -name '*.idx' -print -quit)" ]]; }

if ! has_dataset; then
  mkdir -p "$DEMO_DIR"
  if [[ -f "$REPO/scripts/make-demo.sh" ]]; then
    echo "[run.sh] making the demo datasets with scripts/make-demo.sh"
    size_args=()
    [[ -n "${HZIO_DEMO_SIZE:-}" ]] && size_args=(--size "$HZIO_DEMO_SIZE")
    bash "$REPO/scripts/make-demo.sh" --out "$DEMO_DIR" --hzio "$HZIO" "${size_args[@]}" >/dev/null
  else
    # A 3-D float32 field (smooth blobs plus ripples, 128^3) converted with `hzio convert`.
    echo "[run.sh] making $DEMO_DIR/demo.idx"
    "$REPO/.venv/bin/python" - "$DEMO_DIR/demo.npy" <<'EOF'
import sys
import numpy as np
n = 128
z, y, x = np.meshgrid(*(np.linspace(-1.0, 1.0, n, dtype=np.float32),) * 3, indexing="ij")
field = np.zeros((n, n, n), np.float32)
for cx, cy, cz, w in [(-0.4, -0.3, 0.2, 0.25), (0.45, 0.35, -0.3, 0.3), (0.0, 0.5, 0.5, 0.2)]:
    field += np.exp(-((x - cx) ** 2 + (y - cy) ** 2 + (z - cz) ** 2) / (2 * w * w))
field += 0.15 * np.sin(9 * x) * np.cos(7 * y) * np.sin(5 * z)
np.save(sys.argv[1], field.astype(np.float32))
EOF
    "$HZIO" convert "$DEMO_DIR/demo.npy" "$DEMO_DIR/demo.idx" --field density --compression zip
    rm -f "$DEMO_DIR/demo.npy"
  fi
  has_dataset || { echo "run.sh: no .idx dataset was made in $DEMO_DIR" >&2; exit 1; }
fi

echo "[run.sh] serving $DEMO_DIR"
echo "[run.sh] open http://$HOST:$PORT/ (Ctrl-C stops the server)"
exec "$HZIO" serve "$DEMO_DIR" --host "$HOST" --port "$PORT" "$@"
