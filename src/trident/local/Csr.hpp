#pragma once
// The local sparse block every algorithm moves and multiplies: plain CSR with 64-bit row
// offsets (as Tpetra/KokkosKernels use size_t), 32-bit block-local column indices and doubles.
//
// Wire format of a block (over Gi and Li): rowptr[1..nrows] as int64, then col as int32, then
// val as double, in three messages: wireBytes(nrows, nnz) = 8*nrows + 12*nnz. The receiver
// knows nrows from the layout and nnz from the metadata exchanged before the loop.
#include <cstdint>
#include <vector>

namespace Trident {

struct Csr {
  // Largest local row or column count a block may have: its column indices are 32-bit (half the
  // bytes of 64-bit ones, and the ordinal type of the local kernels). checkLocalIndexRange
  // (partition/Redistribute.hpp) rejects layouts whose tiles exceed it.
  static constexpr std::int64_t kMaxLocalIndex = 2147483647;
  std::int64_t nrows = 0, ncols = 0;
  std::vector<std::int64_t> rowptr{0};
  std::vector<int> col;
  std::vector<double> val;

  Csr() = default;
  Csr(std::int64_t rows, std::int64_t cols) : nrows(rows), ncols(cols), rowptr(rows + 1, 0) {}
  std::int64_t nnz() const { return rowptr.empty() ? 0 : rowptr.back(); }
  // Resize for receiving a block of known shape and size (rowptr[0] = 0 is kept).
  void allocate(std::int64_t rows, std::int64_t cols, std::int64_t nnz);
  // Number of bytes this block occupies on the wire.
  static std::uint64_t wireBytes(std::int64_t rows, std::int64_t nnz) {
    return 8u * static_cast<std::uint64_t>(rows) + 12u * static_cast<std::uint64_t>(nnz);
  }
  // From the allocated size, so it is right for a block whose data is still in flight.
  std::uint64_t wireBytes() const { return wireBytes(nrows, static_cast<std::int64_t>(col.size())); }
  // Sorts the column indices (and values) within every row.
  void sortRows();
};

// Builds a CSR block from (local row, local col, value) triplets; rows are sorted by column
// unless sort_rows is false (the kernels do not need it; the reference output does).
Csr csrFromTriplets(std::int64_t nrows, std::int64_t ncols, const std::vector<std::int64_t>& rows,
                    const std::vector<int>& cols, const std::vector<double>& vals, bool sort_rows = true);

// A's columns renumbered to the rows a row-compressed B holds (rows: which of B's full rows,
// ascending), for A * B with B kept compressed. Entries of A on rows B does not hold meet nothing
// and are dropped; the renumbering is monotone and keeps the order within rows, so every product
// is accumulated exactly as with the full B (bit-identical). O(nnz(A) log rows), no array of B's
// full height.
Csr columnsToRows(const Csr& A, const std::vector<int>& rows);

// Stacks blocks with equal column counts vertically (slice 0 on top).
Csr stackRows(const std::vector<const Csr*>& parts);

}  // namespace Trident
