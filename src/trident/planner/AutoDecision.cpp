#include "trident/planner/AutoDecision.hpp"

#include <algorithm>
#include <sstream>
#include <vector>

namespace Trident {
namespace planner {

namespace {

// The estimate without counting decides when its best algorithm is at least this much faster
// than every other by the model (its multiply-adds and C come from the owned columns' sample,
// within ~30 % on the shared graphs at P = 4), or when counting would cost more than
// kCountShare of the best's predicted time (a count could then not pay for itself within the
// 10 % that auto may cost beyond the fastest). It needs a sample of at least kMinSample of A's
// entries (owned columns are ~1/P of a graph's: at large P the products are counted).
constexpr double kDecisive = 1.25;
constexpr double kCountShare = 0.05;
constexpr double kMinSample = 0.05;

// The estimate's least certain number is the busiest rank's share under the 1D rows: each rank
// extrapolates its entries at remote columns from the rows of B it holds, and the rank holding a
// power-law graph's hubs or a circuit's dense rows overstates (rajat01's busiest at 3.3x the
// average where counting finds 1.35x, email-Enron's C at 3.85x against 2.37x). Where the choice
// turns on it (Tpetra's algorithm with its busiest rank at the average would be the least),
// counting decides, unless it costs over this share of the predicted time: the choice is
// remembered, and on those three products the estimate's choice took 1.4-1.6x the fastest.
constexpr double kTurnsCountShare = 0.25;

// settlesHere's slack, for the agreed bound's combining the maxima of different ranks (C's
// bound, the import from the most sources times the most sent): on 4elt's A*A at P = 4 every
// rank's own bound settled (Tpetra <= 6.5-7.2 ms, others >= 5.0, counting 2.6) and the agreed
// one, 8.2 ms, did not, which cost every call another round (0.2 ms beyond the estimate) until
// the slack; MueLu's coarse products keep settling here (bcsstk13's A*P: 2.3-2.5 ms against
// 2.2, counting 1.7; the 2D Laplacian's are bounded).
constexpr double kLocalSlack = 1.2;

// The model's Tpetra time grows with its multiply-adds, C's entries, its entries, import bytes,
// rows and messages; Trident's and SUMMA's are at least their fixed cost plus their balanced
// share of the multiply-adds and entries.
struct TpetraMargin {
  Estimate tp;
  double tpetra_at_most = 0, others_at_least = 0;
  double count_cost = 0;  // what counting would cost
  std::string others;     // the others' lower bounds, for the reason
  // When Tpetra's time from above is no more than the others' from below, counting could only
  // confirm Tpetra (ties go to Tpetra there too); counting can save at most the difference, so
  // where that is less than what counting costs, Tpetra without counting loses less.
  bool bounded() const { return tpetra_at_most <= others_at_least; }
  bool settles() const { return bounded() || tpetra_at_most - others_at_least <= count_cost; }
};

TpetraMargin marginOf(const TpetraBound& b, int P, const MachineModel& model) {
  TpetraMargin m;
  Estimate& tp = m.tp;
  tp.algo = "tpetra";
  tp.flops_max = b.flops_max;
  tp.c_max = std::min(b.flops_max, b.c_max);
  tp.entries_max = b.entries_max;
  // All imported bytes over the slower link, every source charged.
  (model.gi_bandwidth <= model.li_bandwidth ? tp.gi_bytes_max : tp.li_bytes_max) = b.import_bytes_max;
  tp.msgs_max = b.sources_max;
  tp.import_rows_max = b.import_rows_max;
  MachineModel upper = model;
  upper.gi_latency = std::max(model.gi_latency, model.li_latency);
  m.tpetra_at_most = estimateTime(tp, P, upper);
  std::ostringstream why;
  why.precision(3);
  for (const char* algo : {"summa", "trident"}) {
    Estimate e;
    e.algo = algo;
    e.flops_max = b.flops_min;
    e.entries_max = b.entries_min;
    const double t = estimateTime(e, P, model);
    m.others_at_least = m.others_at_least == 0 ? t : std::min(m.others_at_least, t);
    why << " " << algo << " >= " << t << " s;";
  }
  m.others = why.str();
  // Counting costs an import of B's lengths and sketches and an allreduce: the model's
  // auto_count_* terms, on the busiest rank's entries.
  m.count_cost = model.auto_count_overhead + model.auto_count_entry_cost * b.entries_max;
  return m;
}

// C's bound from above, from the maxima over the ranks of c_entries_known, c_remote_entries and
// c_entries_capped (a bound on the max of the sums): the known part plus at most B's longest row
// for each remaining entry at a remote column, and at most the capped bound.
double cBoundOf(const long long maxima[3], double maxRowB) {
  return std::min(static_cast<double>(maxima[0]) + static_cast<double>(maxima[1]) * maxRowB,
                  static_cast<double>(maxima[2]));
}

std::string reasonOf(const std::vector<Estimate>& est, int best) {
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
int leastTime(const std::vector<Estimate>& est) {
  int best = 0;
  for (int a = 1; a < static_cast<int>(est.size()); ++a)
    if (est[a].time_s < est[best].time_s) best = a;
  return best;
}

ChosenAlgorithm algorithmOf(const Estimate& e) {
  return e.algo == "tpetra" ? ChosenAlgorithm::Tpetra
         : e.algo == "summa" ? ChosenAlgorithm::Summa
                             : ChosenAlgorithm::Trident;
}

// The estimate's best as a decision on `path`; bytes are the estimate's busiest rank's.
AutoDecision decisionOf(const Estimate& best, AutoPath path) {
  AutoDecision d;
  d.algorithm = algorithmOf(best);
  d.owner_slices = best.owner_slices;
  d.path = path;
  d.predicted_time = best.time_s;
  d.predicted_gi_bytes_recv = static_cast<std::uint64_t>(best.gi_bytes_max);
  d.predicted_li_bytes_recv = static_cast<std::uint64_t>(best.li_bytes_max);
  return d;
}

std::string notBounded(const TpetraMargin& m) {
  const Estimate& tp = m.tp;
  std::ostringstream u;
  u.precision(3);
  u << " (not bounded: tpetra <= " << m.tpetra_at_most << " s = kernel " << tp.t_kernel << " (" << tp.flops_max
    << " madds, " << tp.c_max << " C) + links " << tp.t_links << " + import " << tp.t_import << " ("
    << tp.gi_bytes_max + tp.li_bytes_max << " B, " << tp.import_rows_max << " rows) + fixed " << tp.t_fixed << ";"
    << m.others << ")";
  return u.str();
}

// GlobalCounts' Tpetra import (bytes and sources) split between the links as if its sources were
// spread evenly over the other ranks (as the SUMMA estimate's tiles): (lambda - 1) / (P - 1) over Li.
void splitImportByLinks(GlobalCounts& g) {
  const double liShare = g.P > 1 ? static_cast<double>(g.lambda - 1) / (g.P - 1) : 0.0;
  for (LocalCounts* c : {&g.sum, &g.max}) {
    c->tpetra_li_bytes = c->tpetra_gi_bytes * liShare;
    c->tpetra_gi_bytes *= 1.0 - liShare;
    c->tpetra_li_msgs = c->tpetra_gi_msgs * liShare;
    c->tpetra_gi_msgs *= 1.0 - liShare;
  }
}

}  // namespace

TpetraBound boundOf(const ReducedSummary& r) {
  TpetraBound bound;
  if (r.least.bound_ok != 1) return bound;
  const AutoSummary& hi = r.most;
  const double maxRowB = static_cast<double>(hi.b_max_row);
  // The busiest rank's multiply-adds: its known ones plus, at most, the longest row of B for each
  // of its entries at remote columns; its import: at most that row for each remote column.
  bound.flops_max = static_cast<double>(hi.flops_known) + static_cast<double>(hi.a_remote_entries) * maxRowB;
  // The bytes a rank receives: from each of its sources at most what any rank sends any one
  // rank, and at most the longest row of B for each of its remote columns.
  bound.import_bytes_max = std::min(static_cast<double>(hi.sources) * static_cast<double>(hi.max_sent_to_one),
                                    static_cast<double>(hi.remote_columns) * (8.0 + 20.0 * maxRowB));
  // C's rows: their multiply-adds at owned columns, plus at most the longest row of B for each
  // entry at a remote column (tightenedBound tightens this by the local unions where it matters).
  const long long cMaxima[3] = {hi.c_entries_known, hi.c_remote_entries, hi.c_entries_capped};
  bound.c_max = cBoundOf(cMaxima, maxRowB);
  bound.b_max_row = maxRowB;
  bound.c_remote_max = static_cast<double>(cMaxima[1]);
  bound.entries_max = static_cast<double>(hi.a_entries) + static_cast<double>(hi.b_entries);
  bound.sources_max = static_cast<double>(hi.sources);
  bound.import_rows_max = static_cast<double>(hi.remote_columns);
  // A balanced share of the work and of the entries is at least the lightest rank's; the
  // multiply-adds only where they were counted without A's stored zeros (the 2D kernels skip
  // them). Counting the zeros to know cost as much as the bound's pass on MueLu's products, and
  // the others' lower bound is their entries' cost there (the multiply-adds' share is ~1 %).
  bound.flops_min = hi.zeros_included > 0 ? 0.0 : static_cast<double>(r.least.flops_known);
  bound.entries_min = static_cast<double>(r.least.entries);
  bound.usable = true;
  return bound;
}

EstimateCounts estimateOf(const ReducedSummary& r) {
  EstimateCounts e;
  if (r.least.bound_ok != 1) return e;
  // Sums for the 2D algorithms' balanced shares, maxima for Tpetra's busiest rank.
  const AutoSummary &hi = r.most, &all = r.total;
  GlobalCounts& g = e.counts;
  g.P = 0;  // decideByEstimate's, with lambda
  g.sum.flops = static_cast<double>(all.est_flops);
  g.sum.c_entries = static_cast<double>(all.est_c_entries);
  g.sum.tpetra_gi_bytes = static_cast<double>(all.est_import_bytes);
  g.sum.a_rows = static_cast<double>(all.a_rows);
  g.sum.a_entries = static_cast<double>(all.a_entries);
  g.sum.b_entries = static_cast<double>(all.b_entries);
  g.sum.work = g.sum.a_entries + g.sum.flops;
  g.max.flops = static_cast<double>(hi.est_flops);
  g.max.max_row_flops = static_cast<double>(hi.est_max_row_flops);
  g.max.c_entries = static_cast<double>(hi.est_c_entries);
  g.max.tpetra_gi_bytes = static_cast<double>(hi.est_import_bytes);
  g.max.work = static_cast<double>(hi.est_work);
  g.max.a_entries = static_cast<double>(hi.a_entries);
  g.max.b_entries = static_cast<double>(hi.b_entries);
  g.max.tpetra_gi_msgs = static_cast<double>(hi.sources);
  g.max.tpetra_import_rows = static_cast<double>(hi.remote_columns);
  e.sample_share = g.sum.a_entries > 0 ? static_cast<double>(all.sample_entries) / g.sum.a_entries : 1.0;
  e.usable = r.least.estimate_ok == 1 && e.sample_share >= kMinSample;
  return e;
}

std::optional<AutoDecision> decideByBound(const TpetraBound& b, int P, const MachineModel& model,
                                          std::string& unsettled) {
  const TpetraMargin m = marginOf(b, P, model);
  if (!m.settles()) {
    unsettled = notBounded(m);
    return std::nullopt;
  }
  AutoDecision d;
  d.algorithm = ChosenAlgorithm::Tpetra;
  d.path = AutoPath::Bound;
  d.predicted_time = m.tpetra_at_most;  // bytes not counted: 0
  if (m.bounded()) {
    d.reason = "chose tpetra; bounded without counting: tpetra <= " + std::to_string(m.tpetra_at_most) + " s (" +
               std::to_string(b.flops_max) + " madds, " + std::to_string(b.import_bytes_max) +
               " B imported at most);" + m.others;
  } else {
    std::ostringstream r;
    r.precision(3);
    r << "chose tpetra; not worth counting: tpetra <= " << m.tpetra_at_most << " s, at most "
      << m.tpetra_at_most - m.others_at_least << " s above the others' lower bound, counting ~" << m.count_cost
      << " s;" << m.others;
    d.reason = r.str();
  }
  return d;
}

// Whether Tpetra's algorithm would be the least with its busiest rank at the average.
bool oneDLeastAtAverage(GlobalCounts g, const MachineModel& model) {
  g.max.flops = g.sum.flops / g.P;
  g.max.c_entries = g.sum.c_entries / g.P;
  return leastTime(estimateAll(g, model)) == 0;
}

std::optional<AutoDecision> decideByEstimate(const EstimateCounts& e, double entries_max, int P, const Groups& groups,
                                             const MachineModel& model, std::string& note) {
  GlobalCounts g = e.counts;
  g.P = P;
  g.lambda = groups.lambda;
  splitImportByLinks(g);
  g.owner_slices_possible = groups.owner_slices_possible;
  g.ranks_per_core = groups.ranks_per_core;
  const std::vector<Estimate> est = estimateAll(g, model);
  const int best = leastTime(est);
  double next = 0;
  for (int a = 0; a < static_cast<int>(est.size()); ++a)
    if (a != best) next = next == 0 ? est[a].time_s : std::min(next, est[a].time_s);
  const double countCost = model.auto_count_overhead + model.auto_count_entry_cost * entries_max;
  const double tBest = est[best].time_s;
  const bool turns = best != 0 && oneDLeastAtAverage(g, model);
  const double share = turns ? kTurnsCountShare : kCountShare;
  const bool decisive = !turns && next >= kDecisive * tBest, dear = countCost > share * tBest;
  std::ostringstream why;
  why.precision(3);
  why << " estimated without counting from the owned columns (" << 100.0 * e.sample_share << " % of A's entries): ";
  if (decisive)
    why << "the next best is " << next / tBest << "x slower;";
  else if (dear)
    why << "counting (~" << countCost << " s) would cost over " << 100.0 * share << " % of the predicted time;";
  else if (turns)
    why << "it turns on the 1D rows' busiest rank (tpetra at its average would be the least), counted;";
  else
    why << "not decisive (next best " << next / tBest << "x, counting ~" << countCost << " s), counted;";
  if (!decisive && !dear) {
    note = " (the estimate without counting would choose " + est[best].algo + ";" + why.str() + ")";
    return std::nullopt;
  }
  AutoDecision d = decisionOf(est[best], AutoPath::Estimate);
  const std::string reason = reasonOf(est, best);
  const std::size_t head = reason.find(';');
  d.reason = reason.substr(0, head + 1) + why.str() + reason.substr(head + 1);
  return d;
}

AutoOutcome decide(const ReducedSummary& r, const MachineModel& model, const DecisionContext& context) {
  AutoOutcome o;
  const TpetraBound b = boundOf(r);
  if (!b.usable) return o;
  o.decision = decideByBound(b, context.P, model, o.unsettled);
  if (o.decision) return o;
  const EstimateCounts e = estimateOf(r);
  if (!e.usable) return o;
  o.decision = decideByEstimate(e, b.entries_max, context.P, context.groups(), model, o.estimated);
  if (o.decision) o.decision->reason += o.unsettled;
  return o;
}

bool settlesHere(const AutoSummary& mine, int P, const MachineModel& model) {
  TpetraMargin m = marginOf(boundOf(asIfEveryRank(mine, P)), P, model);
  m.tpetra_at_most *= kLocalSlack;
  return m.settles();
}

bool anotherRoundHelps(const ReducedSummary& r) {
  // A missing bound is always filled in; missing estimates only where every rank's bound is
  // there (else the estimate is not used): the round after fills them all, so there are at
  // most two.
  const long long skipped = r.most.skipped;
  return skipped == kSkippedBound || (skipped == kSkippedEstimate && boundOf(r).usable);
}

std::optional<long long> unionsTarget(const TpetraBound& b, int P, const MachineModel& model) {
  if (!b.usable) return std::nullopt;
  TpetraBound noC = b;
  noC.c_max = 0;
  if (!marginOf(noC, P, model).settles()) return std::nullopt;
  // The largest C that settles it (the model's time grows with C): the pass can stop once every
  // rank's rows are bounded below it, since cBoundOf's first term is then too.
  double settling = 0, failing = b.c_max;
  for (int it = 0; it < 64 && failing - settling > 1.0; ++it) {
    TpetraBound mid = b;
    mid.c_max = 0.5 * (settling + failing);
    (marginOf(mid, P, model).settles() ? settling : failing) = mid.c_max;
  }
  const double enough = settling - b.c_remote_max * b.b_max_row;
  return enough >= 0 ? static_cast<long long>(enough) : -1;
}

TpetraBound tightenedBound(const TpetraBound& b, const long long maxima[3]) {
  TpetraBound tight = b;
  tight.c_max = std::min(b.c_max, cBoundOf(maxima, b.b_max_row));
  return tight;
}

std::optional<AutoDecision> byUnions(const TpetraBound& tight, int P, const MachineModel& model, std::string& unsettled) {
  std::optional<AutoDecision> d = decideByBound(tight, P, model, unsettled);
  if (d) d->path = AutoPath::Unions;
  return d;
}

AutoDecision decideByCounts(const GlobalCounts& all, const MachineModel& model, const std::string& learnt,
                            double tpetra_gi_bytes_here, double tpetra_li_bytes_here) {
  const std::vector<Estimate> est = estimateAll(all, model);
  const int best = leastTime(est);
  AutoDecision d = decisionOf(est[best], AutoPath::Counted);
  d.reason = reasonOf(est, best) + learnt;
  // Tpetra's import is counted exactly on each rank; the 2D algorithms' bytes are the estimate's
  // busiest rank (trident-plan gives them exactly).
  if (d.algorithm == ChosenAlgorithm::Tpetra) {
    d.predicted_gi_bytes_recv = static_cast<std::uint64_t>(tpetra_gi_bytes_here);
    d.predicted_li_bytes_recv = static_cast<std::uint64_t>(tpetra_li_bytes_here);
  }
  return d;
}

}  // namespace planner
}  // namespace Trident
