#include "Trident_MueLuSolve.hpp"

#include <mpi.h>

#include <BelosBlockCGSolMgr.hpp>
#include <BelosLinearProblem.hpp>
#include <BelosTpetraAdapter.hpp>

namespace Trident {
namespace muelu {

SolveResult solveCG(const Teuchos::RCP<const crs_matrix_type>& A,
                    const Teuchos::RCP<Tpetra::Operator<Scalar, LO, GO, Node>>& M,
                    const Teuchos::RCP<const multivector_type>& b, const Teuchos::RCP<multivector_type>& x,
                    double tol, int maxIterations) {
  using OP = Tpetra::Operator<Scalar, LO, GO, Node>;
  using MV = multivector_type;
  auto Aop = Teuchos::rcp_implicit_cast<const OP>(A);
  auto problem = Teuchos::rcp(new Belos::LinearProblem<Scalar, MV, OP>(Aop, x, b));
  if (!M.is_null()) problem->setRightPrec(M);
  problem->setProblem();
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("Convergence Tolerance", tol);
  params->set("Maximum Iterations", maxIterations);
  params->set("Verbosity", Belos::Errors);
  Belos::BlockCGSolMgr<Scalar, MV, OP> solver(problem, params);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  const Belos::ReturnType ret = solver.solve();
  SolveResult res;
  res.seconds = MPI_Wtime() - t0;
  res.converged = ret == Belos::Converged;
  res.iterations = solver.getNumIters();
  MV r(b->getMap(), 1);
  A->apply(*x, r);
  r.update(1.0, *b, -1.0);
  Teuchos::Array<double> rn(1), bn(1);
  r.norm2(rn());
  b->norm2(bn());
  res.relative_residual = bn[0] > 0 ? rn[0] / bn[0] : rn[0];
  return res;
}

}  // namespace muelu
}  // namespace Trident
