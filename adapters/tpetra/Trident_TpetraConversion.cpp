#include "Trident_TpetraConversion.hpp"

#include <Teuchos_DefaultMpiComm.hpp>
#include <algorithm>
#include <limits>
#include <numeric>

#include <trident/core/Errors.hpp>
#include <trident/stats/PhaseTimer.hpp>
#include <trident/core/BigCount.hpp>

namespace Trident {
namespace tpetra {


MapPositions::MapPositions(const map_type& map) : MapPositions(of({&map}).front()) {}

std::vector<MapPositions> MapPositions::of(const std::vector<const map_type*>& maps, std::int64_t* sum) {
  MPI_Comm comm = rawComm(maps.front()->getComm());
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  // Per map: this rank's count and its first GID when its GIDs are one contiguous run (else a
  // sentinel), from which every rank tells whether the map is "linear" without a second round.
  const std::size_t n = maps.size(), words = 2 * n + 1;
  const std::int64_t kNotRun = std::numeric_limits<std::int64_t>::min();
  std::vector<std::int64_t> mine(words), all(words * static_cast<std::size_t>(P));
  for (std::size_t m = 0; m < n; ++m) {
    const map_type& map = *maps[m];
    mine[2 * m] = static_cast<std::int64_t>(Compat::localNumElements(map));
    mine[2 * m + 1] = map.isContiguous() ? static_cast<std::int64_t>(map.getMinGlobalIndex()) : kNotRun;
  }
  mine[2 * n] = sum ? *sum : 0;
  MPI_Allgather(mine.data(), static_cast<int>(words), MPI_INT64_T, all.data(), static_cast<int>(words), MPI_INT64_T,
                comm);
  if (sum) {
    *sum = 0;
    for (int q = 0; q < P; ++q) *sum += all[static_cast<std::size_t>(q) * words + 2 * n];
  }
  std::vector<MapPositions> out;
  out.reserve(n);
  for (std::size_t m = 0; m < n; ++m) {
    MapPositions pos;
    pos.rank_ = me;
    pos.offset_.assign(P + 1, 0);
    for (int q = 0; q < P; ++q) pos.offset_[q + 1] = pos.offset_[q] + all[static_cast<std::size_t>(q) * words + 2 * m];
    pos.base_ = maps[m]->getMinAllGlobalIndex();
    bool linear = true;
    for (int q = 0; q < P && linear; ++q) {
      const std::int64_t count = all[static_cast<std::size_t>(q) * words + 2 * m];
      const std::int64_t first = all[static_cast<std::size_t>(q) * words + 2 * m + 1];
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
  auto mine = Compat::localElementList(*map);
  std::vector<GO> answer(asked.size());
  for (std::size_t t = 0; t < asked.size(); ++t) answer[t] = mine[static_cast<LO>(asked[t] - pos.first())];
  std::vector<GO> got(positions.size());
  bigcount::alltoallv(answer.data(), rcounts, got.data(), counts, MPI_INT64_T, comm);
  std::vector<GO> out(positions.size());
  for (std::size_t t = 0; t < got.size(); ++t) out[slot[t]] = got[t];
  return out;
}

LocalRows localRowsOf(const crs_matrix_type& A, const std::vector<std::int64_t>& row_pos,
                      const std::vector<std::int64_t>& col_pos, const Permutation& row_perm,
                      const Permutation& col_perm, bool skip_zeros) {
  auto local = A.getLocalMatrixHost();
  static_assert(sizeof(*local.graph.row_map.data()) == sizeof(std::size_t), "Tpetra's row offsets are size_t");
  LocalRows R;
  R.nrows = static_cast<std::int64_t>(Compat::localNumRows(A));
  R.rowptr = reinterpret_cast<const std::size_t*>(local.graph.row_map.data());
  R.col = local.graph.entries.data();
  R.val = local.values.data();
  R.skip_zeros = skip_zeros;
  // Positions once per row and per column of the column map, not once per entry.
  R.row_pos.resize(static_cast<std::size_t>(R.nrows));
  for (std::size_t r = 0; r < R.row_pos.size(); ++r) R.row_pos[r] = row_perm(row_pos[r]);
  R.col_pos.resize(col_pos.size());
  for (std::size_t c = 0; c < col_pos.size(); ++c) R.col_pos[c] = col_perm(col_pos[c]);
  R.countEntries();
  return R;
}

Triplets toTriplets(const crs_matrix_type& A, const std::vector<std::int64_t>& row_pos,
                    const std::vector<std::int64_t>& col_pos, const Permutation& row_perm,
                    const Permutation& col_perm, bool skip_zeros, std::vector<std::int64_t>* value_index) {
  return toTriplets(localRowsOf(A, row_pos, col_pos, row_perm, col_perm, skip_zeros), value_index);
}

}  // namespace tpetra
}  // namespace Trident
