#pragma once
// Drop-in replacement for Tpetra::MatrixMatrix::Multiply: same arguments, same template
// parameters, same result conventions. Switch by changing the namespace.
//
// Parameters: "trident: ..." keys are validated (an unknown key or a bad value is an error on
// every rank); other keys go to Tpetra. getValidParameters() (Trident_MultiplyOptions.hpp) lists
// every key with its default and meaning; the README's table is printed from it (trident-params).
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
