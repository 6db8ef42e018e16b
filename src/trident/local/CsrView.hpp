#pragma once
// A read-only CSR over arrays someone else owns (an owned Csr, or a Tpetra matrix's host local
// arrays), so that a product whose operands need no moving reads them where they are instead of
// copying them into tiles first (at P = 1 the layout and copies were 45% of a drop-in call on
// tetdual:35).
#include <cstdint>
#include <vector>

#include "trident/local/BlockSink.hpp"
#include "trident/local/Csr.hpp"

namespace Trident {

struct CsrView {
  std::int64_t nrows = 0, ncols = 0;
  const std::int64_t* rowptr = nullptr;  // nrows + 1 offsets
  const int* col = nullptr;
  const double* val = nullptr;
  std::int64_t nnz() const { return rowptr ? rowptr[nrows] : 0; }
  static CsrView of(const Csr& M) { return {M.nrows, M.ncols, M.rowptr.data(), M.col.data(), M.val.data()}; }
};

// B's rows in two parts read where they are: first's rows, then second's (the row-wise product at
// P > 1: B's local rows where Tpetra keeps them, then the remote rows fetched for the product),
// both in one column numbering of width ncols.
struct StackedCsrView {
  CsrView first, second;
  std::int64_t ncols = 0;
  std::int64_t nrows() const { return first.nrows + second.nrows; }
  // Row k is row rowInPart(k) of part(k).
  const CsrView& part(std::int64_t k) const { return k < first.nrows ? first : second; }
  std::int64_t rowInPart(std::int64_t k) const { return k < first.nrows ? k : k - first.nrows; }
};

// The "gustavson" kernel's product A * B (A.ncols == B.nrows) on views, its entries written into
// sink (rows sorted, as gustavsonMultiplyAddInto writes them); the returned Csr has the shape and
// row offsets, empty col/val. The same sums in the same order as gustavsonMultiply, so the same bits.
Csr gustavsonMultiplyInto(const CsrView& A, const CsrView& B, BlockSink& sink);
// The same where the caller knows multiplyFlops(A, B) (the bound C's arrays are reserved by): a
// pass over A's entries less. A wrong count only costs reallocation, never a wrong C.
Csr gustavsonMultiplyInto(const CsrView& A, const CsrView& B, BlockSink& sink, std::uint64_t flops);

// The same with B stacked (A.ncols == B.nrows()), flops = multiplyFlops(A, B); B's columns are
// not compressed (B's width is its column map and the remote rows' other columns, about its
// entries or fewer).
Csr gustavsonMultiplyInto(const CsrView& A, const StackedCsrView& B, BlockSink& sink, std::uint64_t flops);

// Multiply-adds of A * B, and of each row of A times B.
std::uint64_t multiplyFlops(const CsrView& A, const CsrView& B);
std::uint64_t multiplyFlops(const CsrView& A, const StackedCsrView& B);
std::vector<std::uint64_t> multiplyFlopsPerRow(const CsrView& A, const CsrView& B);
std::vector<std::uint64_t> multiplyFlopsPerRow(const CsrView& A, const StackedCsrView& B);

}  // namespace Trident
