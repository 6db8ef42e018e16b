// Trident: static Cannon over node groups with hierarchical (Gi fetch + Li Allgatherv) transport.
#include <algorithm>
#include <memory>
#include <vector>

#include "trident/algorithms/Algorithms.hpp"
#include "trident/algorithms/RoundAccumulator.hpp"
#include "trident/local/LocalSpGEMM.hpp"
#include "trident/stats/PhaseTimer.hpp"
#include "trident/transport/NeededRows.hpp"
#include "trident/transport/NnzTable.hpp"
#include "trident/transport/TileMetadata.hpp"

namespace Trident {

AlgorithmState::~AlgorithmState() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (row_comm != MPI_COMM_NULL) MPI_Comm_free(&row_comm);
  if (col_comm != MPI_COMM_NULL) MPI_Comm_free(&col_comm);
}

namespace {

// What every step of one multiply reads: the layout, this group's place in the static Cannon
// schedule, the tables exchanged before the loop and the transports.
struct TridentRun {
  const Layout& L;
  const TileGrid& g;
  const Topology& topo;
  const NnzTable& nnz;
  const NeededRows* needed;
  const int unit, k, lambda, i, j;
  GiTransport& gi;
  LiTransport* li;  // null with one rank per group
  RoundAccumulator& acc;
  MultiplyStats& stats;

  // Rows of each member's slice of B's inner block s.
  std::vector<std::int64_t> sliceRows(int s) const {
    std::vector<std::int64_t> rows(lambda);
    for (int q = 0; q < lambda; ++q) rows[q] = L.b_slice(s, q + 1) - L.b_slice(s, q);
    return rows;
  }

  void multiply(const Csr& a, const Csr& b) {
    PhaseTimer t(stats.times.local_multiply, "Trident: local multiply");
    stats.local_flops += acc.add(a, b);
  }
};

// The nonzero counts (and, fetching needed rows, the rows each group uses) of every tile, once
// per plan: they depend on the patterns only.
void prepareTileMetadata(const Layout& L, const OwnedTiles& tiles, const Topology& topo, const AlgorithmOptions& opt,
                         MultiplyStats& stats, AlgorithmState& st) {
  if (st.prepared) return;
  const TileGrid& g = L.grid;
  PhaseTimer t(stats.times.redistribute_in, "Trident: redistribute in");
  Teuchos::TimeMonitor meta(*phaseTimer("Trident: redistribute in: tile metadata"));
  std::vector<int> unit_of_peer(g.units());  // gi_comm's rank q is group q
  for (int q = 0; q < g.units(); ++q) unit_of_peer[q] = q;
  TileMetadata m =
      gatherTileMetadata(L, tiles, topo.k(), topo.gi_comm(), unit_of_peer, topo.li_comm(), opt.fetch_needed_rows);
  st.nnz = std::move(m.nnz);
  st.needed = std::move(m.needed);
  st.prepared = true;
}

// The needed-rows exchange over Li, one round ahead: round r+1's group exchange starts as soon as
// its Gi slices are here (tested while round r multiplies) and runs while round r multiplies.
class LiRowsPipeline {
 public:
  explicit LiRowsPipeline(TridentRun& run) : run_(run) {}

  bool inFlight() const { return next_ != nullptr; }

  // Called between rows of the local multiply.
  void progress() {
    run_.gi.progress();
    if (next_) {
      next_->progress();
    } else if (round_ + 1 < run_.g.rounds && run_.gi.test(round_ + 1)) {
      start(round_ + 1);
    }
  }

  void start(int r) {
    const Csr *a = nullptr, *b = nullptr;
    const std::vector<int>* b_rows = nullptr;
    run_.gi.wait(r, &a, &b, &b_rows);  // B's needed rows stay compressed
    const int s = run_.g.stage(r, run_.i, run_.j);
    // Requests as index lists when they are shorter than a bit per tile row (hypersparse tiles),
    // the same decision on every member.
    std::int64_t most = 0;
    for (int q = 0; q < run_.lambda; ++q) most = std::max(most, run_.nnz.a_nnz(run_.i, s, q));
    const bool as_lists = run_.L.inner_width(s) > 32 * most + OwnedTiles::kRowCompressMinRows;
    const bool owner = run_.needed && run_.g.a_owner(run_.i, s) == run_.unit;
    next_ = run_.li->exchangeNeededRows(r, *a, *b, b_rows, run_.sliceRows(s),
                                        owner ? run_.needed->groupColumns(s) : std::vector<std::vector<int>>{},
                                        as_lists);
    round_ = r;
  }

