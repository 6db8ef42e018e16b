// "auto"'s decisions (planner/AutoDecision.hpp) on hand-built summaries, without MPI: the path
// and the algorithm each stage takes, that the groups are asked only where the estimate is
// reached, and the summary's reduction (planner/AutoSummary.hpp) field by field.
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <trident/planner/AutoDecision.hpp>
#include <trident/planner/AutoSummary.hpp>
#include <trident/planner/BlockBalance.hpp>
#include <trident/planner/Estimate.hpp>
#include <trident/planner/MachineModel.hpp>

using namespace Trident;
using namespace Trident::planner;

namespace {
int failures = 0;
void check(bool ok, const std::string& what, const std::string& detail = "") {
  std::printf("%s: %s%s%s\n", ok ? "PASS" : "FAIL", what.c_str(), detail.empty() ? "" : " | ", detail.c_str());
  if (!ok) ++failures;
}

// Each field's reduction as declared, with the names checked once each.
struct Declared {
  std::set<std::string> names;
  int values = 0, sums = 0;
  bool unique = true;
  void add(const char* n) { unique = names.insert(n).second && unique; }
  void max(const char* n, SummaryField) { add(n), ++values; }
  void min(const char* n, SummaryField) { add(n), ++values; }
  void range(const char* n, SummaryField) { add(n), ++values; }
  void same(const char* n, SummaryField) { add(n), ++values; }
  void sum(const char* n, SummaryField) { add(n), ++sums; }
  void maxSum(const char* n, SummaryField) { add(n), ++values, ++sums; }
};

void testReduction() {
  Declared d;
  forEachField(d);
  // The CollectiveCheck lengths the plan's check had before the summary: 24 values, 7 sums.
  check(d.unique && d.values == 24 && d.sums == 7, "each field declared once; 24 values and 7 sums in the check");
  AutoSummary s;
  s.flops_known = 10;
  s.a_entries = 3;
  s.entries = 5;
  s.sample_entries = 2;
  s.skipped = kSkippedEstimate;
  const ReducedSummary r = asIfEveryRank(s, 4);
  check(r.most.flops_known == 10 && r.least.flops_known == 10, "range: minimum and maximum");
  check(r.most.a_entries == 3 && r.total.a_entries == 12 && r.least.a_entries == 0, "maxSum: maximum and sum only");
  check(r.least.entries == 5 && r.most.entries == 0, "min: minimum only");
  check(r.total.sample_entries == 8 && r.most.sample_entries == 0, "sum: sum only");
  check(r.same(&AutoSummary::model_print) && r.most.skipped == kSkippedEstimate, "same and max");
}

// A small FE-like product on each of P ranks: no remote columns, few entries.
AutoSummary smallProduct() {
  AutoSummary s;
  s.bound_ok = 1;
  s.flops_known = 1000;
  s.b_max_row = 5;
  s.a_entries = s.b_entries = 200;
  s.entries = 400;
  s.c_entries_known = s.c_entries_capped = 1000;
  return s;
}

// A large product whose bound of Tpetra's time is loose (many entries at remote columns, long
// rows of B), with the estimate made from half of A's entries.
AutoSummary largeProduct() {
  AutoSummary s;
  s.bound_ok = 1;
  s.flops_known = 2000000;
  s.a_remote_entries = 100000;
  s.remote_columns = 20000;
  s.b_max_row = 200;
  s.a_entries = s.b_entries = 200000;
  s.entries = 400000;
  s.sources = 3;
  s.max_sent_to_one = 4000000;
  s.c_entries_known = 1000000;
  s.c_remote_entries = 100000;
  s.c_entries_capped = 10000000;
  s.estimate_ok = 1;
  s.est_flops = 4000000;
  s.est_max_row_flops = 1000;
  s.est_c_entries = 1500000;
  s.est_import_bytes = 2000000;
  s.est_work = s.a_entries + s.est_flops;
  s.sample_entries = 100000;
  s.a_rows = 20000;
  return s;
}

DecisionContext contextOf(int P, int& asked) {
  DecisionContext c;
  c.P = P;
  c.groups = [&asked]() {
    ++asked;
    return Groups{2, true};
  };
  return c;
}

void testBound() {
  int asked = 0;
  const AutoOutcome o = decide(asIfEveryRank(smallProduct(), 4), MachineModel(), contextOf(4, asked));
  check(o.decision && o.decision->path == AutoPath::Bound && o.decision->algorithm == ChosenAlgorithm::Tpetra &&
            !o.decision->owner_slices && o.decision->predicted_time > 0 && o.decision->predicted_gi_bytes_recv == 0,
        "a small product is settled by the bound, for Tpetra", o.decision ? o.decision->reason : "undecided");
  check(asked == 0, "the bound asks no groups");
  check(settlesHere(smallProduct(), 4, MachineModel()), "one rank's own bound settles it too");
  ReducedSummary r = asIfEveryRank(smallProduct(), 4);
  r.least.bound_ok = 0;
  const AutoOutcome none = decide(r, MachineModel(), contextOf(4, asked));
  check(!none.decision && none.learnt().empty() && asked == 0, "a rank without its bound: nothing decided, nothing learnt");
}

void testEstimate() {
  MachineModel favoured;  // test/core/trident_favoured.model: Tpetra and SUMMA cost 1 s fixed
  favoured.tpetra_overhead = favoured.summa_overhead = 1.0;
  int asked = 0;
  const AutoOutcome o = decide(asIfEveryRank(largeProduct(), 4), favoured, contextOf(4, asked));
  check(o.decision && o.decision->path == AutoPath::Estimate && o.decision->algorithm == ChosenAlgorithm::Trident,
        "a decisive estimate chooses Trident", o.decision ? o.decision->reason : o.learnt());
  check(asked == 1 && !o.unsettled.empty(), "the estimate asks the groups once, after the bound did not settle");
  check(o.decision && o.decision->reason.find(o.unsettled) != std::string::npos,
        "the reason says why the bound did not settle");
  ReducedSummary thin = asIfEveryRank(largeProduct(), 4);
  thin.total.sample_entries = thin.total.a_entries / 100;  // 1 %: too small a sample
  asked = 0;
  const AutoOutcome u = decide(thin, favoured, contextOf(4, asked));
  check(!u.decision && asked == 0 && !u.unsettled.empty() && u.estimated.empty(),
        "too small a sample: undecided, the estimate not made");
  check(!estimateOf(thin).usable && estimateOf(asIfEveryRank(largeProduct(), 4)).usable,
        "the estimate is usable with a large enough sample");
}

// A product that moves nothing (one rank reading A and B in place) is charged no entries moved
// into tiles and C at the in-place cost; Tpetra's terms do not change.
void testMovingNothing() {
  const MachineModel m;
  const MachineModel still = movingNothing(m);
  Estimate tr, tp;
  tr.algo = "trident";
  tp.algo = "tpetra";
  for (Estimate* e : {&tr, &tp}) {
    e->flops_max = 4e6;
    e->c_max = 3e6;
    e->entries_max = 2e6;
  }
  Estimate tr2 = tr, tp2 = tp;
  estimateTime(tr, 1, m);
  estimateTime(tr2, 1, still);
  estimateTime(tp, 1, m);
  estimateTime(tp2, 1, still);
  check(tr2.t_entries == 0 && tr.t_entries > 0 && tr2.t_kernel < tr.t_kernel,
        "moving nothing: no entries into tiles, C at the in-place cost");
  check(tp2.time_s == tp.time_s, "moving nothing: Tpetra's prediction unchanged");
}

// Tpetra's algorithm run in place ("1d") is charged C at the in-place cost and its rows at the
// in-place packing cost; the links, the fixed cost and the other algorithms do not change.
void testTpetraInPlace() {
  const MachineModel m;
  const MachineModel inPlace = tpetraInPlace(m);
  Estimate tp, tr;
  tp.algo = "tpetra";
  tr.algo = "trident";
  for (Estimate* e : {&tp, &tr}) {
    e->flops_max = 4e6;
    e->c_max = 3e6;
    e->entries_max = 2e6;
    e->gi_bytes_max = 1e6;
    e->import_rows_max = 1e4;
  }
  Estimate tp2 = tp, tr2 = tr;
  estimateTime(tp, 4, m);
  estimateTime(tp2, 4, inPlace);
  estimateTime(tr, 4, m);
  estimateTime(tr2, 4, inPlace);
  check(tp2.t_kernel < tp.t_kernel && tp2.t_import < tp.t_import && tp2.t_import > 0,
        "Tpetra in place: C at the in-place cost, the rows packed at the in-place cost");
  check(tp2.t_links == tp.t_links && tp2.t_fixed == tp.t_fixed, "Tpetra in place: the same links and fixed cost");
  check(tr2.time_s == tr.time_s, "Tpetra in place: Trident's prediction unchanged");
}

// Where ranks share cores, the 1D rows' busiest rank is charged its share of the cores it can
// take from lighter ranks (at least the average); with a core per rank, its own work. SUMMA and
// balanced Trident do not change.
void testSharedCores() {
  check(busiestShare(300, 400, 4, 2) == 150 && busiestShare(300, 400, 4, 1) == 300 &&
            busiestShare(120, 400, 4, 2) == 100 && busiestShare(300, 400, 4, 0.5) == 300,
        "busiest share: max(busiest / ranks per core, average), ranks per core at least 1");
  GlobalCounts g;
  g.P = 4;
  g.lambda = 2;
  g.owner_slices_possible = true;
  for (LocalCounts* c : {&g.sum, &g.max}) {
    const double k = c == &g.sum ? 4.0 : 1.8;  // the busiest rank: 1.8x the average
    c->a_rows = 1000 * k;
    c->a_entries = c->b_entries = 5000 * k;
    c->flops = c->c_entries = 20000 * k;
    c->work = c->a_entries + c->flops;
  }
  const std::vector<Estimate> own = estimateAll(g, MachineModel());
  g.ranks_per_core = 2;
  const std::vector<Estimate> shared = estimateAll(g, MachineModel());
  check(own[0].flops_max == 36000 && own[0].c_max == 36000 && shared[0].flops_max == 20000 &&
            shared[0].c_max == 20000 && shared[0].time_s < own[0].time_s,
        "two ranks a core: Tpetra's busiest rank at the average (its half, 0.9x, is below)");
  check(own[2].owner_slices && shared[2].owner_slices && shared[2].flops_max == 20000 && own[2].flops_max == 36000,
        "two ranks a core: Trident's owner slices likewise");
  check(shared[1].time_s == own[1].time_s, "two ranks a core: SUMMA unchanged");
}

// The estimate overstates the 1D rows' busiest rank (each rank extrapolates its remote entries
// from its own rows of B): where the choice turns on it, counting decides unless it is dear.
void testTurnsOnBusiest() {
  const MachineModel inPlace = tpetraInPlace(MachineModel());
  ReducedSummary r = asIfEveryRank(largeProduct(), 4);
  r.most.est_flops *= 3;
  r.most.est_c_entries *= 3;
  r.most.est_work = r.most.a_entries + r.most.est_flops;
  int asked = 0;
  const AutoOutcome o = decide(r, inPlace, contextOf(4, asked));
  check(!o.decision && o.estimated.find("turns on the 1D rows' busiest rank") != std::string::npos,
        "the choice turns on Tpetra's busiest rank: counted", o.decision ? o.decision->reason : o.learnt());
  const AutoOutcome even = decide(asIfEveryRank(largeProduct(), 4), inPlace, contextOf(4, asked));
  check(even.learnt().find("turns on") == std::string::npos, "ranks alike: it does not turn on the busiest rank",
        even.decision ? even.decision->reason : even.learnt());
  MachineModel dear = inPlace;
  dear.auto_count_overhead = 0.05;  // over 25 % of Trident's ~0.08 s, under the bound's margin
  const AutoOutcome d = decide(r, dear, contextOf(4, asked));
  check(d.decision && d.decision->path == AutoPath::Estimate && d.decision->algorithm != ChosenAlgorithm::Tpetra &&
            d.decision->reason.find("over 25 %") != std::string::npos,
        "it turns on the busiest rank but counting costs over 25 %: the estimate decides",
        d.decision ? d.decision->reason : d.learnt());
}

void testRounds() {
  ReducedSummary r = asIfEveryRank(largeProduct(), 4);
  r.most.skipped = kSkippedEstimate;
  check(anotherRoundHelps(r), "a skipped estimate with every bound: another round");
  r.least.bound_ok = 0;
  check(!anotherRoundHelps(r), "a skipped estimate without every bound: no round");
  r.most.skipped = kSkippedBound;
  check(anotherRoundHelps(r), "a skipped bound: another round");
}

void testUnions() {
  // C bounded by the multiply-adds (0.4 s at Tpetra's C cost) keeps the bound from settling;
  // without C it settles (7 ms of multiply-adds against the others' 19 ms of entries), and the
  // unions bound C small enough.
  AutoSummary s = smallProduct();
  s.flops_known = 10000000;
  s.a_entries = s.b_entries = 100000;
  s.entries = 200000;
  s.c_entries_known = s.c_entries_capped = 10000000;
  const ReducedSummary r = asIfEveryRank(s, 4);
  const TpetraBound b = boundOf(r);
  std::string unsettled;
  check(b.usable && !decideByBound(b, 4, MachineModel(), unsettled) && !unsettled.empty(),
        "C at the multiply-adds: not settled");
  const std::optional<long long> enough = unionsTarget(b, 4, MachineModel());
  check(enough && *enough > 0 && *enough < 10000000, "the unions' target lies below the multiply-adds",
        enough ? std::to_string(*enough) : "none");
  const long long small[3] = {1000, 0, 1000};
  const std::optional<AutoDecision> d = byUnions(tightenedBound(b, small), 4, MachineModel(), unsettled);
  check(d && d->path == AutoPath::Unions && d->algorithm == ChosenAlgorithm::Tpetra, "C bounded by the unions settles it");
  const long long large[3] = {10000000, 0, 10000000};
  check(!byUnions(tightenedBound(b, large), 4, MachineModel(), unsettled), "unions no smaller: not settled");
}

void testCounts() {
  GlobalCounts g;
  g.P = 4;
  g.lambda = 2;
  for (LocalCounts* c : {&g.sum, &g.max}) {
    const double k = c == &g.sum ? 4.0 : 1.0;
    c->a_rows = 1000 * k;
    c->a_entries = c->b_entries = 5000 * k;
    c->flops = c->c_entries = 20000 * k;
    c->work = c->a_entries + c->flops;
  }
  const std::string learnt = " (what the bound found)";
  const AutoDecision d = decideByCounts(g, MachineModel(), learnt, 123, 45);
  const std::vector<Estimate> est = estimateAll(g, MachineModel());
  int best = 0;
  for (int a = 1; a < 3; ++a)
    if (est[a].time_s < est[best].time_s) best = a;
  check(d.path == AutoPath::Counted && d.predicted_time == est[best].time_s, "counts: the least predicted time");
  check(d.reason.rfind("chose " + est[best].algo + ";", 0) == 0 && d.reason.size() > learnt.size() &&
            d.reason.compare(d.reason.size() - learnt.size(), learnt.size(), learnt) == 0,
        "counts: the reason names the choice and ends with what was learnt", d.reason);
  if (d.algorithm == ChosenAlgorithm::Tpetra)
    check(d.predicted_gi_bytes_recv == 123 && d.predicted_li_bytes_recv == 45, "Tpetra: this rank's counted bytes");
}

// "trident: blocks" = "auto": uneven groups are balanced where Gi carries an entry of C faster
// than the kernel makes one (the defaults: one machine), never on a slow link or near balance.
void testBlockBalance() {
  const MachineModel one;
  MachineModel slow;
  slow.gi_bandwidth = 6.25e6;  // 50 Mbit/s
  const std::vector<double> enron = {1.76, 0.24}, near = {1.05, 0.95};
  check(balanceBlocks(enron, one, false), "blocks: uneven groups on one machine are cut by work");
  check(!balanceBlocks(enron, one, true), "blocks: not where ranks share cores");
  check(!balanceBlocks(enron, slow, false), "blocks: not over a 50 Mbit Gi");
  check(!balanceBlocks(near, one, false) && !groupsUneven(near) && groupsUneven(enron),
        "blocks: groups within 1.1x of the average stay even");
  check(!balanceBlocks({3.0}, one, false) && !balanceBlocks({0.0, 0.0}, one, false), "blocks: one group, or no work, stay even");
  MachineModel slower = one, faster = one;
  slower.gi_bandwidth = 0.99 * kBytesPerEntryOfC / one.trident_c_cost;
  faster.gi_bandwidth = 1.01 * kBytesPerEntryOfC / one.trident_c_cost;
  check(!balanceBlocks(enron, slower, false) && balanceBlocks(enron, faster, false),
        "blocks: the line is where Gi sends an entry of C as fast as the kernel makes one");
}
}  // namespace

int main() {
  testReduction();
  testBound();
  testEstimate();
  testMovingNothing();
  testTpetraInPlace();
  testSharedCores();
  testTurnsOnBusiest();
  testRounds();
  testUnions();
  testCounts();
  testBlockBalance();
  std::printf("%s\n", failures ? "FAILED" : "all passed");
  return failures ? 1 : 0;
}
