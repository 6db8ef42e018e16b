#pragma once
// Preconditioned CG (Belos) for the MueLu adapter's example and tests.
#include <Tpetra_MultiVector.hpp>
#include <Tpetra_Operator.hpp>
#include "Trident_TpetraTypes.hpp"

namespace Trident {
namespace muelu {

using multivector_type = Tpetra::MultiVector<Scalar, LO, GO, Node>;

struct SolveResult {
  bool converged = false;
  int iterations = 0;
  double relative_residual = 0;  // ||b - A x|| / ||b||, recomputed after the solve
  double seconds = 0;
};

// Solves A x = b with Belos block CG (one right-hand side), preconditioner M (may be null),
// convergence when the implicit residual ||r||/||b|| <= tol. x holds the initial guess.
SolveResult solveCG(const Teuchos::RCP<const crs_matrix_type>& A,
                    const Teuchos::RCP<Tpetra::Operator<Scalar, LO, GO, Node>>& M,
                    const Teuchos::RCP<const multivector_type>& b, const Teuchos::RCP<multivector_type>& x,
                    double tol = 1e-8, int maxIterations = 500);

}  // namespace muelu
}  // namespace Trident
