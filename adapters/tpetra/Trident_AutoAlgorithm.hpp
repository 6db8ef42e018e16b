#pragma once
// "trident: algorithm" = "auto" (the drop-in's default), its stages in order and the collectives
// between them. What each rank knows of A and B is gathered by AutoInputs
// (Trident_PlannerInput.hpp) into the plan's one CollectiveCheck; every decision is a pure
// function of reduced values and the machine model (planner/AutoDecision.hpp), the same on every
// rank. No pattern is gathered: the exact planner (trident-plan) is the reference for bytes, this
// is the cheap estimate.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "Trident_MultiplyOptions.hpp"
#include "Trident_PlannerInput.hpp"
#include "Trident_TpetraTypes.hpp"
#include <trident/grid/Topology.hpp>
#include <trident/stats/MultiplyStats.hpp>

namespace Trident {
namespace MatrixMatrix {

// What a choice depends on besides the operands and the machine model: the options that shape
// the groups, the grid and the slices.
std::uint64_t rememberContext(const MultiplyOptions& o);

// What "auto" decided: the algorithm (never Auto) and, for Trident, the slices its prediction is
// for (owner slices with the G x 1 grid, else balanced slices); where owner slices are possible
// the plan applies the prediction's rule to each rank's exact work (MultiplyPlan's choose).
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
