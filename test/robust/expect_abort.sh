#!/usr/bin/env bash
# Runs a command that must end the MPI job with an abort: passes when it exits non-zero within
# LIMIT seconds (not killed by the timeout) and its output contains every NEEDLE.
#   expect_abort.sh LIMIT NEEDLE... -- COMMAND...
set -u
limit=$1; shift
needles=()
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do needles+=("$1"); shift; done
shift
out=$(mktemp)
start=$(date +%s)
timeout --kill-after=5 "$limit" "$@" >"$out" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
cat "$out"
ok=1
if [ "$rc" -eq 0 ]; then echo "expect_abort: FAIL: the job exited 0 instead of aborting"; ok=0; fi
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then echo "expect_abort: FAIL: still running after ${limit} s (a hang)"; ok=0; fi
for n in "${needles[@]}"; do
  grep -qF -- "$n" "$out" || { echo "expect_abort: FAIL: output lacks '$n'"; ok=0; }
done
rm -f "$out"
echo "expect_abort: exit code $rc after ${elapsed} s"
[ "$ok" -eq 1 ] && echo "expect_abort: PASS" && exit 0
exit 1
