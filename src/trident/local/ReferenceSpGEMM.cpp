// The reference local kernel: textbook Gustavson, no cleverness. Everything else is tested
// against it.
#include <algorithm>
#include <limits>
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

namespace {
// Sorted parts, few of them: a linear merge of each row's pieces, no accumulator (the accumulator
// pass cost more than the local multiply itself on as-caida at P = 4). Each output entry costs a
// scan of the (at most kMaxMergeWays) heads; C is written once, into storage reserved from the
// parts' total (an upper bound of its size), so it is never reallocated.
constexpr std::size_t kMaxMergeWays = 8;

Csr mergeSortedBlocks(const std::vector<Csr>& parts, std::int64_t nrows, std::int64_t ncols, std::size_t total) {
  Csr C(nrows, ncols);
  C.col.reserve(total);  // appended row by row below: no zero-filling, no reallocation
  C.val.reserve(total);
  std::vector<const Csr*> live;
  for (const Csr& p : parts)
    if (p.nrows != 0 && p.nnz() != 0) live.push_back(&p);
  std::vector<int> rowCol;  // a merged row, before it is appended
  std::vector<double> rowVal;
  const Csr* rowParts[kMaxMergeWays];
  std::int64_t head[kMaxMergeWays], stop[kMaxMergeWays];
  for (std::int64_t r = 0; r < nrows; ++r) {
    std::size_t k = 0;
    for (const Csr* p : live) {
      if (p->rowptr[r] == p->rowptr[r + 1]) continue;
      rowParts[k] = p;
      head[k] = p->rowptr[r];
      stop[k] = p->rowptr[r + 1];
      ++k;
    }
    if (k == 1) {
      C.col.insert(C.col.end(), rowParts[0]->col.begin() + head[0], rowParts[0]->col.begin() + stop[0]);
      C.val.insert(C.val.end(), rowParts[0]->val.begin() + head[0], rowParts[0]->val.begin() + stop[0]);
    } else if (k > 1) {
      rowCol.clear();
      rowVal.clear();
      for (;;) {
        int c = std::numeric_limits<int>::max();
        bool any = false;
        for (std::size_t t = 0; t < k; ++t)
          if (head[t] < stop[t]) {
            any = true;
            c = std::min(c, rowParts[t]->col[head[t]]);
          }
        if (!any) break;
        double v = 0.0;
        for (std::size_t t = 0; t < k; ++t)
          if (head[t] < stop[t] && rowParts[t]->col[head[t]] == c) v += rowParts[t]->val[head[t]++];
        rowCol.push_back(c);
        rowVal.push_back(v);
      }
      C.col.insert(C.col.end(), rowCol.begin(), rowCol.end());
      C.val.insert(C.val.end(), rowVal.begin(), rowVal.end());
    }
    C.rowptr[r + 1] = static_cast<std::int64_t>(C.col.size());
  }
  return C;
}
}  // namespace

Csr sumBlocks(std::vector<Csr>&& parts, std::int64_t nrows, std::int64_t ncols, bool parts_sorted) {
  if (parts.size() == 1 && parts[0].nrows == nrows && parts_sorted) return std::move(parts[0]);
  std::size_t total = 0;
  for (const Csr& p : parts) total += static_cast<std::size_t>(p.nnz());
  if (parts_sorted && parts.size() <= kMaxMergeWays) return mergeSortedBlocks(parts, nrows, ncols, total);
  Csr C(nrows, ncols);
  C.col.reserve(total);
  C.val.reserve(total);
  // Hypersparse blocks (width far above their entries): accumulate over the used columns only,
  // renumbered in ascending order, so memory follows the entries, not the width.
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

// Listed in src/CMakeLists.txt (TRIDENT_LOCAL_KERNEL_REGISTRARS).
void registerReferenceKernel() {
  registerLocalKernel({"reference", [] { return true; }, [] { return std::make_unique<ReferenceKernel>(); }});
}

}  // namespace Trident
