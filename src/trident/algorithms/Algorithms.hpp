#pragma once
// The distributed SpGEMM algorithms over tiles (position space). The Tpetra adapter converts in and
// out; these functions only see a Layout, the tiles this rank owns and a Backend (local kernel,
// Li and Gi transports; src/trident/backend).
//
//   tridentMultiply - trident partitioning + static Cannon over node groups: Gi fetches of slices
//                     from peer ranks (host: transport/GiFetch), over Li the rows each rank uses
//                     or whole tiles (host: transport/LiRowExchange, LiAllgather).
//   summaMultiply   - hierarchy-oblivious 2D Sparse SUMMA over all P ranks: per stage, broadcast
//                     A(i,s) along the process row and B(s,j) along the process column.
// Both return this rank's block of C (rows of its slice, columns of its column block, block-local
// column indices, rows sorted by column) and fill the transport/local-kernel parts of MultiplyStats.
#include <mpi.h>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "trident/backend/Backend.hpp"
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
  // The backend the overloads without one make ("host" or, in CUDA builds, "cuda") and its kernel.
  std::string device = "host";
  std::string local_kernel = "gustavson";
  int lookahead = 2;  // rounds of tiles in flight ahead of the one being multiplied
  // Trident: fetch only the rows of B's slices that the requesting group's A tile uses (true), or
  // whole slices as in the paper's volume model (false).
  bool fetch_needed_rows = true;
  // Trident, lambda > 1: over Li, only the rows of B's tile each rank's A slice uses (true), or
  // whole tiles by Allgatherv (false). Unset: as fetch_needed_rows.
  std::optional<bool> li_needed_rows;
  // Trident: no tile goes to a group over Gi before that group and the sender's have finished the
  // in phase (GiFetch's ready gating). False (default): tiles go out as soon as the sender's in
  // phase is done; the in phase's own Gi messages are ahead of every tile anyway (TileMetadata's
  // one round), and the gate only idles the link while the slowest rank ends its in phase
  // (docs/design.md, pacing and overlap). Kept for measurement.
  bool gi_ready_gating = false;
};

// What an algorithm keeps between executions of one plan (same layout, same patterns of A and B,
// new values): the metadata exchanged before the loop, SUMMA's row/column communicators, the
// backend, and its kernel's handle with this rank's block pattern of C (the symbolic step), so
// that later runs only compute values into it (the numeric step).
struct AlgorithmState {
  bool prepared = false;
  NnzTable nnz;
  std::unique_ptr<NeededRows> needed;
  MPI_Comm row_comm = MPI_COMM_NULL, col_comm = MPI_COMM_NULL;  // SUMMA
  bool keep_pattern = false;  // record the block pattern of C on the first run
  // Made on the first run from the options by the overloads without a backend, then kept.
  std::unique_ptr<Backend> backend;
  std::unique_ptr<KernelHandle> handle;  // the kernel's; has_pattern once the pattern is kept
  // Set by the caller before each run: the block goes to a values-only assembly, so it may come
  // back without column indices (they are the pattern's).
  bool values_only = false;
  // A values-only block's val array, given back by the caller once assembled; the next run fills
  // it again instead of allocating (and page-faulting) a new one.
  std::vector<double> spare_values;
  // Set by the caller before a values-only run whose block is exactly its rows of C, in C's row
  // order: the numeric step writes the values straight into C's final value array (values, `size`
  // entries, each row's entries in the order of cols: the pattern's block-local columns as C keeps
  // them; null cols: the pattern's own order), and the block comes back without val. It saves the
  // block's own value array and the pass that copied it into C (9.6 of 33 ms a re-execute on
  // rajat01's square at P = 4).
  struct ValuesTarget {
    double* values = nullptr;
    std::size_t size = 0;
    const int* cols = nullptr;
  } values_into;
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
// The backend's kernel and transports do the work (opt.device and opt.local_kernel are not read).
Csr tridentMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, Backend& backend,
                    const AlgorithmOptions& opt, MultiplyStats& stats, AlgorithmState* state = nullptr);

// Layout.grid is over ranks (topo.P() units, unit = world rank), Layout.slices == 1. The topology is
// used only to classify each transfer as Gi or Li. SUMMA's broadcasts are its own (MPI); the
// backend gives the local kernel.
Csr summaMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, Backend& backend,
                  const AlgorithmOptions& opt, MultiplyStats& stats, AlgorithmState* state = nullptr);

// The same with the backend opt.device / opt.local_kernel names, made on the first call and kept
// in state (a plan keeps it, with its kernel's handle), or made for this call without a state.
Csr tridentMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, const AlgorithmOptions& opt,
                    MultiplyStats& stats, AlgorithmState* state = nullptr);
Csr summaMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, const AlgorithmOptions& opt,
                  MultiplyStats& stats, AlgorithmState* state = nullptr);

}  // namespace Trident
