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

// Collective over comm (one Allreduce).
NnzTable gatherNnzTable(const Layout& L, const OwnedTiles& tiles, int my_unit, int my_k, MPI_Comm comm);
// The same table from two Allreduces over partner communicators instead of one over the world:
// first over comm1, then over comm2, where every entry's owner and this rank share one
// communicator of a comm1 x comm2 product (Trident: gi_comm = the ranks with my k, then li_comm =
// my group; SUMMA: row_comm, then col_comm). A world collective would make every rank wait for
// every other before the multiply; these only involve the partners.
NnzTable gatherNnzTable(const Layout& L, const OwnedTiles& tiles, int my_unit, int my_k, MPI_Comm comm1,
                        MPI_Comm comm2);

}  // namespace Trident
