// The "cuda" backend ("trident: device" = "cuda"): the host algorithms' blocks multiplied on this
// rank's GPU by the cuSPARSE kernel (partial products summed on the device), whole tiles gathered
// over Li with NCCL, and MPI for the rest: Gi (GiFetch, host blocks) and Li's row-compressed and
// needed-rows exchanges. Blocks cross PCIe once per multiply and per NCCL gather (tiles do not stay
// on the device between rounds). Plain C++ over trident_cuda's headers, part of the core library
// in CUDA builds.
#include <mpi.h>

#include "trident/backend/Backend.hpp"
#include "trident/cuda/CudaDevice.hpp"
#include "trident/cuda/NcclLiTransport.hpp"
#include "trident/transport/GiFetch.hpp"
#include "trident/transport/LiAllgather.hpp"

namespace Trident {

std::unique_ptr<LocalSpGEMM> makeCusparseKernel();  // CusparseLocalSpGEMM.cpp: activates this rank's GPU

namespace {

class CudaLiTransport final : public LiTransport {
 public:
  CudaLiTransport(NcclLiTransport& nccl, MPI_Comm li_comm) : nccl_(nccl), mpi_(li_comm) {}
  Csr allgather(const Csr& mine, const std::vector<std::int64_t>& slice_rows, const std::vector<std::int64_t>& slice_nnz,
                std::uint64_t* sent, std::uint64_t* received) override {
    return nccl_.allgather(mine, slice_rows, slice_nnz, sent, received);
  }
  Csr allgatherRows(const Csr& mine, const std::vector<int>* mine_rows, const std::vector<std::int64_t>& slice_rows,
                    const std::vector<std::int64_t>& slice_nnz, std::vector<int>* tile_rows, std::uint64_t* sent,
                    std::uint64_t* received) override {
    return mpi_.allgatherRows(mine, mine_rows, slice_rows, slice_nnz, tile_rows, sent, received);
  }
  std::unique_ptr<LiRowsInFlight> exchangeNeededRows(int round, const Csr& a, const Csr& mine,
                                                     const std::vector<int>* mine_rows,
                                                     std::vector<std::int64_t> slice_rows,
                                                     std::vector<std::vector<int>> used, bool as_lists) override {
    return mpi_.exchangeNeededRows(round, a, mine, mine_rows, std::move(slice_rows), std::move(used), as_lists);
  }

 private:
  NcclLiTransport& nccl_;
  MpiLiTransport mpi_;
};

class CudaBackend final : public Backend {
 public:
  // Throws DeviceUnavailable where this rank has no GPU (the options refuse "cuda" on every rank
  // before that can happen).
  CudaBackend() : kernel_(makeCusparseKernel()) {}
  std::string name() const override { return "cuda"; }
  MemoryResource& memory() override { return cudaDeviceMemory(); }
  LocalSpGEMM& kernel() override { return *kernel_; }
  std::unique_ptr<LiTransport> li(MPI_Comm li_comm) override {
    // The NCCL communicator costs a collective set-up: made once per li_comm and kept.
    if (!nccl_ || nccl_comm_ != li_comm) {
      nccl_ = std::make_unique<NcclLiTransport>(li_comm);
      nccl_comm_ = li_comm;
    }
    return std::make_unique<CudaLiTransport>(*nccl_, li_comm);
  }
  std::unique_ptr<GiTransport> gi(const GiSetup& s) override {
    return std::make_unique<GiFetch>(s.L, s.tiles, s.nnz, s.unit, s.k, s.gi_comm, s.lookahead, s.needed,
                                     s.ready_comm);
  }

 private:
  std::unique_ptr<LocalSpGEMM> kernel_;
  std::unique_ptr<NcclLiTransport> nccl_;
  MPI_Comm nccl_comm_ = MPI_COMM_NULL;
};

}  // namespace

// Listed in src/CMakeLists.txt (TRIDENT_BACKEND_REGISTRARS) when TRIDENT_ENABLE_CUDA is on. The
// backend brings its own kernel (cusparse), so "trident: local kernel" does not reach it.
void registerCudaBackend() {
  registerBackend({"cuda", [] { return cudaDeviceCount() > 0; },
                   [](const std::string&) -> std::unique_ptr<Backend> { return std::make_unique<CudaBackend>(); }});
}

}  // namespace Trident
