#pragma once
// C = prune(A * B), row by row: each finished row of the product goes from the Gustavson
// accumulator straight to a caller's row pruner, and only what the pruner keeps is stored. This is
// how mcl expands (it selects and prunes every column while computing it): the un-pruned product,
// often 10-30x the pruned one, never exists as a whole. The pruner sees each row complete (all of
// A's row times B), so A and B must hold whole rows of the product's inputs: A some rows, B every
// row A's columns name.
#include <algorithm>
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
  // Where the rows' columns are renumbered for the kernel (narrowColumns): column c of B is
  // column kernelOf[c] of the rows and the accumulator, and kernel column k is B's originalOf[k].
  // Null: the columns are B's own.
  const int* kernelOf = nullptr;
  const int* originalOf = nullptr;
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

// B's rows with 16-bit column indices (B with at most 65,536 columns), values where they were,
// and where asked the columns renumbered by how often B names them, the most often first. The kernel reads a row of
// B for every entry of A that names it: 8 bytes a multiply-add with 32-bit columns and float values,
// 6 with 16-bit ones. And on graphs whose rows all name the same few hubs, the renumbering puts the
// accumulator entries that nearly every row of B adds to in a few cache lines: the kernel alone on
// as-caida's second iterand took 0.70 instead of 1.16 ns a multiply-add (email-Enron 0.77 against
// 0.78-0.83). Every sum still runs over A's row in its order, and prunedMultiply hands out each
// product row in B's own column order, so the products are bit for bit the same.
template <class V>
struct NarrowRowRefs {
  RowRefs<V, std::uint16_t> refs;
  std::vector<std::uint16_t> col;  // every row's columns, one after the other
  std::vector<int> kernelOf, originalOf;  // refs.kernelOf / refs.originalOf point here
  NarrowRowRefs() = default;
  NarrowRowRefs(NarrowRowRefs&&) = default;  // moving keeps the arrays refs points into
  NarrowRowRefs(const NarrowRowRefs&) = delete;
};
constexpr std::int64_t kMaxNarrowColumns = std::int64_t{1} << 16;
// With B's columns renumbered, prunedMultiply sums a row in the kernel's numbering from this many
// multiply-adds a column: its read-out then sweeps every column (a look-up each) in B's order. Rows
// below it look each column up as they sum, so renumbering pays where most multiply-adds are in
// rows above it.
constexpr std::int64_t kRenumberedFrom = 8;
// How many entries of B name each column: what renumberingPays weighs and narrowColumns
// renumbers by.
template <class V>
std::vector<std::int64_t> columnCounts(const RowRefs<V>& B) {
  std::vector<std::int64_t> named(static_cast<std::size_t>(B.ncols), 0);
  for (const auto& r : B.row)
    for (std::int64_t q = 0; q < r.len; ++q) ++named[static_cast<std::size_t>(r.col[q])];
  return named;
}

// Whether renumbering B's columns (named: columnCounts(B)) would gather its entries into fewer
// cache lines of the accumulator: the share of B's entries in the 512 most named lines of 8
// columns (32 kB of doubles) as numbered, against the share in the 4,096 most named columns (those
// lines once renumbered). Measured on the second iterands: as-caida 0.29 against 0.56 (its kernel
// 1.16 -> 0.70 ns a multiply-add), email-Enron 0.47 against 0.55 (its multiply at P = 2 8.5 -> 8.9 s
// renumbered: the sweep in B's order costs more than the renumbering saves). Renumbering pays from
// 1.5x.
inline bool renumberingPays(std::vector<std::int64_t> named) {
  std::vector<std::int64_t> line((named.size() + 7) / 8, 0);
  std::int64_t total = 0;
  for (std::size_t c = 0; c < named.size(); ++c) {
    line[c / 8] += named[c];
    total += named[c];
  }
  const auto topSum = [](std::vector<std::int64_t>& v, std::size_t k) {
    k = std::min(k, v.size());
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end(), std::greater<>());
    std::int64_t s = 0;
    for (std::size_t i = 0; i < k; ++i) s += v[i];
    return s;
  };
  const std::int64_t asNumbered = topSum(line, 512), renumbered = topSum(named, 4096);
  return total > 0 && 2 * renumbered >= 3 * asNumbered;
}

// renumberBy: columnCounts(B), the columns renumbered most named first; null: only narrowed
// (kernelOf / originalOf stay empty).
template <class V>
NarrowRowRefs<V> narrowColumns(const RowRefs<V>& B, const std::vector<std::int64_t>* renumberBy = nullptr) {
  if (B.ncols > kMaxNarrowColumns) throw std::invalid_argument("narrowColumns: B has over 65,536 columns");
  if (B.kernelOf) throw std::invalid_argument("narrowColumns: B's columns are renumbered already");
  NarrowRowRefs<V> n;
  const std::size_t ncols = static_cast<std::size_t>(B.ncols);
  if (renumberBy) {
    const std::vector<std::int64_t>& named = *renumberBy;
    if (named.size() != ncols) throw std::invalid_argument("narrowColumns: counts are not B's columns'");
    n.originalOf.resize(ncols);
    for (std::size_t c = 0; c < ncols; ++c) n.originalOf[c] = static_cast<int>(c);
    std::stable_sort(n.originalOf.begin(), n.originalOf.end(), [&named](int a, int b) {
      return named[static_cast<std::size_t>(a)] > named[static_cast<std::size_t>(b)];
    });
    n.kernelOf.resize(ncols);
    for (std::size_t k = 0; k < ncols; ++k) n.kernelOf[static_cast<std::size_t>(n.originalOf[k])] = static_cast<int>(k);
    n.refs.kernelOf = n.kernelOf.data();
    n.refs.originalOf = n.originalOf.data();
  }
  std::size_t total = 0;
  for (const auto& r : B.row) total += static_cast<std::size_t>(r.len);
  n.refs.ncols = B.ncols;
  n.refs.row.resize(B.row.size());
  n.col.resize(total);
  const auto copyRows = [&B, &n](auto kernelColumn) {
    std::uint16_t* out = n.col.data();
    for (std::size_t k = 0; k < B.row.size(); ++k) {
      const auto& r = B.row[k];
      for (std::int64_t q = 0; q < r.len; ++q) out[q] = static_cast<std::uint16_t>(kernelColumn(r.col[q]));
      n.refs.row[k] = {out, r.val, r.len};
      out += r.len;
    }
  };
  if (renumberBy)
    copyRows([&n](int c) { return n.kernelOf[static_cast<std::size_t>(c)]; });
  else
    copyRows([](int c) { return c; });
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
