#include "trident/transport/LiAllgather.hpp"

#include <numeric>

#include "trident/transport/BigCount.hpp"

namespace Trident {

Csr MpiLiTransport::allgather(const Csr& mine, const std::vector<std::int64_t>& slice_rows,
                              const std::vector<std::int64_t>& slice_nnz, std::uint64_t* sent,
                              std::uint64_t* received) {
  MPI_Comm li_comm = comm_;
  const int lambda = static_cast<int>(slice_rows.size());
  int me = 0;
  MPI_Comm_rank(li_comm, &me);
  std::vector<std::int64_t> rdispl(lambda), ndispl(lambda);
  std::exclusive_scan(slice_rows.begin(), slice_rows.end(), rdispl.begin(), std::int64_t{0});
  std::exclusive_scan(slice_nnz.begin(), slice_nnz.end(), ndispl.begin(), std::int64_t{0});
  const std::int64_t rows = rdispl[lambda - 1] + slice_rows[lambda - 1];
  const std::int64_t nz = ndispl[lambda - 1] + slice_nnz[lambda - 1];

  Csr full;
  full.allocate(rows, mine.ncols, nz);
  bigcount::allgatherv(mine.rowptr.data() + 1, full.rowptr.data() + 1, slice_rows, MPI_INT64_T, li_comm);
  bigcount::allgatherv(mine.col.data(), full.col.data(), slice_nnz, MPI_INT, li_comm);
  bigcount::allgatherv(mine.val.data(), full.val.data(), slice_nnz, MPI_DOUBLE, li_comm);
  // Each slice's offsets are relative to its own start: shift them into the stacked block.
  for (int t = 1; t < lambda; ++t)
    for (std::int64_t r = rdispl[t]; r < rdispl[t] + slice_rows[t]; ++r) full.rowptr[r + 1] += ndispl[t];

  for (int t = 0; t < lambda; ++t) {
    if (t == me) continue;
    const std::uint64_t b = Csr::wireBytes(slice_rows[t], slice_nnz[t]);
    if (received) *received += b;
    if (sent) *sent += mine.wireBytes();
  }
  return full;
}

}  // namespace Trident
