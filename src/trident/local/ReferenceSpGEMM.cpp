// The reference local kernel: textbook Gustavson, no cleverness. Everything else is tested
// against it.
#include <algorithm>
#include <stdexcept>

#include "trident/local/LocalSpGEMM.hpp"

namespace Trident {

Csr referenceMultiply(const Csr& A, const Csr& B) {
  if (A.ncols != B.nrows) throw std::invalid_argument("referenceMultiply: A.ncols != B.nrows");
  Csr C(A.nrows, B.ncols);
  std::vector<double> acc(static_cast<std::size_t>(B.ncols), 0.0);
  std::vector<char> used(static_cast<std::size_t>(B.ncols), 0);
  std::vector<int> cols;
  for (std::int64_t r = 0; r < A.nrows; ++r) {
    cols.clear();
    for (std::int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p) {
      const int k = A.col[p];
      const double a = A.val[p];
      for (std::int64_t q = B.rowptr[k]; q < B.rowptr[k + 1]; ++q) {
        const int c = B.col[q];
        if (!used[c]) {
          used[c] = 1;
          cols.push_back(c);
        }
        acc[c] += a * B.val[q];
      }
    }
    std::sort(cols.begin(), cols.end());
    for (int c : cols) {
      C.col.push_back(c);
      C.val.push_back(acc[c]);
      acc[c] = 0.0;
      used[c] = 0;
    }
    C.rowptr[r + 1] = static_cast<std::int64_t>(C.col.size());
  }
  return C;
}

std::uint64_t multiplyFlops(const Csr& A, const Csr& B) {
  std::uint64_t f = 0;
  for (std::int64_t p = 0; p < A.nnz(); ++p) f += B.rowptr[A.col[p] + 1] - B.rowptr[A.col[p]];
  return f;
}

Csr sumBlocks(const std::vector<Csr>& parts, std::int64_t nrows, std::int64_t ncols) {
  if (parts.size() == 1 && parts[0].nrows == nrows) return parts[0];
  Csr C(nrows, ncols);
  std::size_t guess = 0;
  for (const Csr& p : parts) guess += p.nnz();
  C.col.reserve(guess);
  C.val.reserve(guess);
  std::vector<double> acc(static_cast<std::size_t>(ncols), 0.0);
  std::vector<char> used(static_cast<std::size_t>(ncols), 0);
  std::vector<int> cols;
  for (std::int64_t r = 0; r < nrows; ++r) {
    cols.clear();
    for (const Csr& p : parts) {
      if (p.nrows == 0) continue;
      for (std::int64_t q = p.rowptr[r]; q < p.rowptr[r + 1]; ++q) {
        const int c = p.col[q];
        if (!used[c]) {
          used[c] = 1;
          cols.push_back(c);
        }
        acc[c] += p.val[q];
      }
    }
    for (int c : cols) {
      C.col.push_back(c);
      C.val.push_back(acc[c]);
      acc[c] = 0.0;
      used[c] = 0;
    }
    C.rowptr[r + 1] = static_cast<std::int64_t>(C.col.size());
  }
  return C;
}

namespace {
class ReferenceKernel final : public LocalSpGEMM {
 public:
  std::string name() const override { return "reference"; }
  Csr multiply(const Csr& A, const Csr& B) override { return referenceMultiply(A, B); }
};
}  // namespace

std::unique_ptr<LocalSpGEMM> makeReferenceKernel() { return std::make_unique<ReferenceKernel>(); }

}  // namespace Trident
