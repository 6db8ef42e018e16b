#pragma once
// Conversions between Tpetra's 1D row distribution (global IDs, any maps) and Trident's position
// space (0-based indices of C = A*B's dimensions, in map order), and the assembly of C.
#include <mpi.h>
#include <cstdint>
#include <vector>

#include "Trident_TpetraTypes.hpp"
#include <trident/partition/Permutation.hpp>
#include <trident/local/Csr.hpp>
#include <trident/partition/Redistribute.hpp>

namespace Trident {
namespace tpetra {

MPI_Comm rawComm(const comm_ptr& comm);

// Element LID l of `map` on rank p has position offset[p] + l. Collective (one Allgather).
class MapPositions {
 public:
  explicit MapPositions(const map_type& map);
  std::int64_t global() const { return offset_.back(); }
  std::int64_t first() const { return offset_[rank_]; }
  int owner(std::int64_t pos) const;
  std::int64_t begin(int rank) const { return offset_[rank]; }
  // True when the map's GIDs are base, base+1, ... in rank order (Tpetra's contiguous maps):
  // then GID = base + position and no lookup is needed.
  bool linear() const { return linear_; }
  GO base() const { return base_; }

 private:
  std::vector<std::int64_t> offset_;
  int rank_ = 0;
  bool linear_ = false;
  GO base_ = 0;
};

// Collective. Positions in `map` of arbitrary global IDs; every rank throws InvalidInput naming
// `what` if some ID is not in `map`.
std::vector<std::int64_t> positionsOf(const map_type& map, const MapPositions& pos,
                                      const Teuchos::ArrayView<const GO>& gids, const std::string& what);

// Collective. Global IDs of the given positions of `map` (any positions, any rank).
std::vector<GO> gidsAt(const Teuchos::RCP<const map_type>& map, const MapPositions& pos,
                       const std::vector<std::int64_t>& positions);

// The entries of a fill-complete matrix as position triplets. row_pos(lid) = row position of
// local row lid, col_pos[lid] = position of local column lid; both then relabeled.
// skip_zeros drops explicitly stored zeros: Tpetra's Multiply skips A's zero entries (they add
// nothing to C's structure), and so must a drop-in, for op(A); B's stored zeros do count.
Triplets toTriplets(const crs_matrix_type& A, const std::vector<std::int64_t>& row_pos,
                    const std::vector<std::int64_t>& col_pos, const Permutation& row_perm,
                    const Permutation& col_perm, bool skip_zeros);

// C's rows gathered on their owners (op(A)'s row map), columns as positions of op(B)'s domain map.
struct ResultRows {
  std::vector<std::size_t> rowptr;  // local rows + 1
  std::vector<std::int64_t> colpos;
  std::vector<double> val;
};

// Collective. Sends every row of this rank's C block (rows row0.., block-local columns from col0,
// both relabeled by the permutations) to the owner of the row. One Alltoallv per array, entries
// stay in row order, so no global sort is needed on arrival.
ResultRows sendRowsToOwners(const Csr& block, std::int64_t row0, std::int64_t col0, const Permutation& row_perm,
                            const Permutation& col_perm, const MapPositions& rowPos, std::size_t local_rows,
                            MPI_Comm comm, std::vector<std::uint64_t>* bytes_to, std::int64_t ncols);

// Fills C (constructed on op(A)'s row map) with the rows: a fresh C gets Tpetra's column-map
// convention and expertStaticFillComplete (or is left open, locally indexed, when fill_complete is
// false); a fill-complete C is reused (its pattern must hold the product); a C with a column map
// of its own gets insertGlobalValues. Collective; pattern mismatches throw on every rank.
void assembleResult(crs_matrix_type& C, const ResultRows& rows, const MapPositions& colPos,
                    const Teuchos::RCP<const map_type>& domainMap, const Teuchos::RCP<const map_type>& rangeMap,
                    bool fill_complete, const Teuchos::RCP<Teuchos::ParameterList>& fill_params);

}  // namespace tpetra
}  // namespace Trident
