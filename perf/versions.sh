#!/usr/bin/env bash
# versions.sh - Trident against Tpetra's own Multiply on Trilinos 13.2 and on 16.1, in one run on
# one machine: C = A*A with each version's trident-bench (build/ and build-16/, the latter inside
# the root of scripts/trilinos-root.sh), P = 1 and P = 4 with 2 ranks per group.
#
#   perf/versions.sh [--trials=5] [--algos=tpetra,trident,auto] [--out=DIR (build/versions)]
#                    [--cluster=NODESxLAMBDA:RATE] [MATRIX ...]
#
# MATRIX: Matrix Market files or trident-bench generator specs; default: every
# ../shared/matrices/*.mtx (TRIDENT_MATRIX_DIR). For every matrix, P and version, one mpirun runs
# the algorithms in --algos order (times: median over --trials of the max over ranks, after one
# warm-up, as trident-bench reports them), with --check (C against that version's Tpetra
# product). The versions alternate matrix by matrix, so a slow phase of the machine touches both.
# Writes DIR/bench-13.csv and DIR/bench-16.csv (trident-bench's CSV) and prints the table of
# docs/benchmarks.md (perf/versions-table.py). Needs both builds: bash scripts/setup.sh and
# TRIDENT_TRILINOS=16 bash scripts/setup.sh. Ranks bound as in perf/mpi-binding.sh.
# --cluster=4x4:50mbit: instead of P = 1 and 4, each run on an emulated cluster of NODES nodes of
# LAMBDA ranks whose links between nodes run at RATE (perf/cluster-bench.sh; root), one group per
# node.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ "${1:-}" = --one ]; then  # one run, in the version's own environment: --one NP MATRIX TRIALS ALGOS CSV
  np=$2 m=$3 trials=$4 algos=$5 csv=$6
  source "$here/perf/mpi-binding.sh"
  rpg=2; [ "$np" -ge 2 ] || rpg=1
  exec mpirun --oversubscribe --allow-run-as-root "${mpi_bind[@]}" -np "$np" "$TRIDENT_BUILD_DIR/perf/trident-bench" \
    --matrix="$m" --ranks-per-group="$rpg" --trials="$trials" --algos="$algos" --check --csv="$csv"
fi
mdir=${TRIDENT_MATRIX_DIR:-$here/../shared/matrices}
trials=5 algos=tpetra,trident,auto out="" cluster=""
matrices=()
while [ $# -gt 0 ]; do
  case $1 in
    --trials=*) trials=${1#*=} ;;
    --algos=*) algos=${1#*=} ;;
    --out=*) out=${1#*=} ;;
    --cluster=*) cluster=${1#*=}
                 [[ $cluster =~ ^[0-9]+x[0-9]+:[0-9]+[a-z]*$ ]] || { echo "versions.sh: --cluster=NODESxLAMBDA:RATE, e.g. 4x4:50mbit" >&2; exit 2; } ;;
    --help|-h) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "versions.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) matrices+=("$(readlink -f "$1" 2>/dev/null || echo "$1")") ;;
  esac
  shift
done
[ ${#matrices[@]} -gt 0 ] || matrices=("$mdir"/*.mtx)
[ -f "${matrices[0]}" ] || [[ ${matrices[0]} == *:* ]] || { echo "versions.sh: no .mtx files in $mdir" >&2; exit 1; }
for b in build build-16; do
  [ -x "$here/$b/perf/trident-bench" ] || { echo "versions.sh: $b/perf/trident-bench not built" >&2; exit 1; }
done
out=${out:-$here/build/versions}
mkdir -p "$out"
out=$(readlink -f "$out")
# The 16.1 runs write there from inside the root, which sees only the checkout's parent folder.
case $out in "$(dirname "$here")"/*) ;; *) echo "versions.sh: --out must lie under $(dirname "$here")" >&2; exit 2 ;; esac
rm -f "$out"/bench-13.csv "$out"/bench-16.csv

# One run of one version: VERSION NP MATRIX. The 16.1 run enters the root once per call.
run() {
  local v=$1 np=$2 m=$3 build=$here/build
  [ "$v" = 16 ] && build=$here/build-16
  local cmd=(bash "$here/perf/versions.sh" --one "$np" "$m" "$trials" "$algos" "$out/bench-$v.csv")
  if [ -n "$cluster" ]; then
    local nodes=${cluster%%x*} rest=${cluster#*x}
    cmd=(bash "$here/perf/cluster-bench.sh" "$nodes" "${rest%%:*}" "${rest#*:}" --matrix="$m" --trials="$trials"
         --algos="$algos" --check --csv="$out/bench-$v.csv")
  fi
  if [ "$v" = 16 ]; then
    TRIDENT_BENCH=$build/perf/trident-bench TRIDENT_BUILD_DIR=$build bash "$here/scripts/trilinos-root.sh" "${cmd[@]}"
  else
    TRIDENT_BENCH=$build/perf/trident-bench TRIDENT_BUILD_DIR=$build "${cmd[@]}"
  fi
}
for m in "${matrices[@]}"; do
  nps=(1 4); [ -z "$cluster" ] || nps=(cluster)
  for np in "${nps[@]}"; do
    for v in 13 16; do
      echo "versions.sh: Trilinos $v, P = $np${cluster:+ $cluster}, $(basename "$m")" >&2
      run "$v" "$np" "$m" >>"$out/log-$v.txt" 2>&1 || echo "versions.sh: FAILED (see $out/log-$v.txt)" >&2
    done
  done
done
python3 "$here/perf/versions-table.py" "$out/bench-13.csv" "$out/bench-16.csv" >"$out/table.md"
cat "$out/table.md"
echo "versions.sh: CSVs and logs in $out" >&2
