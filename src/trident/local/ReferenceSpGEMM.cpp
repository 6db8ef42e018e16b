// The reference local kernel: textbook Gustavson, no cleverness. Everything else is tested
// against it.
#include <algorithm>
#include <stdexcept>

#include "trident/local/LocalSpGEMM.hpp"
#include "trident/local/SortedRowAccumulator.hpp"

namespace Trident {

namespace {
// Dense accumulator over the columns of one output row (Gustavson's SPA): add, then append the
// row to C in first-seen or sorted column order and reset only the touched slots.
class RowAccumulator {
 public:
  explicit RowAccumulator(std::int64_t ncols)
      : acc_(static_cast<std::size_t>(ncols), 0.0), used_(static_cast<std::size_t>(ncols), 0) {}
  void add(int c, double v) {
    if (!used_[c]) {
      used_[c] = 1;
      cols_.push_back(c);
    }
    acc_[c] += v;
  }
  void flushRow(Csr& C, std::int64_t r, bool sorted) {
    if (sorted) std::sort(cols_.begin(), cols_.end());
    for (int c : cols_) {
      C.col.push_back(c);
      C.val.push_back(acc_[c]);
      acc_[c] = 0.0;
      used_[c] = 0;
    }
    cols_.clear();
    C.rowptr[r + 1] = static_cast<std::int64_t>(C.col.size());
  }

 private:
  std::vector<double> acc_;
  std::vector<char> used_;
  std::vector<int> cols_;
};
}  // namespace

Csr referenceMultiply(const Csr& A, const Csr& B) {
  if (A.ncols != B.nrows) throw std::invalid_argument("referenceMultiply: A.ncols != B.nrows");
  Csr C(A.nrows, B.ncols);
  RowAccumulator spa(B.ncols);
  for (std::int64_t r = 0; r < A.nrows; ++r) {
    for (std::int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p) {
      const int k = A.col[p];
      for (std::int64_t q = B.rowptr[k]; q < B.rowptr[k + 1]; ++q) spa.add(B.col[q], A.val[p] * B.val[q]);
    }
    spa.flushRow(C, r, true);
  }
  return C;
}

std::uint64_t multiplyFlops(const Csr& A, const Csr& B) {
  std::uint64_t f = 0;
  for (std::int64_t p = 0; p < A.nnz(); ++p) f += B.rowptr[A.col[p] + 1] - B.rowptr[A.col[p]];
  return f;
}

Csr sumBlocks(std::vector<Csr>&& parts, std::int64_t nrows, std::int64_t ncols, bool parts_sorted) {
  if (parts.size() == 1 && parts[0].nrows == nrows && parts_sorted) return std::move(parts[0]);
  Csr C(nrows, ncols);
  std::size_t guess = 0;
  for (const Csr& p : parts) guess = std::max<std::size_t>(guess, p.nnz());
  C.col.reserve(guess);
  C.val.reserve(guess);
  // Hypersparse blocks (width far above their entries): accumulate over the used columns only,
  // renumbered in ascending order, so memory follows the entries, not the width.
  std::size_t total = 0;
  for (const Csr& p : parts) total += static_cast<std::size_t>(p.nnz());
  std::vector<int> used;
  const bool compress = static_cast<std::size_t>(ncols) > 4 * total + 4096;
  if (compress) {
    used.reserve(total);
    for (const Csr& p : parts) used.insert(used.end(), p.col.begin(), p.col.begin() + p.nnz());
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
  }
  auto index = [&](int c) {
    return compress ? static_cast<int>(std::lower_bound(used.begin(), used.end(), c) - used.begin()) : c;
  };
  SortedRowAccumulator spa(compress ? static_cast<std::int64_t>(used.size()) : ncols);
  for (std::int64_t r = 0; r < nrows; ++r) {
    for (const Csr& p : parts) {
      if (p.nrows == 0) continue;
      for (std::int64_t q = p.rowptr[r]; q < p.rowptr[r + 1]; ++q) spa.add(index(p.col[q]), p.val[q]);
    }
    spa.flush([&](int c, double v) {
      C.col.push_back(compress ? used[c] : c);
      C.val.push_back(v);
    });
    C.rowptr[r + 1] = static_cast<std::int64_t>(C.col.size());
  }
  return C;
}

namespace {
class ReferenceKernel final : public LocalSpGEMM {
 public:
  std::string name() const override { return "reference"; }
  bool sortsRows() const override { return true; }
  Csr multiply(const Csr& A, const Csr& B) override { return referenceMultiply(A, B); }
};
}  // namespace

std::unique_ptr<LocalSpGEMM> makeReferenceKernel() { return std::make_unique<ReferenceKernel>(); }

}  // namespace Trident
