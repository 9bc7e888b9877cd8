#!/usr/bin/env bash
# Smoke tests of the `hzio` command line (design.md §3): usage errors and their exit status,
# create/convert/read round trips (raw, .npy, vector dtypes, several fields and timesteps,
# streaming in small slabs), info, and verify on intact, incomplete and corrupted copies.
#
#   bash tests/reader/tools/cli_test.sh PATH/TO/hzio [PYTHON]
#
# Pure bash + coreutils; when PYTHON (default: <repo>/.venv/bin/python) has numpy, values and
# shapes are also checked through numpy.
set -uo pipefail

HZIO="$(realpath "${1:?usage: cli_test.sh PATH/TO/hzio [PYTHON]}")"
[[ -x "$HZIO" ]] || { echo "cli_test.sh: $1 is not an executable" >&2; exit 1; }
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
PY="${2:-$REPO/.venv/bin/python}"
HAVE_NUMPY=0
if [[ -x "$PY" ]] && "$PY" -c "import numpy" 2>/dev/null; then HAVE_NUMPY=1; fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/hzio_cli_test.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

FAILURES=0
fail() { echo "FAIL: $*" >&2; FAILURES=$((FAILURES + 1)); }
pass() { echo "ok: $*"; }

# run EXPECTED_STATUS DESCRIPTION -- COMMAND...: runs with stdout/stderr captured in out.txt/err.txt.
run() {
  local want="$1" what="$2"
  shift 3
  "$@" >out.txt 2>err.txt
  local got=$?
  if [[ "$got" != "$want" ]]; then
    fail "$what: exit status $got, expected $want (stderr: $(head -c 400 err.txt))"
    return 1
  fi
  return 0
}

# expect_error STATUS SUBSTRING DESCRIPTION -- COMMAND...: fails with one `hzio: ` line naming SUBSTRING.
expect_error() {
  local want="$1" needle="$2" what="$3"
  shift 4
  run "$want" "$what" -- "$@" || return
  if [[ "$(wc -l <err.txt)" -ne 1 ]] || ! grep -q '^hzio: ' err.txt; then
    fail "$what: stderr is not one 'hzio: ' line: $(cat err.txt)"
  elif ! grep -qF -- "$needle" err.txt; then
    fail "$what: stderr lacks '$needle': $(cat err.txt)"
  else
    pass "$what"
  fi
}

same_bytes() {  # same_bytes A B DESCRIPTION
  if cmp -s "$1" "$2"; then pass "$3"; else fail "$3: $1 and $2 differ"; fi
}

npy_data() {  # the data part of a .npy file of N data bytes
  tail -c "$2" "$1"
}

# ---------------------------------------------------------------- usage errors (status 2)
expect_error 2 "unknown command 'frobnicate'" "unknown command" -- "$HZIO" frobnicate
run 2 "no arguments" -- "$HZIO" && pass "no arguments: status 2"
expect_error 2 "missing DATASET" "read without dataset" -- "$HZIO" read
expect_error 2 "missing -o" "read without -o" -- "$HZIO" read x.idx
expect_error 2 "unknown option '--bogus'" "unknown option" -- "$HZIO" read x.idx -o a.npy --bogus 1
expect_error 2 "'--level' needs a value" "missing value" -- "$HZIO" read x.idx -o a.npy --level
expect_error 2 "'--level' expects an integer" "bad integer" -- "$HZIO" read x.idx -o a.npy --level two
expect_error 2 "'--box'" "bad box" -- "$HZIO" read x.idx -o a.npy --box 0:4,zz
expect_error 2 "'--time' given more than once" "repeated option" -- "$HZIO" read x.idx -o a.npy --time 1 --time 2
expect_error 2 "missing --dims" "create without dims" -- "$HZIO" create a.idx --field a:float32
expect_error 2 "16,16" "create with a trailing unit axis" -- "$HZIO" create a.idx --dims 16,16,1 --field a:float32
expect_error 2 "'flt32'" "create with a bad dtype" -- "$HZIO" create a.idx --dims 16,16 --field a:flt32
expect_error 2 "NAME:DTYPE" "create with a bad field" -- "$HZIO" create a.idx --dims 16,16 --field a
expect_error 2 "'--compression' must be raw, zip, lz4, png, jpg or zfp" "bad compression" -- \
  "$HZIO" create a.idx --dims 16,16 --field a:float32 --compression bz2
