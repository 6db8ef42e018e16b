#!/bin/bash
# Runs trident-bench (P MPI ranks) and trident-plan (one process) on the same matrices and
# compares the byte columns of their CSVs: gi/li_bytes_max and _total of every algorithm.
#   plan-vs-bench.sh BUILD_DIR P LAMBDA OP TOLERANCE matrix.mtx [matrix.mtx ...]
# TOLERANCE: allowed relative difference (0 = exact). Prints one line per algorithm and matrix;
# exits 1 when any differs by more. MPIRUN (default: mpirun with the test flags) may be set.
set -euo pipefail
build=$1 P=$2 lambda=$3 op=$4 tol=$5
shift 5
mpirun=${MPIRUN:-mpirun --oversubscribe --allow-run-as-root --bind-to none}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
for m in "$@"; do
  $mpirun -np "$P" "$build/perf/trident-bench" --matrix="$m" --op="$op" --ranks-per-group="$lambda" --trials=1 \
    --slices=balanced --blocks=even --csv="$work/bench.csv" > "$work/bench.log" 2>&1 || { cat "$work/bench.log"; exit 1; }
  "$build/apps/plan/trident-plan" --matrix="$m" --op="$op" --ranks="$P" --ranks-per-group="$lambda" \
    --csv="$work/plan.csv" > "$work/plan.log" 2>&1 || { cat "$work/plan.log"; exit 1; }
done
# bench: algo,matrix,op,P,lambda at 1-5, gi_max..li_total at 13-16; plan: at 6-9.
awk -F, -v tol="$tol" '
  FNR == 1 { next }
  FILENAME ~ /bench.csv$/ { key = $1 "," $2 "," $3 "," $4 "," $5; b[key] = $13 "," $14 "," $15 "," $16; next }
  { key = $1 "," $2 "," $3 "," $4 "," $5; p[key] = $6 "," $7 "," $8 "," $9 }
  END {
    bad = 0
    split("gi_max gi_total li_max li_total", names, " ")
    for (key in b) {
      if (!(key in p)) { print key ": not planned"; bad = 1; continue }
      split(b[key], mb, ","); split(p[key], pp, ",")
      line = key
      for (t = 1; t <= 4; ++t) {
        d = mb[t] - pp[t]; if (d < 0) d = -d
        rel = mb[t] > 0 ? d / mb[t] : (pp[t] > 0 ? 1 : 0)
        line = line sprintf("  %s %s/%s", names[t], pp[t], mb[t])
        if (rel > tol) { line = line " (DIFFERS)"; bad = 1 }
      }
      print line
    }
    exit bad
  }' "$work/bench.csv" "$work/plan.csv" || status=1
exit $status
