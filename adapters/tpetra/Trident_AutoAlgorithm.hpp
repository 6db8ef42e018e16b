#pragma once
// "trident: algorithm" = "auto" (the drop-in's default): each rank counts, from its own rows of
// op(A) and op(B), its multiply-adds, entries and Tpetra's import volume (one import of B's row
// lengths, through A's own Import when it serves), one allreduce combines them, and the machine
// model (planner/Estimate.hpp, planner/MachineModel.hpp) predicts Tpetra's Multiply, SUMMA and
// Trident; the least predicted time wins, the same on every rank. No pattern is gathered: the
// exact planner (trident-plan) is the reference for bytes, this is the cheap estimate.
// The machine model is read by rank 0 from the file named by TRIDENT_MACHINE_MODEL (trident-plan
// --calibrate writes one) and broadcast, else the defaults fitted on the project's machine.
#include <cstdint>
#include <vector>

#include "Trident_MultiplyOptions.hpp"
#include "Trident_TpetraTypes.hpp"
#include <trident/grid/Topology.hpp>
#include <trident/stats/MultiplyStats.hpp>

namespace Trident {
namespace MatrixMatrix {

// Collective. Returns the chosen algorithm (never Auto) and fills stats' auto_chosen, predicted_*
// and auto_reason. A machine model file that cannot be read throws InvalidInput on every rank.
// When it chooses Tpetra from exact counts, tpetra_counts (optional) receives Tpetra's import
// bytes received (by link) and multiply-adds, as the drop-in accounts them, bytes_from the bytes
// received from each rank (an Alltoall of them gives the bytes sent), and *counted is set: the
// plan need not count them again.
Algorithm chooseAlgorithm(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                          const Topology& topo, const MultiplyOptions& opt, MultiplyStats& stats,
                          MultiplyStats* tpetra_counts = nullptr, bool* counted = nullptr,
                          std::vector<std::uint64_t>* bytes_from = nullptr);

}  // namespace MatrixMatrix
}  // namespace Trident
