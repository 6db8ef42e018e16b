// 2D Sparse SUMMA baseline ("improved": the next stage's broadcasts are in flight while the current
// stage multiplies), built from the same tiles, kernels and accumulation as Trident so that a
// comparison isolates partitioning and communication. Ranks take grid positions in their
// MPI_COMM_WORLD order, row-major: the placement decides how much traffic stays inside a group.
#include <vector>

#include "trident/algorithms/Algorithms.hpp"
#include "trident/algorithms/RoundAccumulator.hpp"
#include "trident/local/LocalSpGEMM.hpp"
#include "trident/stats/PhaseTimer.hpp"
#include "trident/core/BigCount.hpp"
#include "trident/transport/NnzTable.hpp"
#include "trident/transport/TileMetadata.hpp"

namespace Trident {

namespace {

struct StageBlocks {
  Csr a, b;
  std::vector<int> b_rows;  // the rows b holds when B(s,j) travels row-compressed
  bool b_compressed = false;
  std::vector<MPI_Request> reqs;
};

void ibcastCsr(Csr& m, int root, MPI_Comm comm, std::vector<MPI_Request>& reqs) {
  bigcount::ibcast(m.rowptr.data() + 1, static_cast<std::size_t>(m.nrows), MPI_INT64_T, root, comm, reqs);
  bigcount::ibcast(m.col.data(), m.col.size(), MPI_INT, root, comm, reqs);
  bigcount::ibcast(m.val.data(), m.val.size(), MPI_DOUBLE, root, comm, reqs);
}

// This rank's place in the grid and what posting a stage reads.
struct SummaRun {
  const Layout& L;
  const OwnedTiles& tiles;
  const Topology& topo;
  const NnzTable& nnz;
  MPI_Comm row_comm, col_comm;
  const int me, i, j;
  MultiplyStats& stats;

  // Byte accounting: the logical volume of a broadcast, per receiver, Gi when the root is in
  // another group and Li otherwise.
  void account(std::uint64_t bytes, int root_world, bool rowwise) {
    const TileGrid& g = L.grid;
    if (root_world == me) {
      const int n = rowwise ? g.cols : g.rows;
      for (int q = 0; q < n; ++q) {
        const int other = rowwise ? g.unit(i, q) : g.unit(q, j);
        if (other == me) continue;
        (topo.same_group(me, other) ? stats.li_bytes_sent : stats.gi_bytes_sent) += bytes;
      }
    } else {
      (topo.same_group(me, root_world) ? stats.li_bytes_recv : stats.gi_bytes_recv) += bytes;
    }
  }

