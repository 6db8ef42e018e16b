#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, checks the installed layout (one header tree,
# include/trident/), builds test/install/consumer (a C++-only project) against it with
# find_package(Trident), and runs it on 2 ranks.
set -euo pipefail
build=$1 src=$2 mpiexec=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
quiet() {  # runs a step, showing its output only when it fails
  "$@" >"$work/step.log" 2>&1 || { cat "$work/step.log"; echo "install_consumer: failed: $*"; exit 1; }
}
quiet cmake --install "$build" --prefix "$work/prefix"
prefix=$work/prefix
others=$(ls -A "$prefix/include" | grep -vx trident || true)
[ -z "$others" ] || { echo "install_consumer: headers outside include/trident/: $others"; exit 1; }
for h in trident/Trident_MatrixMatrix.hpp trident/Trident_MCL.hpp trident/core/Errors.hpp; do
  [ -f "$prefix/include/$h" ] || { echo "install_consumer: $h not installed"; exit 1; }
done
# Only public headers: each installed header's own includes are installed, internals are not.
inc=$prefix/include
for f in $(find "$inc" -name '*.hpp'); do
  for h in $(sed -n 's/^#include ["<]\(trident\/[^">]*\|Trident_[^">]*\)[">].*/\1/p' "$f"); do
    [ -f "$inc/$h" ] || [ -f "$inc/trident/$h" ] \
      || { echo "install_consumer: ${f#$inc/} includes $h, which is not installed"; exit 1; }
  done
  for h in $(sed -n 's/^#include "\([^/"]*\.hpp\)".*/\1/p' "$f"); do
    [ -f "$(dirname "$f")/$h" ] || [ -f "$inc/trident/$h" ] \
      || { echo "install_consumer: ${f#$inc/} includes \"$h\", which is not installed"; exit 1; }
  done
done
for internal in trident/transport/GiFetch.hpp trident/Trident_AutoAlgorithm.hpp trident/planner/Estimate.hpp; do
  [ ! -e "$inc/$internal" ] || { echo "install_consumer: internal header $internal installed"; exit 1; }
done
quiet cmake -S "$src/consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
# The installed package says whether the GPU backend is in, as the build was configured.
cuda=$(sed -n 's/^TRIDENT_ENABLE_CUDA:BOOL=//p' "$build/CMakeCache.txt")
grep -q "Trident_HAS_CUDA=${cuda:-OFF}" "$work/step.log" \
  || { cat "$work/step.log"; echo "install_consumer: Trident_HAS_CUDA is not ${cuda:-OFF}"; exit 1; }
quiet cmake --build "$work/build" -j 2
"$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$work/build/consumer"
