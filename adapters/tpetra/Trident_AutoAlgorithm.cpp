#include "Trident_AutoAlgorithm.hpp"

#include <Tpetra_RowMatrixTransposer.hpp>
#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>

#include "Trident_MapSameness.hpp"
#include "Trident_PlannerInput.hpp"
#include "Trident_TpetraComm.hpp"
#include <trident/core/Errors.hpp>
#include <trident/core/Hash.hpp>
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

// Each rank reads the file named by TRIDENT_MACHINE_MODEL (if any) once per process and path: a
// multiply must not read a file on every call, and rank 0 broadcasting it would cost a collective.
// A bad file is remembered as its message, so every call fails the same way.
struct LoadedModel {
  planner::MachineModel model;
  std::string error;
};
const LoadedModel& modelFromEnvironment() {
  static std::map<std::string, LoadedModel> cache;
  static const LoadedModel defaults;
  const char* path = std::getenv("TRIDENT_MACHINE_MODEL");
  if (!path || !*path) return defaults;
  auto it = cache.find(path);
  if (it != cache.end()) return it->second;
  LoadedModel m;
  try {
    m.model = planner::MachineModel::load(path);
  } catch (const std::exception& e) {
    m.error = std::string("\"trident: algorithm\" = \"auto\": ") + e.what();
  }
  return cache.emplace(path, m).first->second;
}

constexpr int kBoundSlots = 14;
// The estimate without counting: whether made, then maxima (multiply-adds, heaviest row, C,
// import bytes, work), and sums (multiply-adds, C, import bytes, sample, A's rows, A's and B's entries).
constexpr int kEstimateSlots = 6;
constexpr int kEstimateSums = 7;
// What gather contributes: the model, the remembered choice, the rows question, the bound, the
// estimate and whether this rank skipped any of them.
constexpr int kGatheredSlots = 3 + kBoundSlots + kEstimateSlots + 1;

// The estimate without counting decides when its best algorithm is at least this much faster
// than every other by the model (its multiply-adds and C come from the owned columns' sample,
// within ~30 % on the shared graphs at P = 4), or when counting would cost more than
// kCountShare of the best's predicted time (a count could then not pay for itself within the
// 10 % that auto may cost beyond the fastest). It needs a sample of at least kMinSample of A's
// entries (owned columns are ~1/P of a graph's: at large P the products are counted).
constexpr double kDecisive = 1.25;
constexpr double kCountShare = 0.05;
constexpr double kMinSample = 0.05;

long long fingerprintOf(const planner::MachineModel& m) {
  static_assert(std::is_trivially_copyable<planner::MachineModel>::value, "the model is hashed as bytes");
  return agreementHash(&m, sizeof(m));
}

// The model's Tpetra time grows with its multiply-adds, C's entries (bounded by AutoInputs::agree,
// or by the local unions), its entries, import bytes, rows and messages; Trident's and SUMMA's are
// at least their fixed cost plus their balanced share of the multiply-adds and entries.
struct TpetraMargin {
  planner::Estimate tp;
  double tpetra_at_most = 0, others_at_least = 0;
  double count_cost = 0;  // what counting would cost
  std::string others;     // the others' lower bounds, for the reason
  // When Tpetra's time from above is no more than the others' from below, counting could only
  // confirm Tpetra (ties go to Tpetra there too); counting can save at most the difference, so
  // where that is less than what counting costs, Tpetra without counting loses less.
  bool bounded() const { return tpetra_at_most <= others_at_least; }
  bool settles() const { return bounded() || tpetra_at_most - others_at_least <= count_cost; }
};

