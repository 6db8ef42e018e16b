#include "Trident_ProductCounts.hpp"

#include <Tpetra_Vector.hpp>

namespace Trident {
namespace tpetra {

RowLengthsAtColumns rowLengthsAtColumns(const crs_matrix_type& A, const crs_matrix_type& B) {
  using vec_t = Tpetra::Vector<double, LO, GO, Node>;
  vec_t rowLen(B.getRowMap());
  {
    auto d = rowLen.getDataNonConst(0);
    for (LO r = 0; r < static_cast<LO>(B.getNodeNumRows()); ++r) d[r] = static_cast<double>(B.getNumEntriesInLocalRow(r));
  }
  RowLengthsAtColumns out;
  // A's own Import (domain map -> column map) serves when B's rows are distributed as A's domain
  // (A*A, and most products): no new Import, so no directory look-up and no extra collectives.
  auto aImport = A.getGraph()->getImporter();
  if (!aImport.is_null() && aImport->getSourceMap()->isSameAs(*B.getRowMap()))
    out.importer = aImport;
  else
    out.importer = Teuchos::rcp(new Tpetra::Import<LO, GO, Node>(B.getRowMap(), A.getColMap()));
  vec_t atCols(A.getColMap());
  atCols.doImport(rowLen, *out.importer, Tpetra::INSERT);
  auto d = atCols.getData(0);
  out.len.assign(d.begin(), d.end());
  return out;
}

std::vector<std::int64_t> multiplyAddsPerRow(const crs_matrix_type& A, const std::vector<double>& len,
                                             bool skip_zeros) {
  auto local = A.getLocalMatrixHost();
  std::vector<std::int64_t> work(A.getNodeNumRows(), 0);
  for (LO r = 0; r < static_cast<LO>(work.size()); ++r)
    for (std::size_t q = local.graph.row_map(r); q < local.graph.row_map(r + 1); ++q)
      if (!skip_zeros || local.values(q) != 0.0) work[r] += static_cast<std::int64_t>(len[local.graph.entries(q)]);
  return work;
}

}  // namespace tpetra
}  // namespace Trident