expect_error 2 "'--layout'" "bad layout" -- "$HZIO" create a.idx --dims 16,16 --field a:float32 --layout zorder
expect_error 2 "given twice" "duplicate field" -- "$HZIO" create a.idx --dims 16,16 --field a:uint8 --field a:int8
expect_error 2 "'--time'" "bad time range" -- "$HZIO" create a.idx --dims 16,16 --field a:uint8 --time 3:1
head -c 100 /dev/zero >plain.raw
expect_error 2 "--dims" "raw input without dims" -- "$HZIO" convert plain.raw out.idx
expect_error 2 "unexpected argument 'extra'" "extra positional" -- "$HZIO" convert plain.raw out.idx extra
[[ -e a.idx || -e out.idx ]] && fail "a usage error left a dataset behind"
for cmd in info create convert read verify; do
  run 0 "$cmd --help" -- "$HZIO" "$cmd" --help && grep -q "^usage: hzio $cmd" out.txt && pass "$cmd --help" ||
    fail "$cmd --help: $(head -3 out.txt)"
done
"$HZIO" serve --help >out.txt 2>err.txt
status=$?
if [[ "$status" == 0 ]] && grep -qi "usage" out.txt; then
  pass "serve --help (server library)"
elif [[ "$status" == 1 ]] && grep -q "built without the HTTP server" err.txt; then
  pass "serve: reported as not built"
else
  fail "serve --help: status $status, $(head -3 out.txt err.txt)"
fi

# ---------------------------------------------------------------- raw round trip (status 0)
head -c $((70 * 45 * 33 * 2)) /dev/urandom >u16.raw
run 0 "convert raw" -- "$HZIO" convert u16.raw u16.idx --dims 70,45,33 --dtype uint16 && pass "convert raw"
run 0 "read raw" -- "$HZIO" read u16.idx -o back.raw && same_bytes u16.raw back.raw "raw round trip"
run 0 "read npy" -- "$HZIO" read u16.idx -o back.npy
grep -aq "'descr': '<u2', 'fortran_order': False, 'shape': (33, 45, 70)" back.npy && pass "npy header" ||
  fail "npy header: $(head -c 120 back.npy | tail -c 110)"
npy_data back.npy $((70 * 45 * 33 * 2)) >back_data.raw && same_bytes u16.raw back_data.raw "npy data"

# The .npy back in, other codec and layout, read in small slabs through the streaming paths.
run 0 "convert npy lz4 hz" -- "$HZIO" convert back.npy u16b.idx --compression lz4 --layout hzorder --bitsperblock 10 \
  --blocksperfile 8 && pass "convert npy (lz4, hzorder)"
run 0 "read lz4 hz" -- "$HZIO" read u16b.idx -o back2.raw && same_bytes u16.raw back2.raw "lz4/hzorder round trip"
grep -q "lz4" <("$HZIO" info u16b.idx) && pass "info shows the codec" || fail "info lacks lz4"

head -c $((512 * 256 * 24)) /dev/urandom >big.raw
run 0 "convert in slabs" -- "$HZIO" convert big.raw big.idx --dims 512,256,24 --dtype uint8 --slab-mb 1 \
  --compression raw && pass "convert streaming (1 MiB slabs)"
run 0 "read in slabs" -- "$HZIO" read big.idx --slab-mb 1 -o bigback.npy &&
  npy_data bigback.npy $((512 * 256 * 24)) >bigback.raw && same_bytes big.raw bigback.raw "streaming round trip"
# A plane bigger than a slab: slabs along y inside each z.
head -c $((1024 * 1024 * 3 * 2)) /dev/urandom >planes.raw
run 0 "convert big planes" -- "$HZIO" convert planes.raw planes.idx --dims 1024,1024,3 --dtype int16 --slab-mb 1 &&
  run 0 "read big planes" -- "$HZIO" read planes.idx -o planesback.raw && same_bytes planes.raw planesback.raw \
  "streaming with planes larger than a slab"

# Vector dtype: (ny, nx, 3).
head -c $((70 * 45 * 3)) /dev/urandom >rgb.raw
run 0 "convert rgb" -- "$HZIO" convert rgb.raw rgb.idx --dims 70,45 --dtype "uint8[3]" --layout hzorder &&
  run 0 "read rgb" -- "$HZIO" read rgb.idx -o rgb.npy
grep -aq "'shape': (45, 70, 3)" rgb.npy && pass "vector dtype npy shape" || fail "vector shape: $(head -c 100 rgb.npy)"
npy_data rgb.npy $((70 * 45 * 3)) >rgbback.raw && same_bytes rgb.raw rgbback.raw "vector round trip"
run 0 "rgb npy with --dtype" -- "$HZIO" convert rgb.npy rgb2.idx --dtype "uint8[3]" &&
  grep -q "uint8\[3\]" <("$HZIO" info rgb2.idx) && pass "npy with --dtype uint8[3] is a 2-D vector field" ||
  fail "rgb2 info"
expect_error 2 "does not match" "npy --dtype mismatch" -- "$HZIO" convert rgb.npy rgb3.idx --dtype "uint16[3]"