TpetraMargin marginOf(const AutoInputs::Bound& b, int P, const planner::MachineModel& model) {
  TpetraMargin m;
  planner::Estimate& tp = m.tp;
  tp.algo = "tpetra";
  tp.flops_max = b.flops_max;
  tp.c_max = std::min(b.flops_max, b.c_max);
  tp.entries_max = b.entries_max;
  // All imported bytes over the slower link, every source charged.
  (model.gi_bandwidth <= model.li_bandwidth ? tp.gi_bytes_max : tp.li_bytes_max) = b.import_bytes_max;
  tp.msgs_max = b.sources_max;
  tp.import_rows_max = b.import_rows_max;
  planner::MachineModel upper = model;
  upper.gi_latency = std::max(model.gi_latency, model.li_latency);
  m.tpetra_at_most = planner::estimateTime(tp, P, upper);
  std::ostringstream why;
  why.precision(3);
  for (const char* algo : {"summa", "trident"}) {
    planner::Estimate e;
    e.algo = algo;
    e.flops_max = b.flops_min;
    e.entries_max = b.entries_min;
    const double t = planner::estimateTime(e, P, model);
    m.others_at_least = m.others_at_least == 0 ? t : std::min(m.others_at_least, t);
    why << " " << algo << " >= " << t << " s;";
  }
  m.others = why.str();
  // Counting costs an import of B's lengths and sketches and an allreduce: the model's
  // auto_count_* terms, on the busiest rank's entries.
  m.count_cost = model.auto_count_overhead + model.auto_count_entry_cost * b.entries_max;
  return m;
}

// Chooses Tpetra without counting where the bound settles it (the reason says why); otherwise
// `unsettled` says by how much it did not.
bool settledForTpetra(const AutoInputs::Bound& b, int P, const planner::MachineModel& model, MultiplyStats& stats,
                      std::string& unsettled) {
  const TpetraMargin m = marginOf(b, P, model);
  const planner::Estimate& tp = m.tp;
  if (!m.settles()) {
    std::ostringstream u;
    u.precision(3);
    u << " (not bounded: tpetra <= " << m.tpetra_at_most << " s = kernel " << tp.t_kernel << " (" << tp.flops_max
      << " madds, " << tp.c_max << " C) + links " << tp.t_links << " + import " << tp.t_import << " ("
      << tp.gi_bytes_max + tp.li_bytes_max << " B, " << tp.import_rows_max << " rows) + fixed " << tp.t_fixed << ";"
      << m.others << ")";
    unsettled = u.str();
    return false;
  }
  stats.auto_chosen = true;
  stats.auto_path = AutoPath::Bound;
  stats.predicted_owner_slices = false;
  stats.predicted_time = m.tpetra_at_most;
  stats.predicted_gi_bytes_recv = stats.predicted_li_bytes_recv = 0;  // not counted
  if (m.bounded()) {
    stats.auto_reason = "chose tpetra; bounded without counting: tpetra <= " + std::to_string(m.tpetra_at_most) +
                        " s (" + std::to_string(b.flops_max) + " madds, " + std::to_string(b.import_bytes_max) +
                        " B imported at most);" + m.others;
  } else {
    std::ostringstream r;
    r.precision(3);
    r << "chose tpetra; not worth counting: tpetra <= " << m.tpetra_at_most << " s, at most "
      << m.tpetra_at_most - m.others_at_least << " s above the others' lower bound, counting ~" << m.count_cost
      << " s;" << m.others;
    stats.auto_reason = r.str();
  }
  return true;
}

// C's bound from above, from each rank's c_entries_known, c_remote_entries, c_entries_capped
// (their maxima over the ranks: a bound on the max of the sums): the known part plus at most
// B's longest row for each remaining entry at a remote column, and at most the capped bound.
double cBoundOf(const long long maxima[3], double maxRowB) {
  return std::min(static_cast<double>(maxima[0]) + static_cast<double>(maxima[1]) * maxRowB,
                  static_cast<double>(maxima[2]));
}

std::string reasonOf(const std::vector<planner::Estimate>& est, int best) {
  std::ostringstream why;
  why.precision(3);
  why << "chose " << est[best].algo << ";";
  for (const auto& e : est)
    why << " " << e.algo << " " << e.time_s << " s = fixed " << e.t_fixed << " + kernel " << e.t_kernel << " ("
        << e.flops_max << " madds, " << e.c_max << " C) + entries " << e.t_entries << " (" << e.entries_max
        << ") + links " << e.t_links << " (" << e.gi_bytes_max + e.li_bytes_max << " B, " << e.msgs_max
        << " msgs) + import " << e.t_import << " ("
        << e.import_rows_max << " rows" << (e.owner_slices ? ", owner slices" : "") << ");";
  return why.str();
}

// The estimate of least predicted time (the first of equals: ties go to Tpetra, then SUMMA).
int leastTime(const std::vector<planner::Estimate>& est) {
  int best = 0;
  for (int a = 1; a < static_cast<int>(est.size()); ++a)
    if (est[a].time_s < est[best].time_s) best = a;
  return best;
}

