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

Csr tridentMultiply(const Layout& L, const OwnedTiles& tiles, const Topology& topo, Backend& backend,
                    const AlgorithmOptions& opt, MultiplyStats& stats, AlgorithmState* state) {
  const TileGrid& g = L.grid;
  const int unit = topo.group(), k = topo.k(), lambda = topo.ranks_per_group();
  const int i = g.unit_row(unit), j = g.unit_col(unit);
  LocalSpGEMM& kernel = backend.kernel();

  AlgorithmState local_state;
  AlgorithmState& st = state ? *state : local_state;
  if (!st.prepared) {
    PhaseTimer t(stats.times.redistribute_in, "Trident: redistribute in");
    Teuchos::TimeMonitor meta(*phaseTimer("Trident: redistribute in: tile metadata"));
    std::vector<int> unit_of_peer(g.units());  // gi_comm's rank q is group q
    for (int q = 0; q < g.units(); ++q) unit_of_peer[q] = q;
    TileMetadata m =
        gatherTileMetadata(L, tiles, k, topo.gi_comm(), unit_of_peer, topo.li_comm(), opt.fetch_needed_rows);
    st.nnz = std::move(m.nnz);
    st.needed = std::move(m.needed);
    st.prepared = true;
  }
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

  auto sliceRows = [&](int s) {
    std::vector<std::int64_t> rows(lambda);
    for (int q = 0; q < lambda; ++q) rows[q] = L.b_slice(s, q + 1) - L.b_slice(s, q);
    return rows;
  };
  auto multiply = [&](const Csr& a, const Csr& b) {
    PhaseTimer t(stats.times.local_multiply, "Trident: local multiply");
    stats.local_flops += acc.add(a, b);
  };

  if (lambda > 1 && opt.li_needed_rows.value_or(opt.fetch_needed_rows)) {
    // Needed rows over Li, pipelined: round r+1's group exchange starts as soon as its Gi slices are
    // here (tested while round r multiplies) and runs while round r multiplies.
    std::unique_ptr<LiRowsInFlight> li_next;
    int li_round = -1;  // round of li_next
    auto startLi = [&](int r) {
      const Csr *a = nullptr, *b = nullptr;
      const std::vector<int>* b_rows = nullptr;
      gi.wait(r, &a, &b, &b_rows);  // B's needed rows stay compressed
      const int s = g.stage(r, i, j);
      // Requests as index lists when they are shorter than a bit per tile row (hypersparse tiles),
      // the same decision on every member.
      std::int64_t most = 0;
      for (int q = 0; q < lambda; ++q) most = std::max(most, nnz.a_nnz(i, s, q));
      const bool as_lists = L.inner_width(s) > 32 * most + OwnedTiles::kRowCompressMinRows;
      li_next = li->exchangeNeededRows(r, *a, *b, b_rows, sliceRows(s),
                                       needed && g.a_owner(i, s) == unit ? needed->groupColumns(s)
                                                                         : std::vector<std::vector<int>>{},
                                       as_lists);
      li_round = r;
    };
    LocalProgressHook hook([&] {
      gi.progress();
      if (li_next) {
        li_next->progress();
      } else if (li_round + 1 < g.rounds && gi.test(li_round + 1)) {
        startLi(li_round + 1);
      }
    });
    {
      PhaseTimer t(stats.times.gi_wait, "Trident: Gi wait");
      startLi(0);
    }
    for (int r = 0; r < g.rounds; ++r) {
      if (!li_next) {
        PhaseTimer t(stats.times.gi_wait, "Trident: Gi wait");
        startLi(r);
      }
      Csr a_used, b_used;
      {
        PhaseTimer t(stats.times.li_allgather, "Trident: Li allgather");
        li_next->finish(&a_used, &b_used, &stats.li_bytes_sent, &stats.li_bytes_recv);
        li_next.reset();
      }
      gi.release(r);
      multiply(a_used, b_used);
    }
  } else {
    LocalProgressHook hook([&] { gi.progress(); });
    std::vector<std::int64_t> slice_nnz(lambda);
    for (int r = 0; r < g.rounds; ++r) {
      const int s = g.stage(r, i, j);
      const Csr *a = nullptr, *b = nullptr;
      const std::vector<int>* b_rows = nullptr;
      {
        PhaseTimer t(stats.times.gi_wait, "Trident: Gi wait");
        // One rank per group: B may stay row-compressed (a hypersparse own slice, or its needed rows).
        gi.wait(r, &a, &b, &b_rows);
      }
      Csr b_full, a_on_rows;
      const Csr* B = b;
      if (b_rows && lambda == 1) {
        const std::int64_t full = L.b_slice(s, k + 1) - L.b_slice(s, k);
        if (OwnedTiles::hypersparse(full, b->nnz())) {  // A meets B's rows
          a_on_rows = columnsToRows(*a, *b_rows);
          a = &a_on_rows;
        } else {  // row offsets over the whole slice cost less than looking A's columns up
          b_full = expandRows(*b, *b_rows, full);
          B = &b_full;
        }
      }
      if (lambda > 1) {
        // Whole tiles, as the paper describes.
        PhaseTimer t(stats.times.li_allgather, "Trident: Li allgather");
        std::int64_t tile_nnz = 0;
        if (needed) {
          // Slices fetched with only the rows the group uses: their sizes are known to their holders
          // only (the table has the whole slices'), so the group shares them first.
          const std::int64_t mine = b->nnz();
          MPI_Allgather(&mine, 1, MPI_INT64_T, slice_nnz.data(), 1, MPI_INT64_T, topo.li_comm());
          for (int q = 0; q < lambda; ++q) tile_nnz += slice_nnz[q];
        } else {
          for (int q = 0; q < lambda; ++q) tile_nnz += slice_nnz[q] = nnz.b_nnz(s, j, q);
        }
        if (OwnedTiles::hypersparse(L.inner_width(s), tile_nnz)) {
          // Hypersparse tile (the same decision on every member): gathered as its nonempty rows.
          std::vector<int> tile_rows;
          b_full = li->allgatherRows(*b, b_rows, sliceRows(s), slice_nnz, &tile_rows, &stats.li_bytes_sent,
                                    &stats.li_bytes_recv);
          a_on_rows = columnsToRows(*a, tile_rows);
          a = &a_on_rows;
        } else {
          const Csr* mine = b;
          Csr expanded;
          if (b_rows) {
            expanded = expandRows(*b, *b_rows, L.b_slice(s, k + 1) - L.b_slice(s, k));
            mine = &expanded;
          }
          b_full = li->allgather(*mine, sliceRows(s), slice_nnz, &stats.li_bytes_sent, &stats.li_bytes_recv);
        }
        B = &b_full;
      }
      multiply(*a, *B);
      gi.release(r);
    }
  }
  Csr C;
  {
    PhaseTimer t(stats.times.accumulate, "Trident: accumulate");
    C = acc.finish();
  }
  {
    PhaseTimer t(stats.times.gi_wait, "Trident: Gi wait");
    gi.finish();
  }
  stats.gi_bytes_sent += gi.bytes_sent();
  stats.gi_bytes_recv += gi.bytes_received();
  stats.nnz_c_local += C.nnz();
  return C;
}

}  // namespace Trident
