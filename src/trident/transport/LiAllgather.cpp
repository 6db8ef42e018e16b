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

Csr MpiLiTransport::exchangeNeeded(const Csr& a, const Csr& mine, const std::vector<std::int64_t>& slice_rows,
                                   int me, std::uint64_t* sent, std::uint64_t* received) {
  const int lambda = static_cast<int>(slice_rows.size());
  std::vector<std::int64_t> first(lambda + 1, 0);
  std::partial_sum(slice_rows.begin(), slice_rows.end(), first.begin() + 1);
  const std::int64_t rows = first[lambda];
  const std::int64_t bytes = (rows + 7) / 8;

  // 1. Who needs which rows of the tile: one bit per row, from each rank's A slice.
  std::vector<std::uint8_t> bits(static_cast<std::size_t>(lambda) * bytes, 0);
  {
    std::vector<std::uint8_t> my(static_cast<std::size_t>(bytes), 0);
    for (int c : a.col) my[c / 8] |= static_cast<std::uint8_t>(1u << (c % 8));
    bigcount::allgatherv(my.data(), bits.data(), std::vector<std::int64_t>(lambda, bytes), MPI_UINT8_T, comm_);
  }
  auto wants = [&](int q, std::int64_t row) { return (bits[static_cast<std::size_t>(q) * bytes + row / 8] >> (row % 8)) & 1u; };

  // 2. Send each rank the rows of my slice it wants: per rank, the row lengths (in row order of
  // the rows it wants, which it can enumerate itself) and the entries.
  std::vector<std::int64_t> lcount(lambda, 0), ecount(lambda, 0);
  std::vector<std::int64_t> lsend;
  std::vector<int> csend;
  std::vector<double> vsend;
  for (int q = 0; q < lambda; ++q) {
    if (q == me) continue;
    for (std::int64_t r = 0; r < mine.nrows; ++r) {
      if (!wants(q, first[me] + r)) continue;
      const std::int64_t b = mine.rowptr[r], e = mine.rowptr[r + 1];
      lsend.push_back(e - b);
      csend.insert(csend.end(), mine.col.begin() + b, mine.col.begin() + e);
      vsend.insert(vsend.end(), mine.val.begin() + b, mine.val.begin() + e);
      ++lcount[q];
      ecount[q] += e - b;
    }
  }
  std::vector<std::int64_t> lrecv(lambda, 0);
  for (int q = 0; q < lambda; ++q)
    if (q != me)
      for (std::int64_t r = first[q]; r < first[q + 1]; ++r) lrecv[q] += wants(me, r) ? 1 : 0;
  const std::vector<std::int64_t> erecv = bigcount::exchangeCounts(ecount, comm_);
  std::vector<std::int64_t> lin(static_cast<std::size_t>(std::accumulate(lrecv.begin(), lrecv.end(), std::int64_t{0})));
  std::vector<int> cin(static_cast<std::size_t>(std::accumulate(erecv.begin(), erecv.end(), std::int64_t{0})));
  std::vector<double> vin(cin.size());
  bigcount::alltoallv(lsend.data(), lcount, lin.data(), lrecv, MPI_INT64_T, comm_);
  bigcount::alltoallv(csend.data(), ecount, cin.data(), erecv, MPI_INT, comm_);
  bigcount::alltoallv(vsend.data(), ecount, vin.data(), erecv, MPI_DOUBLE, comm_);

  // 3. The tile for me: my own slice in full, the received rows in place, everything else empty.
  Csr out(rows, mine.ncols);
  std::size_t li = 0;
  for (int q = 0; q < lambda; ++q) {
    for (std::int64_t r = first[q]; r < first[q + 1]; ++r) {
      std::int64_t n = 0;
      if (q == me)
        n = mine.rowptr[r - first[q] + 1] - mine.rowptr[r - first[q]];
      else if (wants(me, r))
        n = lin[li++];
      out.rowptr[r + 1] = out.rowptr[r] + n;
    }
  }
  out.col.resize(out.rowptr[rows]);
  out.val.resize(out.rowptr[rows]);
  std::size_t e = 0;
  for (int q = 0; q < lambda; ++q) {
    if (q == me) {
      std::copy(mine.col.begin(), mine.col.end(), out.col.begin() + out.rowptr[first[q]]);
      std::copy(mine.val.begin(), mine.val.end(), out.val.begin() + out.rowptr[first[q]]);
      continue;
    }
    const std::int64_t at = out.rowptr[first[q]], n = out.rowptr[first[q + 1]] - at;
    std::copy(cin.begin() + e, cin.begin() + e + n, out.col.begin() + at);
    std::copy(vin.begin() + e, vin.begin() + e + n, out.val.begin() + at);
    e += n;
  }
  for (int q = 0; q < lambda; ++q) {
    if (q == me) continue;
    if (sent)
      *sent += static_cast<std::uint64_t>(bytes) + 8u * static_cast<std::uint64_t>(lcount[q]) +
               12u * static_cast<std::uint64_t>(ecount[q]);
    if (received)
      *received += static_cast<std::uint64_t>(bytes) + 8u * static_cast<std::uint64_t>(lrecv[q]) +
                   12u * static_cast<std::uint64_t>(erecv[q]);
  }
  return out;
}

}  // namespace Trident
