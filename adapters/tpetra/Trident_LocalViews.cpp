// Tpetra's host arrays as the kernel's views.
#include "Trident_LocalViews.hpp"

#include <algorithm>
#include <cstdint>

namespace Trident {
namespace tpetra {

CsrView viewOf(const local_host_type& M) {
  using offset = std::remove_const_t<std::remove_pointer_t<decltype(M.graph.row_map.data())>>;
  using index = std::remove_const_t<std::remove_pointer_t<decltype(M.graph.entries.data())>>;
  static_assert(std::is_integral<offset>::value && sizeof(offset) == sizeof(std::int64_t),
                "Tpetra's row offsets must be 64-bit integers to be read in place");
  static_assert(std::is_same<index, int>::value, "Tpetra's local column indices must be int");
  const auto* rowptr = reinterpret_cast<const std::int64_t*>(M.graph.row_map.data());
  return {static_cast<std::int64_t>(M.numRows()), static_cast<std::int64_t>(M.numCols()), rowptr,
          M.graph.entries.data(), M.values.data()};
}

namespace {

// A's columns as B's rows, where they differ. A's row offsets and values are read as they are.
std::vector<int> columnsAsRows(const CsrView& a, const std::vector<int>& rows) {
  std::vector<int> col(static_cast<std::size_t>(rows.empty() ? 0 : a.nnz()));
  for (std::size_t q = 0; q < col.size(); ++q) col[q] = rows[a.col[q]];
  return col;
}

// A without its stored zeros (and with its columns as B's rows), where it has any.
std::optional<Csr> ownCopyOfA(const CsrView& a, const std::vector<int>& rows, std::size_t zeros, std::int64_t nrowsB) {
  if (zeros == 0) return std::nullopt;
  Csr own(a.nrows, nrowsB);
  own.col.reserve(static_cast<std::size_t>(a.nnz()) - zeros);
  own.val.reserve(own.col.capacity());
  for (std::int64_t r = 0; r < a.nrows; ++r) {
    for (std::int64_t q = a.rowptr[r]; q < a.rowptr[r + 1]; ++q) {
      if (a.val[q] == 0.0) continue;
      own.col.push_back(rows.empty() ? a.col[q] : rows[a.col[q]]);
      own.val.push_back(a.val[q]);
    }
    own.rowptr[r + 1] = static_cast<std::int64_t>(own.col.size());
  }
  return own;
}

}  // namespace

KernelA::KernelA(const local_host_type& a, const std::vector<int>& rows, std::size_t zeros, std::int64_t nrowsB)
    : own_(ownCopyOfA(viewOf(a), rows, zeros, nrowsB)) {
  if (!own_) cols_ = columnsAsRows(viewOf(a), rows);
  view_ = own_ ? CsrView::of(*own_) : viewOf(a);
  if (!own_ && !cols_.empty()) view_.col = cols_.data();
  view_.ncols = nrowsB;  // A's columns are B's rows, of which A may use fewer
}

row_map_view rowOffsetsOf(const Csr& shape) {
  row_map_view ptr(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Trident: C"), shape.rowptr.size());
  std::copy(shape.rowptr.begin(), shape.rowptr.end(), ptr.data());
  return ptr;
}

}  // namespace tpetra
}  // namespace Trident
