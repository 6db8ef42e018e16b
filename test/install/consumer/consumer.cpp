// Switches from Tpetra::MatrixMatrix::Multiply to Trident by changing the namespace, and checks
// the two agree.
#include <Trident_MatrixMatrix.hpp>
#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Core.hpp>
#include <iostream>

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  using crs = Tpetra::CrsMatrix<double, int, long long>;
  auto comm = Tpetra::getDefaultComm();
  auto map = Teuchos::rcp(new Tpetra::Map<int, long long>(50, 0, comm));
  auto A = Teuchos::rcp(new crs(map, 3));
  for (auto g : map->getNodeElementList()) {
    std::vector<long long> cols{g};
    if (g > 0) cols.push_back(g - 1);
    if (g < 49) cols.push_back(g + 1);
    std::vector<double> vals(cols.size(), -1.0);
    vals[0] = 2.0;
    A->insertGlobalValues(g, cols, vals);
  }
  A->fillComplete();
  auto C1 = Teuchos::rcp(new crs(map, 0)), C2 = Teuchos::rcp(new crs(map, 0));
  Tpetra::MatrixMatrix::Multiply(*A, false, *A, false, *C1);
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("trident: ranks per group", 1);
  Trident::MatrixMatrix::Multiply(*A, false, *A, false, *C2, true, "", params);
  const double n1 = C1->getFrobeniusNorm(), n2 = C2->getFrobeniusNorm();
  const bool ok = C1->getGlobalNumEntries() == C2->getGlobalNumEntries() && std::abs(n1 - n2) < 1e-12 * n1;
  if (comm->getRank() == 0) std::cout << (ok ? "consumer OK" : "consumer MISMATCH") << std::endl;
  return ok ? 0 : 1;
}
