// The local kernels by the names "trident: local kernel" takes. The registry knows no kernel by
// itself: each kernel's file registers its entry (registerLocalKernel) from a registerXxxKernel()
// function, and CMake generates the function that calls those of this build
// (registerBuiltinLocalKernels, cmake/TridentRegistrations.cmake). Calling them from generated
// code, rather than from static registrar objects, is what keeps them in a static link: nothing
// would refer to a registrar object, so the linker would drop its file from libtrident_core.a, in
// this build and in a project linking the installed package alike.
#include <stdexcept>

#include "trident/core/NamedRegistry.hpp"
#include "trident/local/LocalSpGEMM.hpp"

namespace Trident {

void registerBuiltinLocalKernels();  // generated: BuiltinRegistrations.cpp.in

namespace {

NamedRegistry<LocalKernelEntry>& kernels() {
  static NamedRegistry<LocalKernelEntry> registry(registerBuiltinLocalKernels);
  return registry;
}

}  // namespace

void registerLocalKernel(LocalKernelEntry entry) { kernels().add(std::move(entry)); }

std::vector<std::string> localKernelNames() { return kernels().names(); }

bool localKernelAvailable(const std::string& name) {
  const auto entry = kernels().find(name);
  return entry && entry->available();
}

std::unique_ptr<LocalSpGEMM> makeLocalSpGEMM(const std::string& name) {
  if (const auto entry = kernels().find(name)) return entry->make();
  throw std::invalid_argument("Trident: unknown local kernel \"" + name + "\" (this build has " +
                              kernels().quotedNames() + ")");
}

}  // namespace Trident
