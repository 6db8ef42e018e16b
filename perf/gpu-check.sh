#!/usr/bin/env bash
# GPU check of the CUDA backend, for one GPU machine whose image has the CUDA toolkit (nvcc,
# cuSPARSE) and NCCL but no Trilinos and no package registry; well under 8 minutes.
#   1. builds the core-only GPU build (test/cuda/standalone: trident_device, trident_cuda, the
#      differential test and the timing program; no Tpetra) for this machine's GPU;
#   2. runs the differential test (cuSPARSE tile multiply, numeric recompute, device sums; with
#      MPI, when every rank has its own GPU, the NCCL Li
#      allgather) against the host reference for P = 1, and P = 2, 4 ranks sharing the GPU when
#      the image has mpirun;
#   3. times the tile multiply against bare cusparseSpGEMM on the same operands (table).
# Exit status: 0 when every test passed; a "SKIP: no CUDA device" counts as a failure here.
# Environment: TRIDENT_GPU_BUILD_DIR (default build-gpu-check), CUDACXX, TRIDENT_CUDA_ARCH.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TRIDENT_GPU_BUILD_DIR:-$root/build-gpu-check}
nvcc=${CUDACXX:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
arch=${TRIDENT_CUDA_ARCH:-$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d '. ')}
arch=${arch:-90}
jobs=$(( $(nproc) < 16 ? $(nproc) : 16 ))
status=0
start=$SECONDS

echo "== GPU"; nvidia-smi -L 2>/dev/null || echo "(nvidia-smi not found)"
echo "== configure + build (nvcc $nvcc, sm_$arch, -j$jobs)"
cmake -S "$root/test/cuda/standalone" -B "$build" -DCMAKE_CUDA_COMPILER="$nvcc" \
      -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_BUILD_TYPE=Release >"$build.configure.log" 2>&1 \
  || { cat "$build.configure.log"; echo "gpu-check: configure failed"; exit 1; }
grep -E "Trident" "$build.configure.log" || true
cmake --build "$build" -j "$jobs" >"$build.build.log" 2>&1 \
  || { tail -n 60 "$build.build.log"; echo "gpu-check: build failed"; exit 1; }
echo "built in $((SECONDS - start)) s"

test_exe=$build/tests/test_cuda_spgemm
run() {  # label, command...
  local label=$1; shift
  echo "== $label"
  timeout 180 "$@"
  local rc=$?
  [ $rc -eq 0 ] || { echo "gpu-check: $label: exit $rc"; status=1; }
}
run "differential test, P=1" "$test_exe"
if command -v mpirun >/dev/null && grep -q "MPI_CXX_FOUND:BOOL=TRUE\|TRIDENT_TEST_WITH_MPI" "$build/CMakeCache.txt" "$build/tests/CMakeFiles/test_cuda_spgemm.dir/flags.make" 2>/dev/null; then
  for P in 2 4; do
    run "differential test, P=$P ranks sharing the GPU" \
        mpirun --oversubscribe --allow-run-as-root --bind-to none -np "$P" "$test_exe"
  done
else
  echo "== P=2, 4: skipped (no mpirun, or the build found no MPI)"
fi
run "tile multiply vs bare cusparseSpGEMM (median of 5)" "$build/tests/bench_cuda_spgemm" --trials=5
echo "gpu-check: $([ $status -eq 0 ] && echo passed || echo FAILED) in $((SECONDS - start)) s"
exit $status
