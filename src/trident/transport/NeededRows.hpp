#pragma once
// Which rows of B(s,j) a group really needs: the nonzero columns of its A(i,s). Fetching only
// those rows over Gi (instead of whole slices) is what keeps structured and banded products
// cheap, where most of a tile's rows meet no entry of A (a 1D import has that property for free;
// whole-tile 2D algorithms do not).
//
// Computed once before the multiply loop, in two steps: the group that owns A(i,s) gathers its
// slices' column lists over Li (the constructor), then rank k of every group shares, over Gi, the
// part of their union that falls into slice k of B's row block s (portions() out, setPortions()
// in; transport/TileMetadata sends them with the tile sizes in one round of messages). Both the
// owner of B(s,j) and the requesting group thus know the request without a handshake inside the
// loop. Everything stays as sorted index lists, O(entries of A), never one bit per row of a tile:
// a hypersparse tile has far more rows than entries (test_memory_scaling); a list travels as a
// bitmap only when the bitmap is shorter.
#include <mpi.h>
#include <cstdint>
#include <vector>

#include "trident/partition/Layout.hpp"
#include "trident/partition/Redistribute.hpp"

namespace Trident {

// Sorted index lists as they travel: per piece its length as a list (meta[2p]) and its length on
// the wire (meta[2p + 1]: shorter only as a bitmap of the piece's range), then the words.
struct PackedLists {
  std::vector<std::int64_t> meta;
  std::vector<int> wire;
};

class NeededRows {
 public:
  // Step 1, collective over li_comm: every member's column lists of the A tiles my group owns, and
  // my slice-my_k portions of their union (to be shared over Gi).
  NeededRows(const Layout& L, const OwnedTiles& tiles, int my_k, MPI_Comm li_comm);
  // My portions, packed: one piece per round s (the rows of slice my_k of B's row block s that my
  // group's A(i,s) uses, slice-local; empty where my group owns no A(i,s)).
  const PackedLists& portions() const { return portions_; }
  // Step 2: the portions of every rank with my k, by group (unit = rank in gi_comm), mine included.
  // Throws std::logic_error on a packet that does not decode to its counts.
  void setPortions(const std::vector<PackedLists>& by_unit);

  // Rows of slice my_k of B's row block s needed by the groups of grid row i, as indices local to
  // the slice, ascending (after setPortions).
  const std::vector<int>& rows(int i, int s) const { return rows_[static_cast<size_t>(i) * rounds_ + s]; }
  // For an A tile A(i,s) my group owns: the columns each of its lambda slices uses (tile-local,
  // ascending; member q's at [q]), i.e. which rows of B's tile each member uses in the round it
  // multiplies this tile. Empty for tiles the group does not own.
  std::vector<std::vector<int>> groupColumns(int s) const;

 private:
  TileGrid grid_;
  int rounds_ = 1, lambda_ = 1;
  std::vector<int> group_cols_;          // every member's column lists, member-major, then by s
  std::vector<std::int64_t> group_at_;   // [q * (rounds + 1) + s]: start of member q's list of tile s
  PackedLists portions_;
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
