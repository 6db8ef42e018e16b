#include "Trident_AutoAlgorithm.hpp"

#include <Tpetra_RowMatrixTransposer.hpp>
#include <string>

#include "Trident_PlannerInput.hpp"
#include <trident/planner/AutoDecision.hpp>
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
}  // namespace

std::uint64_t rememberContext(const MultiplyOptions& o) {
  std::uint64_t h = 0x7A11CE5EEDull;
  // The estimate's switch too: with it off a choice is counted, and one the estimate made is not
  // reused for that.
  for (long long v : {static_cast<long long>(o.ranks_per_group), static_cast<long long>(o.grid),
                      static_cast<long long>(o.fetch), static_cast<long long>(o.slices), o.permute ? 1LL : 0LL,
                      static_cast<long long>(o.seed), o.estimate_auto_choice ? 1LL : 0LL})
    h = (h ^ static_cast<std::uint64_t>(v)) * 1099511628211ull;
  return h;
}

namespace {

AutoChoice choiceOf(Algorithm a, bool owner_slices) {
  AutoChoice c;
  c.algorithm = a;
  c.owner_slices = owner_slices;
  return c;
}

Algorithm algorithmOf(planner::ChosenAlgorithm a) {
  switch (a) {
    case planner::ChosenAlgorithm::Summa: return Algorithm::Summa;
    case planner::ChosenAlgorithm::Trident: return Algorithm::Trident;
    default: return Algorithm::Tpetra;
  }
}

// A decision into the stats every rank reports, and the choice the plan builds.
AutoChoice applied(const planner::AutoDecision& d, MultiplyStats& stats) {
  stats.auto_chosen = true;
  stats.auto_path = d.path;
  stats.predicted_owner_slices = d.owner_slices;
  stats.predicted_time = d.predicted_time;
  stats.predicted_gi_bytes_recv = d.predicted_gi_bytes_recv;
  stats.predicted_li_bytes_recv = d.predicted_li_bytes_recv;
  stats.auto_reason = d.reason;
  return choiceOf(algorithmOf(d.algorithm), d.owner_slices);
}

// A choice every rank found in memory: its stats as they were, and that it was not worked out again.
AutoChoice fromMemory(RememberedChoice r, MultiplyStats& stats) {
  r.path = AutoPath::Remembered;
  // "chose X;" first, as every reason; then that it was not worked out again this time.
  const std::size_t head = r.reason.find(';');
  r.reason = r.reason.substr(0, head) +
             "; remembered from an earlier call on the same operands, not estimated or counted again;" +
             (head == std::string::npos ? std::string() : r.reason.substr(head + 1));
  return applied(r, stats);
}

// A decision and the choice applied from it (the decision is what a remembered choice keeps).
struct Decided {
  planner::AutoDecision decision;
  AutoChoice choice;
};

// The collective steps between the decisions that need no counting.
struct WithoutCounting {
  const crs_matrix_type& A;
  const crs_matrix_type& B;
  MPI_Comm comm;
  int P;
  const std::function<const Topology&()>& topology;

  planner::AutoOutcome decide(const AutoInputs& x) const {
    planner::DecisionContext context;
    context.P = P;
    context.groups = [&]() {
      const Topology& topo = topology();
      return planner::Groups{topo.ranks_per_group(),
                             tpetra::ownerSlicesPossible(topo, x.owner_slices_allowed, x.rows_grid_allowed),
                             topo.ranks_per_core()};
    };
    return planner::decide(x.reduced, x.model, context);
  }

  // Some rank skipped the estimate (its own bound settled it) or the bound (a remembered choice
  // the others lacked) and the agreed values did not settle it: every rank fills in what it
  // skipped (agreed: every rank takes this branch or none). At most two more rounds: the first
  // fills in skipped bounds (and the estimate where a rank's own bound does not settle it), the
  // second the estimates a settling bound had skipped. `in` ends as the last round's inputs.
  planner::AutoOutcome decideInRounds(AutoInputs& in) const {
    planner::AutoOutcome o = decide(in);
    for (int round = 0; !o.decision && in.incomplete && round < 2; ++round) {
      Teuchos::TimeMonitor roundTimer(*phaseTimer("Trident: auto: another round"));
      in = in.completed(A, B, comm);
      o = decide(in);
    }
    return o;
  }