  // Starts stage s's broadcasts of A(i,s) along the process row and B(s,j) along the column.
  void post(int s, StageBlocks& b) {
    const TileGrid& g = L.grid;
    const int aroot = s % g.cols, broot = s % g.rows;  // owners: A(i,s) at (i, s mod cols), B(s,j) at (s mod rows, j)
    if (aroot == j) {
      b.a = tiles.a[s];
    } else {
      b.a.allocate(L.a_slice(i, 1) - L.a_slice(i, 0), L.inner_width(s), nnz.a_nnz(i, s, 0));
    }
    // A hypersparse B(s,j) (row-compressed where it is owned, OwnedTiles) travels as its rows and
    // their indices, and stays so: A's columns are renumbered to its rows before the multiply.
    const std::int64_t stored = nnz.b_stored_rows(s, j, 0);
    b.b_compressed = stored != L.b_slice(s, 1) - L.b_slice(s, 0);
    if (broot == i) {
      b.b = tiles.b[s];
      if (b.b_compressed) b.b_rows = *tiles.bRows(s);
    } else {
      b.b.allocate(stored, L.col_width(j), nnz.b_nnz(s, j, 0));
      if (b.b_compressed) b.b_rows.resize(static_cast<std::size_t>(stored));
    }
    ibcastCsr(b.a, aroot, row_comm, b.reqs);
    ibcastCsr(b.b, broot, col_comm, b.reqs);
    if (b.b_compressed) bigcount::ibcast(b.b_rows.data(), b.b_rows.size(), MPI_INT, broot, col_comm, b.reqs);
    account(b.a.wireBytes(), g.unit(i, aroot), true);
    account(b.b.wireBytes() + 4u * b.b_rows.size(), g.unit(broot, j), false);
  }
};

// The row and column communicators and the tiles' nonzero counts, once per plan.
void prepareSumma(const Layout& L, const OwnedTiles& tiles, const Topology& topo, int i, int j, MultiplyStats& stats,
                  AlgorithmState& state) {
  if (state.prepared) return;
  const TileGrid& g = L.grid;
  PhaseTimer t(stats.times.redistribute_in, "Trident: redistribute in");
  Teuchos::TimeMonitor meta(*phaseTimer("Trident: redistribute in: tile metadata"));
  MPI_Comm_split(topo.world(), i, j, &state.row_comm);  // rank in row_comm = j
  MPI_Comm_split(topo.world(), j, i, &state.col_comm);  // rank in col_comm = i
  std::vector<int> unit_of_peer(g.cols);
  for (int q = 0; q < g.cols; ++q) unit_of_peer[q] = g.unit(i, q);
  state.nnz = gatherTileMetadata(L, tiles, 0, state.row_comm, unit_of_peer, state.col_comm, false).nnz;
  state.prepared = true;
}

// The stages in order, with up to `lookahead` stages' broadcasts in flight.
void runStages(SummaRun& run, RoundAccumulator& acc, int lookahead) {
  const int rounds = run.L.grid.rounds;
  MultiplyStats& stats = run.stats;
  std::vector<StageBlocks> st(rounds);
  int posted = 0;
  for (; posted < lookahead && posted < rounds; ++posted) run.post(posted, st[posted]);
  // The broadcasts of the stages in flight progress between rows of the local multiply too (MPI
  // moves a message only inside an MPI call), the same care as Trident's Gi fetch.
  int current = 0;
  LocalProgressHook hook([&] {
    for (int q = current + 1; q < posted; ++q) {
      if (st[q].reqs.empty()) continue;
      int flag = 0;
      MPI_Testall(static_cast<int>(st[q].reqs.size()), st[q].reqs.data(), &flag, MPI_STATUSES_IGNORE);
      if (flag) st[q].reqs.clear();
    }
  });
  for (int s = 0; s < rounds; ++s) {
    current = s;
    {
      PhaseTimer t(stats.times.gi_wait, "Trident: Gi wait");
      MPI_Waitall(static_cast<int>(st[s].reqs.size()), st[s].reqs.data(), MPI_STATUSES_IGNORE);
    }
    if (posted < rounds) {
      run.post(posted, st[posted]);
      ++posted;
    }
    {
      PhaseTimer t(stats.times.local_multiply, "Trident: local multiply");
      if (st[s].b_compressed) st[s].a = columnsToRows(st[s].a, st[s].b_rows);
      stats.local_flops += acc.add(st[s].a, st[s].b);
    }
    st[s] = StageBlocks();
  }
}

}  // namespace

Csr summaMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, Backend& backend,
                  const AlgorithmOptions& opt, MultiplyStats& stats, AlgorithmState* state) {
  const TileGrid& g = L.grid;
  const int me = topo.rank();
  const int i = g.unit_row(me), j = g.unit_col(me);
  LocalSpGEMM& kernel = backend.kernel();

  AlgorithmState local_state;
  AlgorithmState& state_ref = state ? *state : local_state;
  prepareSumma(L, tiles, topo, i, j, stats, state_ref);
  RoundAccumulator acc(kernel, state, L.a_slice(i, 1) - L.a_slice(i, 0), L.col_width(j), g.rounds);
  SummaRun run{L, tiles, topo, state_ref.nnz, state_ref.row_comm, state_ref.col_comm, me, i, j, stats};
  runStages(run, acc, opt.lookahead < 1 ? 1 : opt.lookahead);
  Csr C;
  {
    PhaseTimer t(stats.times.accumulate, "Trident: accumulate");
    C = acc.finish();
  }
  stats.nnz_c_local += C.nnz();
  return C;
}

}  // namespace Trident
