#include "Trident_AutoAlgorithm.hpp"

#include <Tpetra_RowMatrixTransposer.hpp>
#include <cstdlib>
#include <sstream>
#include <type_traits>

#include "Trident_PlannerInput.hpp"
#include "Trident_TpetraComm.hpp"
#include <trident/core/Errors.hpp>
#include <trident/planner/Estimate.hpp>
#include <trident/planner/MachineModel.hpp>
#include <trident/stats/PhaseTimer.hpp>

namespace Trident {
namespace MatrixMatrix {

namespace {
Teuchos::RCP<const crs_matrix_type> opOf(const crs_matrix_type& M, bool transpose) {
  if (!transpose) return Teuchos::rcpFromRef(M);
  Tpetra::RowMatrixTransposer<double, LO, GO, Node> transposer(Teuchos::rcpFromRef(M));
  return transposer.createTranspose();
}

// Rank 0 reads the file named by TRIDENT_MACHINE_MODEL (if any) and every rank gets its values,
// so that all ranks decide alike even if the file differed between nodes.
planner::MachineModel loadModel(MPI_Comm comm, int me) {
  static_assert(std::is_trivially_copyable<planner::MachineModel>::value, "the model is broadcast as bytes");
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
  MPI_Bcast(&model, static_cast<int>(sizeof(model)), MPI_BYTE, 0, comm);
  return model;
}

std::string reasonOf(const std::vector<planner::Estimate>& est, int best) {
  std::ostringstream why;
  why.precision(3);
  why << "chose " << est[best].algo << ";";
  for (const auto& e : est)
    why << " " << e.algo << " " << e.time_s << " s = fixed " << e.t_fixed << " + kernel " << e.t_kernel << " ("
        << e.flops_max << " madds, " << e.c_max << " C) + entries " << e.t_entries << " (" << e.entries_max << ") + links " << e.t_links
        << " (" << e.gi_bytes_max + e.li_bytes_max << " B, " << e.msgs_max << " msgs) + import " << e.t_import << ";";
  return why.str();
}
}  // namespace

Algorithm chooseAlgorithm(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                          const Topology& topo, const MultiplyOptions& opt, MultiplyStats& stats,
                          MultiplyStats* tpetra_counts, bool* counted) {
  (void)opt;  // grid, fetch and permutation change Trident's bytes, not the estimate's terms
  Teuchos::TimeMonitor timer(*phaseTimer("Trident: auto: choose"));
  MPI_Comm comm = topo.world();
  // The model first, so that a bad file fails on every rank before anything is counted.
  const planner::MachineModel model = loadModel(comm, topo.rank());
  // A transposed A with rows distributed as B's (P^T*(A*P) in MueLu) is counted without forming
  // A^T, which would cost about what the product does; other transposes are formed.
  const bool cheapTranspose = transposeA && !transposeB && A.getRowMap()->isSameAs(*B.getRowMap());
  planner::LocalCounts mine;
  std::vector<std::uint64_t> bytesFrom;
  Teuchos::RCP<const crs_matrix_type> Ap, Bp;
  if (cheapTranspose) {
    mine = tpetra::localCountsTransposedA(A, B);
  } else {
    Ap = opOf(A, transposeA);
    Bp = opOf(B, transposeB);
    mine = tpetra::localCounts(*Ap, *Bp, topo, &bytesFrom, false);
  }
  planner::GlobalCounts all = planner::reduceCounts(mine, topo.ranks_per_group(), comm);
  if (cheapTranspose) {
    all.max.flops = all.sum.flops / all.P;
    all.max.max_row_flops = 0;
    all.max.a_entries = all.sum.a_entries / all.P;
    all.max.c_entries = all.max.flops;
  }
  // The quick rule first: when Tpetra wins even with C as large as it can be, C is not estimated.
  planner::Estimate bound;
  std::vector<planner::Estimate> est;
  int best = 0;
  std::string note;
  if (planner::tpetraWinsAnyway(all, model, &bound)) {
    est = {bound};
    note = " (quick rule: Tpetra with C = its multiply-adds beats the 2D algorithms with C = 0; C not estimated)";
  } else {
    if (!cheapTranspose) {
      Teuchos::TimeMonitor sketchTimer(*phaseTimer("Trident: auto: C sketch"));
      mine.c_entries = tpetra::productEntries(*Ap, *Bp);
      all = planner::reduceCounts(mine, topo.ranks_per_group(), comm);
    }
    est = planner::estimateAll(all, model);
    for (int a = 1; a < static_cast<int>(est.size()); ++a)
      if (est[a].time_s < est[best].time_s) best = a;
  }
  stats.auto_chosen = true;
  stats.predicted_time = est[best].time_s;
  stats.auto_reason = reasonOf(est, best) + note;
  // Tpetra's import is counted exactly on each rank; the 2D algorithms' bytes are the estimate's
  // busiest rank (trident-plan gives them exactly).
  const bool tp = est[best].algo == "tpetra";
  stats.predicted_gi_bytes_recv = static_cast<std::uint64_t>(tp ? mine.tpetra_gi_bytes : est[best].gi_bytes_max);
  stats.predicted_li_bytes_recv = static_cast<std::uint64_t>(tp ? mine.tpetra_li_bytes : est[best].li_bytes_max);
  if (counted) *counted = false;
  if (tp && !cheapTranspose && tpetra_counts && counted) {
    // What I receive from p is what p sends me: one Alltoall of P words turns receipts into sends.
    const int P = topo.P();
    std::vector<std::uint64_t> sentBy(static_cast<std::size_t>(P), 0);
    MPI_Alltoall(bytesFrom.data(), 1, MPI_UINT64_T, sentBy.data(), 1, MPI_UINT64_T, comm);
    MultiplyStats& t = *tpetra_counts;
    t.local_flops = static_cast<std::uint64_t>(mine.flops);
    t.gi_bytes_recv = static_cast<std::uint64_t>(mine.tpetra_gi_bytes);
    t.li_bytes_recv = static_cast<std::uint64_t>(mine.tpetra_li_bytes);
    t.gi_bytes_sent = t.li_bytes_sent = 0;
    for (int p = 0; p < P; ++p) (topo.same_group(topo.rank(), p) ? t.li_bytes_sent : t.gi_bytes_sent) += sentBy[p];
    *counted = true;
  }
  return est[best].algo == "tpetra" ? Algorithm::Tpetra : est[best].algo == "summa" ? Algorithm::Summa : Algorithm::Trident;
}

}  // namespace MatrixMatrix
}  // namespace Trident
