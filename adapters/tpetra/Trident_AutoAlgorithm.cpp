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
// so that all ranks decide alike even if the file (or the variable) differed between nodes; a
// bad file becomes the same InvalidInput on every rank. One broadcast: on a loaded machine each
// collective costs milliseconds, which small products cannot afford.
planner::MachineModel loadModel(MPI_Comm comm, int me) {
  static_assert(std::is_trivially_copyable<planner::MachineModel>::value, "the model is broadcast as bytes");
  struct Packet {
    planner::MachineModel model;
    int failed = 0;
    char message[1024] = {0};
  } packet;
  if (me == 0) {
    const char* path = std::getenv("TRIDENT_MACHINE_MODEL");
    if (path && *path) {
      try {
        packet.model = planner::MachineModel::load(path);
      } catch (const std::exception& e) {
        packet.failed = 1;
        const std::string error = std::string("\"trident: algorithm\" = \"auto\": ") + e.what();
        error.copy(packet.message, sizeof(packet.message) - 1);
      }
    }
  }
  MPI_Bcast(&packet, static_cast<int>(sizeof(packet)), MPI_BYTE, 0, comm);
  if (packet.failed) throw InvalidInput(packet.message);
  return packet.model;
}

std::string reasonOf(const std::vector<planner::Estimate>& est, int best) {
  std::ostringstream why;
  why.precision(3);
  why << "chose " << est[best].algo << ";";
  for (const auto& e : est)
    why << " " << e.algo << " " << e.time_s << " s = fixed " << e.t_fixed << " + kernel " << e.t_kernel << " ("
        << e.flops_max << " madds, " << e.c_max << " C) + entries " << e.t_entries << " (" << e.entries_max
        << ") + links " << e.t_links << " (" << e.gi_bytes_max + e.li_bytes_max << " B, " << e.msgs_max
        << " msgs) + import " << e.t_import << ";";
  return why.str();
}
}  // namespace

Algorithm chooseAlgorithm(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                          const Topology& topo, const MultiplyOptions& opt, MultiplyStats& stats,
                          MultiplyStats* tpetra_counts, bool* counted, std::vector<std::uint64_t>* bytes_from) {
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
    mine = tpetra::localCounts(*Ap, *Bp, topo, &bytesFrom);
  }
  planner::GlobalCounts all = planner::reduceCounts(mine, topo.ranks_per_group(), comm);
  if (all.max.layout_unknown > 0) {
    mine = tpetra::localCounts(*Ap, *Bp, topo, &bytesFrom, true);
    all = planner::reduceCounts(mine, topo.ranks_per_group(), comm);
  }
  if (cheapTranspose) {
    all.max.flops = all.sum.flops / all.P;
    all.max.max_row_flops = 0;
    all.max.a_entries = all.sum.a_entries / all.P;
    all.max.c_entries = all.max.flops;
  }
  const std::vector<planner::Estimate> est = planner::estimateAll(all, model);
  int best = 0;
  for (int a = 1; a < static_cast<int>(est.size()); ++a)
    if (est[a].time_s < est[best].time_s) best = a;
  stats.auto_chosen = true;
  stats.predicted_time = est[best].time_s;
  stats.auto_reason = reasonOf(est, best);
  // Tpetra's import is counted exactly on each rank; the 2D algorithms' bytes are the estimate's
  // busiest rank (trident-plan gives them exactly).
  const bool tp = est[best].algo == "tpetra";
  stats.predicted_gi_bytes_recv = static_cast<std::uint64_t>(tp ? mine.tpetra_gi_bytes : est[best].gi_bytes_max);
  stats.predicted_li_bytes_recv = static_cast<std::uint64_t>(tp ? mine.tpetra_li_bytes : est[best].li_bytes_max);
  if (counted) *counted = false;
  if (tp && !cheapTranspose && tpetra_counts && counted) {
    // The bytes sent need one Alltoall (what I receive from p is what p sends me): the plan does
    // it after the timed multiply, from bytes_from.
    MultiplyStats& t = *tpetra_counts;
    t.local_flops = static_cast<std::uint64_t>(mine.flops);
    t.gi_bytes_recv = static_cast<std::uint64_t>(mine.tpetra_gi_bytes);
    t.li_bytes_recv = static_cast<std::uint64_t>(mine.tpetra_li_bytes);
    if (bytes_from) *bytes_from = bytesFrom;
    *counted = true;
  }
  return est[best].algo == "tpetra" ? Algorithm::Tpetra : est[best].algo == "summa" ? Algorithm::Summa : Algorithm::Trident;
}

}  // namespace MatrixMatrix
}  // namespace Trident
