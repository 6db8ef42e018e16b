// The host backend: host memory, the registry's local kernels (reference, gustavson,
// kokkoskernels), MPI point-to-point over Gi (GiFetch) and MPI over Li (Allgatherv and the
// needed-rows exchange).
#include "trident/backend/Backend.hpp"
#include "trident/transport/GiFetch.hpp"
#include "trident/transport/LiAllgather.hpp"

namespace Trident {

namespace {

class HostBackend final : public Backend {
 public:
  explicit HostBackend(const std::string& local_kernel) : kernel_(makeLocalSpGEMM(local_kernel)) {}
  std::string name() const override { return "host"; }
  MemoryResource& memory() override { return hostMemory(); }
  LocalSpGEMM& kernel() override { return *kernel_; }
  std::unique_ptr<LiTransport> li(MPI_Comm li_comm) override { return std::make_unique<MpiLiTransport>(li_comm); }
  std::unique_ptr<GiTransport> gi(const GiSetup& s) override {
    return std::make_unique<GiFetch>(s.L, s.tiles, s.nnz, s.unit, s.k, s.gi_comm, s.lookahead, s.needed,
                                     s.ready_comm);
  }

 private:
  std::unique_ptr<LocalSpGEMM> kernel_;
};

}  // namespace

std::unique_ptr<Backend> makeHostBackend(const std::string& local_kernel) {
  return std::make_unique<HostBackend>(local_kernel);
}

// Listed in src/CMakeLists.txt (TRIDENT_BACKEND_REGISTRARS); every build has it.
void registerHostBackend() { registerBackend({"host", [] { return true; }, makeHostBackend}); }

}  // namespace Trident
