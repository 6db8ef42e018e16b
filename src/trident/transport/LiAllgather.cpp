#include "trident/transport/LiAllgather.hpp"

#include <numeric>

#include "trident/core/BigCount.hpp"
#include "trident/transport/LiRowExchange.hpp"

namespace Trident {

MpiLiTransport::MpiLiTransport(MPI_Comm li_comm) : comm_(li_comm) { MPI_Comm_rank(li_comm, &me_); }

std::unique_ptr<LiRowsInFlight> MpiLiTransport::exchangeNeededRows(int round, const Csr& a, const Csr& mine,
                                                                   const std::vector<int>* mine_rows,
                                                                   std::vector<std::int64_t> slice_rows,
                                                                   std::vector<std::vector<int>> used,
                                                                   bool as_lists) {
  return std::make_unique<LiRowExchange>(comm_, round, a, mine, mine_rows, std::move(slice_rows), me_,
                                         std::move(used), as_lists);
}

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

Csr MpiLiTransport::allgatherRows(const Csr& mine, const std::vector<int>* mine_rows,
                                  const std::vector<std::int64_t>& slice_rows,
                                  const std::vector<std::int64_t>& slice_nnz, std::vector<int>* tile_rows,
                                  std::uint64_t* sent, std::uint64_t* received) {
  MPI_Comm li_comm = comm_;
  const int lambda = static_cast<int>(slice_rows.size());
  int me = 0;
  MPI_Comm_rank(li_comm, &me);
  std::int64_t first = 0;  // my slice's first tile row
  for (int t = 0; t < me; ++t) first += slice_rows[t];
  // My nonempty rows as tile rows (they fit in int: checkLocalIndexRange) and their lengths.
  std::vector<int> ids;
  std::vector<std::int64_t> lengths;
  for (std::int64_t x = 0; x < mine.nrows; ++x) {
    const std::int64_t len = mine.rowptr[x + 1] - mine.rowptr[x];
    if (len == 0) continue;
    ids.push_back(static_cast<int>(first + (mine_rows ? (*mine_rows)[x] : x)));
    lengths.push_back(len);
  }
  std::vector<std::int64_t> counts(lambda);
  std::int64_t mineCount = static_cast<std::int64_t>(ids.size());
  MPI_Allgather(&mineCount, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, li_comm);
  std::int64_t rows = 0, nz = 0;
  for (int t = 0; t < lambda; ++t) {
    rows += counts[t];
    nz += slice_nnz[t];
  }
  tile_rows->resize(static_cast<std::size_t>(rows));
  Csr full;
  full.allocate(rows, mine.ncols, nz);
  bigcount::allgatherv(ids.data(), tile_rows->data(), counts, MPI_INT, li_comm);
  bigcount::allgatherv(lengths.data(), full.rowptr.data() + 1, counts, MPI_INT64_T, li_comm);
  bigcount::allgatherv(mine.col.data(), full.col.data(), slice_nnz, MPI_INT, li_comm);
  bigcount::allgatherv(mine.val.data(), full.val.data(), slice_nnz, MPI_DOUBLE, li_comm);
  for (std::int64_t r = 0; r < rows; ++r) full.rowptr[r + 1] += full.rowptr[r];

  for (int t = 0; t < lambda; ++t) {
    if (t == me) continue;
    if (received) *received += 12u * static_cast<std::uint64_t>(counts[t] + slice_nnz[t]);
    if (sent) *sent += 12u * static_cast<std::uint64_t>(mineCount + mine.nnz());
  }
  return full;
}

}  // namespace Trident
