#pragma once
// The decisions of "trident: algorithm" = "auto", on values every rank holds alike (the
// ReducedSummary of planner/AutoSummary.hpp, or the counts of planner/Estimate.hpp) and the
// machine model: pure functions, no communication, the same result on every rank. The adapter
// (Trident_AutoAlgorithm.cpp) runs the stages in order and does the collectives between them:
//
//   decide()          Tpetra's time bounded from above against the others' from below (settles
//                     most small products for Tpetra), then the estimate without counting when
//                     it is decisive or counting would cost too much of the product;
//   unionsTarget()    where the bound of C by the multiply-adds did not settle it, how small C
//   byUnions()        must be bounded (by the unions of B's local rows) to settle it;
//   decideByCounts()  the least predicted time on exact counts.
//
// Each returns the algorithm, the slices its prediction is for (which the plan then builds),
// the predictions, the path and the reason.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "trident/planner/AutoSummary.hpp"
#include "trident/planner/Estimate.hpp"
#include "trident/planner/MachineModel.hpp"
#include "trident/stats/MultiplyStats.hpp"

namespace Trident {
namespace planner {

enum class ChosenAlgorithm { Tpetra, Summa, Trident };

struct AutoDecision {
  ChosenAlgorithm algorithm = ChosenAlgorithm::Tpetra;
  bool owner_slices = false;  // Trident: slices at the 1D owners' rows with the G x 1 grid
  AutoPath path = AutoPath::NotAuto;
  double predicted_time = 0;
  std::uint64_t predicted_gi_bytes_recv = 0, predicted_li_bytes_recv = 0;
  std::string reason;  // "chose X;" then each algorithm's predicted time and its terms
};

// Tpetra's busiest rank bounded from above and the lightest rank's share from below.
struct TpetraBound {
  bool usable = false;  // every rank made its bound
  double flops_max = 0, c_max = 0, entries_max = 0, import_bytes_max = 0, import_rows_max = 0, sources_max = 0;
  double b_max_row = 0;     // B's longest row on any rank
  double c_remote_max = 0;  // the most c_remote_entries of any rank
  double flops_min = 0, entries_min = 0;  // what Trident's and SUMMA's balanced share is at least
};
TpetraBound boundOf(const ReducedSummary& r);

// The estimate without counting as planner::GlobalCounts (P, lambda and the owner slices are
// decideByEstimate's): usable where every rank made one and the owned columns sample enough of
// A's entries.
struct EstimateCounts {
  bool usable = false;
  GlobalCounts counts;
  double sample_share = 0;  // of A's entries, at owned columns
};
EstimateCounts estimateOf(const ReducedSummary& r);

// What the estimate needs of the groups, asked only where the bound does not settle the choice
// (forming them is collective the first time, and Tpetra's Multiply needs none).
struct Groups {
  int lambda = 1;
  bool owner_slices_possible = false;  // tpetra::ownerSlicesPossible
  double ranks_per_core = 1;           // Topology::ranks_per_core
};
struct DecisionContext {
  int P = 1;
  std::function<Groups()> groups;
};

// Tpetra where the bound settles it; otherwise nothing, and `unsettled` says by how much not.
std::optional<AutoDecision> decideByBound(const TpetraBound& b, int P, const MachineModel& model, std::string& unsettled);
// The estimate's choice where decisive or where counting would cost too much of the product;
// otherwise nothing, and `note` says what it would have chosen.
std::optional<AutoDecision> decideByEstimate(const EstimateCounts& e, double entries_max, int P, const Groups& groups,
                                             const MachineModel& model, std::string& note);

// decide(): the bound, then the estimate. Undecided, `learnt` is what they found (for the
// reason of a choice made later) and `unsettled` the bound's part of it.
struct AutoOutcome {
  std::optional<AutoDecision> decision;
  std::string unsettled, estimated;
  std::string learnt() const { return estimated + unsettled; }
};
AutoOutcome decide(const ReducedSummary& r, const MachineModel& model, const DecisionContext& context);

// Whether one rank's own values, as if every rank held them, settle the choice for Tpetra with
// its time from above taken kLocalSlack higher (the agreed bound can only be looser): a rank
// that does not settle here knows the estimate will be wanted.
bool settlesHere(const AutoSummary& mine, int P, const MachineModel& model);
// Whether another round can fill in what some rank skipped (from reduced values: agreed).
bool anotherRoundHelps(const ReducedSummary& r);

// The C (busiest rank's) below which the bound would settle, less what the remote entries may
// add: the bound by unions may stop there (-1: it must not stop early). Nothing where even no C
// would not settle.
std::optional<long long> unionsTarget(const TpetraBound& b, int P, const MachineModel& model);
// The bound with C bounded by the unions' maxima over the ranks {c_entries_known,
// c_remote_entries, c_entries_capped}, and the decision on it (path Unions).
TpetraBound tightenedBound(const TpetraBound& b, const long long maxima[3]);
std::optional<AutoDecision> byUnions(const TpetraBound& tight, int P, const MachineModel& model, std::string& unsettled);

// Exact counts: the least predicted time. tpetra_*_here: this rank's exact Tpetra import bytes
// (its predicted bytes where Tpetra is chosen).
AutoDecision decideByCounts(const GlobalCounts& all, const MachineModel& model, const std::string& learnt,
                            double tpetra_gi_bytes_here, double tpetra_li_bytes_here);

}  // namespace planner
}  // namespace Trident
