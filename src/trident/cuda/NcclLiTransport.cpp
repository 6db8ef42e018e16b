#include "trident/cuda/NcclLiTransport.hpp"

#include <nccl.h>

#include <stdexcept>
#include <string>

#include "trident/cuda/CudaCheck.hpp"
#include "trident/cuda/DeviceKernels.hpp"
#include "trident/device/AllgathervPlan.hpp"

namespace Trident {

namespace {
void ncclCheck(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) throw std::runtime_error(std::string("Trident NCCL: ") + what + ": " + ncclGetErrorString(r));
}
}  // namespace

struct NcclLiTransport::Comm {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  ~Comm() {
    if (comm) ncclCommDestroy(comm);
    if (stream) cudaStreamDestroy(stream);
  }
};

NcclLiTransport::NcclLiTransport(MPI_Comm li_comm, MemoryResource& mem) : mem_(mem), comm_(std::make_unique<Comm>()) {
  requireCudaDevice();
  MPI_Comm_rank(li_comm, &rank_);
  MPI_Comm_size(li_comm, &size_);
  ncclUniqueId id;
  if (rank_ == 0) ncclCheck(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, li_comm);
  TRIDENT_CUDA_CHECK(cudaStreamCreateWithFlags(&comm_->stream, cudaStreamNonBlocking));
  ncclCheck(ncclCommInitRank(&comm_->comm, size_, id, rank_), "ncclCommInitRank");
}

NcclLiTransport::~NcclLiTransport() = default;

DeviceCsr NcclLiTransport::allgatherDevice(const DeviceCsr& mine, const std::vector<std::int64_t>& slice_rows,
                                           const std::vector<std::int64_t>& slice_nnz, std::uint64_t* sent,
                                           std::uint64_t* received) {
  if (static_cast<int>(slice_rows.size()) != size_)
    throw std::invalid_argument("Trident NcclLiTransport: one slice size per group rank needed");
  const AllgathervPlan plan = planAllgatherv(slice_rows, slice_nnz);
  const SliceBroadcast& me = plan.slices[rank_];
  if (mine.nrows != me.rows || mine.nnz != me.nnz)
    throw std::invalid_argument("Trident NcclLiTransport: this rank's slice does not match the announced sizes");
  DeviceCsr full = allocateDeviceCsr(mem_, plan.total_rows, mine.ncols, plan.total_nnz);
  ncclCheck(ncclGroupStart(), "ncclGroupStart");
  for (const SliceBroadcast& s : plan.slices) {
    const bool root = s.root == rank_;
    int* rows_out = full.rowptr.data() + 1 + s.row_offset;
    int* col_out = full.col.data() + s.nnz_offset;
    double* val_out = full.val.data() + s.nnz_offset;
    if (s.rows)
      ncclCheck(ncclBroadcast(root ? mine.rowptr.data() + 1 : rows_out, rows_out, s.rows, ncclInt32, s.root,
                              comm_->comm, comm_->stream), "ncclBroadcast(row offsets)");
    if (s.nnz) {
      ncclCheck(ncclBroadcast(root ? mine.col.data() : col_out, col_out, s.nnz, ncclInt32, s.root, comm_->comm,
                              comm_->stream), "ncclBroadcast(columns)");
      ncclCheck(ncclBroadcast(root ? mine.val.data() : val_out, val_out, s.nnz, ncclFloat64, s.root, comm_->comm,
                              comm_->stream), "ncclBroadcast(values)");
    }
  }
  ncclCheck(ncclGroupEnd(), "ncclGroupEnd");
  TRIDENT_CUDA_CHECK(cudaStreamSynchronize(comm_->stream));
  rebaseGatheredOffsets(full.rowptr.data(), plan);
  if (sent) *sent += plan.bytesSent(rank_);
  if (received) *received += plan.bytesReceived(rank_);
  return full;
}

Csr NcclLiTransport::allgather(const Csr& mine, const std::vector<std::int64_t>& slice_rows,
                               const std::vector<std::int64_t>& slice_nnz, std::uint64_t* sent,
                               std::uint64_t* received) {
  const DeviceCsr d = toDeviceCsr(mine, mem_);
  return toHostCsr(allgatherDevice(d, slice_rows, slice_nnz, sent, received));
}

}  // namespace Trident
