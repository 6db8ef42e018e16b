#pragma once
// Deterministic matrix generators for benchmarks and tests. Every generator produces the same
// global matrix for any number of ranks (entries depend only on the seed and global indices),
// distributed over a uniform contiguous 1D row map unless a row map is given.
#include <cstdint>
#include <string>
#include "Trident_TpetraTypes.hpp"

namespace Trident {
namespace gen {

// Graph500 R-MAT (a=0.57, b=c=0.19), 2^scale vertices, edgefactor*2^scale edges, symmetrized,
// duplicates merged, no self loops; values 1.0.
Teuchos::RCP<crs_matrix_type> rmat(int scale, int edgefactor, const comm_ptr& comm, std::uint64_t seed = 1);

// Uniform random (Erdos-Renyi-like) n x n, about avgdeg entries per row, values in (0,1].
Teuchos::RCP<crs_matrix_type> erdosRenyi(long long n, double avgdeg, const comm_ptr& comm, std::uint64_t seed = 1);

// 5-point 2D Laplacian on an n x n grid (n^2 rows), values 4 / -1.
Teuchos::RCP<crs_matrix_type> laplace2d(long long n, const comm_ptr& comm);

// 3D meshes: the 7-point (values 6 / -1) or 27-point (26 / -1) stencil on an n x n x n grid
// (n^3 rows, the pattern of trilinear hexahedral elements for 27), and the dual graph of the
// tetrahedral mesh that splits each of n^3 cubes into 6 (Kuhn's triangulation): 6 n^3 rows, one
// entry (1.0) per face-adjacent tetrahedron, at most 4 a row, no diagonal.
Teuchos::RCP<crs_matrix_type> stencil3d(long long n, int points, const comm_ptr& comm);
Teuchos::RCP<crs_matrix_type> tetMeshDual(long long n, const comm_ptr& comm);

// Random rectangular m x n test matrix with awkward features, for differential tests.
struct RandomOptions {
  double avg_per_row = 4.0;
  double empty_row_fraction = 0.0;   // rows with no entries at all
  double empty_col_fraction = 0.0;   // columns never used
  double skew = 0.0;                 // > 0: a few rows get ~skew*n entries (very skewed rows)
  bool explicit_zeros = false;       // some stored entries are exactly 0.0
  std::uint64_t seed = 1;
};
Teuchos::RCP<crs_matrix_type> random(long long m, long long n, const RandomOptions& opt, const comm_ptr& comm);

// Same, on a caller-given (one-to-one) row map, with the given domain and range maps. Lets tests
// use non-contiguous maps and ranks that own no rows.
Teuchos::RCP<crs_matrix_type> random(const Teuchos::RCP<const map_type>& rowMap,
                                     const Teuchos::RCP<const map_type>& domainMap,
                                     const Teuchos::RCP<const map_type>& rangeMap,
                                     const RandomOptions& opt);

// Hypersparse n x n matrix with a fixed number of entries per rank, for tests that memory per rank
// does not grow with n: each rank owns nnz_per_rank/4 rows (4 entries each, values in (0,1]) at
// global IDs spread over [0, n); only those rows are in the row map (rows not in it are empty),
// domain and range maps are uniform contiguous maps of n. Columns are drawn among the rows that
// exist, so A*A has work. Unlike the other generators the matrix depends on the number of ranks
// (the rows per rank are fixed); needs n >= P * rows per rank.
Teuchos::RCP<crs_matrix_type> hypersparse(long long n, long long nnz_per_rank, const comm_ptr& comm,
                                          std::uint64_t seed = 1);

// "rmat:SCALE:EDGEFACTOR", "er:N:AVGDEG", "lap2d:N", "lap3d:N", "stencil27:N", "tetdual:N",
// "hyper:LOG2N:NNZPERRANK", or a path to a .mtx file.
Teuchos::RCP<crs_matrix_type> fromSpec(const std::string& spec, const comm_ptr& comm, std::uint64_t seed = 1);

}  // namespace gen
}  // namespace Trident
