#pragma once
// The distributed SpGEMM algorithms over tiles (position space). The Tpetra adapter converts in and
// out; these functions only see a Layout, the tiles this rank owns and the transports.
//
//   tridentMultiply - trident partitioning + static Cannon over node groups: Gi fetches of slices
//                     from peer ranks (transport/GiFetch), Li Allgatherv (transport/LiAllgather).
//   summaMultiply   - hierarchy-oblivious 2D Sparse SUMMA over all P ranks: per stage, broadcast
//                     A(i,s) along the process row and B(s,j) along the process column.
// Both return this rank's block of C (rows of its slice, columns of its column block, block-local
// column indices, rows sorted) and fill the transport/local-kernel parts of MultiplyStats.
#include <mpi.h>
#include <string>

#include "trident/grid/Topology.hpp"
#include "trident/local/Csr.hpp"
#include "trident/partition/Layout.hpp"
#include "trident/partition/Redistribute.hpp"
#include "trident/stats/MultiplyStats.hpp"

namespace Trident {

struct AlgorithmOptions {
  std::string local_kernel = "kokkoskernels";
  int lookahead = 2;  // rounds of tiles in flight ahead of the one being multiplied
  // Trident: fetch only the rows of B's slices that the requesting group's A tile uses (true), or
  // whole slices as in the paper's volume model (false).
  bool fetch_needed_rows = true;
};

// Layout.grid is over groups (topo.groups() units), Layout.slices == topo.ranks_per_group().
Csr tridentMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, const AlgorithmOptions& opt,
                    MultiplyStats& stats);

// Layout.grid is over ranks (topo.P() units, unit = world rank), Layout.slices == 1. The topology is
// used only to classify each transfer as Gi or Li.
Csr summaMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, const AlgorithmOptions& opt,
                  MultiplyStats& stats);

}  // namespace Trident
