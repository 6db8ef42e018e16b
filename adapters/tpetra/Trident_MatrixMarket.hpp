#pragma once
// Matrix Market I/O for Tpetra matrices. Tpetra 13.2's readSparseFile rejects `pattern` files,
// and most graphs are pattern, so Trident reads coordinate files itself.
#include <string>
#include "Trident_TpetraTypes.hpp"

namespace Trident {
namespace io {

struct MatrixMarketInfo {
  long long rows = 0, cols = 0;
  long long entries = 0;        // entries stored in the file (before symmetric expansion)
  std::string field;            // "real" | "integer" | "pattern"
  std::string symmetry;         // "general" | "symmetric" | "skew-symmetric"
};

// Reads a coordinate Matrix Market file (real, integer or pattern; general, symmetric or
// skew-symmetric; pattern entries become 1.0; duplicates are summed) on rank 0 and distributes
// it over a uniform contiguous 1D row map (index base 0). Domain map = uniform map of the column
// count, range map = row map. The result is fill-complete and the same for any number of ranks.
// Any problem (missing file, bad header, indices out of range, truncated data) throws
// std::runtime_error with the same message on every rank.
Teuchos::RCP<crs_matrix_type> readMatrixMarket(const std::string& path, const comm_ptr& comm,
                                               MatrixMarketInfo* info = nullptr);

// Writes a matrix as "coordinate real general" (1-based), gathering on rank 0. Collective.
void writeMatrixMarket(const std::string& path, const crs_matrix_type& A);

}  // namespace io
}  // namespace Trident
