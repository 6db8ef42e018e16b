// Host backend "gustavson": row-by-row Gustavson with a dense accumulator whose rows come out
// sorted (SortedRowAccumulator). Sorted rows are what Tpetra stores, so nothing downstream has to
// sort C again; on the products measured this beat KokkosKernels' serial kernel plus the sort the
// assembly then needed (see docs/benchmarks.md).
#include <algorithm>
#include <stdexcept>

#include "trident/local/LocalSpGEMM.hpp"
#include "trident/local/SortedRowAccumulator.hpp"

namespace Trident {

Csr gustavsonMultiply(const Csr& A, const Csr& B) {
  if (A.ncols != B.nrows) throw std::invalid_argument("gustavson SpGEMM: A.ncols != B.nrows");
  Csr C(A.nrows, B.ncols);
  if (A.nnz() == 0 || B.nnz() == 0) return C;
  SortedRowAccumulator spa(B.ncols);
  // Growing by doubling copies each entry about twice; an exact symbolic pass would read A and B
  // twice instead, which costs more on the sparse products this targets.
  C.col.reserve(static_cast<std::size_t>(std::max(A.nnz(), B.nnz())));
  C.val.reserve(C.col.capacity());
  for (std::int64_t r = 0; r < A.nrows; ++r) {
    for (std::int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p) {
      const double a = A.val[p];
      const int k = A.col[p];
      for (std::int64_t q = B.rowptr[k]; q < B.rowptr[k + 1]; ++q) spa.add(B.col[q], a * B.val[q]);
    }
    const std::size_t at = C.col.size(), n = spa.size();
    if (at + n > C.col.capacity()) {
      C.col.reserve(std::max(2 * C.col.capacity(), at + n));
      C.val.reserve(C.col.capacity());
    }
    C.col.resize(at + n);
    C.val.resize(at + n);
    int* cp = C.col.data() + at;
    double* vp = C.val.data() + at;
    spa.flush([&cp, &vp](int c, double v) {
      *cp++ = c;
      *vp++ = v;
    });
    C.rowptr[r + 1] = static_cast<std::int64_t>(at + n);
  }
  return C;
}

void numericMultiplyInto(const Csr& A, const Csr& B, const Csr& pattern, std::vector<double>& values,
                         std::vector<double>& dense) {
  if (A.ncols != B.nrows || pattern.nrows != A.nrows || pattern.ncols != B.ncols ||
      values.size() != pattern.col.size())
    throw std::invalid_argument("numericMultiplyInto: shapes do not match");
  dense.assign(static_cast<std::size_t>(B.ncols), 0.0);
  for (std::int64_t r = 0; r < A.nrows; ++r) {
    for (std::int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p) {
      const double a = A.val[p];
      const int k = A.col[p];
      for (std::int64_t q = B.rowptr[k]; q < B.rowptr[k + 1]; ++q) dense[B.col[q]] += a * B.val[q];
    }
    for (std::int64_t q = pattern.rowptr[r]; q < pattern.rowptr[r + 1]; ++q) {
      values[q] += dense[pattern.col[q]];
      dense[pattern.col[q]] = 0.0;
    }
  }
}

void numericMultiplyInto(const Csr& A, const Csr& B, Csr& C, std::vector<double>& dense) {
  numericMultiplyInto(A, B, C, C.val, dense);
}

namespace {
class GustavsonKernel final : public LocalSpGEMM {
 public:
  std::string name() const override { return "gustavson"; }
  bool sortsRows() const override { return true; }
  Csr multiply(const Csr& A, const Csr& B) override { return gustavsonMultiply(A, B); }
};
}  // namespace

std::unique_ptr<LocalSpGEMM> makeGustavsonKernel() { return std::make_unique<GustavsonKernel>(); }

}  // namespace Trident