  void finish(Csr* a_used, Csr* b_used) {
    next_->finish(a_used, b_used, &run_.stats.li_bytes_sent, &run_.stats.li_bytes_recv);
    next_.reset();
  }

 private:
  TridentRun& run_;
  std::unique_ptr<LiRowsInFlight> next_;
  int round_ = -1;  // round of next_
};

void runRoundsWithNeededRowsOverLi(TridentRun& run) {
  LiRowsPipeline li(run);
  LocalProgressHook hook([&] { li.progress(); });
  {
    PhaseTimer t(run.stats.times.gi_wait, "Trident: Gi wait");
    li.start(0);
  }
  for (int r = 0; r < run.g.rounds; ++r) {
    if (!li.inFlight()) {
      PhaseTimer t(run.stats.times.gi_wait, "Trident: Gi wait");
      li.start(r);
    }
    Csr a_used, b_used;
    {
      PhaseTimer t(run.stats.times.li_allgather, "Trident: Li allgather");
      li.finish(&a_used, &b_used);
    }
    run.gi.release(r);
    run.multiply(a_used, b_used);
  }
}

// One rank per group, B's slice row-compressed (a hypersparse own slice, or its needed rows):
// either A is renumbered to B's rows or B is expanded to the whole slice, whichever costs less.
void matchCompressedSlice(const TridentRun& run, int s, const std::vector<int>& b_rows, const Csr*& a,
                          const Csr*& B, Csr& a_on_rows, Csr& b_full) {
  const std::int64_t full = run.L.b_slice(s, run.k + 1) - run.L.b_slice(s, run.k);
  if (OwnedTiles::hypersparse(full, B->nnz())) {  // A meets B's rows
    a_on_rows = columnsToRows(*a, b_rows);
    a = &a_on_rows;
  } else {  // row offsets over the whole slice cost less than looking A's columns up
    b_full = expandRows(*B, b_rows, full);
    B = &b_full;
  }
}

// B's whole tile from the group's slices by Allgatherv, as the paper describes; a hypersparse
// tile as its nonempty rows, with A renumbered to them.
void gatherTileOverLi(TridentRun& run, int s, const Csr& b, const std::vector<int>* b_rows, const Csr*& a,
                      Csr& a_on_rows, Csr& b_full, std::vector<std::int64_t>& slice_nnz) {
  PhaseTimer t(run.stats.times.li_allgather, "Trident: Li allgather");
  std::int64_t tile_nnz = 0;
  if (run.needed) {
    // Slices fetched with only the rows the group uses: their sizes are known to their holders
    // only (the table has the whole slices'), so the group shares them first.
    const std::int64_t mine = b.nnz();
    MPI_Allgather(&mine, 1, MPI_INT64_T, slice_nnz.data(), 1, MPI_INT64_T, run.topo.li_comm());
    for (int q = 0; q < run.lambda; ++q) tile_nnz += slice_nnz[q];
  } else {
    for (int q = 0; q < run.lambda; ++q) tile_nnz += slice_nnz[q] = run.nnz.b_nnz(s, run.j, q);
  }
  if (OwnedTiles::hypersparse(run.L.inner_width(s), tile_nnz)) {
    // Hypersparse tile (the same decision on every member): gathered as its nonempty rows.
    std::vector<int> tile_rows;
    b_full = run.li->allgatherRows(b, b_rows, run.sliceRows(s), slice_nnz, &tile_rows, &run.stats.li_bytes_sent,
                                   &run.stats.li_bytes_recv);
    a_on_rows = columnsToRows(*a, tile_rows);
    a = &a_on_rows;
  } else {
    const Csr* mine = &b;
    Csr expanded;
    if (b_rows) {
      expanded = expandRows(b, *b_rows, run.L.b_slice(s, run.k + 1) - run.L.b_slice(s, run.k));
      mine = &expanded;
    }
    b_full = run.li->allgather(*mine, run.sliceRows(s), slice_nnz, &run.stats.li_bytes_sent, &run.stats.li_bytes_recv);
  }
}

void runRoundsWithWholeTiles(TridentRun& run) {
  LocalProgressHook hook([&] { run.gi.progress(); });
  std::vector<std::int64_t> slice_nnz(run.lambda);
  for (int r = 0; r < run.g.rounds; ++r) {
    const int s = run.g.stage(r, run.i, run.j);
    const Csr *a = nullptr, *b = nullptr;
    const std::vector<int>* b_rows = nullptr;
    {
      PhaseTimer t(run.stats.times.gi_wait, "Trident: Gi wait");
      // One rank per group: B may stay row-compressed (a hypersparse own slice, or its needed rows).
      run.gi.wait(r, &a, &b, &b_rows);
    }
    Csr b_full, a_on_rows;
    const Csr* B = b;
    if (b_rows && run.lambda == 1) matchCompressedSlice(run, s, *b_rows, a, B, a_on_rows, b_full);
    if (run.lambda > 1) {
      gatherTileOverLi(run, s, *b, b_rows, a, a_on_rows, b_full, slice_nnz);
      B = &b_full;
    }
    run.multiply(*a, *B);
    run.gi.release(r);
  }
}

// This rank's block of C from the rounds' products, once the fetches in flight are done.
Csr finishRounds(TridentRun& run) {
  Csr C;
  {
    PhaseTimer t(run.stats.times.accumulate, "Trident: accumulate");
    C = run.acc.finish();
  }
  {
    PhaseTimer t(run.stats.times.gi_wait, "Trident: Gi wait");
    run.gi.finish();
  }
  run.stats.gi_bytes_sent += run.gi.bytes_sent();
  run.stats.gi_bytes_recv += run.gi.bytes_received();
  run.stats.nnz_c_local += C.nnz();
  return C;
}

}  // namespace

