#pragma once
// The planner's input from Tpetra matrices: the global sparsity pattern, by global IDs (the
// exact planner); what one rank counts of A*B from its own rows (counting, the bound, the
// estimate without counting); and what "auto" gathers of them into the plan's one check
// (AutoInputs: a planner::AutoSummary per rank, decided on by planner/AutoDecision.hpp).
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "Trident_AutoChoiceMemory.hpp"
#include "Trident_ProductCounts.hpp"
#include "Trident_TpetraTypes.hpp"
#include <trident/core/Errors.hpp>
#include <trident/grid/Topology.hpp>
#include <trident/planner/AutoSummary.hpp>
#include <trident/planner/Estimate.hpp>
#include <trident/planner/MachineModel.hpp>
#include <trident/planner/Pattern.hpp>

namespace Trident {
namespace tpetra {

// Collective over M's communicator: the whole pattern of M on rank `root` (root < 0: on every
// rank) in position space, as the adapter numbers rows and columns (MapPositions: a map's GIDs in
// rank order): rows by their position in row_space (default: M's row map; for B of A*B, A's
// domain map), columns by their position in col_space (default: M's domain map). With
// record_owner, Pattern::owner says which rank holds each row. skip_zeros: stored zeros are left
// out, as the adapter leaves them out of op(A)'s tiles.
planner::Pattern gatherPattern(const crs_matrix_type& M, bool skip_zeros, int root = -1,
                               const map_type* row_space = nullptr, const map_type* col_space = nullptr,
                               bool record_owner = true);

// Collective over A's communicator (one import of B's row lengths and sketches onto A's columns,
// through A's own Import when B's rows are distributed as A's domain): this rank's counts for "auto"'s
// estimate, from its rows of A (op(A)) and B (op(B)) only. Stored zeros of A are skipped, as
// the kernels skip them.
// bytes (optional): Tpetra's import bytes by link, received and sent, for Tpetra's accounting.
// a_import_serves: whether A's own Import serves (Trident_MapSameness.hpp), when the caller knows.
// One import brings B's row lengths and row sketches onto A's columns (planner/Estimate.hpp).
// The owners of the imported rows come from the Import's receive lists; if a rank cannot read
// them it sets layout_unknown, and every rank must then call again with use_directory (a
// collective look-up).
// row_work (optional): each local row of A's multiply-adds (multiplyAddsPerRow), which the plan's
// balance would otherwise import B's row lengths again to compute.
planner::LocalCounts localCounts(const crs_matrix_type& A, const crs_matrix_type& B, const Topology& topo,
                                 ImportBytes* bytes = nullptr, bool use_directory = false,
                                 std::optional<bool> a_import_serves = std::nullopt,
                                 std::vector<std::int64_t>* row_work = nullptr);

// The same for op(A) = A^T when A's and B's rows are distributed alike (R = P^T in P^T*(A*P)),
// without forming A^T: the multiply-adds of A^T*B are sum over k of nnz(A(k,:)) * nnz(B(k,:)),
// all local. What is not known without the transpose is left as an estimate: every rank is given
// the average (flops, entries) and no import (Tpetra's product with a transposed A imports the
// transpose's rows; not counted). Not collective.
planner::LocalCounts localCountsTransposedA(const crs_matrix_type& A, const crs_matrix_type& B);

// Whether Trident can cut its tiles at the 1D owners' rows when balance allows
// (planner::GlobalCounts::owner_slices_possible): allowed by the options (no relabeling,
// "trident: slices" not "balanced"), the G x 1 grid allowed (`rows_grid_allowed`: "trident: grid"
// not "square", or the only grid the groups make) and groups of consecutive world ranks. When
// "auto" then predicts owner slices, the plan builds them with the G x 1 grid.
bool ownerSlicesPossible(const Topology& topo, bool allowed, bool rows_grid_allowed);

// What a rank knows of A*B (no transposes) without any communication, when B's rows are laid out
// as A's domain here (ok): the multiply-adds of A's entries at columns it owns (exact; stored
// zeros skipped, as in localCounts) and, for the columns whose B rows live elsewhere, how many
// there are and how many of A's entries meet them. "auto" bounds Tpetra's time from above and the
// 2D algorithms' from below with these (chooseAlgorithm), which settles FE-like products, whose
// remote columns are few, without the import that counting costs.
struct LocalBoundInputs {
  bool ok = false;
  long long flops_known = 0;       // multiply-adds at owned columns
  long long a_remote_entries = 0;  // entries of A at remote columns (each meets <= max row of B)
  long long remote_columns = 0;    // B rows Tpetra's import would bring
  long long b_max_row = 0;         // longest local row of B
  long long a_entries = 0, b_entries = 0;
  long long sources = 0;           // ranks Tpetra's import receives from
  long long max_sent_to_one = 0;   // bytes Tpetra's import sends from here to any one rank, at most
  long long c_entries_known = 0;   // entries of this rank's rows of C, at most, but for:
  long long c_remote_entries = 0;  // entries of A at remote columns not in c_entries_known (each <= max row of B)
  long long c_entries_capped = 0;  // the same bound, B's columns for each row that meets a remote row of B
  // A's stored zeros were counted as entries (their number was not known): flops_known is then a
  // bound from above only (every kernel, Tpetra's too, skips them).
  bool zeros_included = false;
  // For localEstimateInputs: A's entries at owned columns (the sample whose B rows are known
  // here); the rows of largest known and largest remote part, as {known multiply-adds, remote
  // entries}; the owned rows of B that A's columns meet and their entries.
  long long a_local_entries = 0;
  std::array<long long, 2> heaviest_known{{0, 0}}, heaviest_remote{{0, 0}};
  long long local_columns = 0, local_columns_length = 0;
};
// C's entries here are bounded by each row's multiply-adds (one pass over A's entries);
// tightenedByUnions bounds them by the union of the columns of the local rows of B each row of A
// meets (a pass over up to 1M multiply-adds), for products the cheaper bound does not settle.
// a_zeros: A's stored zeros when the caller has counted them (storedZeros); without it they are
// not counted (a pass over A's values, as long as this one on MueLu's products) and count as
// entries (zeros_included).
LocalBoundInputs localBoundInputs(const crs_matrix_type& A, const crs_matrix_type& B,
                                  std::optional<std::size_t> a_zeros = std::nullopt);
// What a rank estimates of A*B from its own rows, without any communication: the estimate tier
// of "auto" between the bound and counting (chooseAlgorithm). A's entries at owned columns are a
// sample of all its entries whose B rows are known here; the B rows at remote columns are taken
// to be as long on average as the sample's (weighted by A's entries, as multiply-adds weigh
// them). C's entries: a pseudo-random sample of up to 512 rows of A (fewer where rows are heavy:
// at most ~300k multiply-adds) has the union of its owned B rows' columns counted exactly, each
// row's union is extrapolated to the whole row (unionExtrapolated in the .cpp), and the sample's
// entries per multiply-add scale to the rank's estimated multiply-adds. Over the ranks at P = 4:
// multiply-adds within 0.9-1.0x of the exact count on the shared graphs and FE matrices (0.45x
// and 0.6x on the circuits rajat01 and adder_dcop_05, whose few dense rows are remote to most
// ranks), C within 0.85-1.13x (0.6-0.7x on facebook and email-Enron).
// Not collective; `bound` is this rank's localBoundInputs (whose pass gathered the sample).
struct LocalEstimateInputs {
  bool ok = false;
  double sample_entries = 0;  // A's entries at owned columns (what the estimate stands on)
  double flops = 0, max_row_flops = 0, c_entries = 0;
  double import_bytes = 0;  // Tpetra's import of B's rows at A's remote columns, as accounted
};
LocalEstimateInputs localEstimateInputs(const crs_matrix_type& A, const crs_matrix_type& B, const LocalBoundInputs& bound);

// enough >= 0: stop once c_entries_known is at most that (every intermediate bound is valid).
LocalBoundInputs tightenedByUnions(const crs_matrix_type& A, const crs_matrix_type& B, const LocalBoundInputs& cheap,
                                   long long enough = -1);

}  // namespace tpetra

namespace MatrixMatrix {

// The machine model of TRIDENT_MACHINE_MODEL (each rank reads the file once per process and
// path), or the built-in defaults when it is not set. A file that cannot be read: the defaults,
// and its message in *error.
const planner::MachineModel& environmentModel(std::string* error);

// What "auto" needs before it counts, gathered locally so that the plan's one CollectiveCheck
// carries it (each collective costs milliseconds on a loaded machine; MueLu's coarse products
// cannot afford a broadcast for the model and a map comparison besides): every rank reads the
// model file itself (once per process and path) and contributes its fingerprint, so that ranks
// that read different models fail alike, and whether A's and B's row maps are locally the same
// (P^T*(A*P) is counted without forming P^T when they are on every rank). What this rank knows
// travels as a planner::AutoSummary (planner/AutoSummary.hpp); the decisions on the reduced
// summaries are planner/AutoDecision.hpp's.
struct AutoInputs {
  planner::MachineModel model;
  bool transposed_a_on_b_rows = false;  // after agree(): op(A) = A^T with A's rows laid out as B's
  std::optional<bool> a_import_serves;  // set by the caller when known (Trident_MapSameness.hpp)
  // Set by the caller from the options: Trident may cut its tiles at the owners' rows (no
  // relabeling, "trident: slices" not "balanced"), and the G x 1 grid may be taken ("trident:
  // grid" not "square"). The choice then says which slices it predicted; the plan takes their
  // grid and, where owner slices are possible, the same rule on the exact work.
  bool owner_slices_allowed = false, rows_grid_allowed = false;
  planner::AutoSummary mine;        // this rank's contribution
  planner::SummarySlots slots;      // where it lies in the check
  planner::ReducedSummary reduced;  // after agree() or completed(): every rank's
  tpetra::LocalBoundInputs local_bound;  // this rank's, kept for the bound by unions
  tpetra::LocalEstimateInputs local_estimate;  // ok once made
  std::optional<std::size_t> a_zeros;
  // "trident: auto: remember choice" (Trident_AutoChoiceMemory.hpp): memory_context is set when
  // it is on; remembered is this rank's find, and after agree() only a choice every rank found
  // alike (then the bound is not computed and nothing is counted).
  std::optional<std::uint64_t> memory_context;
  std::optional<RememberedChoice> remembered;
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
  bool incomplete = false;

