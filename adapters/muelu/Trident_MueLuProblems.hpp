#pragma once
// Model problems for the MueLu adapter's tests and example: Laplacians on structured grids with
// several degrees of freedom per node, and the matching grid coordinates (for repartitioning).
#include <Tpetra_MultiVector.hpp>
#include "Trident_TpetraTypes.hpp"

namespace Trident {
namespace muelu {

using coord_multivector_type = Tpetra::MultiVector<double, LO, GO, Node>;

// Finite-difference Laplacian on an n^dim grid (dim = 1, 2 or 3: 3/5/7-point stencil, Dirichlet
// boundary eliminated), repeated for `dofs` unknowns per node (node-major interleaving: row =
// node*dofs + d, no coupling between d's). Uniform contiguous row map; the same matrix for any
// number of ranks. When dofs > 1 the row map is split on node boundaries.
Teuchos::RCP<crs_matrix_type> laplacian(int dim, long long n, const comm_ptr& comm, int dofs = 1);

// Coordinates (dim columns) of the nodes of laplacian(dim, n, comm, dofs), on its node map (one
// entry per node, i.e. per `dofs` rows; for dofs == 1 this is A's row map).
Teuchos::RCP<coord_multivector_type> gridCoordinates(const crs_matrix_type& A, int dim, long long n, int dofs = 1);

}  // namespace muelu
}  // namespace Trident
