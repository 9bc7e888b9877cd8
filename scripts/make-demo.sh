#!/usr/bin/env bash
# Makes the embedded demo dataset on first run: <repo>/demo-data/demo.idx, an N^3 float32 field
# with structure at every scale (scripts/make_demo_field.py), written by hzio's own writer
# (`hzio convert`). Prints the .idx path. A second run finds it and returns at once.
#
#   scripts/make-demo.sh [--size 512] [--hzio PATH/TO/hzio] [--out DIR]
#
# Needs numpy: <repo>/.venv (scripts/setup-deps.sh) or a python3 that has it.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SIZE=512
OUT="$REPO/demo-data"
HZIO="${HZIO_BIN:-}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --size) SIZE="${2:?--size needs a number}"; shift 2 ;;
    --hzio) HZIO="${2:?--hzio needs a path}"; shift 2 ;;
    --out) OUT="${2:?--out needs a folder}"; shift 2 ;;
    -h|--help) sed -n '2,9p' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) echo "make-demo.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ "$SIZE" =~ ^[0-9]+$ && "$SIZE" -ge 4 ]] || { echo "make-demo.sh: --size must be a number >= 4, got '$SIZE'" >&2; exit 2; }

IDX="$OUT/demo.idx"
if [[ -f "$IDX" ]]; then
  echo "$IDX"
  exit 0
fi

if [[ -z "$HZIO" ]]; then
  for candidate in "$REPO"/build/reader/tools/hzio "$REPO"/build-*/reader/tools/hzio; do
    [[ -x "$candidate" ]] && { HZIO="$candidate"; break; }
  done
fi
[[ -n "$HZIO" && -x "$HZIO" ]] || { echo "make-demo.sh: no hzio binary found; build it or pass --hzio PATH" >&2; exit 1; }

PYTHON="$REPO/.venv/bin/python"
[[ -x "$PYTHON" ]] || PYTHON=python3
"$PYTHON" -c 'import numpy' 2>/dev/null || { echo "make-demo.sh: $PYTHON has no numpy; run scripts/setup-deps.sh" >&2; exit 1; }

mkdir -p "$OUT"
NPY="$OUT/.demo-field-$$.npy"
trap 'rm -f "$NPY"' EXIT
echo "make-demo.sh: generating a ${SIZE}^3 float32 field (first run only)..." >&2
"$PYTHON" "$REPO/scripts/make_demo_field.py" --size "$SIZE" --out "$NPY"
echo "make-demo.sh: writing $IDX with $HZIO convert..." >&2
"$HZIO" convert "$NPY" "$IDX" --field density --compression lz4 >&2
echo "$IDX"
