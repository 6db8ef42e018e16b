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
  // For an A tile A(i,s) my group owns: the column masks of its lambda slices (slice q's mask at
  // q * bytes, bytes = (inner_width(s) + 7) / 8, bit c of byte c / 8), i.e. which rows of B's tile
  // each member uses in the round it multiplies this tile. Empty for tiles the group does not own.
  std::vector<std::uint8_t> groupMasks(int s) const;

 private:
  int rounds_ = 1, lambda_ = 1;
  std::int64_t packed_ = 0;              // bytes of one member's masks, all owned tiles
  std::vector<std::int64_t> mask_at_;    // offset of tile s in them, -1 when not owned
  std::vector<std::int64_t> mask_len_;   // and its length
  std::vector<std::uint8_t> group_masks_;  // every member's, member-major
  std::vector<std::vector<int>> rows_;  // [i * rounds + s]
};

// The rows `keep` (ascending, local indices) of a block, as a block of keep.size() rows.
Csr selectRows(const Csr& m, const std::vector<int>& keep);
// Inverse of selectRows: the block of `nrows` rows with the given rows filled from `part`.
Csr expandRows(const Csr& part, const std::vector<int>& keep, std::int64_t nrows);

}  // namespace Trident
