#pragma once
// What one distributed multiply cost on this rank: bytes per link and time per phase.
// Gi = the slow link between groups (nodes), Li = the fast link inside a group.
#include <cstdint>
#include <string>
#include <mpi.h>

namespace Trident {

struct PhaseTimes {
  double redistribute_in = 0;   // 1D Tpetra rows -> trident tiles (or SUMMA blocks)
  double gi_wait = 0;           // waiting for tiles fetched over Gi (what overlap did not hide)
  double li_allgather = 0;      // rebuilding B(s,j) inside the group
  double local_multiply = 0;    // local SpGEMM kernels
  double accumulate = 0;        // summing the partial products into C
  // After the multiply, waiting for the rank whose loop ends last (the loop's imbalance), before
  // the out phase's collectives.
  double imbalance_wait = 0;
  double redistribute_out = 0;  // C tiles -> 1D Tpetra rows, fillComplete
  double total = 0;             // wall time of the whole multiply on this rank
};

// Which step of "trident: algorithm" = "auto" made the choice (docs/design.md, the automatic
// choice): a choice remembered from an earlier call on the same operands, Tpetra's time bounded
// from above, the estimate without counting, the bound tightened by the unions of B's local rows,
// or exact counts.
enum class AutoPath { NotAuto, Remembered, Bound, Estimate, Unions, Counted };
const char* toString(AutoPath path);

struct MultiplyStats {
  std::string algorithm;        // "trident", "summa", "tpetra"
  int P = 1;                    // ranks
  int ranks_per_group = 1;      // lambda; 0 for a product Tpetra did where no groups were formed (auto)
  int grid_rows = 1, grid_cols = 1, rounds = 1;  // coarse grid and schedule length
  // Bytes this rank sent / received inside the multiply, by link. Collective transfers count
  // the logical volume (what each receiver gets), as the paper's Figure 10 does.
  std::uint64_t gi_bytes_sent = 0, gi_bytes_recv = 0;
  std::uint64_t li_bytes_sent = 0, li_bytes_recv = 0;
  // Bytes this rank sent in the redistributions in and out (1D rows <-> tiles), by link. Not part
  // of the paper's volumes, which assume the matrices start in the 2D layout.
  std::uint64_t redistribute_gi_bytes = 0, redistribute_li_bytes = 0;
  std::uint64_t local_flops = 0;  // multiply-adds done by this rank's local kernels
  std::uint64_t nnz_c_local = 0;  // entries of C this rank produced before redistribution out
  bool reused_plan = false;       // a kept MultiplyPlan wrote C's values in place (no symbolic work)
  bool owner_slices = false;      // Trident's slices are the 1D owners' rows ("trident: slices")
  bool blocks_by_work = false;    // Trident's row blocks are cut by work, not evenly ("trident: blocks")
  // false: Tpetra's Multiply ran with "trident: count bytes" = false; its bytes and multiply-adds
  // above were not counted (zero).
  bool bytes_counted = true;
  // "trident: algorithm" = "auto": the planner chose `algorithm`; its predicted time (max over
  // ranks, s) and this rank's predicted Gi/Li bytes received, beside the measured ones above.
  bool auto_chosen = false;
  AutoPath auto_path = AutoPath::NotAuto;
  // The layout the prediction is for, which the plan then builds: Trident's slices at the 1D
  // owners' rows (with the G x 1 grid), else balanced slices.
  bool predicted_owner_slices = false;
  double predicted_time = 0;
  std::uint64_t predicted_gi_bytes_recv = 0, predicted_li_bytes_recv = 0;
  // "auto": each algorithm's predicted time with the model's terms (fixed, kernel, entries, links),
  // the same text on every rank: why `algorithm` was chosen.
  std::string auto_reason;
  PhaseTimes times;
};

// Zeroes what one execution measures (byte and flop counters, times, reused_plan) and keeps what
// describes the plan (algorithm, grid, P, lambda, slices, the planner's prediction).
void clearMeasurements(MultiplyStats& s);

// Adds the phase times of b to a (several multiplies reported as one, e.g. R*(A*P)).
PhaseTimes& operator+=(PhaseTimes& a, const PhaseTimes& b);
// Adds b's counters and times to a; nnz_c_local becomes b's (the last product's).
MultiplyStats& operator+=(MultiplyStats& a, const MultiplyStats& b);

// Max and sum over all ranks of every counter (time = max over ranks).
struct ReducedStats {
  MultiplyStats max;
  MultiplyStats total;
};
ReducedStats reduceStats(const MultiplyStats& local, MPI_Comm comm);

}  // namespace Trident