AutoChoice choiceOf(Algorithm a, bool owner_slices) {
  AutoChoice c;
  c.algorithm = a;
  c.owner_slices = owner_slices;
  return c;
}

Algorithm algorithmOf(const planner::Estimate& e) {
  return e.algo == "tpetra" ? Algorithm::Tpetra : e.algo == "summa" ? Algorithm::Summa : Algorithm::Trident;
}

// The estimate without counting (AutoInputs::LocalEstimate) decides when it is decisive or when
// counting would cost too much of the product; otherwise `note` says what it would have chosen.
std::optional<AutoChoice> decidedByEstimate(const AutoInputs& in, int P, const Topology& topo, MultiplyStats& stats,
                                            std::string& note) {
  planner::GlobalCounts g = in.estimate.counts;
  g.P = P;
  g.lambda = topo.ranks_per_group();
  // Tpetra's import (bytes and sources) split between the links as if its sources were spread
  // evenly over the other ranks (as the SUMMA estimate's tiles): (lambda - 1) / (P - 1) over Li.
  const double liShare = P > 1 ? static_cast<double>(g.lambda - 1) / (P - 1) : 0.0;
  for (planner::LocalCounts* c : {&g.sum, &g.max}) {
    c->tpetra_li_bytes = c->tpetra_gi_bytes * liShare;
    c->tpetra_gi_bytes *= 1.0 - liShare;
    c->tpetra_li_msgs = c->tpetra_gi_msgs * liShare;
    c->tpetra_gi_msgs *= 1.0 - liShare;
  }
  g.owner_slices_possible = tpetra::ownerSlicesPossible(topo, in.owner_slices_allowed, in.rows_grid_allowed);
  const std::vector<planner::Estimate> est = planner::estimateAll(g, in.model);
  const int best = leastTime(est);
  double next = 0;
  for (int a = 0; a < static_cast<int>(est.size()); ++a)
    if (a != best) next = next == 0 ? est[a].time_s : std::min(next, est[a].time_s);
  const double countCost = in.model.auto_count_overhead + in.model.auto_count_entry_cost * in.bound.entries_max;
  const double tBest = est[best].time_s;
  const bool decisive = next >= kDecisive * tBest, dear = countCost > kCountShare * tBest;
  std::ostringstream why;
  why.precision(3);
  why << " estimated without counting from the owned columns (" << 100.0 * in.estimate.sample_share
      << " % of A's entries): ";
  if (decisive)
    why << "the next best is " << next / tBest << "x slower;";
  else if (dear)
    why << "counting (~" << countCost << " s) would cost over " << 100.0 * kCountShare << " % of the predicted time;";
  else
    why << "not decisive (next best " << next / tBest << "x, counting ~" << countCost << " s), counted;";
  if (!decisive && !dear) {
    note = " (the estimate without counting would choose " + est[best].algo + ";" + why.str() + ")";
    return std::nullopt;
  }
  stats.auto_chosen = true;
  stats.auto_path = AutoPath::Estimate;
  stats.predicted_owner_slices = est[best].owner_slices;
  stats.predicted_time = tBest;
  stats.predicted_gi_bytes_recv = static_cast<std::uint64_t>(est[best].gi_bytes_max);
  stats.predicted_li_bytes_recv = static_cast<std::uint64_t>(est[best].li_bytes_max);
  const std::string reason = reasonOf(est, best);
  const std::size_t head = reason.find(';');
  stats.auto_reason = reason.substr(0, head + 1) + why.str() + reason.substr(head + 1);
  return choiceOf(algorithmOf(est[best]), est[best].owner_slices);
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
// The bound from each slot's maximum and minimum over the ranks (agreeCounts), or from one
// rank's own values as if every rank held the same (whether this rank's bound settles the
// choice by itself). Slots as contributeCounts writes them.
template <class MaxOf, class MinOf>
AutoInputs::Bound boundFrom(const MaxOf& maxOf, const MinOf& minOf) {
  AutoInputs::Bound bound;
  const double maxRowB = static_cast<double>(maxOf(4));
  // The busiest rank's multiply-adds: its known ones plus, at most, the longest row of B for each
  // of its entries at remote columns; its import: at most that row for each remote column.
  bound.flops_max = static_cast<double>(maxOf(1)) + static_cast<double>(maxOf(2)) * maxRowB;
  // The bytes a rank receives: from each of its sources at most what any rank sends any one
  // rank, and at most the longest row of B for each of its remote columns.
  bound.import_bytes_max = std::min(static_cast<double>(maxOf(8)) * static_cast<double>(maxOf(9)),
                                    static_cast<double>(maxOf(3)) * (8.0 + 20.0 * maxRowB));
  // C's rows: their multiply-adds at owned columns, plus at most the longest row of B for each
  // entry at a remote column (chooseAlgorithm tightens this by the local unions where it matters).
  const long long cMaxima[3] = {maxOf(10), maxOf(11), maxOf(12)};
  bound.c_max = cBoundOf(cMaxima, maxRowB);
  bound.b_max_row = maxRowB;
  bound.c_remote_max = static_cast<double>(cMaxima[1]);
  bound.entries_max = static_cast<double>(maxOf(5)) + static_cast<double>(maxOf(6));
  bound.sources_max = static_cast<double>(maxOf(8));
  bound.import_rows_max = static_cast<double>(maxOf(3));
  // A balanced share of the work and of the entries is at least the lightest rank's; the
  // multiply-adds only where they were counted without A's stored zeros (the 2D kernels skip
  // them). Counting the zeros to know cost as much as the bound's pass on MueLu's products, and
  // the others' lower bound is their entries' cost there (the multiply-adds' share is ~1 %).
  bound.flops_min = maxOf(13) > 0 ? 0.0 : static_cast<double>(minOf(1));
  bound.entries_min = static_cast<double>(minOf(7));
  return bound;
}

std::array<long long, kBoundSlots> boundSlotsOf(const tpetra::LocalBoundInputs& b, bool allowed) {
  return {b.ok && allowed ? 1 : 0,   b.flops_known, b.a_remote_entries, b.remote_columns,
          b.b_max_row,               b.a_entries,   b.b_entries,        b.a_entries + b.b_entries,
          b.sources,                 b.max_sent_to_one, b.c_entries_known,
          b.c_remote_entries,        b.c_entries_capped, b.zeros_included ? 1 : 0};
}

// Whether this rank's bound settles the choice for Tpetra as if every rank held what this one
// does, with Tpetra's time from above taken kLocalSlack higher. The agreed bound can only be
// looser (a larger maximum above, a smaller minimum below), so a rank whose own bound does not
// settle knows the estimate will be wanted. The slack is for the agreed bound's combining the
// maxima of different ranks (C's bound, the import from the most sources times the most sent):
// on 4elt's A*A at P = 4 every rank's own bound settled (Tpetra <= 6.5-7.2 ms, others >= 5.0,
// counting 2.6) and the agreed one, 8.2 ms, did not, which cost every call another round
// (0.2 ms beyond the estimate) until the slack; MueLu's coarse products keep settling here
// (bcsstk13's A*P: 2.3-2.5 ms against 2.2, counting 1.7; the 2D Laplacian's are bounded).
constexpr double kLocalSlack = 1.2;
bool settlesHere(const tpetra::LocalBoundInputs& b, int P, const planner::MachineModel& model) {
  const auto v = boundSlotsOf(b, true);
  auto own = [&v](int t) { return v[t]; };
  TpetraMargin m = marginOf(boundFrom(own, own), P, model);
  m.tpetra_at_most *= kLocalSlack;
  return m.settles();
}
}  // namespace

