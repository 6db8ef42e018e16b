// The "cusparse" local kernel: Trident's host blocks multiplied on this rank's GPU (cuSPARSE
// SpGEMM, partial products summed on the device). Part of the core library when
// TRIDENT_ENABLE_CUDA is on; plain C++ over trident_cuda's headers (no CUDA header here). Blocks
// cross PCIe once per call: this kernel is the drop-in for the host algorithms (tiles resident on
// the device across rounds would call CusparseSpGEMM on DeviceCsr blocks directly).
#include <mpi.h>

#include "trident/cuda/CudaDevice.hpp"
#include "trident/cuda/CusparseSpGEMM.hpp"
#include "trident/device/DeviceSelection.hpp"
#include "trident/device/NodeLocalRank.hpp"
#include "trident/local/LocalSpGEMM.hpp"

namespace Trident {

namespace {

// One rank per GPU, chosen once per process from the node-local rank. The kernel is made on
// every rank at the same point of an algorithm, so the split below is collective as required.
void activateDeviceOnce() {
  static const int device = [] {
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    const int local = init && !fin ? nodeLocalRank(MPI_COMM_WORLD) : 0;
    return activateCudaDevice(-1, local);
  }();
  (void)device;
}

class CusparseKernel final : public LocalSpGEMM {
 public:
  CusparseKernel() : spgemm_((requireCudaDevice(), activateDeviceOnce(), cudaDeviceMemory())) {}
  std::string name() const override { return "cusparse"; }
  bool sortsRows() const override { return true; }

  Csr multiply(const Csr& A, const Csr& B) override {
    if (A.ncols != B.nrows) throw std::invalid_argument("cuSPARSE SpGEMM: A.ncols != B.nrows");
    MemoryResource& mem = spgemm_.memory();
    const DeviceCsr a = toDeviceCsr(A, mem), b = toDeviceCsr(B, mem);
    return toHostCsr(spgemm_.multiply(a, b));
  }

  Csr multiplyAdd(const Csr& A, const Csr& B, std::vector<Csr>&& addends) override {
    if (A.ncols != B.nrows) throw std::invalid_argument("cuSPARSE SpGEMM: A.ncols != B.nrows");
    MemoryResource& mem = spgemm_.memory();
    const DeviceCsr a = toDeviceCsr(A, mem), b = toDeviceCsr(B, mem);
    std::vector<DeviceCsr> dev;
    dev.reserve(addends.size());
    for (const Csr& x : addends) dev.push_back(toDeviceCsr(x, mem));
    addends.clear();
    std::vector<const DeviceCsr*> parts;
    for (const DeviceCsr& x : dev) parts.push_back(&x);
    return toHostCsr(spgemm_.multiplyAdd(a, b, parts));
  }

 private:
  CusparseSpGEMM spgemm_;
};

}  // namespace

std::unique_ptr<LocalSpGEMM> makeCusparseKernel() { return std::make_unique<CusparseKernel>(); }

// Listed in src/CMakeLists.txt (TRIDENT_LOCAL_KERNEL_REGISTRARS) when TRIDENT_ENABLE_CUDA is on.
// Known to every CUDA build, available only where this rank sees a GPU.
void registerCusparseKernel() {
  registerLocalKernel({"cusparse", [] { return cudaDeviceCount() > 0; }, makeCusparseKernel});
}

}  // namespace Trident
