#include "trident/cuda/CudaDevice.hpp"

#include <string>

#include "trident/cuda/CudaCheck.hpp"
#include "trident/device/DeviceSelection.hpp"

namespace Trident {

int cudaDeviceCount() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError();  // clear the sticky "no driver" error so later calls report their own
    return 0;
  }
  return n;
}

void requireCudaDevice() {
  if (cudaDeviceCount() > 0) return;
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  (void)cudaGetLastError();
  throw DeviceUnavailable(std::string("Trident: no CUDA device (cudaGetDeviceCount: ") +
                          (e == cudaSuccess ? "0 devices" : cudaGetErrorString(e)) +
                          "); the \"cusparse\" kernel and the device transports need one");
}

int activateCudaDevice(int requested, int node_local_rank) {
  const int device = chooseDevice(requested, node_local_rank, cudaDeviceCount());
  TRIDENT_CUDA_CHECK(cudaSetDevice(device));
  return device;
}

namespace {
class CudaMemory final : public MemoryResource {
 public:
  MemorySpace space() const override { return MemorySpace::Device; }
  void* allocate(std::size_t bytes) override {
    if (bytes == 0) return nullptr;
    void* p = nullptr;
    TRIDENT_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  void deallocate(void* p) noexcept override {
    if (p) (void)cudaFree(p);
  }
  void copyFromHost(void* dst, const void* src, std::size_t bytes) override {
    if (bytes) TRIDENT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
  }
  void copyToHost(void* dst, const void* src, std::size_t bytes) override {
    if (bytes) TRIDENT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
  }
  // Device-to-device copies and memsets do not wait for the host: synchronize, as promised.
  void copyWithin(void* dst, const void* src, std::size_t bytes) override {
    if (!bytes) return;
    TRIDENT_CUDA_CHECK(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice));
    TRIDENT_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void setZero(void* dst, std::size_t bytes) override {
    if (!bytes) return;
    TRIDENT_CUDA_CHECK(cudaMemset(dst, 0, bytes));
    TRIDENT_CUDA_CHECK(cudaDeviceSynchronize());
  }
};
}  // namespace

MemoryResource& cudaDeviceMemory() {
  static CudaMemory m;
  return m;
}

}  // namespace Trident
