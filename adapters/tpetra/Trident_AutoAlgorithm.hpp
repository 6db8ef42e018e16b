#pragma once
// "trident: algorithm" = "auto": the planner (src/trident/planner) predicts, from the patterns of
// op(A) and op(B) as the ranks hold them, the bytes and time of Tpetra's Multiply, SUMMA and
// Trident (with the grid and fetch the options ask for), and the least predicted time wins.
//
// The patterns are gathered on rank 0 (O(nnz) indices, once per plan), which plans for all
// ranks and broadcasts the choice; every rank learns its own predicted bytes. The machine model
// is read from the file named by TRIDENT_MACHINE_MODEL (trident-plan --calibrate writes one),
// else the documented defaults of planner::MachineModel.
#include "Trident_MultiplyOptions.hpp"
#include "Trident_TpetraTypes.hpp"
#include <trident/grid/Topology.hpp>
#include <trident/stats/MultiplyStats.hpp>

namespace Trident {
namespace MatrixMatrix {

// Collective. Returns the chosen algorithm (never Auto) and fills stats' auto_chosen and
// predicted_* fields. A machine model file that cannot be read, or patterns the planner cannot
// handle (more than 64 ranks per group), throw InvalidInput on every rank.
Algorithm chooseAlgorithm(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                          const Topology& topo, const MultiplyOptions& opt, MultiplyStats& stats);

}  // namespace MatrixMatrix
}  // namespace Trident
