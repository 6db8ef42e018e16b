#pragma once
// Li transport on the GPU: the group rebuilds a tile from its row slices with NCCL (NVLink inside
// a node). NCCL has no Allgatherv; each slice is one ncclBroadcast from its owner, all of them in
// one ncclGroupStart/End, landing at the displacements of planAllgatherv (device/AllgathervPlan).
// One rank per GPU: NCCL refuses two ranks of a communicator on the same device. Whole tiles only:
// the CUDA backend (CudaBackend.cpp) puts it under its LiTransport beside MPI for the rest.
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "trident/cuda/CudaDevice.hpp"
#include "trident/device/DeviceCsr.hpp"
#include "trident/local/Csr.hpp"

namespace Trident {

class NcclLiTransport {
 public:
  // Collective over li_comm: rank 0 creates the NCCL id and broadcasts it over MPI. Each rank's
  // current CUDA device (activateCudaDevice) must be set before and differ within the group.
  explicit NcclLiTransport(MPI_Comm li_comm, MemoryResource& mem = cudaDeviceMemory());
  ~NcclLiTransport();
  NcclLiTransport(const NcclLiTransport&) = delete;
  NcclLiTransport& operator=(const NcclLiTransport&) = delete;

  // The tile stays on the device: mine (this rank's slice, device memory) in, the stacked
  // block out. *sent / *received get logical bytes as MpiLiTransport counts them.
  DeviceCsr allgatherDevice(const DeviceCsr& mine, const std::vector<std::int64_t>& slice_rows,
                            const std::vector<std::int64_t>& slice_nnz, std::uint64_t* sent, std::uint64_t* received);
  // The same for host blocks (LiTransport::allgather's contract): staged through the device.
  Csr allgather(const Csr& mine, const std::vector<std::int64_t>& slice_rows, const std::vector<std::int64_t>& slice_nnz,
                std::uint64_t* sent, std::uint64_t* received);

 private:
  struct Comm;
  MemoryResource& mem_;
  int rank_ = 0, size_ = 1;
  std::unique_ptr<Comm> comm_;
};

}  // namespace Trident
