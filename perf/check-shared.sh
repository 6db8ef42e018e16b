#!/usr/bin/env bash
# check-shared.sh - every algorithm of the drop-in (and auto, its default) against Tpetra's own
# Multiply on every shared matrix, C = A*A at P = 1, 2, 3, 4, with trident-bench --check (identical
# structure, values to 1e-12 relative to |A||B|). Prints one line per run and a summary; exits
# non-zero when any check failed.
#
#   perf/check-shared.sh [MATRIX ...]                 against build/ (Trilinos 13.2)
#   TRIDENT_TRILINOS=16 perf/check-shared.sh [...]    against build-16/, inside the Trilinos 16.1 root
#
# MATRIX: Matrix Market files; default every ../shared/matrices/*.mtx (TRIDENT_MATRIX_DIR).
# Ranks per group: 1 at P = 1 and 3 (three groups: a 3 x 1 grid), 2 at P = 2 and 4.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$here/scripts/trilinos-select.sh"
build=${TRIDENT_BUILD_DIR:-$here/build$build_suffix}
mdir=${TRIDENT_MATRIX_DIR:-$here/../shared/matrices}
matrices=("$@")
[ ${#matrices[@]} -gt 0 ] || matrices=("$mdir"/*.mtx)
[ -x "$build/perf/trident-bench" ] || { echo "check-shared.sh: $build/perf/trident-bench not built" >&2; exit 1; }
log=$(mktemp "${TMPDIR:-/tmp}/check-shared.XXXXXX")
runs=0 failed=()
for m in "${matrices[@]}"; do
  for np in 1 2 3 4; do
    case $np in 2|4) rpg=2 ;; *) rpg=1 ;; esac
    runs=$((runs + 1))
    if timeout 900 mpirun --oversubscribe --allow-run-as-root -np "$np" "$build/perf/trident-bench" --matrix="$m" \
         --ranks-per-group="$rpg" --algos=tpetra,summa,trident,auto --trials=1 --check >"$log" 2>&1 &&
       grep -q -- "--check passed" "$log"; then
      echo "check-shared.sh: $(basename "$m") P = $np: pass"
    else
      failed+=("$(basename "$m") P = $np")
      echo "check-shared.sh: $(basename "$m") P = $np: FAILED"; tail -20 "$log"
    fi
  done
done
rm -f "$log"
echo "check-shared.sh: Trilinos $trilinos, $runs runs, ${#failed[@]} failed${failed:+: ${failed[*]}}"
[ ${#failed[@]} -eq 0 ]
