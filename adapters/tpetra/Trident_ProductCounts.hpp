#pragma once
// Counts of a product A*B that only need B's row lengths at A's columns: one Tpetra import of
// nnz(B(k,:)) onto A's column map (the rows Tpetra's own Multiply would import). Used to balance
// Trident's slices by work, to count Tpetra's import volume, by MCL to bound a product's size
// and by trident-bench.
#include <cstdint>
#include <vector>
#include <Tpetra_Import.hpp>

#include "Trident_TpetraTypes.hpp"

namespace Trident {
namespace tpetra {

struct RowLengthsAtColumns {
  Teuchos::RCP<const Tpetra::Import<LO, GO, Node>> importer;  // B's row map -> A's column map
  std::vector<double> len;                                     // nnz(B(k,:)), indexed by A's local column
};

// Collective. B's rows must be the global IDs of A's columns' map (A*B defined).
RowLengthsAtColumns rowLengthsAtColumns(const crs_matrix_type& A, const crs_matrix_type& B);

// Multiply-adds of every local row of A*B: each entry A(i,k) meets the nnz(B(k,:)) entries of row
// k. skip_zeros: A's stored zeros are skipped, as Tpetra's kernel does.
std::vector<std::int64_t> multiplyAddsPerRow(const crs_matrix_type& A, const std::vector<double>& len,
                                             bool skip_zeros = true);

}  // namespace tpetra
}  // namespace Trident