AutoInputs AutoInputs::gather(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                              CollectiveCheck& check, std::optional<std::size_t> a_zeros,
                              std::optional<std::uint64_t> remember_context, bool estimate) {
  AutoInputs in;
  const LoadedModel& loaded = modelFromEnvironment();
  check.failIf(!loaded.error.empty(), loaded.error);
  in.model = loaded.model;
  const long long modelPrint = fingerprintOf(in.model);
  in.model_slot = check.contribute(modelPrint);
  in.a_zeros = a_zeros;
  // TRIDENT_AUTO_COUNT=1 counts every product, also those the bound would settle (to fit a machine
  // model on products where the bound decides) or a remembered choice would. Agreed through the
  // check's minimum, so a rank without it cannot skip the counting collectives the others run.
  const char* countAll = std::getenv("TRIDENT_AUTO_COUNT");
  const bool countEvery = countAll && std::strcmp(countAll, "1") == 0;
  // Only fill-complete operands have the arrays a choice is remembered by (others fail the checks).
  if (remember_context && !countEvery && A.isFillComplete() && B.isFillComplete()) {
    in.memory_context = (*remember_context ^ static_cast<std::uint64_t>(modelPrint)) * 1099511628211ull +
                        static_cast<std::uint64_t>(A.getComm()->getSize());
    Teuchos::TimeMonitor timer(*phaseTimer("Trident: auto: look-up"));
    in.remembered = findRememberedChoice(A, transposeA, B, transposeB, *in.memory_context, a_zeros);
  }
  in.remembered_slot = check.contribute(in.remembered ? static_cast<long long>(in.remembered->algorithm) : -1);
  // Asked only of fill-complete operands (a failure elsewhere is reported instead of this).
  const bool askRows = transposeA && !transposeB && A.isFillComplete() && B.isFillComplete();
  in.rows_slot = check.contribute(askRows && tpetra::locallySame(*A.getRowMap(), *B.getRowMap()) ? 1 : 0);
  in.plain = !transposeA && !transposeB;
  in.a_rows = static_cast<long long>(Compat::localNumRows(A));
  in.bound_allowed = !countEvery;
  in.estimate_allowed = estimate;
  const int skipped = in.computeLocally(A, B, false);
  in.contributeCounts(check);
  in.skipped_slot = check.contribute(skipped);
  return in;
}