  // C bounded by the multiply-adds did not settle it; the unions of the local rows of B can
  // (2-10x fewer on FE and multigrid products), unless even no C at all would not. Every rank
  // takes the same branch: it depends on reduced values only.
  std::optional<planner::AutoDecision> byUnions(const AutoInputs& in, std::string& unsettled) const {
    const planner::TpetraBound bound = planner::boundOf(in.reduced);
    const std::optional<long long> enough = planner::unionsTarget(bound, P, in.model);
    if (!enough) return std::nullopt;
    Teuchos::TimeMonitor unionTimer(*phaseTimer("Trident: auto: bound by unions"));
    const tpetra::LocalBoundInputs t = tpetra::tightenedByUnions(A, B, in.local_bound, *enough);
    long long maxima[3] = {t.c_entries_known, t.c_remote_entries, t.c_entries_capped};
    MPI_Allreduce(MPI_IN_PLACE, maxima, 3, MPI_LONG_LONG, MPI_MAX, comm);
    return planner::byUnions(planner::tightenedBound(bound, maxima), P, in.model, unsettled);
  }
};

// Exact counts: each rank's multiply-adds, C's entries from sketches and Tpetra's import (one
// import of B's row lengths, one allreduce), then the least predicted time.
Decided byCounting(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                   MPI_Comm comm, const Topology& topo, const AutoInputs& in, const std::string& learnt,
                   MultiplyStats& stats) {
  // A transposed A with rows distributed as B's (P^T*(A*P) in MueLu) is counted without forming
  // A^T, which would cost about what the product does; other transposes are formed.
  const bool cheapTranspose = in.transposed_a_on_b_rows;
  planner::LocalCounts mine;
  tpetra::ImportBytes bytes;
  Teuchos::RCP<const crs_matrix_type> Ap, Bp;
  // A transpose formed here is not the plan's own: only A*B's rows' work is handed over.
  std::vector<std::int64_t> work;
  std::vector<std::int64_t>* rowWork = transposeA || transposeB ? nullptr : &work;
  if (cheapTranspose) {
    mine = tpetra::localCountsTransposedA(A, B);
  } else {
    Ap = opOf(A, transposeA);
    Bp = opOf(B, transposeB);
    mine = tpetra::localCounts(*Ap, *Bp, topo, &bytes, false, in.a_import_serves, rowWork);
  }
  planner::GlobalCounts all = planner::reduceCounts(mine, topo.ranks_per_group(), comm);
  if (all.max.layout_unknown > 0) {
    mine = tpetra::localCounts(*Ap, *Bp, topo, &bytes, true, in.a_import_serves, rowWork);
    all = planner::reduceCounts(mine, topo.ranks_per_group(), comm);
  }
  all.owner_slices_possible = !transposeA && !transposeB &&
                              tpetra::ownerSlicesPossible(topo, in.owner_slices_allowed, in.rows_grid_allowed);
  all.ranks_per_core = topo.ranks_per_core();
  if (cheapTranspose) {
    all.max.flops = all.sum.flops / all.P;
    all.max.max_row_flops = 0;
    all.max.a_entries = all.sum.a_entries / all.P;
    all.max.c_entries = all.max.flops;
  }
  const planner::AutoDecision d =
      planner::decideByCounts(all, in.model, learnt, mine.tpetra_gi_bytes, mine.tpetra_li_bytes);
  Decided r{d, applied(d, stats)};
  AutoChoice& choice = r.choice;
  if (d.algorithm == planner::ChosenAlgorithm::Tpetra && !cheapTranspose) {
    MultiplyStats t;
    t.local_flops = static_cast<std::uint64_t>(mine.flops);
    t.gi_bytes_recv = bytes.gi_recv;
    t.li_bytes_recv = bytes.li_recv;
    t.gi_bytes_sent = bytes.gi_sent;
    t.li_bytes_sent = bytes.li_sent;
    choice.tpetra_counts = t;
  }
  if (rowWork) choice.row_work = std::move(work);
  return r;
}

}  // namespace

AutoChoice chooseAlgorithm(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                           MPI_Comm comm, const std::function<const Topology&()>& topology, const AutoInputs& in,
                           MultiplyStats& stats) {
  Teuchos::TimeMonitor timer(*phaseTimer("Trident: auto: choose"));
  if (in.remembered) return fromMemory(*in.remembered, stats);
  int P = 1;
  MPI_Comm_size(comm, &P);
  const WithoutCounting cheap{A, B, comm, P, topology};
  AutoInputs agreed = in;
  planner::AutoOutcome o = cheap.decideInRounds(agreed);
  if (!o.decision) o.decision = cheap.byUnions(agreed, o.unsettled);
  Decided r = o.decision ? Decided{*o.decision, applied(*o.decision, stats)}
                         : byCounting(A, transposeA, B, transposeB, comm, topology(), in, o.learnt(), stats);
  // On a repeated call the look-up's hash (microseconds) replaces the bound's pass, the estimate
  // (computed beside the bound, for the one reduction) and the choice, 0.1 ms a call on Pd's 1.3 ms
  // product at P = 4, 0.1-0.6 ms on the estimated ones.
  if (in.memory_context) rememberChoice(A, transposeA, B, transposeB, *in.memory_context, in.a_zeros, r.decision);
  return std::move(r.choice);
}

}  // namespace MatrixMatrix
}  // namespace Trident
