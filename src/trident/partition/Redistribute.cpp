#include "trident/partition/Redistribute.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace Trident {

namespace {

template <class T>
void alltoallv(const std::vector<T>& send, const std::vector<int>& scount, const std::vector<int>& sdispl,
               std::vector<T>& recv, const std::vector<int>& rcount, const std::vector<int>& rdispl,
               MPI_Datatype type, MPI_Comm comm) {
  MPI_Alltoallv(send.data(), scount.data(), sdispl.data(), type, recv.data(), rcount.data(), rdispl.data(),
                type, comm);
}

}  // namespace

Triplets exchangeTriplets(const Triplets& in, const std::vector<int>& dest, MPI_Comm comm,
                          std::vector<std::uint64_t>* bytes_to) {
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  std::vector<int> scount(P, 0), rcount(P, 0);
  for (int d : dest) ++scount[d];
  MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, comm);
  std::vector<int> sdispl(P, 0), rdispl(P, 0);
  std::exclusive_scan(scount.begin(), scount.end(), sdispl.begin(), 0);
  std::exclusive_scan(rcount.begin(), rcount.end(), rdispl.begin(), 0);
  const std::size_t nsend = in.size();
  const std::size_t nrecv = static_cast<std::size_t>(rdispl[P - 1]) + rcount[P - 1];

  // Indices travel as 32-bit integers whenever every index fits (8 bytes less per entry).
  std::int64_t maxIndex = 0;
  for (std::size_t t = 0; t < nsend; ++t) maxIndex = std::max({maxIndex, in.row[t], in.col[t]});
  MPI_Allreduce(MPI_IN_PLACE, &maxIndex, 1, MPI_INT64_T, MPI_MAX, comm);
  const bool narrow = maxIndex <= std::numeric_limits<std::int32_t>::max();

  std::vector<int> next = sdispl;
  std::vector<std::size_t> slot(nsend);
  for (std::size_t t = 0; t < nsend; ++t) slot[t] = static_cast<std::size_t>(next[dest[t]]++);
  Triplets out;
  out.row.resize(nrecv);
  out.col.resize(nrecv);
  out.val.resize(nrecv);
  std::vector<double> vsend(nsend);
  for (std::size_t t = 0; t < nsend; ++t) vsend[slot[t]] = in.val[t];
  alltoallv(vsend, scount, sdispl, out.val, rcount, rdispl, MPI_DOUBLE, comm);
  vsend = {};
  if (narrow) {
    std::vector<std::int32_t> isend(nsend), irecv(nrecv);
    for (std::size_t t = 0; t < nsend; ++t) isend[slot[t]] = static_cast<std::int32_t>(in.row[t]);
    alltoallv(isend, scount, sdispl, irecv, rcount, rdispl, MPI_INT32_T, comm);
    std::copy(irecv.begin(), irecv.end(), out.row.begin());
    for (std::size_t t = 0; t < nsend; ++t) isend[slot[t]] = static_cast<std::int32_t>(in.col[t]);
    alltoallv(isend, scount, sdispl, irecv, rcount, rdispl, MPI_INT32_T, comm);
    std::copy(irecv.begin(), irecv.end(), out.col.begin());
  } else {
    std::vector<std::int64_t> isend(nsend);
    for (std::size_t t = 0; t < nsend; ++t) isend[slot[t]] = in.row[t];
    alltoallv(isend, scount, sdispl, out.row, rcount, rdispl, MPI_INT64_T, comm);
    for (std::size_t t = 0; t < nsend; ++t) isend[slot[t]] = in.col[t];
    alltoallv(isend, scount, sdispl, out.col, rcount, rdispl, MPI_INT64_T, comm);
  }
  if (bytes_to) {
    const std::uint64_t per = (narrow ? 2 * sizeof(std::int32_t) : 2 * sizeof(std::int64_t)) + sizeof(double);
    bytes_to->resize(P, 0);
    for (int d = 0; d < P; ++d)
      if (d != me) (*bytes_to)[d] += per * static_cast<std::uint64_t>(scount[d]);
  }
  return out;
}

OwnedTiles distributeTiles(const Layout& L, const Triplets& A, const Triplets& B, const RankOf& rank_of,
                           int my_unit, int my_k, MPI_Comm comm, std::vector<std::uint64_t>* bytes_to) {
  const TileGrid& g = L.grid;
  // Entries come row by row: the row's block and slice are looked up once per row.
  std::vector<int> dest(A.size());
  std::int64_t lastRow = -1;
  int i = 0, slice = 0;
  for (std::size_t t = 0; t < A.size(); ++t) {
    if (A.row[t] != lastRow) {
      lastRow = A.row[t];
      i = L.row_block(lastRow);
      slice = L.a_slice_of(i, lastRow);
    }
    dest[t] = rank_of(g.a_owner(i, L.inner_block(A.col[t])), slice);
  }
  Triplets myA = exchangeTriplets(A, dest, comm, bytes_to);
  dest.resize(B.size());
  lastRow = -1;
  int s = 0;
  for (std::size_t t = 0; t < B.size(); ++t) {
    if (B.row[t] != lastRow) {
      lastRow = B.row[t];
      s = L.inner_block(lastRow);
      slice = L.b_slice_of(s, lastRow);
    }
    dest[t] = rank_of(g.b_owner(s, L.col_block(B.col[t])), slice);
  }
  Triplets myB = exchangeTriplets(B, dest, comm, bytes_to);

  const int ui = g.unit_row(my_unit), uj = g.unit_col(my_unit);
  OwnedTiles tiles;
  tiles.a.resize(g.rounds);
  tiles.b.resize(g.rounds);
  tiles.owns_a.assign(g.rounds, false);
  tiles.owns_b.assign(g.rounds, false);

  // Bucket received entries by stage, then build each slice as a CSR with block-local indices.
  auto build = [&](const Triplets& T, bool isA, std::vector<Csr>& out, std::vector<bool>& owns) {
    std::vector<std::vector<std::size_t>> by_stage(g.rounds);
    for (std::size_t t = 0; t < T.size(); ++t)
      by_stage[isA ? L.inner_block(T.col[t]) : L.inner_block(T.row[t])].push_back(t);
    for (int s = 0; s < g.rounds; ++s) {
      const bool owned = isA ? (g.a_owner(ui, s) == my_unit) : (g.b_owner(s, uj) == my_unit);
      if (!owned) continue;
      owns[s] = true;
      const std::int64_t r0 = isA ? L.a_slice(ui, my_k) : L.b_slice(s, my_k);
      const std::int64_t r1 = isA ? L.a_slice(ui, my_k + 1) : L.b_slice(s, my_k + 1);
      const std::int64_t c0 = isA ? L.inner_bounds[s] : L.col_bounds[uj];
      const std::int64_t ncols = isA ? L.inner_width(s) : L.col_width(uj);
      std::vector<std::int64_t> rows;
      std::vector<int> cols;
      std::vector<double> vals;
      rows.reserve(by_stage[s].size());
      cols.reserve(by_stage[s].size());
      vals.reserve(by_stage[s].size());
      for (std::size_t t : by_stage[s]) {
        rows.push_back(T.row[t] - r0);
        cols.push_back(static_cast<int>(T.col[t] - c0));
        vals.push_back(T.val[t]);
      }
      out[s] = csrFromTriplets(r1 - r0, ncols, rows, cols, vals, false);
    }
  };
  build(myA, true, tiles.a, tiles.owns_a);
  build(myB, false, tiles.b, tiles.owns_b);
  return tiles;
}

}  // namespace Trident
