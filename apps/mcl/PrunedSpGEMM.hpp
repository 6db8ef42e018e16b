#pragma once
// C = prune(A * B), row by row: each finished row of the product goes from the Gustavson
// accumulator straight to a caller's row pruner, and only what the pruner keeps is stored. This is
// how mcl expands (it selects and prunes every column while computing it): the un-pruned product,
// often 10-30x the pruned one, never exists as a whole. The pruner sees each row complete (all of
// A's row times B), so A and B must hold whole rows of the product's inputs: A some rows, B every
// row A's columns name.
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "trident/local/Csr.hpp"

namespace Trident {

// An allocator whose vectors leave the elements a resize adds uninitialized (std::allocator's
// zero-fills them). The kernel sizes a row's scratch to the row's column range before writing
// every entry it hands over, and the pruner then shrinks it to what it keeps: zero-filling the
// range again for every row was 1.7 % of trident-mcl's samples on email-Enron (perf).
template <class T>
struct NoInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = NoInitAllocator<U>;
  };
  NoInitAllocator() = default;
  template <class U>
  NoInitAllocator(const NoInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
using RowCols = std::vector<int, NoInitAllocator<int>>;
using RowVals = std::vector<double, NoInitAllocator<double>>;

// Called once per row of A, in order, with the product row: columns ascending (B's column
// indices), values as summed in double; entries whose sum is exactly 0.0 are left out (the dense
// accumulator cannot tell them from untouched columns, and a pruner drops them anyway). The pruner edits cols/vals in place; what it leaves is
// the row of the result (it must stay sorted). The vectors are scratch owned by the kernel.
using RowPruner = std::function<void(std::int64_t row, RowCols& cols, RowVals& vals)>;

struct PrunedSpGEMMCounts {
  std::uint64_t flops = 0;     // multiply-adds
  std::uint64_t expanded = 0;  // nonzero entries of the un-pruned product
};

// The same block layout as Csr with single-precision values: MCL keeps its iterand in float, as mcl
// does (its values are rounded to float anyway), which is a third less memory per entry.
struct CsrFloat {
  std::int64_t nrows = 0, ncols = 0;
  std::vector<std::int64_t> rowptr{0};
  std::vector<int> col;
  std::vector<float> val;
  CsrFloat() = default;
  CsrFloat(std::int64_t rows, std::int64_t cols) : nrows(rows), ncols(cols), rowptr(rows + 1, 0) {}
  std::int64_t nnz() const { return rowptr.empty() ? 0 : rowptr.back(); }
};

// B given row by row, each row wherever it already lives: a rank's own rows in its block of the
// iterand, fetched rows in the receive arrays they arrived in. Putting B together this way copies
// nothing (a CSR B would take a copy of every own row, and memory that is touched for the first
// time is what a fetch costs most on a VM). Row k: len entries at col / val; empty rows may point
// nowhere. The rows must outlive the RowRefs.
template <class V, class CI = int>
struct RowRefs {
  struct Row {
    const CI* col = nullptr;
    const V* val = nullptr;
    std::int64_t len = 0;
  };
  std::int64_t ncols = 0;
  std::vector<Row> row;  // one per row of B
  std::int64_t nrows() const { return static_cast<std::int64_t>(row.size()); }
};

// Every row of a CSR block (Csr or CsrFloat), by reference.
template <class M>
RowRefs<typename decltype(M::val)::value_type> rowRefs(const M& B) {
  RowRefs<typename decltype(M::val)::value_type> r;
  r.ncols = B.ncols;
  r.row.resize(static_cast<std::size_t>(B.nrows));
  for (std::int64_t k = 0; k < B.nrows; ++k)
    r.row[static_cast<std::size_t>(k)] = {B.col.data() + B.rowptr[k], B.val.data() + B.rowptr[k],
                                          B.rowptr[k + 1] - B.rowptr[k]};
  return r;
}

// B's rows with 16-bit column indices (B with at most 65,536 columns), values where they were.
// The kernel reads a row of B for every entry of A that names it, 8 bytes a multiply-add with
// 32-bit columns and float values, and on MCL's heavy iterations those reads are much of its time.
template <class V>
struct NarrowRowRefs {
  RowRefs<V, std::uint16_t> refs;
  std::vector<std::uint16_t> col;  // every row's columns, one after the other
};
constexpr std::int64_t kMaxNarrowColumns = std::int64_t{1} << 16;
template <class V>
NarrowRowRefs<V> narrowColumns(const RowRefs<V>& B) {
  if (B.ncols > kMaxNarrowColumns) throw std::invalid_argument("narrowColumns: B has over 65,536 columns");
  NarrowRowRefs<V> n;
  n.refs.ncols = B.ncols;
  n.refs.row.resize(B.row.size());
  std::size_t total = 0;
  for (const auto& r : B.row) total += static_cast<std::size_t>(r.len);
  n.col.resize(total);
  std::uint16_t* out = n.col.data();
  for (std::size_t k = 0; k < B.row.size(); ++k) {
    const auto& r = B.row[k];
    for (std::int64_t q = 0; q < r.len; ++q) out[q] = static_cast<std::uint16_t>(r.col[q]);
    n.refs.row[k] = {out, r.val, r.len};
    out += r.len;
  }
  return n;
}

// Rows [row_begin, row_end) of prune(A * B) as a block of (row_end - row_begin) rows. Products are
// summed in double whatever the stored type; M is Csr or CsrFloat.
// kept_per_row_hint (0: none): about the most entries the pruner keeps in a row (MCL: its selection
// and recovery numbers). C reserves address space for that many per row and only what is written
// becomes resident memory; a row that keeps more is still right, only C's arrays then grow.
template <class M, class CI>
M prunedMultiply(const M& A, const RowRefs<typename decltype(M::val)::value_type, CI>& B, std::int64_t row_begin,
                 std::int64_t row_end, const RowPruner& prune, PrunedSpGEMMCounts* counts = nullptr,
                 std::int64_t kept_per_row_hint = 0);
template <class M>
M prunedMultiply(const M& A, const M& B, std::int64_t row_begin, std::int64_t row_end, const RowPruner& prune,
                 PrunedSpGEMMCounts* counts = nullptr) {
  return prunedMultiply(A, rowRefs(B), row_begin, row_end, prune, counts);
}
template <class M>
M prunedMultiply(const M& A, const M& B, const RowPruner& prune, PrunedSpGEMMCounts* counts = nullptr) {
  return prunedMultiply(A, rowRefs(B), 0, A.nrows, prune, counts);
}

extern template Csr prunedMultiply(const Csr&, const RowRefs<double>&, std::int64_t, std::int64_t,
                                   const RowPruner&, PrunedSpGEMMCounts*, std::int64_t);
extern template CsrFloat prunedMultiply(const CsrFloat&, const RowRefs<float>&, std::int64_t, std::int64_t,
                                        const RowPruner&, PrunedSpGEMMCounts*, std::int64_t);
extern template Csr prunedMultiply(const Csr&, const RowRefs<double, std::uint16_t>&, std::int64_t, std::int64_t,
                                   const RowPruner&, PrunedSpGEMMCounts*, std::int64_t);
extern template CsrFloat prunedMultiply(const CsrFloat&, const RowRefs<float, std::uint16_t>&, std::int64_t,
                                        std::int64_t, const RowPruner&, PrunedSpGEMMCounts*, std::int64_t);

}  // namespace Trident
