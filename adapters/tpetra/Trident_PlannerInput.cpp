#include "Trident_PlannerInput.hpp"

#include <numeric>

#include "Trident_TpetraComm.hpp"
#include "Trident_TpetraConversion.hpp"
#include <trident/transport/BigCount.hpp>

namespace Trident {
namespace tpetra {

planner::Pattern gatherPattern(const crs_matrix_type& M, bool skip_zeros, int root, const map_type* row_space,
                               const map_type* col_space, bool record_owner) {
  MPI_Comm comm = rawComm(M.getComm());
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  auto rowMap = M.getRowMap();
  auto colMap = M.getColMap();
  const map_type& rs = row_space ? *row_space : *rowMap;
  const map_type& cs = col_space ? *col_space : *M.getDomainMap();
  const MapPositions rpos(rs), cpos(cs);
  const std::vector<std::int64_t> rowAt = positionsOf(rs, rpos, rowMap->getNodeElementList(), "a row of the pattern");
  const std::vector<std::int64_t> colAt = positionsOf(cs, cpos, colMap->getNodeElementList(), "a column of the pattern");
  auto local = M.getLocalMatrixHost();
  std::vector<std::int64_t> mine;  // (row, col) pairs; an empty row as (row, -1) so its owner is known
  for (LO r = 0; r < static_cast<LO>(M.getNodeNumRows()); ++r) {
    mine.push_back(rowAt[r]);
    mine.push_back(-1);
    for (std::size_t q = local.graph.row_map(r); q < local.graph.row_map(r + 1); ++q) {
      if (skip_zeros && local.values(q) == 0.0) continue;
      mine.push_back(rowAt[r]);
      mine.push_back(colAt[local.graph.entries(q)]);
    }
  }
  std::vector<std::int64_t> counts(P, 0);
  const std::int64_t n = static_cast<std::int64_t>(mine.size());
  std::vector<long long> all(P);
  long long nn = n;
  MPI_Allgather(&nn, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, comm);
  for (int p = 0; p < P; ++p) counts[p] = all[p];
  const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  planner::Pattern pat;
  pat.nrows = rpos.global();
  pat.ncols = cpos.global();
  const bool here = root < 0 || root == me;
  std::vector<std::int64_t> pairs(here ? static_cast<std::size_t>(total) : 0);
  if (root < 0) {
    bigcount::allgatherv(mine.data(), pairs.data(), counts, MPI_INT64_T, comm);
  } else {
    // Point-to-point to the root (a gatherv with 64-bit counts): small pieces, one per rank.
    if (me == root) {
      std::int64_t at = 0;
      for (int p = 0; p < P; ++p) {
        if (p == me) {
          std::copy(mine.begin(), mine.end(), pairs.begin() + at);
        } else {
          std::vector<MPI_Request> reqs;
          bigcount::irecv(pairs.data() + at, static_cast<std::size_t>(counts[p]), MPI_INT64_T, p, 7, comm, reqs);
          MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
        }
        at += counts[p];
      }
    } else {
      std::vector<MPI_Request> reqs;
      bigcount::isend(mine.data(), mine.size(), MPI_INT64_T, root, 7, comm, reqs);
      MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    }
  }
  if (!here) return pat;
  pat.rowptr.assign(static_cast<std::size_t>(pat.nrows) + 1, 0);
  if (record_owner) pat.owner.assign(static_cast<std::size_t>(pat.nrows), 0);
  std::int64_t at = 0;
  for (int p = 0; p < P; ++p) {
    for (std::int64_t e = at; e < at + counts[p]; e += 2) {
      if (record_owner) pat.owner[pairs[e]] = p;
      if (pairs[e + 1] >= 0) ++pat.rowptr[pairs[e] + 1];
    }
    at += counts[p];
  }
  for (std::int64_t r = 0; r < pat.nrows; ++r) pat.rowptr[r + 1] += pat.rowptr[r];
  pat.col.resize(static_cast<std::size_t>(pat.rowptr[pat.nrows]));
  std::vector<std::int64_t> next(pat.rowptr.begin(), pat.rowptr.end() - 1);
  for (std::size_t t = 0; t < pairs.size(); t += 2)
    if (pairs[t + 1] >= 0) pat.col[next[pairs[t]]++] = pairs[t + 1];
  return pat;
}

}  // namespace tpetra
}  // namespace Trident
