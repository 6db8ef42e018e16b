#include "trident/device/GiDeviceTransfer.hpp"

#include <cstdlib>
#include <cstring>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include "trident/device/AllgathervPlan.hpp"

namespace Trident {

bool mpiIsCudaAware() {
  if (const char* e = std::getenv("TRIDENT_GI_DEVICE_DIRECT"); e && *e) return std::strcmp(e, "0") != 0;
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() != 0;
#else
  return false;
#endif
}

GiDeviceTransfer::~GiDeviceTransfer() {
  // A transfer still in flight would write into freed staging buffers: complete it.
  if (!reqs_.empty()) MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
}

void GiDeviceTransfer::postSend(const DeviceCsr& b, int peer, int tag) {
  const int rows = static_cast<int>(b.nrows), nnz = static_cast<int>(b.nnz);
  const int* rowptr = b.rowptr.data() + 1;
  const int* col = b.col.data();
  const double* val = b.val.data();
  if (!direct_) {
    Staged& s = staged_.emplace_back();
    s.rowptr.resize(static_cast<std::size_t>(rows));
    s.col.resize(static_cast<std::size_t>(nnz));
    s.val.resize(static_cast<std::size_t>(nnz));
    if (rows) b.rowptr.copyToHost(s.rowptr.data(), s.rowptr.size(), 1);
    if (nnz) b.col.copyToHost(s.col.data(), s.col.size()), b.val.copyToHost(s.val.data(), s.val.size());
    rowptr = s.rowptr.data(), col = s.col.data(), val = s.val.data();
  }
  reqs_.resize(reqs_.size() + 3);
  MPI_Request* r = reqs_.data() + reqs_.size() - 3;
  MPI_Isend(rowptr, rows, MPI_INT, peer, tag, comm_, &r[0]);
  MPI_Isend(col, nnz, MPI_INT, peer, tag + 1, comm_, &r[1]);
  MPI_Isend(val, nnz, MPI_DOUBLE, peer, tag + 2, comm_, &r[2]);
  sent_ += AllgathervPlan::deviceWireBytes(rows, nnz);
}

void GiDeviceTransfer::postReceive(DeviceCsr& b, int peer, int tag) {
  const int rows = static_cast<int>(b.nrows), nnz = static_cast<int>(b.nnz);
  int* rowptr = b.rowptr.data() + 1;
  int* col = b.col.data();
  double* val = b.val.data();
  if (!direct_) {
    Staged& s = staged_.emplace_back();
    s.target = &b;
    s.rowptr.resize(static_cast<std::size_t>(rows));
    s.col.resize(static_cast<std::size_t>(nnz));
    s.val.resize(static_cast<std::size_t>(nnz));
    rowptr = s.rowptr.data(), col = s.col.data(), val = s.val.data();
  }
  reqs_.resize(reqs_.size() + 3);
  MPI_Request* r = reqs_.data() + reqs_.size() - 3;
  MPI_Irecv(rowptr, rows, MPI_INT, peer, tag, comm_, &r[0]);
  MPI_Irecv(col, nnz, MPI_INT, peer, tag + 1, comm_, &r[1]);
  MPI_Irecv(val, nnz, MPI_DOUBLE, peer, tag + 2, comm_, &r[2]);
  received_ += AllgathervPlan::deviceWireBytes(rows, nnz);
}

void GiDeviceTransfer::waitAll() {
  if (!reqs_.empty()) MPI_Waitall(static_cast<int>(reqs_.size()), reqs_.data(), MPI_STATUSES_IGNORE);
  reqs_.clear();
  for (Staged& s : staged_) {
    if (!s.target) continue;
    DeviceCsr& b = *s.target;
    if (!s.rowptr.empty()) b.rowptr.copyFromHost(s.rowptr.data(), s.rowptr.size(), 1);
    if (!s.col.empty()) b.col.copyFromHost(s.col.data(), s.col.size()), b.val.copyFromHost(s.val.data(), s.val.size());
  }
  staged_.clear();
}

}  // namespace Trident
