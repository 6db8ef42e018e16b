#include "Trident_TpetraConversion.hpp"

#include <Teuchos_DefaultMpiComm.hpp>
#include <algorithm>
#include <limits>
#include <numeric>

#include <trident/core/Errors.hpp>
#include <trident/stats/PhaseTimer.hpp>
#include <trident/transport/BigCount.hpp>

namespace Trident {
namespace tpetra {


MapPositions::MapPositions(const map_type& map) : MapPositions(of({&map}).front()) {}

std::vector<MapPositions> MapPositions::of(const std::vector<const map_type*>& maps) {
  MPI_Comm comm = rawComm(maps.front()->getComm());
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  // Per map: this rank's count and its first GID when its GIDs are one contiguous run (else a
  // sentinel), from which every rank tells whether the map is "linear" without a second round.
  const std::size_t n = maps.size();
  const std::int64_t kNotRun = std::numeric_limits<std::int64_t>::min();
  std::vector<std::int64_t> mine(2 * n), all(2 * n * static_cast<std::size_t>(P));
  for (std::size_t m = 0; m < n; ++m) {
    const map_type& map = *maps[m];
    mine[2 * m] = static_cast<std::int64_t>(map.getNodeNumElements());
    mine[2 * m + 1] = map.isContiguous() ? static_cast<std::int64_t>(map.getMinGlobalIndex()) : kNotRun;
  }
  MPI_Allgather(mine.data(), static_cast<int>(2 * n), MPI_INT64_T, all.data(), static_cast<int>(2 * n), MPI_INT64_T,
                comm);
  std::vector<MapPositions> out;
  out.reserve(n);
  for (std::size_t m = 0; m < n; ++m) {
    MapPositions pos;
    pos.rank_ = me;
    pos.offset_.assign(P + 1, 0);
    for (int q = 0; q < P; ++q) pos.offset_[q + 1] = pos.offset_[q] + all[(static_cast<std::size_t>(q) * n + m) * 2];
    pos.base_ = maps[m]->getMinAllGlobalIndex();
    bool linear = true;
    for (int q = 0; q < P && linear; ++q) {
      const std::int64_t count = all[(static_cast<std::size_t>(q) * n + m) * 2];
      const std::int64_t first = all[(static_cast<std::size_t>(q) * n + m) * 2 + 1];
      linear = first != kNotRun && (count == 0 || first == pos.base_ + pos.offset_[q]);
    }
    pos.linear_ = linear;
    out.push_back(std::move(pos));
  }
  return out;
}

int MapPositions::owner(std::int64_t pos) const {
  return static_cast<int>(std::upper_bound(offset_.begin(), offset_.end(), pos) - offset_.begin()) - 1;
}

std::vector<std::int64_t> positionsOf(const map_type& map, const MapPositions& pos,
                                      const Teuchos::ArrayView<const GO>& gids, const std::string& what,
                                      CollectiveCheck* deferred) {
  std::vector<std::int64_t> out(gids.size());
  if (pos.linear()) {
    bool bad = false;
    GO missing = 0;
    for (std::size_t t = 0; t < out.size(); ++t) {
      out[t] = gids[t] - pos.base();
      if (out[t] < 0 || out[t] >= pos.global()) {
        bad = true;
        missing = gids[t];
      }
    }
    const std::string message = what + ": global index " + std::to_string(missing) + " is not in the map it must match";
    if (deferred)
      deferred->failIf(bad, message);
    else
      throwIfAnyRank(rawComm(map.getComm()), bad, message);
    return out;
  }
  Teuchos::Array<int> pids(gids.size());
  Teuchos::Array<LO> lids(gids.size());
  const Tpetra::LookupStatus st = map.getRemoteIndexList(gids, pids(), lids());
  bool bad = (st != Tpetra::AllIDsPresent);
  GO missing = 0;
  for (std::size_t t = 0; t < out.size(); ++t) {
    if (pids[t] < 0) {
      if (!bad || missing == 0) missing = gids[t];
      bad = true;
      continue;
    }
    out[t] = pos.begin(pids[t]) + lids[t];
  }
  throwIfAnyRank(rawComm(map.getComm()), bad,
                 what + ": global index " + std::to_string(missing) + " is not in the map it must match");
  return out;
}

std::vector<GO> gidsAt(const Teuchos::RCP<const map_type>& map, const MapPositions& pos,
                       const std::vector<std::int64_t>& positions) {
  if (pos.linear()) {
    std::vector<GO> out(positions.size());
    for (std::size_t t = 0; t < out.size(); ++t) out[t] = pos.base() + positions[t];
    return out;
  }
  // Ask each position's owner for its GID (int64 both ways: exact for any GID).
  static_assert(sizeof(GO) == sizeof(std::int64_t), "GIDs travel as MPI_INT64_T");
  MPI_Comm comm = rawComm(map->getComm());
  int P = 1;
  MPI_Comm_size(comm, &P);
  std::vector<std::int64_t> counts(P, 0);
  for (std::int64_t p : positions) ++counts[pos.owner(p)];
  std::vector<std::int64_t> offset(P + 1, 0);
  for (int q = 0; q < P; ++q) offset[q + 1] = offset[q] + counts[q];
  std::vector<std::int64_t> ask(positions.size()), slot(positions.size());
  {
    std::vector<std::int64_t> next(offset.begin(), offset.end() - 1);
    for (std::size_t t = 0; t < positions.size(); ++t) {
      const std::int64_t at = next[pos.owner(positions[t])]++;
      ask[at] = positions[t];
      slot[at] = static_cast<std::int64_t>(t);
    }
  }
  const std::vector<std::int64_t> rcounts = bigcount::exchangeCounts(counts, comm);
  std::int64_t nin = 0;
  for (std::int64_t c : rcounts) nin += c;
  std::vector<std::int64_t> asked(static_cast<std::size_t>(nin));
  bigcount::alltoallv(ask.data(), counts, asked.data(), rcounts, MPI_INT64_T, comm);
  auto mine = map->getNodeElementList();
  std::vector<GO> answer(asked.size());
  for (std::size_t t = 0; t < asked.size(); ++t) answer[t] = mine[static_cast<LO>(asked[t] - pos.first())];
  std::vector<GO> got(positions.size());
  bigcount::alltoallv(answer.data(), rcounts, got.data(), counts, MPI_INT64_T, comm);
  std::vector<GO> out(positions.size());
  for (std::size_t t = 0; t < got.size(); ++t) out[slot[t]] = got[t];
  return out;
}

Triplets toTriplets(const crs_matrix_type& A, const std::vector<std::int64_t>& row_pos,
                    const std::vector<std::int64_t>& col_pos, const Permutation& row_perm,
                    const Permutation& col_perm, bool skip_zeros, std::vector<std::int64_t>* value_index) {
  auto local = A.getLocalMatrixHost();
  auto rowmap = local.graph.row_map;
  const LO* const entries = local.graph.entries.data();
  const double* const values = local.values.data();
  const std::size_t nz = local.values.extent(0);
  const LO nrows = static_cast<LO>(A.getNodeNumRows());
  std::size_t kept = nz;
  if (skip_zeros) kept -= static_cast<std::size_t>(std::count(values, values + nz, 0.0));
  // Sized once and written by index: this runs on every entry of both operands on every call.
  Triplets T;
  T.row.resize(kept);
  T.col.resize(kept);
  T.val.resize(kept);
  if (value_index) value_index->resize(kept);
  // Column positions once per column of the column map, not once per entry.
  std::vector<std::int64_t> colOf(col_pos.size());
  for (std::size_t c = 0; c < col_pos.size(); ++c) colOf[c] = col_perm(col_pos[c]);
  std::size_t t = 0;
  for (LO r = 0; r < nrows; ++r) {
    const std::int64_t rp = row_perm(row_pos[r]);
    for (std::size_t q = rowmap(r); q < rowmap(r + 1); ++q) {
      if (skip_zeros && values[q] == 0.0) continue;
      T.row[t] = rp;
      T.col[t] = colOf[entries[q]];
      T.val[t] = values[q];
      if (value_index) (*value_index)[t] = static_cast<std::int64_t>(q);
      ++t;
    }
  }
  return T;
}

}  // namespace tpetra
}  // namespace Trident
