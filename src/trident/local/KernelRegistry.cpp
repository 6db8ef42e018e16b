// The local kernels by the names "trident: local kernel" takes.
#include <stdexcept>

#include "trident/local/LocalSpGEMM.hpp"

namespace Trident {

std::unique_ptr<LocalSpGEMM> makeReferenceKernel();      // ReferenceSpGEMM.cpp
std::unique_ptr<LocalSpGEMM> makeGustavsonKernel();      // GustavsonSpGEMM.cpp
std::unique_ptr<LocalSpGEMM> makeKokkosKernelsKernel();  // KokkosKernelsSpGEMM.cpp (Kokkos::Serial)
#ifdef TRIDENT_HAVE_CUDA
std::unique_ptr<LocalSpGEMM> makeCusparseKernel();  // src/trident/cuda; throws DeviceUnavailable without a GPU
int cudaDeviceCount();                              // src/trident/cuda/CudaDevice.hpp
#endif

std::vector<std::string> localKernelNames() {
#ifdef TRIDENT_HAVE_CUDA
  return {"gustavson", "kokkoskernels", "reference", "cusparse"};
#else
  return {"gustavson", "kokkoskernels", "reference"};
#endif
}

bool localKernelAvailable(const std::string& name) {
#ifdef TRIDENT_HAVE_CUDA
  if (name == "cusparse") return cudaDeviceCount() > 0;
#endif
  for (const auto& known : localKernelNames())
    if (known == name) return true;
  return false;
}

std::unique_ptr<LocalSpGEMM> makeLocalSpGEMM(const std::string& name) {
  if (name == "reference") return makeReferenceKernel();
  if (name == "gustavson") return makeGustavsonKernel();
  if (name == "kokkoskernels") return makeKokkosKernelsKernel();
#ifdef TRIDENT_HAVE_CUDA
  if (name == "cusparse") return makeCusparseKernel();
#endif
  throw std::invalid_argument("Trident: unknown local kernel \"" + name + "\"");
}

}  // namespace Trident
