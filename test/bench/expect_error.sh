#!/usr/bin/env bash
# expect_error.sh REGEX CMD...: CMD must exit non-zero, print a message matching REGEX, and end
# cleanly on every rank (no MPI_Abort, no signal).
set -uo pipefail
re=$1; shift
out=$("$@" 2>&1); rc=$?
echo "$out"
[ $rc -ne 0 ] || { echo "expect_error: FAIL: exit code 0" >&2; exit 1; }
grep -Eq -- "$re" <<<"$out" || { echo "expect_error: FAIL: no message matching '$re'" >&2; exit 1; }
if grep -Eq "MPI_ABORT|Signal:|Segmentation|core dumped" <<<"$out"; then
  echo "expect_error: FAIL: not a clean exit" >&2; exit 1
fi
echo "expect_error: OK (exit $rc)"