void AutoInputs::contributeCounts(CollectiveCheck& check) {
  const tpetra::LocalBoundInputs& b = local_bound;
  const auto v = boundSlotsOf(b, bound_allowed);
  bound_slot = check.contribute(v[0]);
  for (int t = 1; t < kBoundSlots; ++t) check.contribute(v[t]);
  const tpetra::LocalEstimateInputs& e = local_estimate;  // ok only where it was made
  auto ll = [](double x) { return static_cast<long long>(std::llround(x)); };
  const long long work = b.a_entries + ll(e.flops);
  const long long maxima[kEstimateSlots] = {e.ok ? 1 : 0, ll(e.flops), ll(e.max_row_flops), ll(e.c_entries), ll(e.import_bytes), work};
  estimate_slot = check.contribute(maxima[0]);
  for (int t = 1; t < kEstimateSlots; ++t) check.contribute(maxima[t]);
  const long long sums[kEstimateSums] = {ll(e.flops),        ll(e.c_entries), ll(e.import_bytes), ll(e.sample_entries),
                                         a_rows,              b.a_entries,     b.b_entries};
  estimate_sum_slot = check.contributeSum(sums[0]);
  for (int t = 1; t < kEstimateSums; ++t) check.contributeSum(sums[t]);
}

void AutoInputs::holdPlaces(CollectiveCheck& check) {
  for (int t = 0; t < kGatheredSlots; ++t) check.contribute(0);
  for (int t = 0; t < kEstimateSums; ++t) check.contributeSum(0);
}

void AutoInputs::agree(const CollectiveCheck& check) {
  requireAll(check.same(model_slot),
             "Trident: \"trident: algorithm\" = \"auto\": the machine model (TRIDENT_MACHINE_MODEL) differs between ranks");
  transposed_a_on_b_rows = check.min(rows_slot) == 1;
  // Every rank found a choice, and the same one.
  if (!(check.min(remembered_slot) >= 0 && check.same(remembered_slot))) remembered.reset();
  agreeCounts(check);
  incomplete = !remembered && worthAnotherRound(check.max(skipped_slot));
}

