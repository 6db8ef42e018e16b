#pragma once
// C = A * B at P > 1 by rows, as Tpetra's own Multiply does it (each rank forms its rows of C
// from its rows of A, B's local rows and the remote rows of B that A's columns need), but with
// Trident's kernel reading A's and B's arrays where Tpetra keeps them and writing C's final
// arrays: no position space, layout or tiles. The remote rows come along A's own Import
// (Trident_RemoteRows), with their columns' owners, so C's column map and Import need no
// directory look-up. On products whose remote rows are few next to the work (meshes, stencils,
// FE matrices) it moves what Tpetra moves and computes at the kernel's rate.
#include <Teuchos_ParameterList.hpp>

#include "Trident_TpetraTypes.hpp"
#include <trident/grid/Topology.hpp>
#include <trident/stats/MultiplyStats.hpp>

namespace Trident {
namespace tpetra {

// Collective over topo.world() (a duplicate of A's communicator). Preconditions, the same on every
// rank (the plan checks them): neither operand transposed, both fill-complete, A's Import exists
// and its source map is B's row map (aImportServes), C fresh (no column map, not
// fill-complete) on A's row map. A's stored zeros are skipped, as every kernel skips them; C gets
// Tpetra's column-map convention. Times go into stats' in, local, wait and out phases, the remote
// rows' bytes into its Gi/Li counts. share_node_work (the same on every rank): the kernel's rows
// shared by work inside each group where it pays (Trident_NodeWorkSharing).
void multiplyRowWise(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C, bool fill_complete,
                     const Teuchos::RCP<Teuchos::ParameterList>& fill_params, const Topology& topo,
                     bool share_node_work, MultiplyStats& stats);

}  // namespace tpetra
}  // namespace Trident
