#include "Trident_AutoAlgorithm.hpp"

#include <Tpetra_RowMatrixTransposer.hpp>
#include <cstdlib>

#include "Trident_PlannerInput.hpp"
#include "Trident_TpetraComm.hpp"
#include <trident/core/Errors.hpp>
#include <trident/planner/MachineModel.hpp>
#include <trident/planner/Planner.hpp>

namespace Trident {
namespace MatrixMatrix {

namespace {
Teuchos::RCP<const crs_matrix_type> opOf(const crs_matrix_type& M, bool transpose) {
  if (!transpose) return Teuchos::rcpFromRef(M);
  Tpetra::RowMatrixTransposer<double, LO, GO, Node> transposer(Teuchos::rcpFromRef(M));
  return transposer.createTranspose();
}
}  // namespace

Algorithm chooseAlgorithm(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                          const Topology& topo, const MultiplyOptions& opt, MultiplyStats& stats) {
  MPI_Comm comm = topo.world();
  const int me = topo.rank(), P = topo.P();
  // The model first, so that a bad file fails on every rank before anything is gathered.
  planner::MachineModel model;
  std::string error;
  if (me == 0) {
    const char* path = std::getenv("TRIDENT_MACHINE_MODEL");
    if (path && *path) {
      try {
          model = planner::MachineModel::load(path);
    } catch (const std::exception& e) {
        error = std::string("\"trident: algorithm\" = \"auto\": ") + e.what();
      }
    }
  }
  throwIfAnyRank(comm, !error.empty(), error);

  auto Ap = opOf(A, transposeA);
  auto Bp = opOf(B, transposeB);
  const planner::Pattern pa = tpetra::gatherPattern(*Ap, true, 0, Ap->getRowMap().get(), Ap->getDomainMap().get());
  const planner::Pattern pb = tpetra::gatherPattern(*Bp, false, 0, Ap->getDomainMap().get(), Bp->getDomainMap().get());

  // Rank 0 plans; [0]: the choice, [1]: its predicted time; then per-rank Gi/Li bytes.
  double choice[2] = {0, 0};
  std::vector<std::uint64_t> gi(P, 0), li(P, 0);
  std::string failure;
  if (me == 0) {
    try {
      const planner::Ranks ranks{P, topo.ranks_per_group()};
      planner::PlanOptions popt;
      popt.permute = opt.permute;
      popt.seed = static_cast<std::uint64_t>(opt.seed);
      const bool needed = opt.fetch == Fetch::Needed;
      const int G = ranks.groups();
      const TileGrid grid = opt.grid == GridChoice::Square ? TileGrid::forUnits(G)
                            : opt.grid == GridChoice::Rows ? TileGrid::rowsOnly(G)
                                                           : planner::tridentAutoGrid(pa, pb, ranks, needed);
      planner::Prediction pr[3] = {planner::predictTpetra(pa, pb, ranks), planner::predictSumma(pa, pb, ranks, popt),
                                   planner::predictTrident(pa, pb, ranks, grid, needed, popt)};
      int best = 0;
      for (int a = 0; a < 3; ++a) {
        planner::predictTime(pr[a], model);
        if (pr[a].time_s < pr[best].time_s) best = a;
      }
      choice[0] = best;
      choice[1] = pr[best].time_s;
      gi = pr[best].gi_recv;
      li = pr[best].li_recv;
    } catch (const std::exception& e) {
      // e.g. more than 64 ranks per group (the planner's limit): the same error on every rank
      failure = std::string("\"trident: algorithm\" = \"auto\": the planner failed: ") + e.what();
    }
  }
  throwIfAnyRank(comm, !failure.empty(), failure);
  MPI_Bcast(choice, 2, MPI_DOUBLE, 0, comm);
  std::uint64_t mine[2] = {0, 0};
  MPI_Scatter(gi.data(), 1, MPI_UINT64_T, &mine[0], 1, MPI_UINT64_T, 0, comm);
  MPI_Scatter(li.data(), 1, MPI_UINT64_T, &mine[1], 1, MPI_UINT64_T, 0, comm);
  stats.auto_chosen = true;
  stats.predicted_time = choice[1];
  stats.predicted_gi_bytes_recv = mine[0];
  stats.predicted_li_bytes_recv = mine[1];
  const int c = static_cast<int>(choice[0]);
  return c == 0 ? Algorithm::Tpetra : c == 1 ? Algorithm::Summa : Algorithm::Trident;
}

}  // namespace MatrixMatrix
}  // namespace Trident
