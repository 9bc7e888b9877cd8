#!/usr/bin/env bash
# Runs a command that must fail as a restart that found values differing from the formula:
# exit status 1 and a "mismatch:" line naming the sample (anything else fails this test).
set -uo pipefail
out=$("$@" 2>&1)
rc=$?
echo "$out"
if [ "$rc" -ne 1 ]; then echo "expected exit status 1 (a mismatch), got $rc"; exit 1; fi
if ! grep -q "mismatch: pressure t=0" <<<"$out"; then echo "expected a mismatch of pressure at t=0 to be reported"; exit 1; fi
if ! grep -q "differ from the formula" <<<"$out"; then echo "expected the restart summary"; exit 1; fi
echo "the mismatch was detected"