# ---------------------------------------------------------------- several fields and timesteps
run 0 "create" -- "$HZIO" create ts.idx --dims 32,32,16 --field temp:float32 --field mask:uint8 --time 0:2 \
  --bitsperblock 8 --blocksperfile 4 && pass "create with fields and timesteps"
grep -q "0 2 time_%04d/" ts.idx && pass "time template as OpenVisus" || fail "time line: $(cat ts.idx)"
expect_error 1 "already exists" "create over an existing dataset" -- \
  "$HZIO" create ts.idx --dims 32,32,16 --field temp:float32
expect_error 1 "jpg blocks hold uint8" "create refuses a codec its fields cannot be written with" -- \
  "$HZIO" create jpgf.idx --dims 32,32 --field temp:float32 --compression jpg
[ ! -e jpgf.idx ] && pass "a refused create leaves nothing" || fail "a refused create left jpgf.idx"
head -c $((32 * 32 * 16)) /dev/urandom >mask1.raw
run 0 "convert into field/time" -- "$HZIO" convert mask1.raw ts.idx --dims 32,32,16 --dtype uint8 --field mask --time 1 &&
  pass "convert into an existing dataset"
run 0 "read field/time" -- "$HZIO" read ts.idx --field mask --time 1 -o mask1back.raw &&
  same_bytes mask1.raw mask1back.raw "field/time round trip"
run 0 "read unwritten time" -- "$HZIO" read ts.idx --field mask --time 2 -o mask2.raw &&
  same_bytes <(head -c $((32 * 32 * 16)) /dev/zero) mask2.raw "unwritten timestep reads the default value"
expect_error 1 "unknown field 'nope'" "unknown field" -- "$HZIO" read ts.idx --field nope -o x.raw
expect_error 1 "no time template" "new timestep in a dataset without time template" -- \
  "$HZIO" convert u16.raw u16.idx --dims 70,45,33 --dtype uint16 --time 7
run 0 "convert adds a timestep" -- "$HZIO" convert mask1.raw ts.idx --dims 32,32,16 --dtype uint8 --field mask --time 4 &&
  grep -q "added timestep 4" err.txt && grep -qF "time_%04d/ (0,2,1) (4,4,1)" ts.idx && pass "convert adds a timestep" ||
  fail "adding a timestep: $(cat err.txt; grep -A1 time ts.idx)"
run 0 "read added timestep" -- "$HZIO" read ts.idx --field mask --time 4 -o mask4back.raw &&
  same_bytes mask1.raw mask4back.raw "added timestep round trip"
# A new field widens the tables of the existing block files; the old field must read as before.
head -c $((70 * 45 * 33 * 4)) /dev/urandom >f32.raw
run 0 "convert adds a field" -- "$HZIO" convert f32.raw u16b.idx --dims 70,45,33 --dtype float32 --field extra \
  --compression zip && grep -q "added field 'extra'" err.txt && pass "convert adds a field" || fail "adding a field"
run 0 "read old field after adding one" -- "$HZIO" read u16b.idx -o old_after.raw &&
  same_bytes u16.raw old_after.raw "old field intact after a field was added"
run 0 "read new field" -- "$HZIO" read u16b.idx --field extra -o extra_back.raw &&
  same_bytes f32.raw extra_back.raw "added field round trip"
grep -q "zip" <("$HZIO" info u16b.idx | grep extra) && pass "added field has its compression" || fail "extra compression"
expect_error 1 "float32" "dtype mismatch on convert" -- \
  "$HZIO" convert mask1.raw ts.idx --dims 32,32,16 --dtype uint8 --field temp --time 0
expect_error 1 "dims" "dims mismatch on convert" -- \
  "$HZIO" convert mask1.raw ts.idx --dims 32,16,32 --dtype uint8 --field mask --time 0
expect_error 2 "'--compression' differs" "storage mismatch on convert" -- \
  "$HZIO" convert mask1.raw ts.idx --dims 32,32,16 --dtype uint8 --field mask --compression lz4
expect_error 1 "ts.idx" "level above maxh" -- "$HZIO" read ts.idx --level 40 -o x.raw
expect_error 1 "nothere.idx" "missing dataset" -- "$HZIO" read nothere.idx -o x.raw
[[ -e x.raw ]] && fail "a failed read left its output behind"

# ---------------------------------------------------------------- info
run 0 "info" -- "$HZIO" info ts.idx && grep -q "V" out.txt && grep -q "timesteps *0..2" out.txt &&
  pass "info text" || fail "info text: $(cat out.txt)"
run 0 "info json" -- "$HZIO" info ts.idx --json && grep -q '"maxh":14' out.txt && grep -q '"timesteps":\[0,1,2,4\]' out.txt &&
  pass "info --json" || fail "info --json: $(cat out.txt)"

