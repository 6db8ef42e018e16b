#pragma once
// What one rank knows of A*B for "trident: algorithm" = "auto" before anything is counted, and
// its one reduction over the ranks. The adapter fills an AutoSummary from its own rows of A and B
// (Trident_PlannerInput.hpp); the summary travels in the plan's CollectiveCheck beside the other
// checks of the call (each collective costs milliseconds on MueLu's coarse products, so auto
// adds none), and planner/AutoDecision.hpp decides on the ReducedSummary every rank then holds.
// forEachField names each field and how it is reduced, once: packing and unpacking both walk it,
// so a rank that does not choose contributes a default summary of the same length.
#include <cstddef>
#include <vector>

#include "trident/core/Errors.hpp"

namespace Trident {
namespace planner {

struct AutoSummary {
  // Agreed values: the machine model's fingerprint (ranks that read different models fail alike);
  // the choice this rank found remembered (the algorithm's number, -1: none), taken only where
  // every rank found the same; whether A's and B's row maps are the same here (P^T*(A*P) is then
  // counted without forming P^T).
  long long model_print = 0;
  long long remembered = -1;
  long long rows_same = 0;
  // Tpetra's time bounded without counting, from this rank's rows (tpetra::LocalBoundInputs):
  // bound_ok where the bound was made and is allowed; `entries` is a_entries + b_entries.
  long long bound_ok = 0;
  long long flops_known = 0, a_remote_entries = 0, remote_columns = 0, b_max_row = 0;
  long long a_entries = 0, b_entries = 0, entries = 0;
  long long sources = 0, max_sent_to_one = 0;
  long long c_entries_known = 0, c_remote_entries = 0, c_entries_capped = 0;
  long long zeros_included = 0;  // 1: flops_known counted A's stored zeros (a bound from above only)
  // The estimate without counting (tpetra::LocalEstimateInputs), rounded; est_work is
  // a_entries + est_flops.
  long long estimate_ok = 0;
  long long est_flops = 0, est_max_row_flops = 0, est_c_entries = 0, est_import_bytes = 0, est_work = 0;
  long long sample_entries = 0;  // A's entries at owned columns (the estimate's sample)
  long long a_rows = 0;
  // What this rank skipped that another round could fill in (AutoSkipped).
  long long skipped = 0;
};

// AutoSummary::skipped: a rank whose own bound settled the choice skips the estimate; one that
// found the choice remembered skips the bound too.
enum AutoSkipped : long long { kSkippedNothing = 0, kSkippedEstimate = 1, kSkippedBound = 2 };

using SummaryField = long long AutoSummary::*;

// Each field and its reduction: max, min, range (min and max), same (min and max, which must be
// equal), sum, or maxSum (max and sum).
template <class Visitor>
void forEachField(Visitor&& v) {
  using S = AutoSummary;
  v.same("model_print", &S::model_print);
  v.same("remembered", &S::remembered);
  v.min("rows_same", &S::rows_same);
  v.min("bound_ok", &S::bound_ok);
  v.range("flops_known", &S::flops_known);
  v.max("a_remote_entries", &S::a_remote_entries);
  v.max("remote_columns", &S::remote_columns);
  v.max("b_max_row", &S::b_max_row);
  v.maxSum("a_entries", &S::a_entries);
  v.maxSum("b_entries", &S::b_entries);
  v.min("entries", &S::entries);
  v.max("sources", &S::sources);
  v.max("max_sent_to_one", &S::max_sent_to_one);
  v.max("c_entries_known", &S::c_entries_known);
  v.max("c_remote_entries", &S::c_remote_entries);
  v.max("c_entries_capped", &S::c_entries_capped);
  v.max("zeros_included", &S::zeros_included);
  v.min("estimate_ok", &S::estimate_ok);
  v.maxSum("est_flops", &S::est_flops);
  v.max("est_max_row_flops", &S::est_max_row_flops);
  v.maxSum("est_c_entries", &S::est_c_entries);
  v.maxSum("est_import_bytes", &S::est_import_bytes);
  v.max("est_work", &S::est_work);
  v.sum("sample_entries", &S::sample_entries);
  v.sum("a_rows", &S::a_rows);
  v.max("skipped", &S::skipped);
}

// Over the ranks: each field's maximum in `most`, minimum in `least`, sum in `total`, where
// forEachField reduces it so (elsewhere the default).
struct ReducedSummary {
  AutoSummary most, least, total;
  // A `same` field: equal on every rank.
  bool same(SummaryField f) const { return least.*f == most.*f; }
};

// Where a summary's values lie in a CollectiveCheck.
struct SummarySlots {
  std::vector<std::size_t> values, sums;
};

// Before check.run(): this rank's summary into the check.
SummarySlots contribute(const AutoSummary& mine, CollectiveCheck& check);
// After check.run(): every rank's, reduced.
ReducedSummary reducedSummary(const CollectiveCheck& check, const SummarySlots& slots);
// Without communication: as if every rank had contributed `mine` (what one rank's own values
// decide by themselves).
ReducedSummary asIfEveryRank(const AutoSummary& mine, int P);

}  // namespace planner
}  // namespace Trident
