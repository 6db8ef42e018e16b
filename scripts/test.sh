#!/usr/bin/env bash
# Installs what is missing, builds, and runs the test suite under ctest.
#   scripts/test.sh [ctest args]              the whole suite, in build/ (or $TRIDENT_BUILD_DIR)
#   scripts/test.sh --cuda [ctest args]       a build with the GPU backend (build-cuda/,
#                                             TRIDENT_ENABLE_CUDA=ON) where nvcc is: the whole suite
#                                             with a GPU, else the tests that build changes
#   scripts/test.sh --sanitize [ctest args]   AddressSanitizer + UndefinedBehaviorSanitizer build in
#                                             build-sanitize/ (or $TRIDENT_SANITIZE_BUILD_DIR), and
#                                             the fast part of the suite under it
# TRIDENT_TRILINOS=16: all of it against Trilinos 16.1, inside the root that scripts/trilinos-root.sh
# makes and keeps, in build-16/, build-16-sanitize/, build-16-cuda/ (scripts/trilinos-select.sh).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/trilinos-select.sh"

if [ "${1:-}" = "--cuda" ]; then
  # The suite in a build with the GPU backend (TRIDENT_ENABLE_CUDA=ON) in build-cuda/ (or
  # $TRIDENT_CUDA_BUILD_DIR), where nvcc is found; its GPU tests skip without a GPU. Without nvcc
  # it says so and succeeds.
  shift
  nvcc=$(command -v nvcc || true)
  [ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
  if [ -z "$nvcc" ]; then
    echo "test.sh --cuda: no nvcc (PATH, /usr/local/cuda/bin): the CUDA build is not tested here"
    exit 0
  fi
  export CUDACXX=${CUDACXX:-$nvcc}
  TRIDENT_BUILD_DIR=${TRIDENT_CUDA_BUILD_DIR:-$here/build$build_suffix-cuda} \
    TRIDENT_CMAKE_ARGS="-DTRIDENT_ENABLE_CUDA=ON ${TRIDENT_CMAKE_ARGS:-}" bash "$here/scripts/setup.sh"
  cd "${TRIDENT_CUDA_BUILD_DIR:-$here/build$build_suffix-cuda}"
  # Without a GPU the GPU tests skip and every other test runs the same code as in build/ (the
  # CUDA build only adds the cusparse kernel and the cuda backend to the registries), so by default
  # only the tests that build changes run here: the device and CUDA tests, the backend seam, the
  # kernels, the drop-in's option checks, a multiply and a plan through the registries, the
  # installed package with its CUDA targets. On a machine with a GPU, or with
  # TRIDENT_CUDA_WHOLE_SUITE=1, the whole suite (on the 2-vCPU VMs of this project it takes ~21
  # minutes, which CI could not afford twice besides the sanitizer run).
  if [ $# -eq 0 ] && [ "${TRIDENT_CUDA_WHOLE_SUITE:-0}" != 1 ] && ! nvidia-smi -L 2>/dev/null | grep -q GPU; then
    echo "test.sh --cuda: no GPU here: the tests the CUDA build changes (TRIDENT_CUDA_WHOLE_SUITE=1: all)"
    set -- -R '^(device_host|backend_combinations_P[0-9]+|local_kernels|cuda_spgemm(_P[0-9]+)?|cusparse_multiply_P[0-9]+|dropin_semantics_P[34]|plan_P4|multiply_P4|install_consumer)$'
  fi
  ctest --output-on-failure --timeout 900 "$@"
  exit 0
fi

if [ "${1:-}" != "--sanitize" ]; then
  build=${TRIDENT_BUILD_DIR:-$here/build$build_suffix}
  bash "$here/scripts/setup.sh"
  cd "$build"
  # Tests oversubscribe 2 cores with up to 16 ranks: run them one at a time.
  ctest --output-on-failure --timeout 900 "$@"
  exit 0
fi
shift

build=${TRIDENT_SANITIZE_BUILD_DIR:-$here/build$build_suffix-sanitize}
# Packages: setup.sh installs what is missing (it also builds build/, so it runs only when
# something is missing).
for p in cmake g++ ccache libopenmpi-dev libtrilinos-tpetra-dev libtrilinos-muelu-dev; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    bash "$here/scripts/setup.sh"
    break
  fi
done

# -O1 keeps the instrumented tests fast enough; Trilinos and OpenMPI are not instrumented (their
# templates instantiated in our code are).
san="-fsanitize=address,undefined -fno-omit-frame-pointer"
export CCACHE_DIR=${CCACHE_DIR:-${HOME:-/root}/.ccache}
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS="-O1 -g $san" \
      -DCMAKE_EXE_LINKER_FLAGS="$san" -DCMAKE_SHARED_LINKER_FLAGS="$san" \
      -DCMAKE_CXX_COMPILER_LAUNCHER=ccache >/dev/null
# The fast part of the suite: local kernels, Matrix Market I/O (+ fuzz), drop-in semantics,
# multiply at P = 1 and 4 (P = 4 lays out what P = 2 does: one group, two groups of 1 or 2 ranks,
# 2 x 1 grids), accounting, failure behaviour, plan re-execution at P = 3, 4, and the
# pipelined Gi/Li transport (non-blocking buffers in flight while the kernel runs) at P = 4, and the
# GPU backend's host side (device CSR conversions, Allgatherv plan),
# and the nonblocking consensus behind C's Import, the layout's cuts, the fused MCL expansion's
# hierarchical row fetch, and the 1d product's work shared inside a group (its rows of C in blocks).
targets=(test_local_kernels test_io test_mm_fuzz test_dropin test_multiply test_accounting test_robust test_plan
         test_pipeline test_device_host test_sparse_exchange test_layout test_mcl_rows test_node_work_split
         test_node_work)
tests='^(local_kernels|io_.*|dropin_semantics_P3|multiply_P[14]|accounting_P4|robust_.*|plan_P[34]|pipeline_P4|device_host|sparse_exchange_P3|layout_P3|mcl_rows_P4|node_work_split|node_work_blocks_P3)$'
cmake --build "$build" -j 2 --target "${targets[@]}"

# OpenMPI's own allocations show up as leaks at exit (not ours to fix): leak detection is off.
# Any ASan or UBSan report stops the rank, and so fails its test.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cd "$build"
ctest --output-on-failure --timeout 900 -R "$tests" "$@"