# ---------------------------------------------------------------- verify
run 0 "verify intact" -- "$HZIO" verify u16b.idx && grep -q "^OK" out.txt && pass "verify intact" ||
  fail "verify intact: $(tail -3 out.txt)"
# ts.idx was created with every part declared, then only some were written: verify names the rest.
run 0 "verify incomplete" -- "$HZIO" verify ts.idx && grep -q "field temp: .* missing (declared, never written)" out.txt &&
  grep -q "^never written: field temp at timestep(s) 0:2,4" out.txt && grep -q "^never written: field mask at timestep(s) 0,2" out.txt &&
  pass "verify lists the parts never written" || fail "verify incomplete: $(cat out.txt)"
# u16b.idx got a field: its data moved to a new generation of the data directory (u16b.g2/).
datadir="$(grep -A1 '^(filename_template)' u16b.idx | tail -1 | sed 's#^\./##; s#/.*##')"
mkdir corrupt_dir && cp -r "$datadir" u16b.idx corrupt_dir/
victim="$(ls corrupt_dir/"$datadir"/*.bin | head -1)"
size=$(stat -c %s "$victim")
truncate -s $((size - 300)) "$victim"
run 1 "verify corrupt" -- "$HZIO" verify corrupt_dir/u16b.idx && grep -q "corrupt block" out.txt &&
  grep -q "^hzio: .*corrupt" err.txt && pass "verify reports a truncated block file" ||
  fail "verify corrupt: $(cat out.txt err.txt | tail -5)"
rm "$victim"
run 0 "verify with a missing file" -- "$HZIO" verify corrupt_dir/u16b.idx && grep -q "missing" out.txt &&
  pass "verify: an absent file is missing, not corrupt" || fail "verify missing file: $(tail -3 out.txt)"

# ---------------------------------------------------------------- numpy checks (optional)
if [[ "$HAVE_NUMPY" == 1 ]]; then
  "$PY" - "$HZIO" <<'EOF' && pass "numpy checks" || fail "numpy checks"
import json, subprocess, sys
import numpy as np
hzio = sys.argv[1]
def run(*args):
    p = subprocess.run([hzio, *args], capture_output=True, text=True)
    assert p.returncode == 0, (args, p.stderr)
    return p.stdout
a = (np.arange(33 * 45 * 70, dtype=np.float64).reshape(33, 45, 70) * 0.25 - 7)
np.save("f64.npy", a)
run("convert", "f64.npy", "f64.idx", "--bitsperblock", "9")
run("read", "f64.idx", "-o", "f64back.npy")
b = np.load("f64back.npy")
assert b.shape == a.shape and b.dtype == a.dtype and (a == b).all()
with open("f64back.npy", "rb") as f1, open("f64.npy", "rb") as f2:
    assert f1.read() == f2.read(), "hzio's .npy differs from numpy's own bytes"
info = json.loads(run("info", "f64.idx", "--json"))
assert info["dims"] == [70, 45, 33], info["dims"]
for level in (0, 5, 11, info["maxh"]):
    run("read", "f64.idx", "--level", str(level), "-o", "lv.npy")
    c = np.load("lv.npy")
    want = info["levels"][level]["shape"]
    assert list(c.shape) == want, (level, c.shape, want)
    stride = info["levels"][level]["stride"]  # x first; the grid starts at the origin
    assert (c == a[::stride[2], ::stride[1], ::stride[0]]).all(), level
run("read", "f64.idx", "--box", "10:50,5:40,3:30", "-o", "sub.npy")
assert (np.load("sub.npy") == a[3:30, 5:40, 10:50]).all()
v = np.random.default_rng(1).random((20, 30, 3)).astype(np.float32)
np.save("vec.npy", v)
run("convert", "vec.npy", "vec.idx", "--dtype", "float32[3]")
run("read", "vec.idx", "-o", "vecback.npy")
assert (np.load("vecback.npy") == v).all()
np.save("fortran.npy", np.asfortranarray(a))
p = subprocess.run([hzio, "convert", "fortran.npy", "fo.idx"], capture_output=True, text=True)
assert p.returncode == 1 and "Fortran order" in p.stderr, p.stderr
np.save("unit.npy", a[:1])  # (1, 45, 70): stored as 2-D
p = subprocess.run([hzio, "convert", "unit.npy", "unit.idx"], capture_output=True, text=True)
assert p.returncode == 0 and "2-D" in p.stderr, p.stderr
run("read", "unit.idx", "-o", "unitback.npy")
assert (np.load("unitback.npy") == a[0]).all()
EOF
else
  echo "skip: numpy checks ($PY has no numpy)"
fi

if [[ "$FAILURES" -ne 0 ]]; then
  echo "$FAILURES failure(s)" >&2
  exit 1
fi
echo "all cli tests passed"
