#include "trident/local/PrunedSpGEMM.hpp"

#include <stdexcept>

#include "trident/local/SortedRowAccumulator.hpp"

namespace Trident {

Csr prunedMultiply(const Csr& A, const Csr& B, std::int64_t row_begin, std::int64_t row_end,
                   const RowPruner& prune, PrunedSpGEMMCounts* counts) {
  if (A.ncols != B.nrows) throw std::invalid_argument("pruned SpGEMM: A.ncols != B.nrows");
  if (row_begin < 0 || row_end < row_begin || row_end > A.nrows)
    throw std::invalid_argument("pruned SpGEMM: row range outside A");
  Csr C(row_end - row_begin, B.ncols);
  // The accumulator is as wide as B; the MCL iterand is square and its width is the number of
  // nodes, which the pruned rows' memory already scales with.
  SortedRowAccumulator spa(B.ncols);
  std::vector<int> cols;
  std::vector<double> vals;
  std::uint64_t flops = 0, expanded = 0;
  for (std::int64_t r = row_begin; r < row_end; ++r) {
    for (std::int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p) {
      const double a = A.val[p];
      const int k = A.col[p];
      const std::int64_t qb = B.rowptr[k], qe = B.rowptr[k + 1];
      flops += static_cast<std::uint64_t>(qe - qb);
      for (std::int64_t q = qb; q < qe; ++q) spa.add(B.col[q], a * B.val[q]);
    }
    const std::size_t n = spa.size();
    expanded += n;
    cols.resize(n);
    vals.resize(n);
    int* cp = cols.data();
    double* vp = vals.data();
    spa.flush([&cp, &vp](int c, double v) {
      *cp++ = c;
      *vp++ = v;
    });
    prune(r, cols, vals);
    if (cols.size() != vals.size()) throw std::logic_error("pruned SpGEMM: pruner left cols and vals unequal");
    C.col.insert(C.col.end(), cols.begin(), cols.end());
    C.val.insert(C.val.end(), vals.begin(), vals.end());
    C.rowptr[r - row_begin + 1] = static_cast<std::int64_t>(C.col.size());
  }
  if (counts) {
    counts->flops += flops;
    counts->expanded += expanded;
  }
  return C;
}

}  // namespace Trident
