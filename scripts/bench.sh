#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: trident-bench on its built-in default
# (Tpetra 1D, 2D Sparse SUMMA and Trident side by side, P=4 ranks in 2 groups of 2).
# Extra arguments go to trident-bench, e.g. --matrix=../shared/matrices/email-Enron.mtx
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${TRIDENT_BUILD_DIR:-$here/build}
bash "$here/scripts/setup.sh"
np=${TRIDENT_NP:-4}
exec mpirun --oversubscribe --allow-run-as-root --bind-to none -np "$np" \
  "$build/perf/trident-bench" --ranks-per-group=${TRIDENT_RANKS_PER_GROUP:-2} --csv="$build/bench.csv" "$@"
