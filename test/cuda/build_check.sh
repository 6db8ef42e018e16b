#!/usr/bin/env bash
# Configures and builds the core-only GPU build (trident_device, trident_cuda, GPU tests) in its
# own folder and runs its tests, which skip without a GPU: the CUDA code compiles and links on
# every machine with nvcc. One architecture (sm_80) keeps nvcc's time down; ccache when present.
set -euo pipefail
src=$1 build=$2 nvcc=$3
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
step() { "$@" >"$log" 2>&1 || { cat "$log"; echo "cuda_build_check: failed: $*"; exit 1; }; }
step cmake -S "$src" -B "$build" -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_CUDA_ARCHITECTURES=80 "${launcher[@]}"
step cmake --build "$build" -j 2
(cd "$build" && ctest --output-on-failure) | tail -n 5
echo "cuda build OK"
