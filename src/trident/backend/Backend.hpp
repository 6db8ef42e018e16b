#pragma once
// The one object the distributed algorithms get their pieces from: a local kernel (with a handle
// for a plan's symbolic and numeric steps), the Li transport inside a group, the Gi transport
// between groups, and the memory space their blocks live in. The host backend (HostBackend.cpp)
// is the reference; a device backend (src/trident/cuda) implements the same interface.
#include <mpi.h>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "trident/device/MemorySpace.hpp"
#include "trident/local/LocalSpGEMM.hpp"
#include "trident/partition/Layout.hpp"
#include "trident/partition/Redistribute.hpp"
#include "trident/transport/GiTransport.hpp"
#include "trident/transport/LiTransport.hpp"
#include "trident/transport/NeededRows.hpp"
#include "trident/transport/NnzTable.hpp"

namespace Trident {

// What Trident's Gi transport of one multiply needs to know (see GiFetch).
struct GiSetup {
  const Layout& L;
  const OwnedTiles& tiles;
  const NnzTable& nnz;
  int unit = 0, k = 0;
  MPI_Comm gi_comm = MPI_COMM_NULL;
  int lookahead = 2;
  const NeededRows* needed = nullptr;  // null: whole slices
  // The group's communicator for ready gating (GiFetch's class comment); MPI_COMM_NULL: sends go
  // out as soon as the window allows.
  MPI_Comm ready_comm = MPI_COMM_NULL;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Where the blocks handed to the kernel and transports live.
  virtual MemoryResource& memory() = 0;
  // The local kernel; the same object for the backend's life, so a plan that keeps the backend
  // keeps the kernel (and makes its handle once, kernel().makeHandle()).
  virtual LocalSpGEMM& kernel() = 0;
  // The Li transport over li_comm for one multiply (collective over li_comm; a device backend
  // keeps what is costly to set up, its own communicator, between calls).
  virtual std::unique_ptr<LiTransport> li(MPI_Comm li_comm) = 0;
  // A Gi transport for one multiply (it holds that multiply's in-flight transfers).
  virtual std::unique_ptr<GiTransport> gi(const GiSetup& setup) = 0;
};

// "host" with the named local kernel (makeLocalSpGEMM's names); "cuda" in CUDA builds (throws
// DeviceUnavailable where this rank has no GPU). Throws std::invalid_argument on unknown names
// (the message lists the ones this build has).
std::unique_ptr<Backend> makeBackend(const std::string& device, const std::string& local_kernel);
std::unique_ptr<Backend> makeHostBackend(const std::string& local_kernel);
// The devices makeBackend knows in this build ("host", and "cuda" in CUDA builds), in the order
// they registered.
std::vector<std::string> backendDeviceNames();
// Whether this rank can run the named backend now (false for "cuda" where it sees no GPU, and for
// names this build does not know).
bool backendAvailable(const std::string& device);

// A backend as the registry (BackendRegistry.cpp) holds it. Each backend's file registers its own
// entry from a registerXxxBackend() function that src/CMakeLists.txt lists (see
// BuiltinRegistrations.cpp.in); available() is asked each time, so it may look at the hardware.
// make gets "trident: local kernel" (a backend with a kernel of its own may ignore it).
struct BackendEntry {
  std::string name;
  std::function<bool()> available;
  std::function<std::unique_ptr<Backend>(const std::string& local_kernel)> make;
};
// Adds a backend, or replaces the one of the same name. Not thread-safe: register before
// multiplying.
void registerBackend(BackendEntry entry);

}  // namespace Trident
