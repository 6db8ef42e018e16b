// Uses each installed library once, through the installed headers, so every link is real:
// Trident::trident (the drop-in Multiply, checked against Tpetra's, and its InvalidInput), Trident::trident_muelu (an
// AMG preconditioner whose coarse operators come from TridentRAPFactory, used by CG) and
// Trident::trident_mcl (Markov clustering of two cliques joined by one edge).
#include <Trident_CreatePreconditioner.hpp>
#include <Trident_MCL.hpp>
#include <Trident_MatrixMatrix.hpp>
#include <Trident_MueLuRAPFactory.hpp>
#include <Trident_MueLuSolve.hpp>
#include <trident/core/Errors.hpp>

#include <MueLu_TpetraOperator.hpp>
#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Core.hpp>

#ifdef CONSUMER_HAS_CUDA
#include <trident/cuda/CudaDevice.hpp>
#endif
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

using crs = Trident::crs_matrix_type;

namespace {

// The 1D Laplacian tridiag(-1, 2, -1) of size n.
Teuchos::RCP<crs> laplacian(long long n, const Trident::comm_ptr& comm) {
  auto map = Teuchos::rcp(new Trident::map_type(n, 0, comm));
  auto A = Teuchos::rcp(new crs(map, 3));
  for (auto g : Trident::Compat::localElementList(*map)) {
    std::vector<long long> cols{g};
    std::vector<double> vals{2.0};
    if (g > 0) cols.push_back(g - 1), vals.push_back(-1.0);
    if (g < n - 1) cols.push_back(g + 1), vals.push_back(-1.0);
    A->insertGlobalValues(g, cols, vals);
  }
  A->fillComplete();
  return A;
}

bool multiplyMatchesTpetra(const Trident::comm_ptr& comm) {
  auto A = laplacian(50, comm);
  auto C1 = Teuchos::rcp(new crs(A->getRowMap(), 0)), C2 = Teuchos::rcp(new crs(A->getRowMap(), 0));
  Tpetra::MatrixMatrix::Multiply(*A, false, *A, false, *C1);
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("trident: ranks per group", 1);
  Trident::MatrixMatrix::Multiply(*A, false, *A, false, *C2, true, "", params);
  const double n1 = C1->getFrobeniusNorm(), n2 = C2->getFrobeniusNorm();
  const bool same = C1->getGlobalNumEntries() == C2->getGlobalNumEntries() && std::abs(n1 - n2) < 1e-12 * n1;
  // Bad input (inner dimensions 50 and 40) is a Trident::InvalidInput, from trident/core/Errors.hpp.
  auto B = laplacian(40, comm);
  auto C3 = Teuchos::rcp(new crs(A->getRowMap(), 0));
  bool invalid = false;
  try {
    Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C3);
  } catch (const Trident::InvalidInput&) {
    invalid = true;
  }
  return same && invalid;
}

bool amgWithTridentRAPConverges(const Trident::comm_ptr& comm) {
  Teuchos::RCP<const crs> A = laplacian(400, comm);
  Teuchos::ParameterList params;
  params.set("multigrid algorithm", "sa");
  params.set("verbosity", "none");
  params.set("coarse: max size", 20);
  params.set("coarse: type", "RELAXATION");  // Amesos2 is wrong on > 1 rank in Debian's Trilinos
  params.set("trident: ranks per group", 1);
  Trident::muelu::resetRAPStats();
  auto M = Trident::muelu::CreateTpetraPreconditioner(Teuchos::rcp_const_cast<crs>(A), params);
  auto b = Teuchos::rcp(new Trident::muelu::multivector_type(A->getRangeMap(), 1));
  auto x = Teuchos::rcp(new Trident::muelu::multivector_type(A->getDomainMap(), 1));
  b->putScalar(1.0);
  const auto r = Trident::muelu::solveCG(A, M, b, x);
  return r.converged && Trident::muelu::rapStats().trident_builds > 0;
}

bool mclFindsTwoCliques(const Trident::comm_ptr& comm) {
  // Nodes 0-4 and 5-9 are cliques; the edge 4-5 joins them.
  auto map = Teuchos::rcp(new Trident::map_type(10, 0, comm));
  auto A = Teuchos::rcp(new crs(map, 6));
  for (auto g : Trident::Compat::localElementList(*map)) {
    std::vector<long long> cols;
    for (long long h = g < 5 ? 0 : 5; h < (g < 5 ? 5 : 10); ++h)
      if (h != g) cols.push_back(h);
    if (g == 4) cols.push_back(5);
    if (g == 5) cols.push_back(4);
    A->insertGlobalValues(g, cols, std::vector<double>(cols.size(), 1.0));
  }
  A->fillComplete();
  Trident::mcl::Options options;
  options.ranks_per_group = 1;
  const auto result = Trident::mcl::cluster(*A, options);
  const std::vector<std::vector<long long>> expected{{0, 1, 2, 3, 4}, {5, 6, 7, 8, 9}};
  return result.clusters == expected;
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  const bool multiply = multiplyMatchesTpetra(comm);
  const bool amg = amgWithTridentRAPConverges(comm);
  const bool mcl = mclFindsTwoCliques(comm);
  if (comm->getRank() == 0) {
    std::cout << "trident multiply: " << (multiply ? "ok" : "MISMATCH") << "\n"
              << "trident_muelu AMG + CG: " << (amg ? "ok" : "FAILED") << "\n"
              << "trident_mcl clusters: " << (mcl ? "ok" : "WRONG") << "\n";
#ifdef CONSUMER_HAS_CUDA
    // Links Trident::trident_cuda; runs on machines without a GPU too (0 devices).
    std::cout << "trident_cuda: " << Trident::cudaDeviceCount() << " CUDA device(s)\n";
#endif
    if (multiply && amg && mcl) std::cout << "consumer OK" << std::endl;
  }
  return multiply && amg && mcl ? 0 : 1;
}
