#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: trident-bench on its built-in default
# (Tpetra 1D, 2D Sparse SUMMA and Trident side by side, P=4 ranks in 2 groups of 2).
# Extra arguments go to trident-bench, e.g. --matrix=../shared/matrices/email-Enron.mtx
#
# bash scripts/bench.sh --petsc [perf/peers.sh args]: the same with PETSc (installs petsc-dev),
# then perf/peers.sh instead: Tpetra, Trident and PETSc's MatMatMult on the same inputs, one table
# (default inputs: the shared matrices and rmat:16:16).
# TRIDENT_TRILINOS=16: against Trilinos 16.1, inside the root of scripts/trilinos-root.sh, in build-16/.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/trilinos-select.sh"
build=${TRIDENT_BUILD_DIR:-$here/build$build_suffix}
if [ "${1:-}" = --petsc ]; then
  shift
  TRIDENT_WITH_PETSC=1 bash "$here/scripts/setup.sh"
  exec env TRIDENT_BUILD_DIR="$build" bash "$here/perf/peers.sh" --np="${TRIDENT_NP:-4}" \
    --ranks-per-group="${TRIDENT_RANKS_PER_GROUP:-2}" --csv="$build/peers.csv" "$@"
fi
bash "$here/scripts/setup.sh"
np=${TRIDENT_NP:-4}
# Ranks bound to cores round-robin: unbound, where the scheduler put four ranks on two cores moved
# whole runs by up to 1.4x (perf/mpi-binding.sh; TRIDENT_MPI_BIND=none: unbound).
source "$here/perf/mpi-binding.sh"
exec mpirun --oversubscribe --allow-run-as-root "${mpi_bind[@]}" -np "$np" \
  "$build/perf/trident-bench" --ranks-per-group=${TRIDENT_RANKS_PER_GROUP:-2} --csv="$build/bench.csv" "$@"
