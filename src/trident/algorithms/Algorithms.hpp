#pragma once
// The distributed SpGEMM algorithms over tiles (position space). The Tpetra adapter converts in and
// out; these functions only see a Layout, the tiles this rank owns and the transports.
//
//   tridentMultiply - trident partitioning + static Cannon over node groups: Gi fetches of slices
//                     from peer ranks (transport/GiFetch), Li Allgatherv (transport/LiAllgather).
//   summaMultiply   - hierarchy-oblivious 2D Sparse SUMMA over all P ranks: per stage, broadcast
//                     A(i,s) along the process row and B(s,j) along the process column.
// Both return this rank's block of C (rows of its slice, columns of its column block, block-local
// column indices, rows sorted by column) and fill the transport/local-kernel parts of MultiplyStats.
#include <mpi.h>
#include <memory>
#include <string>
#include <vector>

#include "trident/grid/Topology.hpp"
#include "trident/local/BlockSink.hpp"
#include "trident/local/Csr.hpp"
#include "trident/partition/Layout.hpp"
#include "trident/partition/Redistribute.hpp"
#include "trident/stats/MultiplyStats.hpp"
#include "trident/transport/NeededRows.hpp"
#include "trident/transport/NnzTable.hpp"

namespace Trident {

struct AlgorithmOptions {
  std::string local_kernel = "kokkoskernels";
  int lookahead = 2;  // rounds of tiles in flight ahead of the one being multiplied
  // Trident: fetch only the rows of B's slices that the requesting group's A tile uses (true), or
  // whole slices as in the paper's volume model (false).
  bool fetch_needed_rows = true;
};

// What an algorithm keeps between executions of one plan (same layout, same patterns of A and B,
// new values): the metadata exchanged before the loop, SUMMA's row/column communicators, and
// this rank's block pattern of C, so that later runs only compute values into it.
struct AlgorithmState {
  bool prepared = false;
  NnzTable nnz;
  std::unique_ptr<NeededRows> needed;
  MPI_Comm row_comm = MPI_COMM_NULL, col_comm = MPI_COMM_NULL;  // SUMMA
  bool keep_pattern = false;  // record the block pattern of C on the first run
  bool has_pattern = false;
  // Set by the caller before each run: the block goes to a values-only assembly, so it may come
  // back without column indices (they are the pattern's).
  bool values_only = false;
  Csr pattern;                // rowptr/col of this rank's block of C; val unused
  std::vector<double> dense;  // scratch of the numeric kernel
  // A values-only block's val array, given back by the caller once assembled; the next run fills
  // it again instead of allocating (and page-faulting) a new one.
  std::vector<double> spare_values;
  // Set by the caller before a run whose block is exactly its rows of C (see BlockSink): the last
  // round's entries go there. Not used when the pattern is kept (keep_pattern).
  BlockSink* sink = nullptr;

  AlgorithmState() = default;
  AlgorithmState(const AlgorithmState&) = delete;
  AlgorithmState& operator=(const AlgorithmState&) = delete;
  ~AlgorithmState();
};

// Layout.grid is over groups (topo.groups() units), Layout.slices == topo.ranks_per_group().
// state: optional; with it, what does not depend on values is computed on the first call only.
Csr tridentMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, const AlgorithmOptions& opt,
                    MultiplyStats& stats, AlgorithmState* state = nullptr);

// Layout.grid is over ranks (topo.P() units, unit = world rank), Layout.slices == 1. The topology is
// used only to classify each transfer as Gi or Li.
Csr summaMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, const AlgorithmOptions& opt,
                  MultiplyStats& stats, AlgorithmState* state = nullptr);

}  // namespace Trident
