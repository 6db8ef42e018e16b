#include "Trident_MueLuProblems.hpp"

#include <stdexcept>
#include <vector>

namespace Trident {
namespace muelu {

namespace {
Teuchos::RCP<const map_type> nodeSplitMap(long long nodes, int dofs, const comm_ptr& comm) {
  const int P = comm->getSize(), r = comm->getRank();
  const long long lo = nodes * r / P, hi = nodes * (r + 1) / P;
  const GO globalRows = static_cast<GO>(nodes) * dofs;
  return Teuchos::rcp(new map_type(globalRows, static_cast<size_t>((hi - lo) * dofs), GO(0), comm));
}
}  // namespace

Teuchos::RCP<crs_matrix_type> laplacian(int dim, long long n, const comm_ptr& comm, int dofs) {
  if (dim < 1 || dim > 3) throw std::invalid_argument("Trident::muelu::laplacian: dim must be 1, 2 or 3");
  if (n < 1) throw std::invalid_argument("Trident::muelu::laplacian: n must be >= 1");
  if (dofs < 1) throw std::invalid_argument("Trident::muelu::laplacian: dofs must be >= 1");
  long long nodes = 1;
  for (int d = 0; d < dim; ++d) nodes *= n;
  auto map = nodeSplitMap(nodes, dofs, comm);
  auto A = Teuchos::rcp(new crs_matrix_type(map, static_cast<size_t>(2 * dim + 1)));
  std::vector<GO> cols;
  std::vector<Scalar> vals;
  const GO first = map->getMinGlobalIndex();
  const size_t nloc = Compat::localNumElements(*map);
  for (size_t l = 0; l < nloc; ++l) {
    const GO row = first + static_cast<GO>(l);
    const long long node = row / dofs;
    const int d = static_cast<int>(row % dofs);
    long long c[3] = {node % n, (node / n) % n, (node / n / n) % n};
    cols.clear();
    vals.clear();
    cols.push_back(row);
    vals.push_back(2.0 * dim);
    long long stride = 1;
    for (int k = 0; k < dim; ++k) {
      if (c[k] > 0) { cols.push_back((node - stride) * dofs + d); vals.push_back(-1.0); }
      if (c[k] < n - 1) { cols.push_back((node + stride) * dofs + d); vals.push_back(-1.0); }
      stride *= n;
    }
    A->insertGlobalValues(row, Teuchos::ArrayView<const GO>(cols), Teuchos::ArrayView<const Scalar>(vals));
  }
  A->fillComplete();
  return A;
}

Teuchos::RCP<coord_multivector_type> gridCoordinates(const crs_matrix_type& A, int dim, long long n, int dofs) {
  auto rowMap = A.getRowMap();
  const size_t nlocRows = Compat::localNumElements(*rowMap);
  if (nlocRows % dofs != 0) throw std::invalid_argument("Trident::muelu::gridCoordinates: rows not split on node boundaries");
  const GO firstNode = Compat::localNumElements(*rowMap) ? rowMap->getMinGlobalIndex() / dofs : 0;
  long long nodes = 1;
  for (int d = 0; d < dim; ++d) nodes *= n;
  auto nodeMap = Teuchos::rcp(new map_type(static_cast<GO>(nodes), nlocRows / dofs, GO(0), rowMap->getComm()));
  auto X = Teuchos::rcp(new coord_multivector_type(nodeMap, dim));
  for (size_t l = 0; l < nlocRows / dofs; ++l) {
    const long long node = firstNode + static_cast<GO>(l);
    long long c[3] = {node % n, (node / n) % n, (node / n / n) % n};
    for (int k = 0; k < dim; ++k) X->replaceLocalValue(static_cast<LO>(l), k, static_cast<double>(c[k]));
  }
  return X;
}

}  // namespace muelu
}  // namespace Trident