void AutoInputs::agreeCounts(const CollectiveCheck& check) {
  const std::size_t b0 = bound_slot;
  bound = Bound();
  estimate = LocalEstimate();
  bound.usable = check.min(b0) == 1;
  if (!bound.usable) return;
  {
    // The estimate as planner::GlobalCounts: sums for the 2D algorithms' balanced shares, maxima
    // for Tpetra's busiest rank. Tpetra's import (bytes, sources) is split between the links by
    // decidedByEstimate, once the groups are known.
    const std::size_t e0 = estimate_slot, s0 = estimate_sum_slot;
    planner::GlobalCounts& g = estimate.counts;
    g.P = 0;  // set by chooseAlgorithm with lambda
    g.sum.flops = static_cast<double>(check.sum(s0));
    g.sum.c_entries = static_cast<double>(check.sum(s0 + 1));
    g.sum.tpetra_gi_bytes = static_cast<double>(check.sum(s0 + 2));
    g.sum.a_rows = static_cast<double>(check.sum(s0 + 4));
    g.sum.a_entries = static_cast<double>(check.sum(s0 + 5));
    g.sum.b_entries = static_cast<double>(check.sum(s0 + 6));
    g.sum.work = g.sum.a_entries + g.sum.flops;
    g.max.flops = static_cast<double>(check.max(e0 + 1));
    g.max.max_row_flops = static_cast<double>(check.max(e0 + 2));
    g.max.c_entries = static_cast<double>(check.max(e0 + 3));
    g.max.tpetra_gi_bytes = static_cast<double>(check.max(e0 + 4));
    g.max.work = static_cast<double>(check.max(e0 + 5));
    g.max.a_entries = static_cast<double>(check.max(b0 + 5));
    g.max.b_entries = static_cast<double>(check.max(b0 + 6));
    g.max.tpetra_gi_msgs = static_cast<double>(check.max(b0 + 8));
    g.max.tpetra_import_rows = static_cast<double>(check.max(b0 + 3));
    estimate.sample_share = g.sum.a_entries > 0 ? static_cast<double>(check.sum(s0 + 3)) / g.sum.a_entries : 1.0;
    estimate.usable = check.min(e0) == 1 && estimate.sample_share >= kMinSample;
  }
  bound = boundFrom([&](int t) { return check.max(b0 + t); }, [&](int t) { return check.min(b0 + t); });
  bound.usable = true;
}

int AutoInputs::computeLocally(const crs_matrix_type& A, const crs_matrix_type& B, bool estimate_wanted) {
  // With a choice remembered here the bound is not needed; if another rank has none, agree()
  // forgets it and a later round computes the bound.
  if (plain && bound_allowed && !bound_computed && !remembered) {
    Teuchos::TimeMonitor timer(*phaseTimer("Trident: auto: bound inputs"));
    local_bound = tpetra::localBoundInputs(A, B, a_zeros);
    bound_computed = true;
  }
  const tpetra::LocalBoundInputs& b = local_bound;
  // local_estimate.ok: made (it is made only from a bound that is ok, and then always ok).
  if (b.ok && bound_allowed && estimate_allowed && !local_estimate.ok &&
      (estimate_wanted || !settlesHere(b, A.getComm()->getSize(), model))) {
    Teuchos::TimeMonitor timer(*phaseTimer("Trident: auto: estimate without counting"));
    local_estimate = tpetra::localEstimateInputs(A, B, b);
  }
  // What this rank skipped that a later round could give: the bound (a remembered choice here),
  // or the estimate (its own bound settled it).
  if (!plain || !bound_allowed) return 0;
  if (!bound_computed) return kSkippedBound;
  return b.ok && estimate_allowed && !local_estimate.ok ? kSkippedEstimate : 0;
}

bool AutoInputs::worthAnotherRound(long long most_skipped) const {
  // A missing bound is always filled in; missing estimates only where every rank's bound is
  // there (else the estimate is not used): the round after fills them all, so there are at
  // most two.
  return most_skipped == kSkippedBound || (most_skipped == kSkippedEstimate && bound.usable);
}

AutoInputs AutoInputs::completed(const crs_matrix_type& A, const crs_matrix_type& B, MPI_Comm comm) const {
  AutoInputs x = *this;
  // An agreed bound that did not settle the choice (the caller's reason to be here) wants the
  // estimate on every rank; one some rank lacked still may settle it.
  const int skipped = x.computeLocally(A, B, bound.usable);
  CollectiveCheck check;
  x.contributeCounts(check);
  x.skipped_slot = check.contribute(skipped);
  check.run(comm);
  x.agreeCounts(check);
  x.incomplete = x.worthAnotherRound(check.max(x.skipped_slot));
  return x;
}

