#pragma once
// Conversions between Tpetra's 1D row distribution (global IDs, any maps) and Trident's position
// space (0-based indices of C = A*B's dimensions, in map order). The way back is
// Trident_ResultAssembly.
#include <mpi.h>
#include <cstdint>
#include <vector>

#include "Trident_TpetraComm.hpp"
#include "Trident_TpetraTypes.hpp"
#include <trident/core/Errors.hpp>
#include <trident/partition/Permutation.hpp>
#include <trident/local/Csr.hpp>
#include <trident/partition/Redistribute.hpp>

namespace Trident {
namespace tpetra {

using Trident::tpetra::rawComm;  // Trident_TpetraComm.hpp

// Element LID l of `map` on rank p has position offset[p] + l. Collective (one Allgather).
class MapPositions {
 public:
  explicit MapPositions(const map_type& map);
  // Collective: the positions of several maps on one communicator in one all-gather (each map on
  // its own costs two collectives; on a slow global link every one is latency times log P).
  // sum, where given: this rank's value in, the sum over the ranks out, in the same all-gather.
  static std::vector<MapPositions> of(const std::vector<const map_type*>& maps, std::int64_t* sum = nullptr);
  std::int64_t global() const { return offset_.back(); }
  std::int64_t first() const { return offset_[rank_]; }
  int owner(std::int64_t pos) const;
  std::int64_t begin(int rank) const { return offset_[rank]; }
  // True when the map's GIDs are base, base+1, ... in rank order (Tpetra's contiguous maps):
  // then GID = base + position and no lookup is needed.
  bool linear() const { return linear_; }
  GO base() const { return base_; }

 private:
  MapPositions() = default;
  std::vector<std::int64_t> offset_;
  int rank_ = 0;
  bool linear_ = false;
  GO base_ = 0;
};

// Collective. Positions in `map` of arbitrary global IDs; every rank throws InvalidInput naming
// `what` if some ID is not in `map`. With `deferred`, a linear map's check is only recorded there
// (no communication): the caller runs it, so several look-ups share one collective.
std::vector<std::int64_t> positionsOf(const map_type& map, const MapPositions& pos,
                                      const Teuchos::ArrayView<const GO>& gids, const std::string& what,
                                      CollectiveCheck* deferred = nullptr);

// Collective. Global IDs of the given positions of `map` (any positions, any rank).
std::vector<GO> gidsAt(const Teuchos::RCP<const map_type>& map, const MapPositions& pos,
                       const std::vector<std::int64_t>& positions);

// The entries of a fill-complete matrix as position triplets. row_pos(lid) = row position of
// local row lid, col_pos[lid] = position of local column lid; both then relabeled.
// skip_zeros drops explicitly stored zeros: Tpetra's Multiply skips A's zero entries (they add
// nothing to C's structure), and so must a drop-in, for op(A); B's stored zeros do count.
// value_index (optional): for each triplet, the index of its value in A's local value array.
Triplets toTriplets(const crs_matrix_type& A, const std::vector<std::int64_t>& row_pos,
                    const std::vector<std::int64_t>& col_pos, const Permutation& row_perm,
                    const Permutation& col_perm, bool skip_zeros,
                    std::vector<std::int64_t>* value_index = nullptr);

// The same entries where A holds them (LocalRows: A's local CSR arrays, no copy, and the relabeled
// positions of its rows and columns). Valid while A lives and its values stay where they are.
LocalRows localRowsOf(const crs_matrix_type& A, const std::vector<std::int64_t>& row_pos,
                      const std::vector<std::int64_t>& col_pos, const Permutation& row_perm,
                      const Permutation& col_perm, bool skip_zeros);

}  // namespace tpetra
}  // namespace Trident
