#pragma once
// Sizes of every tile slice, known to every rank before the multiply loop, so that transfers can
// be posted with exact sizes and no size handshake (and no probe) sits inside the loop.
#include <mpi.h>
#include <cstdint>
#include <vector>

#include "trident/partition/Layout.hpp"
#include "trident/partition/Redistribute.hpp"

namespace Trident {

struct NnzTable {
  int slices = 1, rounds = 1, grid_cols = 1;
  std::vector<std::int64_t> a;  // [(i * rounds + s) * slices + t]
  std::vector<std::int64_t> b;  // [(s * grid_cols + j) * slices + t]
  // Rows each slice of B holds: all of the slice's, or fewer when it is row-compressed (OwnedTiles).
  std::vector<std::int64_t> b_rows;
  std::int64_t a_nnz(int i, int s, int t) const { return a[(static_cast<size_t>(i) * rounds + s) * slices + t]; }
  std::int64_t b_nnz(int s, int j, int t) const { return b[(static_cast<size_t>(s) * grid_cols + j) * slices + t]; }
  std::int64_t b_stored_rows(int s, int j, int t) const {
    return b_rows[(static_cast<size_t>(s) * grid_cols + j) * slices + t];
  }
};

// A table of zeros shaped for L.
NnzTable zeroTable(const Layout& L);
// Collective over comm (one Allreduce): every entry summed over comm's ranks.
void sumOver(NnzTable& T, MPI_Comm comm);

// Collective over comm (one Allreduce): the plain reference. The 2D algorithms gather theirs with
// their needed rows in one round over their peers instead (transport/TileMetadata); test_robust
// checks that table against this one.
NnzTable gatherNnzTable(const Layout& L, const OwnedTiles& tiles, int my_unit, int my_k, MPI_Comm comm);

}  // namespace Trident
