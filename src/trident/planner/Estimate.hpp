#pragma once
// The cheap, distributed estimate behind "trident: algorithm" = "auto". Each rank counts, from
// the rows of op(A) and op(B) it holds, what decides the choice on a real run: its multiply-adds
// (Tpetra's kernel runs on exactly these rows), its heaviest row, its entries and what Tpetra's
// import of remote B rows would bring it (exact: Tpetra's own Import knows the remote rows'
// owners). One allreduce of these few numbers (sum and max) gives every rank the same inputs,
// and estimateAll() turns them into per-algorithm quantities for the machine model:
//
//   tpetra   exact per-rank multiply-adds and import bytes (the 1D rows as they are);
//   trident  work balanced over the P ranks (its slices are cut by work), bounded below by the
//            heaviest row; the entries of A and B moved into tiles; Gi/Li bytes approximated
//            by Tpetra's import volume at 12 B instead of 20 B per entry (needed-row fetches
//            move about the rows a 1D import would, once per group). Where its slices will be
//            the 1D owners' rows (GlobalCounts::owner_slices_possible and the busiest rank's
//            work within kOwnerSliceImbalance of the average), the 1D rows' own multiply-adds
//            and C at the model's trident_owner_c_cost (the kernel writes C's final arrays);
//   summa    work balanced likewise (2D tiles), entries moved in, and each rank receiving its
//            grid row's A tiles and grid column's B tiles (12 B per entry, 8 B per row).
//
// C's entries decide more than the multiply-adds on one machine (each algorithm assembles C and
// fill-completes it; on the shared matrices nnz(C) is 1.0-11x below the multiply-adds). The
// adapter estimates them per row of A from K-minimum-value sketches of B's rows (the K = 8
// smallest 32-bit hashes of each row's columns, imported like B's row lengths): the union's K-th
// smallest hash gives its size, exactly when the union has fewer than K columns (the relative
// error, about 1/sqrt(K) per row, averages out over rows; a rank with more rows merges a sample of
// 2,048 and scales by multiply-adds).
//
// No pattern is gathered anywhere: O(local entries) work, the imports of B's row lengths and
// sketches onto A's remote columns (what Tpetra's own Multiply imports anyway, and less), and
// one allreduce of these numbers (their sums and maxima). The exact planner (Planner.hpp, trident-plan) stays the reference for bytes; docs/benchmarks.md
// gives how far this estimate is from it.
#include <mpi.h>

#include <string>
#include <vector>

namespace Trident {
namespace planner {

struct MachineModel;

// "trident: slices" = "auto" takes the 1D owners' rows as Trident's slices while the busiest
// rank's work (entries + multiply-adds of its rows of op(A)) is at most this times the average
// (measured in Trident_MultiplyPlan.cpp's ownerCuts, which applies it).
constexpr double kOwnerSliceImbalance = 2.0;

// One rank's counts, from its own rows.
struct LocalCounts {
  double a_rows = 0, a_entries = 0, b_entries = 0;
  double flops = 0;          // multiply-adds of this rank's rows of op(A)
  double max_row_flops = 0;  // of its heaviest row
  double c_entries = 0;      // entries of C in this rank's rows, estimated (sketches, see below)
  double layout_unknown = 0;  // 1: the adapter could not read Tpetra's import lists here (recount)
  double tpetra_gi_bytes = 0, tpetra_li_bytes = 0;  // Tpetra's import of remote B rows, received
  double tpetra_gi_msgs = 0, tpetra_li_msgs = 0;    // ranks that import comes from
  double tpetra_import_rows = 0;                     // rows of B that import brings
  double work = 0;  // a_entries + flops: what owner slices are judged by
};

// The counts summed and maximized over the ranks; the same on every rank.
struct GlobalCounts {
  int P = 1, lambda = 1;
  LocalCounts sum, max;
  // Set by the caller: Trident's tiles would be cut at the owners' rows if balance allows (the
  // G x 1 grid, groups of consecutive ranks, no relabeling, "trident: slices" not "balanced").
  bool owner_slices_possible = false;
  // Set by the caller: the fewest ranks sharing a core on any node (Topology::ranks_per_core).
  double ranks_per_core = 1;
};

// The work of the busiest of the 1D rows (Tpetra's algorithm, owner slices) as the model charges
// it: the model's rates are per rank, as measured with every rank of a node sharing its cores
// alike, so with s ranks to a core a rank with more than its share runs up to s times faster than
// the rates say (the operating system hands it the cores that lighter ranks leave), never faster
// than the average: max(busiest / s, average). With a core per rank (s = 1), the busiest.
double busiestShare(double busiest, double sum, int P, double ranks_per_core);

// Collective over comm: one MPI_Allreduce.
GlobalCounts reduceCounts(const LocalCounts& mine, int lambda, MPI_Comm comm);

// What one algorithm would do on its busiest rank, and the time the model gives it.
struct Estimate {
  std::string algo;
  double flops_max = 0;      // multiply-adds
  double c_max = 0;          // entries of C it produces (estimated)
  double entries_max = 0;    // entries of A and B it handles (moves into tiles / sets up)
  double gi_bytes_max = 0, li_bytes_max = 0, msgs_max = 0;
  double import_rows_max = 0;  // tpetra: rows of B its import brings (the import's per-row cost)
  bool owner_slices = false;   // trident: its slices are the 1D owners' rows
  // The model's terms (s), so that stats can say why.
  double t_fixed = 0, t_kernel = 0, t_entries = 0, t_links = 0, t_import = 0, time_s = 0;
};

// tpetra, summa, trident, in that order, each with its time under the model.
std::vector<Estimate> estimateAll(const GlobalCounts& g, const MachineModel& model);

// The model's time for one estimate (sets its t_* fields and time_s, returns time_s).
double estimateTime(Estimate& e, int P, const MachineModel& model);

}  // namespace planner
}  // namespace Trident
