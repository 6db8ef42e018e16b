// Which backends this build has, by the name "trident: device" takes.
#include <stdexcept>

#include "trident/backend/Backend.hpp"

namespace Trident {

#ifdef TRIDENT_HAVE_CUDA
std::unique_ptr<Backend> makeCudaBackend();  // src/trident/cuda/CudaBackend.cpp
int cudaDeviceCount();                       // src/trident/cuda/CudaDevice.hpp
#endif

std::vector<std::string> backendDeviceNames() {
#ifdef TRIDENT_HAVE_CUDA
  return {"host", "cuda"};
#else
  return {"host"};
#endif
}

bool backendAvailable(const std::string& device) {
#ifdef TRIDENT_HAVE_CUDA
  if (device == "cuda") return cudaDeviceCount() > 0;
#endif
  return device == "host";
}

std::unique_ptr<Backend> makeBackend(const std::string& device, const std::string& local_kernel) {
  if (device == "host") return makeHostBackend(local_kernel);
#ifdef TRIDENT_HAVE_CUDA
  if (device == "cuda") return makeCudaBackend();
#endif
  throw std::invalid_argument("Trident: unknown device \"" + device + "\"");
}

}  // namespace Trident
