#pragma once
// A small machine model turning the planner's per-rank counts into a predicted time:
//
//   time(rank) = Gi bytes / gi_bandwidth + Gi messages * gi_latency
//              + Li bytes / li_bandwidth + Li messages * li_latency
//              + multiply-adds / (kernel rate of the algorithm) + entries of C * (C cost of the algorithm)
//              + entries of A and B the rank handles * (entry cost of the algorithm)
//              + redistribution bytes (in, and out estimated as equal to in) over the same links
//   time(algorithm) = max over ranks + overhead of the algorithm (set-up that does not scale
//                     with the matrix: maps, communicators, layout; fixed + per log2(P))
//
// On one machine the links are cheap and what decides is local: the kernel (Tpetra's rate
// covers its kernel, its column map and C's fill-complete, per multiply-add of the rank's own
// 1D rows; Trident's and SUMMA's cover the kernel, accumulating and assembling C, per balanced
// multiply-add) and the per-entry work (Tpetra: its import set-up; Trident and SUMMA: moving A
// and B into tiles). The rates are effective ones, fitted to whole multiplies (docs/benchmarks.md).
//
// Defaults describe one multi-core machine like the project's (shared memory for both links);
// `trident-plan --calibrate` measures them and writes the text file read by load(): one
// "key = value" per line, '#' starts a comment, unknown keys are an error.
#include <string>

#include "trident/planner/Planner.hpp"

namespace Trident {
namespace planner {

struct MachineModel {
  // Defaults: fitted to whole multiplies on the project's 2-core machine, quiet (load < 1), P = 4,
  // lambda = 2 (37 products, apps/plan/fit-model.py; fit and residuals in docs/benchmarks.md):
  // A*A of the 14 shared matrices and of 2D Laplacians, A*P with MueLu's and a greedy prolongator
  // on FE and circuit matrices (trident-bench), and the coarse-level A*P and R*(AP) of MueLu
  // set-ups on 2D and 3D Laplacians (apps/plan/muelu-products.py --coarse-only: one cold call
  // each, as MueLu makes them). A term the fit drove to zero is kept tiny (a model file needs
  // positive values).
  // The overheads are the fit's minus log2(4) * overhead_per_log2p.
  double gi_bandwidth = 2.0e9;     // bytes/s received per rank over Gi
  double gi_latency = 5.0e-6;      // s per message over Gi
  double li_bandwidth = 2.0e9;     // bytes/s over Li
  double li_latency = 2.0e-6;      // s per message over Li
  double trident_rate = 1.4e9;     // multiply-adds/s of Trident, whole multiply
  double summa_rate = 1.0e12;      // SUMMA: its time follows C's entries (fit: 0 s per multiply-add)
  // Tpetra: the fit gave 0 s per multiply-add (on its products C's entries and the multiply-adds
  // rise together); set to Trident's rate, since its kernel does the same multiply-adds: on
  // bcsstk13's A*A (12 multiply-adds per entry of C) Tpetra took 1.5-1.7x Trident's time in
  // separate processes while the fitted terms predicted a tie, and with this rate the model's
  // choice is unchanged on the 29 products of the fit (docs/design.md, the machine model).
  double tpetra_rate = 1.4e9;
  double trident_entry_cost = 9.5e-8;  // s per entry of A and B a rank moves into Trident's tiles
  double summa_entry_cost = 1.3e-7;    // the same for SUMMA's blocks
  double tpetra_entry_cost = 1.0e-12;   // s per entry of A and B a rank holds, in Tpetra's Multiply (fit: 0)
  double trident_c_cost = 3.9e-8;       // s per entry of C (kernel output, assembly, fill-complete), Trident
  // The same with owner slices (the kernel writes C's final arrays, nothing is moved or placed):
  // not in the fit above; set to the ratios measured with both cuts side by side (P = 4, lambda =
  // 2, docs/design.md, partitioning): owners / balanced time 0.63-0.72 on as-caida, whose
  // time is C's and whose owner cuts are balanced (1.02), and 0.81-0.85 on ca-CondMat and
  // bcsstk13, whose owner cuts carry 1.43x and 1.55x the average work: about 0.6x per entry.
  double trident_owner_c_cost = 2.3e-8;
  double summa_c_cost = 4.9e-8;         // the same, SUMMA
  double tpetra_c_cost = 4.1e-8;        // the same, Tpetra's Multiply
  double tpetra_import_cost = 5.5e-9;   // s per byte of Tpetra's import of remote B rows (packing)
  double tpetra_import_row_cost = 8.0e-8;  // s per row of B Tpetra's import brings (look-ups, column map)
  // Tpetra's algorithm run in place ("1d", Trident_RowWiseProduct): s per byte of the remote rows
  // it fetches (packing, unpacking, renumbering): 0.5-0.7 ns at P = 2 on this machine ("Trident:
  // redistribute in: remote rows" over the bytes received: ca-CondMat, cit-HepTh, facebook).
  double oned_import_cost = 7.0e-10;
  double tpetra_overhead = 2.9e-4;      // s per Tpetra Multiply, fixed
  double trident_overhead = 4.1e-4;     // s per Trident multiply, fixed (layout, plan, assembly)
  double summa_overhead = 3.1e-4;       // s per SUMMA multiply, fixed
  double overhead_per_log2p = 1.0e-4;   // s per log2(P) for every algorithm (collectives)
  // What "auto" pays to count a product (import of B's lengths and sketches, one allreduce), from
  // the timers "Trident: auto: choose" at P = 4: 0.8 ms (bcsstk13's coarse R*(AP)), 4 ms (3D
  // Laplacian level 2), 8 ms (cit-HepTh A*A). A product whose bounds leave less to gain is not counted.
  double auto_count_overhead = 3.0e-4;     // s per counted product, fixed
  double auto_count_entry_cost = 5.0e-8;   // s per entry of A and B on the busiest rank

  // Throws InvalidInput naming the line for a file that cannot be read or parsed.
  static MachineModel load(const std::string& path);
  void save(const std::string& path, const std::string& comment = "") const;
};

// The model of a product that moves nothing: on one rank a one-shot Trident or SUMMA product reads
// A and B where Tpetra keeps them and its kernel writes C's final arrays (docs/design.md, "At P = 1
// nothing is copied"), so no entry is moved into tiles and C costs what owner slices' C costs.
// The plain model would charge tetdual:35's P = 1 product 0.19 s for copies this path does not
// make, and choose Tpetra (0.098 s) over it (0.020 s).
MachineModel movingNothing(const MachineModel& m);

// The model of Tpetra's algorithm run in place ("1d": a one-shot product into a fresh C, B's rows
// along A's own Import): the same rows move, but Trident's kernel writes C's final arrays (C at
// trident_owner_c_cost) and the rows are packed at oned_import_cost; "auto" predicts Tpetra's
// algorithm so wherever it would run in place.
MachineModel tpetraInPlace(const MachineModel& m);

// Sets pr.time_s (for P ranks) and returns it.
double predictTime(Prediction& pr, const MachineModel& model);

}  // namespace planner
}  // namespace Trident
