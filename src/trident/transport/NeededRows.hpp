#pragma once
// Which rows of B(s,j) a group really needs: the nonzero columns of its A(i,s). Fetching only
// those rows over Gi (instead of whole slices) is what keeps structured and banded products
// cheap, where most of a tile's rows meet no entry of A (a 1D import has that property for free;
// whole-tile 2D algorithms do not).
//
// Computed once before the multiply loop: the group that owns A(i,s) gathers its slices' column
// lists over Li, then rank k of every group shares, over Gi, the part of their union that falls
// into slice k of B's row block s. Both the owner of B(s,j) and the requesting group thus know the
// request without a handshake inside the loop. Everything stays as sorted index lists, O(entries
// of A), never one bit per row of a tile: a hypersparse tile has far more rows than entries
// (test_memory_scaling); a list travels as a bitmap only when the bitmap is shorter.
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
  // For an A tile A(i,s) my group owns: the columns each of its lambda slices uses (tile-local,
  // ascending; member q's at [q]), i.e. which rows of B's tile each member uses in the round it
  // multiplies this tile. Empty for tiles the group does not own.
  std::vector<std::vector<int>> groupColumns(int s) const;

 private:
  int rounds_ = 1, lambda_ = 1;
  std::vector<int> group_cols_;          // every member's column lists, member-major, then by s
  std::vector<std::int64_t> group_at_;   // [q * (rounds + 1) + s]: start of member q's list of tile s
  std::vector<std::vector<int>> rows_;  // [i * rounds + s]
};

// The rows `keep` (ascending, local indices) of a block, as a block of keep.size() rows.
Csr selectRows(const Csr& m, const std::vector<int>& keep);
// The same from a row-compressed block: m holds only the rows `stored` lists (ascending); rows of
// keep that it does not hold come out empty.
Csr selectRows(const Csr& m, const std::vector<int>& stored, const std::vector<int>& keep);
// Inverse of selectRows: the block of `nrows` rows with the given rows filled from `part`.
Csr expandRows(const Csr& part, const std::vector<int>& keep, std::int64_t nrows);

}  // namespace Trident
