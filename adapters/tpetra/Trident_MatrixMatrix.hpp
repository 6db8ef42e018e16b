#pragma once
// Drop-in replacement for Tpetra::MatrixMatrix::Multiply: same arguments, same template
// parameters, same result conventions. Switch by changing the namespace.
//
// Parameters (validated; unknown "trident: ..." keys are errors, other keys go to Tpetra):
//   "trident: algorithm"        "trident" (default) | "summa" | "tpetra"
//   "trident: ranks per group"  int, lambda; default = size of MPI_COMM_TYPE_SHARED groups
//   "trident: permute"          "none" (default) | "random"
//   "trident: permute seed"     int (default 12345)
//   "trident: local kernel"     "gustavson" (default: sorted rows) | "kokkoskernels" | "reference"
//   "trident: lookahead"        int >= 1, rounds of tiles in flight ahead of the multiply (default 2)
//   "trident: grid"             "auto" (default) | "square" (near-square 2D) | "rows" (groups x 1)
//   "trident: fetch"            "needed" (default: only the B rows A uses) | "whole" (whole slices)
//   "trident: gi pacing"        "eager" (default) | "ready" (tiles go to a group once it finished the in phase)
// The full list with documentation: getValidParameters() (Trident_MultiplyOptions.hpp).
#include <string>
#include <Teuchos_ParameterList.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include "Trident_TpetraTypes.hpp"
#include "Trident_MultiplyOptions.hpp"
#include "Trident_MultiplyPlan.hpp"
#include <trident/stats/MultiplyStats.hpp>

namespace Trident {
namespace MatrixMatrix {

template <class Scalar, class LocalOrdinal, class GlobalOrdinal, class Node>
void Multiply(const Tpetra::CrsMatrix<Scalar, LocalOrdinal, GlobalOrdinal, Node>& A, bool transposeA,
              const Tpetra::CrsMatrix<Scalar, LocalOrdinal, GlobalOrdinal, Node>& B, bool transposeB,
              Tpetra::CrsMatrix<Scalar, LocalOrdinal, GlobalOrdinal, Node>& C,
              bool call_FillComplete_on_result = true, const std::string& label = std::string(),
              const Teuchos::RCP<Teuchos::ParameterList>& params = Teuchos::null);

// The stats of the last Multiply called on this rank (bytes per link, time per phase); a thin
// compatibility accessor: a MultiplyPlan carries its own stats().
const MultiplyStats& lastStats();

}  // namespace MatrixMatrix
}  // namespace Trident
