#pragma once
// "trident: algorithm" = "auto" (the drop-in's default): each rank counts, from its own rows of
// op(A) and op(B), its multiply-adds, entries and Tpetra's import volume (one import of B's row
// lengths, through A's own Import when it serves), one allreduce combines them, and the machine
// model (planner/Estimate.hpp, planner/MachineModel.hpp) predicts Tpetra's Multiply, SUMMA and
// Trident; the least predicted time wins, the same on every rank. No pattern is gathered: the
// exact planner (trident-plan) is the reference for bytes, this is the cheap estimate.
// The machine model is read from the file named by TRIDENT_MACHINE_MODEL (trident-plan
// --calibrate writes one), else the defaults fitted on the project's machine.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "Trident_AutoChoiceMemory.hpp"
#include "Trident_MultiplyOptions.hpp"
#include "Trident_PlannerInput.hpp"
#include "Trident_TpetraTypes.hpp"
#include <trident/core/Errors.hpp>
#include <trident/grid/Topology.hpp>
#include <trident/planner/MachineModel.hpp>
#include <trident/stats/MultiplyStats.hpp>

namespace Trident {
namespace MatrixMatrix {

// What "auto" needs before it counts, gathered locally so that the plan's one CollectiveCheck
// carries it (each collective costs milliseconds on a loaded machine; MueLu's coarse products
// cannot afford a broadcast for the model and a map comparison besides): every rank reads the
// model file itself (once per process and path) and contributes its fingerprint, so that ranks
// that read different models fail alike, and whether A's and B's row maps are locally the same
// (P^T*(A*P) is counted without forming P^T when they are on every rank).
struct AutoInputs {
  planner::MachineModel model;
  bool transposed_a_on_b_rows = false;  // after agree(): op(A) = A^T with A's rows laid out as B's
  std::optional<bool> a_import_serves;  // set by the caller when known (Trident_MapSameness.hpp)
  // Set by the caller from the options: Trident may cut its tiles at the owners' rows (no
  // relabeling, "trident: slices" not "balanced"), and the G x 1 grid may be taken ("trident:
  // grid" not "square"). The choice then says which slices it predicted; the plan builds those.
  bool owner_slices_allowed = false, rows_grid_allowed = false;
  std::size_t model_slot = 0, rows_slot = 0;
  // The bound that may settle the choice without counting (A*B, no transposes; chooseAlgorithm):
  // each rank's LocalBoundInputs reduced to the busiest rank's upper and the lightest rank's
  // lower values in the same collective.
  struct Bound {
    bool usable = false;
    double flops_max = 0, c_max = 0, entries_max = 0, import_bytes_max = 0, import_rows_max = 0, sources_max = 0;  // Tpetra, from above
    double b_max_row = 0;  // B's longest row on any rank
    double c_remote_max = 0;  // the most c_remote_entries of any rank (cBoundOf's second term)
    double flops_min = 0, entries_min = 0;  // what Trident's and SUMMA's balanced share is at least
  } bound;
  std::size_t bound_slot = 0;  // first of kBoundSlots
  tpetra::LocalBoundInputs local_bound;  // this rank's, kept for chooseAlgorithm's tighter bound
  // The estimate without counting (tpetra::localEstimateInputs), reduced in the same collective:
  // usable when every rank made one and their owned columns sample enough of A's entries.
  struct LocalEstimate {
    bool usable = false;
    planner::GlobalCounts counts;  // lambda, owner_slices_possible: set by chooseAlgorithm
    double sample_share = 0;       // of A's entries, at owned columns (the sample)
  } estimate;
  std::size_t estimate_slot = 0, estimate_sum_slot = 0;
  std::optional<std::size_t> a_zeros;
  // "trident: auto: remember choice" (Trident_AutoChoiceMemory.hpp): memory_context is set when
  // it is on; remembered is this rank's find, and after agree() only a choice every rank found
  // alike (then the bound is not computed and nothing is counted).
  std::optional<std::uint64_t> memory_context;
  std::optional<RememberedChoice> remembered;
  std::size_t remembered_slot = 0;
  // What this rank computed before the collective. The estimate costs about a symbolic multiply
  // (a tenth of Tpetra's on MueLu's coarse products), yet the bound alone settles most products
  // that small: a rank whose own bound settles the choice as if it were every rank skips the
  // estimate, and one that found the choice in memory skips both. Where the reduced values then
  // do not settle it, `incomplete` (agreed) says a second round can fill in what was skipped
  // (completed()): one more allreduce (two where a remembered choice was not found everywhere),
  // only on products that the bound does not settle.
  bool plain = false;  // op(A) = A, op(B) = B: the bound and the estimate apply
  bool bound_allowed = true, estimate_allowed = true;
  bool bound_computed = false;  // local_bound may be computed and not ok (operands it cannot bound)
  tpetra::LocalEstimateInputs local_estimate;  // ok once made
  long long a_rows = 0;  // this rank's rows of A (the estimate's sum of them)
  std::size_t skipped_slot = 0;  // the most any rank skipped: kSkippedBound, kSkippedEstimate or 0
  bool incomplete = false;
  static constexpr int kSkippedEstimate = 1, kSkippedBound = 2;