namespace {

// A choice every rank found in memory: its stats as they were, and that it was not worked out again.
AutoChoice fromMemory(const RememberedChoice& r, MultiplyStats& stats) {
  stats.auto_chosen = true;
  stats.auto_path = AutoPath::Remembered;
  stats.predicted_owner_slices = r.owner_slices;
  stats.predicted_time = r.predicted_time;
  stats.predicted_gi_bytes_recv = r.predicted_gi_bytes_recv;
  stats.predicted_li_bytes_recv = r.predicted_li_bytes_recv;
  // "chose X;" first, as every reason; then that it was not worked out again this time.
  const std::size_t head = r.reason.find(';');
  stats.auto_reason = r.reason.substr(0, head) +
                      "; remembered from an earlier call on the same operands, not estimated or counted again;" +
                      (head == std::string::npos ? std::string() : r.reason.substr(head + 1));
  return choiceOf(r.algorithm, r.owner_slices);
}

// The steps of the choice that need no counting, and what they learnt on the way (appended to
// the reason of a choice made later).
struct WithoutCounting {
  const crs_matrix_type& A;
  const crs_matrix_type& B;
  MPI_Comm comm;
  int P;
  const std::function<const Topology&()>& topology;
  MultiplyStats& stats;
  std::string unsettled;  // why the bound did not settle it
  std::string estimated;  // what the estimate without counting would have chosen, when it did not decide

  // Settled by the bound, or decided by the estimate (both agreed).
  std::optional<AutoChoice> settle(const AutoInputs& x) {
    unsettled.clear();
    estimated.clear();
    if (!x.bound.usable) return std::nullopt;
    if (settledForTpetra(x.bound, P, x.model, stats, unsettled)) return choiceOf(Algorithm::Tpetra, false);
    if (!x.estimate.usable) return std::nullopt;
    std::optional<AutoChoice> c = decidedByEstimate(x, P, topology(), stats, estimated);
    if (c) stats.auto_reason += unsettled;
    return c;
  }

  // Some rank skipped the estimate (its own bound settled it) or the bound (a remembered choice
  // the others lacked) and the agreed values did not settle it: every rank fills in what it
  // skipped (agreed: every rank takes this branch or none). At most two more rounds: the first
  // fills in skipped bounds (and the estimate where a rank's own bound does not settle it), the
  // second the estimates a settling bound had skipped. `in` ends as the last round's inputs.
  std::optional<AutoChoice> settleInRounds(AutoInputs& in) {
    std::optional<AutoChoice> c = settle(in);
    for (int round = 0; !c && in.incomplete && round < 2; ++round) {
      Teuchos::TimeMonitor roundTimer(*phaseTimer("Trident: auto: another round"));
      in = in.completed(A, B, comm);
      c = settle(in);
    }
    return c;
  }

