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

}  // namespace

Transfer buildTransfer(const crs_matrix_type& A) {
  auto comm = A.getComm();
  MPI_Comm mc = rawComm(comm);
  const int rank = comm->getRank(), P = comm->getSize();
  auto rowMap = A.getRowMap();
  if (A.getGlobalNumRows() != A.getGlobalNumCols() || !A.getDomainMap()->isSameAs(*rowMap))
    throw std::runtime_error("--op=AR/RAP need a square matrix whose domain map equals its row map");

  // Gather (row gid, neighbour gids) on rank 0.
  const LO nloc = static_cast<LO>(Trident::Compat::localNumElements(*rowMap));
  std::vector<long long> myRows(nloc), myCounts(nloc), myAdj;
  myAdj.reserve(Trident::Compat::localNumEntries(A));
  auto colMap = A.getColMap();
  for (LO lr = 0; lr < nloc; ++lr) {
    typename crs_matrix_type::local_inds_host_view_type inds;
    typename crs_matrix_type::values_host_view_type vals;
    A.getLocalRowView(lr, inds, vals);
    myRows[lr] = rowMap->getGlobalElement(lr);
    myCounts[lr] = static_cast<long long>(inds.extent(0));
    for (size_t k = 0; k < inds.extent(0); ++k) myAdj.push_back(colMap->getGlobalElement(inds(k)));
  }
  int nrowsLocal = nloc, nadjLocal = checkedInt(static_cast<long long>(myAdj.size()), "entries");
  std::vector<int> rowCounts(P), adjCounts(P), rowDispl(P, 0), adjDispl(P, 0);
  MPI_Gather(&nrowsLocal, 1, MPI_INT, rowCounts.data(), 1, MPI_INT, 0, mc);
  MPI_Gather(&nadjLocal, 1, MPI_INT, adjCounts.data(), 1, MPI_INT, 0, mc);
  long long totalRows = 0, totalAdj = 0;
  if (rank == 0) {
    for (int p = 0; p < P; ++p) {
      rowDispl[p] = checkedInt(totalRows, "rows");
      adjDispl[p] = checkedInt(totalAdj, "entries");
      totalRows += rowCounts[p];
      totalAdj += adjCounts[p];
    }
    checkedInt(totalAdj, "entries");
  }
  std::vector<long long> allRows(rank == 0 ? totalRows : 0), allCounts(rank == 0 ? totalRows : 0),
      allAdj(rank == 0 ? totalAdj : 0);
  MPI_Gatherv(myRows.data(), nrowsLocal, MPI_LONG_LONG, allRows.data(), rowCounts.data(), rowDispl.data(),
              MPI_LONG_LONG, 0, mc);
  MPI_Gatherv(myCounts.data(), nrowsLocal, MPI_LONG_LONG, allCounts.data(), rowCounts.data(),
              rowDispl.data(), MPI_LONG_LONG, 0, mc);
  MPI_Gatherv(myAdj.data(), nadjLocal, MPI_LONG_LONG, allAdj.data(), adjCounts.data(), adjDispl.data(),
              MPI_LONG_LONG, 0, mc);

  // Rank 0: relabel rows in global-index order, aggregate, answer each row's aggregate.
  std::vector<long long> allAgg(rank == 0 ? totalRows : 0);
  long long stats[2] = {0, 0};  // nagg, largest aggregate
  if (rank == 0) {
    const long long n = totalRows;
    std::vector<long long> order(n);
    std::iota(order.begin(), order.end(), 0LL);
    std::sort(order.begin(), order.end(), [&](long long a, long long b) { return allRows[a] < allRows[b]; });
    std::unordered_map<long long, long long> idOf;  // gid -> sorted index
    idOf.reserve(static_cast<size_t>(n) * 2);
    for (long long s = 0; s < n; ++s) idOf.emplace(allRows[order[s]], s);
    std::vector<long long> start(n + 1, 0);  // offsets into allAdj, gathered order
    for (long long r = 0; r < n; ++r) start[r + 1] = start[r] + allCounts[r];
    std::vector<long long> ptr(n + 1, 0), adj;
    adj.reserve(static_cast<size_t>(totalAdj));
    for (long long s = 0; s < n; ++s) {
      const long long r = order[s];
      for (long long k = start[r]; k < start[r + 1]; ++k) {
        auto it = idOf.find(allAdj[k]);
        if (it != idOf.end()) adj.push_back(it->second);
      }
      // Neighbours in global order: a row's local column order depends on the column map (and so on P).
      std::sort(adj.begin() + ptr[s], adj.end());
      ptr[s + 1] = static_cast<long long>(adj.size());
    }
    long long nagg = 0;
    std::vector<long long> agg = greedyAggregate(n, ptr, adj, nagg);
    std::vector<long long> sizes(nagg, 0);
    for (long long s = 0; s < n; ++s) {
      allAgg[order[s]] = agg[s];
      ++sizes[agg[s]];
    }
    stats[0] = nagg;
    stats[1] = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  }
  std::vector<long long> myAgg(nloc);
  MPI_Scatterv(allAgg.data(), rowCounts.data(), rowDispl.data(), MPI_LONG_LONG, myAgg.data(), nrowsLocal,
               MPI_LONG_LONG, 0, mc);
  MPI_Bcast(stats, 2, MPI_LONG_LONG, 0, mc);

  Transfer t;
  t.num_aggregates = stats[0];
  t.largest_aggregate = stats[1];
  auto aggMap = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(t.num_aggregates), GO(0), comm));
  t.P = Teuchos::rcp(new crs_matrix_type(rowMap, 1));
  const double one = 1.0;
  for (LO lr = 0; lr < nloc; ++lr) {
    const GO col = static_cast<GO>(myAgg[lr]);
    t.P->insertGlobalValues(myRows[lr], Teuchos::ArrayView<const GO>(&col, 1), Teuchos::ArrayView<const double>(&one, 1));
  }
  t.P->fillComplete(aggMap, rowMap);
  Tpetra::RowMatrixTransposer<double, LO, GO, Trident::Node> transposer(t.P);
  t.R = transposer.createTranspose();
  return t;
}

}  // namespace TridentBench
