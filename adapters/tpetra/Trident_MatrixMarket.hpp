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
// skew-symmetric; pattern entries become 1.0; duplicates are summed, explicit zeros kept) on
// rank 0 and distributes it over a uniform contiguous 1D row map (index base 0). Domain map =
// uniform map of the column count, range map = row map. The result is fill-complete and the same
// for any number of ranks. Collective.
//
// Any problem with the file throws Trident::InvalidInput with the same message on every rank:
// missing or unreadable file, bad banner / field / symmetry / size line, indices out of range
// (they are 1-based), non-numeric, NaN or infinite values, non-integer values in an `integer`
// file, fewer or more entries than the size line declares, a line over 1 MiB, a nonzero diagonal
// in a skew-symmetric file, and declared dimensions whose share per rank (rows, domain columns)
// would not fit a local index (int) or, at ~48 bytes per empty row and 8 per column, half of the
// node's memory per rank (checked before anything of that size is allocated).
Teuchos::RCP<crs_matrix_type> readMatrixMarket(const std::string& path, const comm_ptr& comm,
                                               MatrixMarketInfo* info = nullptr);

// Writes a matrix as "coordinate real general" (1-based), gathering on rank 0. Collective.
// A file that cannot be written throws std::runtime_error on every rank.
void writeMatrixMarket(const std::string& path, const crs_matrix_type& A);

}  // namespace io
}  // namespace Trident