  // C bounded by the multiply-adds did not settle it; the unions of the local rows of B can
  // (2-10x fewer on FE and multigrid products), unless even no C at all would not. Every rank
  // takes the same branch: it depends on reduced values only.
  bool settledByUnions(const AutoInputs& in) {
    if (!in.bound.usable) return false;
    AutoInputs::Bound noC = in.bound;
    noC.c_max = 0;
    if (!marginOf(noC, P, in.model).settles()) return false;
    Teuchos::TimeMonitor unionTimer(*phaseTimer("Trident: auto: bound by unions"));
    // The largest C that settles it (the model's time grows with C): the pass can stop once
    // every rank's rows are bounded below it, since cBoundOf's first term is then too.
    double settling = 0, failing = in.bound.c_max;
    for (int it = 0; it < 64 && failing - settling > 1.0; ++it) {
      AutoInputs::Bound mid = in.bound;
      mid.c_max = 0.5 * (settling + failing);
      (marginOf(mid, P, in.model).settles() ? settling : failing) = mid.c_max;
    }
    const double enough = settling - in.bound.c_remote_max * in.bound.b_max_row;
    const tpetra::LocalBoundInputs t =
        tpetra::tightenedByUnions(A, B, in.local_bound, enough >= 0 ? static_cast<long long>(enough) : -1);
    long long maxima[3] = {t.c_entries_known, t.c_remote_entries, t.c_entries_capped};
    MPI_Allreduce(MPI_IN_PLACE, maxima, 3, MPI_LONG_LONG, MPI_MAX, comm);
    AutoInputs::Bound tight = in.bound;
    tight.c_max = std::min(in.bound.c_max, cBoundOf(maxima, in.bound.b_max_row));
    if (!settledForTpetra(tight, P, in.model, stats, unsettled)) return false;
    stats.auto_path = AutoPath::Unions;
    return true;
  }
};

// Exact counts: each rank's multiply-adds, C's entries from sketches and Tpetra's import (one
// import of B's row lengths, one allreduce), then the least predicted time.
AutoChoice byCounting(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                      MPI_Comm comm, const Topology& topo, const AutoInputs& in, const std::string& learnt,
                      MultiplyStats& stats) {
  // A transposed A with rows distributed as B's (P^T*(A*P) in MueLu) is counted without forming
  // A^T, which would cost about what the product does; other transposes are formed.
  const bool cheapTranspose = in.transposed_a_on_b_rows;
  planner::LocalCounts mine;
  tpetra::ImportBytes bytes;
  Teuchos::RCP<const crs_matrix_type> Ap, Bp;
  AutoChoice choice;
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
  if (cheapTranspose) {
    all.max.flops = all.sum.flops / all.P;
    all.max.max_row_flops = 0;
    all.max.a_entries = all.sum.a_entries / all.P;
    all.max.c_entries = all.max.flops;
  }
  const std::vector<planner::Estimate> est = planner::estimateAll(all, in.model);
  const int best = leastTime(est);
  stats.auto_chosen = true;
  stats.auto_path = AutoPath::Counted;
  stats.predicted_owner_slices = est[best].owner_slices;
  stats.predicted_time = est[best].time_s;
  stats.auto_reason = reasonOf(est, best) + learnt;
  // Tpetra's import is counted exactly on each rank; the 2D algorithms' bytes are the estimate's
  // busiest rank (trident-plan gives them exactly).
  const bool tp = est[best].algo == "tpetra";
  stats.predicted_gi_bytes_recv = static_cast<std::uint64_t>(tp ? mine.tpetra_gi_bytes : est[best].gi_bytes_max);
  stats.predicted_li_bytes_recv = static_cast<std::uint64_t>(tp ? mine.tpetra_li_bytes : est[best].li_bytes_max);
  choice.algorithm = algorithmOf(est[best]);
  choice.owner_slices = est[best].owner_slices;
  if (tp && !cheapTranspose) {
    MultiplyStats t;
    t.local_flops = static_cast<std::uint64_t>(mine.flops);
    t.gi_bytes_recv = bytes.gi_recv;
    t.li_bytes_recv = bytes.li_recv;
    t.gi_bytes_sent = bytes.gi_sent;
    t.li_bytes_sent = bytes.li_sent;
    choice.tpetra_counts = t;
  }
  if (rowWork) choice.row_work = std::move(work);
  return choice;
}

}  // namespace

AutoChoice chooseAlgorithm(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                           MPI_Comm comm, const std::function<const Topology&()>& topology, const AutoInputs& in,
                           MultiplyStats& stats) {
  Teuchos::TimeMonitor timer(*phaseTimer("Trident: auto: choose"));
  if (in.remembered) return fromMemory(*in.remembered, stats);
  int P = 1;
  MPI_Comm_size(comm, &P);
  WithoutCounting cheap{A, B, comm, P, topology, stats, {}, {}};
  AutoInputs agreed = in;
  std::optional<AutoChoice> choice = cheap.settleInRounds(agreed);
  if (!choice && cheap.settledByUnions(agreed)) choice = choiceOf(Algorithm::Tpetra, false);
  if (!choice)
    choice = byCounting(A, transposeA, B, transposeB, comm, topology(), in, cheap.estimated + cheap.unsettled, stats);
  // Every choice is remembered: on a repeated call the look-up's hash (microseconds) replaces
  // the bound's pass, the estimate (computed beside the bound, for the one reduction) and the
  // choice, 0.1 ms a call on Pd's 1.3 ms product at P = 4, 0.1-0.6 ms on the estimated ones.
  if (in.memory_context) {
    RememberedChoice r;
    r.algorithm = choice->algorithm;
    r.owner_slices = choice->owner_slices;
    r.predicted_time = stats.predicted_time;
    r.predicted_gi_bytes_recv = stats.predicted_gi_bytes_recv;
    r.predicted_li_bytes_recv = stats.predicted_li_bytes_recv;
    r.reason = stats.auto_reason;
    rememberChoice(A, transposeA, B, transposeB, *in.memory_context, in.a_zeros, r);
  }
  return *choice;
}

}  // namespace MatrixMatrix
}  // namespace Trident
