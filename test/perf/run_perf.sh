#!/usr/bin/env bash
# run_perf.sh NAME RESULTS_DIR INPUT CHECKER [--nest PATH]... -- CMD...
# One performance test: skipped (exit 77, ctest's SKIP_RETURN_CODE) when INPUT is not there (an
# input from ../shared; "-" for none); runs CMD; appends one row to RESULTS_DIR/perf_runs.csv
# (test,utc,wall_s,exit_code,watchr_xml); with WATCHR_PERF_DIR set, checks that the driver wrote
# its Watchr XML and that it is well-formed with the timers nested as each --nest PATH says.
set -uo pipefail
name=$1 results=$2 input=$3 checker=$4
shift 4
nest=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do nest+=("$1"); shift; done
[ "${1:-}" = "--" ] || { echo "run_perf.sh: missing -- before the command" >&2; exit 2; }
shift
if [ "$input" != "-" ] && [ ! -e "$input" ]; then
  echo "SKIP: $name needs $input (the shared matrices beside the repository), which is not there"
  exit 77
fi
mkdir -p "$results"
log="$results/$name.log"
start=$(date +%s.%N)
"$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
wall=$(echo "$start $(date +%s.%N)" | awk '{ printf "%.3f", $2 - $1 }')
xml=$(sed -n 's/^.*: Watchr XML written: //p' "$log" | tail -n1)
csv="$results/perf_runs.csv"
[ -s "$csv" ] || echo "test,utc,wall_s,exit_code,watchr_xml" > "$csv"
echo "$name,$(date -u +%FT%TZ),$wall,$rc,$xml" >> "$csv"
[ "$rc" = 0 ] || { echo "run_perf.sh: $name: the driver exited with $rc" >&2; exit 1; }
if [ -n "${WATCHR_PERF_DIR:-}" ]; then
  [ -n "$xml" ] && [ -s "$xml" ] || { echo "run_perf.sh: $name: no Watchr XML written in $WATCHR_PERF_DIR" >&2; exit 1; }
  python3 "$checker" --xml "$xml" "${nest[@]}" || exit 1
fi
echo "run_perf.sh: $name: ${wall} s; row in $csv${xml:+; XML $xml}"