  // a_zeros: A's stored zeros, when the caller has counted them (the plan's fingerprint needs them too).
  // remember_context: the options the choice depends on, hashed (rememberContext), when choices
  // are to be remembered and reused. estimate: "trident: auto: estimate without counting".
  static AutoInputs gather(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                           CollectiveCheck& check, std::optional<std::size_t> a_zeros = std::nullopt,
                           std::optional<std::uint64_t> remember_context = std::nullopt, bool estimate = true);
  // A rank that does not choose contributes as many values as gather would, so that one whose
  // "trident: algorithm" differs from the others' reaches the parameters' agreement check (and
  // its clear error) instead of an allreduce of unequal lengths.
  static void holdPlaces(CollectiveCheck& check);
  // After check.run(): the model must be the same on every rank (else InvalidInput everywhere).
  void agree(const CollectiveCheck& check);
  // Collective (one allreduce; every rank calls it where `incomplete`): computes what this rank
  // skipped and reduces the bound and the estimate again. The result is agreed; it may still be
  // `incomplete` once (a rank's own bound settled it, the agreed one may not).
  AutoInputs completed(const crs_matrix_type& A, const crs_matrix_type& B, MPI_Comm comm) const;

 private:
  // Computes the bound and the estimate this rank has not (the estimate where wanted or where
  // this rank's own bound does not settle the choice); returns what it still skipped.
  int computeLocally(const crs_matrix_type& A, const crs_matrix_type& B, bool estimate_wanted);
  // Whether another round can fill in what was skipped (from the agreed bound: the same everywhere).
  bool worthAnotherRound(long long most_skipped) const;
  // The bound's and the estimate's slots, and their reduction (the part of agree() a later
  // round repeats).
  void contributeCounts(CollectiveCheck& check);
  void agreeCounts(const CollectiveCheck& check);
};

// What a choice depends on besides the operands and the machine model: the options that shape
// the groups, the grid and the slices.
std::uint64_t rememberContext(const MultiplyOptions& o);

// What "auto" decided: the algorithm (never Auto) and, for Trident, the slices its prediction is
// for, which the plan builds exactly (owner slices with the G x 1 grid, else balanced slices).
struct AutoChoice {
  Algorithm algorithm = Algorithm::Tpetra;
  bool owner_slices = false;
  // Tpetra chosen from exact counts: its import's bytes received and sent (by link) and
  // multiply-adds, as the drop-in accounts them, so that the plan need not count them again.
  std::optional<MultiplyStats> tpetra_counts;
  // A*B (no transposes) counted: each local row of A's multiply-adds, which the plan's balance
  // needs too (it would otherwise import B's row lengths a second time). Set on every rank or none.
  std::optional<std::vector<std::int64_t>> row_work;
};

// Collective where it counts (one import of B's row lengths and sketches, one allreduce); the
// steps in order: a choice every rank remembered; Tpetra's time bounded from above (settles most
// small products); the estimate without counting; the bound tightened by the unions of B's local
// rows; exact counts. Fills stats' auto_chosen, auto_path, predicted_* and auto_reason; every
// choice is remembered when in.memory_context is set.
// topology: the groups (formed on first call, collectively), asked only when the bound does not
// settle the choice: Tpetra's Multiply needs none.
AutoChoice chooseAlgorithm(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                           MPI_Comm comm, const std::function<const Topology&()>& topology, const AutoInputs& in,
                           MultiplyStats& stats);

}  // namespace MatrixMatrix
}  // namespace Trident
