#include "aggregation.hpp"

#include <algorithm>
#include <climits>
#include <numeric>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include <mpi.h>
#include <Teuchos_DefaultMpiComm.hpp>
#include <Tpetra_RowMatrixTransposer.hpp>
#include "Trident_TpetraComm.hpp"

namespace TridentBench {
namespace {

using Trident::crs_matrix_type;
using Trident::GO;
using Trident::LO;
using Trident::map_type;

using Trident::tpetra::rawComm;

int checkedInt(long long v, const char* what) {
  if (v > INT_MAX) throw std::runtime_error(std::string("aggregation: too many ") + what + " to gather on rank 0");
  return static_cast<int>(v);
}

// Sequential greedy aggregation of a graph given as CSR over vertices 0..n-1.
std::vector<long long> greedyAggregate(long long n, const std::vector<long long>& ptr,
                                       const std::vector<long long>& adj, long long& nagg) {
  std::vector<long long> agg(n, -1);
  nagg = 0;
  // Phase 1: roots whose whole neighbourhood is free.
  for (long long i = 0; i < n; ++i) {
    if (agg[i] != -1) continue;
    bool free = true;
    for (long long k = ptr[i]; k < ptr[i + 1] && free; ++k)
      if (adj[k] != i && agg[adj[k]] != -1) free = false;
    if (!free) continue;
    agg[i] = nagg;
    for (long long k = ptr[i]; k < ptr[i + 1]; ++k) agg[adj[k]] = nagg;
    ++nagg;
  }
  // Phase 2: join the aggregate of the first neighbour aggregated in phase 1.
  std::vector<long long> phase1 = agg;
  for (long long i = 0; i < n; ++i) {
    if (agg[i] != -1) continue;
    for (long long k = ptr[i]; k < ptr[i + 1]; ++k)
      if (phase1[adj[k]] != -1) { agg[i] = phase1[adj[k]]; break; }
  }
  // Phase 3: singletons (cannot happen after phase 2, kept for safety).
  for (long long i = 0; i < n; ++i)
    if (agg[i] == -1) agg[i] = nagg++;
  return agg;
}

// This rank's rows of A's graph: global row, neighbour count, neighbours' global columns.
struct LocalGraph {
  std::vector<long long> rows, counts, adj;
};

LocalGraph localGraph(const crs_matrix_type& A) {
  auto rowMap = A.getRowMap();
  const LO nloc = static_cast<LO>(Trident::Compat::localNumElements(*rowMap));
  LocalGraph g;
  g.rows.resize(nloc);
  g.counts.resize(nloc);
  g.adj.reserve(Trident::Compat::localNumEntries(A));
  auto colMap = A.getColMap();
  for (LO lr = 0; lr < nloc; ++lr) {
    typename crs_matrix_type::local_inds_host_view_type inds;
    typename crs_matrix_type::values_host_view_type vals;
    A.getLocalRowView(lr, inds, vals);
    g.rows[lr] = rowMap->getGlobalElement(lr);
    g.counts[lr] = static_cast<long long>(inds.extent(0));
    for (size_t k = 0; k < inds.extent(0); ++k) g.adj.push_back(colMap->getGlobalElement(inds(k)));
  }
  return g;
}

// Every rank's LocalGraph concatenated on rank 0 in rank order (empty elsewhere); the row counts
// and displacements are kept to scatter the answer back.
struct GatheredGraph {
  std::vector<int> rowCounts, adjCounts, rowDispl, adjDispl;
  long long totalRows = 0, totalAdj = 0;
  std::vector<long long> rows, counts, adj;
};

GatheredGraph gatherOnRoot(const LocalGraph& mine, MPI_Comm mc, int rank, int P) {
  GatheredGraph g;
  int nrowsLocal = static_cast<int>(mine.rows.size());
  int nadjLocal = checkedInt(static_cast<long long>(mine.adj.size()), "entries");
  g.rowCounts.assign(P, 0);
  g.adjCounts.assign(P, 0);
  g.rowDispl.assign(P, 0);
  g.adjDispl.assign(P, 0);
  MPI_Gather(&nrowsLocal, 1, MPI_INT, g.rowCounts.data(), 1, MPI_INT, 0, mc);
  MPI_Gather(&nadjLocal, 1, MPI_INT, g.adjCounts.data(), 1, MPI_INT, 0, mc);
  if (rank == 0) {
    for (int p = 0; p < P; ++p) {
      g.rowDispl[p] = checkedInt(g.totalRows, "rows");
      g.adjDispl[p] = checkedInt(g.totalAdj, "entries");
      g.totalRows += g.rowCounts[p];
      g.totalAdj += g.adjCounts[p];
    }
    checkedInt(g.totalAdj, "entries");
  }
  g.rows.resize(rank == 0 ? g.totalRows : 0);
  g.counts.resize(rank == 0 ? g.totalRows : 0);
  g.adj.resize(rank == 0 ? g.totalAdj : 0);
  MPI_Gatherv(mine.rows.data(), nrowsLocal, MPI_LONG_LONG, g.rows.data(), g.rowCounts.data(), g.rowDispl.data(),
              MPI_LONG_LONG, 0, mc);
  MPI_Gatherv(mine.counts.data(), nrowsLocal, MPI_LONG_LONG, g.counts.data(), g.rowCounts.data(),
              g.rowDispl.data(), MPI_LONG_LONG, 0, mc);
  MPI_Gatherv(mine.adj.data(), nadjLocal, MPI_LONG_LONG, g.adj.data(), g.adjCounts.data(), g.adjDispl.data(),
              MPI_LONG_LONG, 0, mc);
  return g;
}

// The gathered graph as CSR over rows numbered in global-index order (order[s]: the gathered
// row numbered s), neighbours outside the rows dropped.
void renumberByGlobalIndex(const GatheredGraph& g, std::vector<long long>& order, std::vector<long long>& ptr,
                           std::vector<long long>& adj) {
  const long long n = g.totalRows;
  order.resize(n);
  std::iota(order.begin(), order.end(), 0LL);
  std::sort(order.begin(), order.end(), [&](long long a, long long b) { return g.rows[a] < g.rows[b]; });
  std::unordered_map<long long, long long> idOf;  // gid -> sorted index
  idOf.reserve(static_cast<size_t>(n) * 2);
  for (long long s = 0; s < n; ++s) idOf.emplace(g.rows[order[s]], s);
  std::vector<long long> start(n + 1, 0);  // offsets into g.adj, gathered order
  for (long long r = 0; r < n; ++r) start[r + 1] = start[r] + g.counts[r];
  ptr.assign(n + 1, 0);
  adj.reserve(static_cast<size_t>(g.totalAdj));
  for (long long s = 0; s < n; ++s) {
    const long long r = order[s];
    for (long long k = start[r]; k < start[r + 1]; ++k) {
      auto it = idOf.find(g.adj[k]);
      if (it != idOf.end()) adj.push_back(it->second);
    }
    // Neighbours in global order: a row's local column order depends on the column map (and so on P).
    std::sort(adj.begin() + ptr[s], adj.end());
    ptr[s + 1] = static_cast<long long>(adj.size());
  }
}

// Rank 0: each gathered row's aggregate; stats = {number of aggregates, largest aggregate}.
std::vector<long long> aggregateGathered(const GatheredGraph& g, long long stats[2]) {
  const long long n = g.totalRows;
  std::vector<long long> order, ptr, adj;
  renumberByGlobalIndex(g, order, ptr, adj);
  long long nagg = 0;
  std::vector<long long> agg = greedyAggregate(n, ptr, adj, nagg);
  std::vector<long long> allAgg(n);
  std::vector<long long> sizes(nagg, 0);
  for (long long s = 0; s < n; ++s) {
    allAgg[order[s]] = agg[s];
    ++sizes[agg[s]];
  }
  stats[0] = nagg;
  stats[1] = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  return allAgg;
}

// T(i, agg(i)) = 1 on this rank's rows, and R = T^T.
Transfer tentativeTransfer(const crs_matrix_type& A, const std::vector<long long>& myRows,
                           const std::vector<long long>& myAgg, const long long stats[2]) {
  auto comm = A.getComm();
  auto rowMap = A.getRowMap();
  Transfer t;
  t.num_aggregates = stats[0];
  t.largest_aggregate = stats[1];
  auto aggMap = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(t.num_aggregates), GO(0), comm));
  t.P = Teuchos::rcp(new crs_matrix_type(rowMap, 1));
  const double one = 1.0;
  for (size_t lr = 0; lr < myRows.size(); ++lr) {
    const GO col = static_cast<GO>(myAgg[lr]);
    t.P->insertGlobalValues(myRows[lr], Teuchos::ArrayView<const GO>(&col, 1), Teuchos::ArrayView<const double>(&one, 1));
  }
  t.P->fillComplete(aggMap, rowMap);
  Tpetra::RowMatrixTransposer<double, LO, GO, Trident::Node> transposer(t.P);
  t.R = transposer.createTranspose();
  return t;
}

}  // namespace

Transfer buildTransfer(const crs_matrix_type& A) {
  auto comm = A.getComm();
  MPI_Comm mc = rawComm(comm);
  const int rank = comm->getRank(), P = comm->getSize();
  if (A.getGlobalNumRows() != A.getGlobalNumCols() || !A.getDomainMap()->isSameAs(*A.getRowMap()))
    throw std::runtime_error("--op=AR/RAP need a square matrix whose domain map equals its row map");

  const LocalGraph mine = localGraph(A);
  const GatheredGraph g = gatherOnRoot(mine, mc, rank, P);
  long long stats[2] = {0, 0};  // nagg, largest aggregate
  std::vector<long long> allAgg;
  if (rank == 0) allAgg = aggregateGathered(g, stats);
  std::vector<long long> myAgg(mine.rows.size());
  MPI_Scatterv(allAgg.data(), g.rowCounts.data(), g.rowDispl.data(), MPI_LONG_LONG, myAgg.data(),
               static_cast<int>(mine.rows.size()), MPI_LONG_LONG, 0, mc);
  MPI_Bcast(stats, 2, MPI_LONG_LONG, 0, mc);
  return tentativeTransfer(A, mine.rows, myAgg, stats);
}

}  // namespace TridentBench