Csr tridentMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, Backend& backend,
                    const AlgorithmOptions& opt, MultiplyStats& stats, AlgorithmState* state) {
  const TileGrid& g = L.grid;
  const int unit = topo.group(), k = topo.k(), lambda = topo.ranks_per_group();
  const int i = g.unit_row(unit), j = g.unit_col(unit);
  LocalSpGEMM& kernel = backend.kernel();

  AlgorithmState local_state;
  AlgorithmState& st = state ? *state : local_state;
  prepareTileMetadata(L, tiles, topo, opt, stats, st);
  const NnzTable& nnz = st.nnz;
  const NeededRows* needed = st.needed.get();
  RoundAccumulator acc(kernel, state, L.a_slice(i, k + 1) - L.a_slice(i, k), L.col_width(j), g.rounds);
  std::unique_ptr<GiTransport> gi_owner = backend.gi({L, tiles, nnz, unit, k, topo.gi_comm(), opt.lookahead, needed,
                                                               opt.gi_ready_gating ? topo.li_comm() : MPI_COMM_NULL});
  GiTransport& gi = *gi_owner;
  gi.postReceivesUpTo(opt.lookahead);
  gi.postSendsUpTo(opt.lookahead);
  // The group's Li transport (none needed with one rank per group).
  std::unique_ptr<LiTransport> li = lambda > 1 ? backend.li(topo.li_comm()) : nullptr;

  TridentRun run{L, g, topo, nnz, needed, unit, k, lambda, i, j, gi, li.get(), acc, stats};
  if (lambda > 1 && opt.li_needed_rows.value_or(opt.fetch_needed_rows))
    runRoundsWithNeededRowsOverLi(run);
  else
    runRoundsWithWholeTiles(run);
  return finishRounds(run);
}

}  // namespace Trident