  // a_zeros: A's stored zeros, when the caller has counted them (the plan's fingerprint needs them too).
  // remember_context: the options the choice depends on, hashed (rememberContext), when choices
  // are to be remembered and reused. estimate: "trident: auto: estimate without counting".
  static AutoInputs gather(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                           CollectiveCheck& check, std::optional<std::size_t> a_zeros = std::nullopt,
                           std::optional<std::uint64_t> remember_context = std::nullopt, bool estimate = true);
  // A rank that does not choose contributes a default summary (as long as any), so that one whose
  // "trident: algorithm" differs from the others' reaches the parameters' agreement check (and
  // its clear error) instead of an allreduce of unequal lengths.
  static void holdPlaces(CollectiveCheck& check);
  // After check.run(): the model must be the same on every rank (else InvalidInput everywhere).
  void agree(const CollectiveCheck& check);
  // Collective (one allreduce; every rank calls it where `incomplete`): computes what this rank
  // skipped and reduces the summaries again. The result is agreed; it may still be `incomplete`
  // once (a rank's own bound settled it, the agreed one may not).
  AutoInputs completed(const crs_matrix_type& A, const crs_matrix_type& B, MPI_Comm comm) const;

 private:
  // Computes the bound and the estimate this rank has not (the estimate where wanted or where
  // this rank's own bound does not settle the choice) and fills `mine`.
  void computeLocally(const crs_matrix_type& A, const crs_matrix_type& B, bool estimate_wanted);
};

}  // namespace MatrixMatrix
}  // namespace Trident
