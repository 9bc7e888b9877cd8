#!/usr/bin/env bash
# Regenerates the README screenshots of hzio-viewer in this folder from the 512^3 demo dataset
# (scripts/make-demo.sh), rendering under Xvfb like the tests do.
#
#   viewer/docs/make-screenshots.sh BUILD_DIR      # BUILD_DIR has viewer/hzio-viewer and reader/tools/hzio
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="${1:?usage: make-screenshots.sh BUILD_DIR}"
VIEWER="$BUILD/viewer/hzio-viewer"
[[ -x "$VIEWER" ]] || { echo "make-screenshots.sh: no $VIEWER; build with -DHZIO_BUILD_VIEWER=ON" >&2; exit 1; }
DEMO="$("$REPO/scripts/make-demo.sh" --hzio "$BUILD/reader/tools/hzio")"
OUT="$REPO/viewer/docs"
shot() {  # name, then viewer options
  local name="$1"; shift
  xvfb-run -a -s "-screen 0 1600x1200x24" "$VIEWER" "$DEMO" --size 640x480 --screenshot "$OUT/$name.png" --stats "$@" \
    | tee "$OUT/$name.json"
}
shot volume
shot volume-and-slices --render both
shot slices --render slices --camera 700,-420,620,256,256,256,0,0,1
