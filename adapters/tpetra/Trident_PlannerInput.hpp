#pragma once
// The planner's input from Tpetra matrices: the global sparsity pattern, by global IDs.
#include <mpi.h>

#include "Trident_TpetraTypes.hpp"
#include <trident/planner/Pattern.hpp>

namespace Trident {
namespace tpetra {

// Collective over M's communicator: the whole pattern of M on rank `root` (root < 0: on every
// rank) in position space, as the adapter numbers rows and columns (MapPositions: a map's GIDs in
// rank order): rows by their position in row_space (default: M's row map; for B of A*B, A's
// domain map), columns by their position in col_space (default: M's domain map). With
// record_owner, Pattern::owner says which rank holds each row. skip_zeros: stored zeros are left
// out, as the adapter leaves them out of op(A)'s tiles.
planner::Pattern gatherPattern(const crs_matrix_type& M, bool skip_zeros, int root = -1,
                               const map_type* row_space = nullptr, const map_type* col_space = nullptr,
                               bool record_owner = true);

}  // namespace tpetra
}  // namespace Trident
