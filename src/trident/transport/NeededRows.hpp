#pragma once
// Which rows of B(s,j) a group really needs: the nonzero columns of its A(i,s). Fetching only
// those rows over Gi (instead of whole slices) is what keeps structured and banded products
// cheap, where most of a tile's rows meet no entry of A (a 1D import has that property for free;
// whole-tile 2D algorithms do not).
//
// Computed once before the multiply loop: the group that owns A(i,s) ORs its slices' column
// patterns over Li, then rank k of every group shares, over Gi, the part that falls into slice k
// of B's row block s (one bit per row). Both the owner of B(s,j) and the requesting group thus
// know the request without a handshake inside the loop.
#include <mpi.h>
#include <cstdint>
#include <vector>

#include "trident/partition/Layout.hpp"
#include "trident/partition/Redistribute.hpp"

namespace Trident {

class NeededRows {
 public:
  // Collective over li_comm and gi_comm. my_k: this rank's index in its group.
  NeededRows(const Layout& L, const OwnedTiles& tiles, int my_k, MPI_Comm li_comm, MPI_Comm gi_comm);
  // Rows of slice my_k of B's row block s needed by the groups of grid row i, as indices local to
  // the slice, ascending.
  const std::vector<int>& rows(int i, int s) const { return rows_[static_cast<size_t>(i) * rounds_ + s]; }

 private:
  int rounds_ = 1;
  std::vector<std::vector<int>> rows_;  // [i * rounds + s]
};

// The rows `keep` (ascending, local indices) of a block, as a block of keep.size() rows.
Csr selectRows(const Csr& m, const std::vector<int>& keep);
// Inverse of selectRows: the block of `nrows` rows with the given rows filled from `part`.
Csr expandRows(const Csr& part, const std::vector<int>& keep, std::int64_t nrows);

}  // namespace Trident
