#pragma once
// Local tile multiply on the GPU with cuSPARSE's generic SpGEMM, split as a plan needs it:
// symbolic() runs cusparseSpGEMMreuse_workEstimation/nnz/copy once and keeps C's structure and
// cuSPARSE's state in a CusparseProduct; numeric() recomputes C's values
// (cusparseSpGEMMreuse_compute) for new values of the same A and B buffers, as often as needed.
// The handle lives in the CusparseSpGEMM object, so a plan that keeps it keeps one handle.
// C's rows come out sorted (cuSPARSE's order is normalized once, in symbolic()).
#include <memory>
#include <vector>

#include "trident/cuda/CudaDevice.hpp"
#include "trident/device/DeviceCsr.hpp"

namespace Trident {

class CusparseProduct {
 public:
  ~CusparseProduct();
  CusparseProduct(const CusparseProduct&) = delete;
  CusparseProduct& operator=(const CusparseProduct&) = delete;
  const DeviceCsr& C() const;
  // Hands C over (the product can no longer recompute it).
  DeviceCsr takeC();

 private:
  friend class CusparseSpGEMM;
  struct State;
  explicit CusparseProduct(std::unique_ptr<State> s);
  std::unique_ptr<State> s_;
};

class CusparseSpGEMM {
 public:
  // Throws DeviceUnavailable when there is no CUDA device.
  explicit CusparseSpGEMM(MemoryResource& mem = cudaDeviceMemory());
  ~CusparseSpGEMM();
  CusparseSpGEMM(const CusparseSpGEMM&) = delete;
  CusparseSpGEMM& operator=(const CusparseSpGEMM&) = delete;

  // Structure of C = A*B (A.ncols == B.nrows, both in device memory, sorted rows). A and B must
  // stay alive, at the same addresses, while the product is used. Values of C are computed too.
  std::unique_ptr<CusparseProduct> symbolic(const DeviceCsr& A, const DeviceCsr& B);
  // C's values from A's and B's current values (same structure as at symbolic()).
  void numeric(CusparseProduct& product);
  // symbolic + numeric, C handed over.
  DeviceCsr multiply(const DeviceCsr& A, const DeviceCsr& B);
  // A*B + the addends (blocks of C's shape), summed on the device: a tile's K partial products.
  DeviceCsr multiplyAdd(const DeviceCsr& A, const DeviceCsr& B, const std::vector<const DeviceCsr*>& addends);

  MemoryResource& memory() { return mem_; }

 private:
  struct Handle;
  MemoryResource& mem_;
  std::unique_ptr<Handle> handle_;
};

}  // namespace Trident
