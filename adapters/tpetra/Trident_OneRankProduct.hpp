#pragma once
// C = A * B on one rank (P = 1), where nothing moves: the kernel reads A's and B's local arrays
// where Tpetra keeps them and writes C's final arrays, so no position space, layout or tiles are
// formed (they were 45% of a drop-in call's time on tetdual:35, all of it copying).
#include <Teuchos_ParameterList.hpp>

#include "Trident_TpetraTypes.hpp"
#include <trident/stats/MultiplyStats.hpp>

namespace Trident {
namespace tpetra {

// The product into a fresh C (no column map, not fill-complete) on a one-rank communicator, with
// the "gustavson" kernel: the same entries, bits and column-map convention as the tiled path
// (ResultAssembly). A's stored zeros are skipped, as every kernel skips them. Returns false, with
// C untouched, where the operands' maps need the general path: a column of A that is no row of B,
// or B's column map not in its domain map's order. Times go into stats' in, local and out phases.
bool multiplyOnOneRank(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C, bool fill_complete,
                       const Teuchos::RCP<Teuchos::ParameterList>& fill_params, MultiplyStats& stats);

}  // namespace tpetra
}  // namespace Trident
