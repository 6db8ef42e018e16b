// The backends by the names "trident: device" takes. As with the local kernels
// (KernelRegistry.cpp), the registry knows no backend by itself: each backend's file registers its
// entry (registerBackend) from a registerXxxBackend() function, called from the function CMake
// generates for this build (registerBuiltinBackends, cmake/TridentRegistrations.cmake), which keeps
// them in a static link where a static registrar object would be dropped.
#include <stdexcept>

#include "trident/backend/Backend.hpp"
#include "trident/core/NamedRegistry.hpp"

namespace Trident {

void registerBuiltinBackends();  // generated: BuiltinRegistrations.cpp.in

namespace {

NamedRegistry<BackendEntry>& backends() {
  static NamedRegistry<BackendEntry> registry(registerBuiltinBackends);
  return registry;
}

}  // namespace

void registerBackend(BackendEntry entry) { backends().add(std::move(entry)); }

std::vector<std::string> backendDeviceNames() { return backends().names(); }

bool backendAvailable(const std::string& device) {
  const auto entry = backends().find(device);
  return entry && entry->available();
}

std::unique_ptr<Backend> makeBackend(const std::string& device, const std::string& local_kernel) {
  if (const auto entry = backends().find(device)) return entry->make(local_kernel);
  throw std::invalid_argument("Trident: unknown device \"" + device + "\" (this build has " +
                              backends().quotedNames() + ")");
}

}  // namespace Trident
