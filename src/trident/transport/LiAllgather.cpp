#include "trident/transport/LiAllgather.hpp"

#include <numeric>

namespace Trident {

Csr MpiLiTransport::allgather(const Csr& mine, const std::vector<std::int64_t>& slice_rows,
                              const std::vector<std::int64_t>& slice_nnz, std::uint64_t* sent,
                              std::uint64_t* received) {
  MPI_Comm li_comm = comm_;
  const int lambda = static_cast<int>(slice_rows.size());
  int me = 0;
  MPI_Comm_rank(li_comm, &me);
  std::vector<int> rcount(lambda), rdispl(lambda), ncount(lambda), ndispl(lambda);
  std::int64_t rows = 0, nz = 0;
  for (int t = 0; t < lambda; ++t) {
    rcount[t] = static_cast<int>(slice_rows[t]);
    ncount[t] = static_cast<int>(slice_nnz[t]);
    rows += slice_rows[t];
    nz += slice_nnz[t];
  }
  std::exclusive_scan(rcount.begin(), rcount.end(), rdispl.begin(), 0);
  std::exclusive_scan(ncount.begin(), ncount.end(), ndispl.begin(), 0);

  Csr full;
  full.allocate(rows, mine.ncols, nz);
  MPI_Allgatherv(mine.rowptr.data() + 1, static_cast<int>(mine.nrows), MPI_INT64_T, full.rowptr.data() + 1,
                 rcount.data(), rdispl.data(), MPI_INT64_T, li_comm);
  MPI_Allgatherv(mine.col.data(), static_cast<int>(mine.nnz()), MPI_INT, full.col.data(), ncount.data(),
                 ndispl.data(), MPI_INT, li_comm);
  MPI_Allgatherv(mine.val.data(), static_cast<int>(mine.nnz()), MPI_DOUBLE, full.val.data(), ncount.data(),
                 ndispl.data(), MPI_DOUBLE, li_comm);
  // Each slice's offsets are relative to its own start: shift them into the stacked block.
  for (int t = 1; t < lambda; ++t)
    for (int r = rdispl[t]; r < rdispl[t] + rcount[t]; ++r) full.rowptr[r + 1] += ndispl[t];

  for (int t = 0; t < lambda; ++t) {
    if (t == me) continue;
    const std::uint64_t b = Csr::wireBytes(slice_rows[t], slice_nnz[t]);
    if (received) *received += b;
    if (sent) *sent += mine.wireBytes();
  }
  return full;
}

}  // namespace Trident
