#pragma once
// Tpetra's host arrays as the kernel's views, for the products that read the operands where
// Tpetra keeps them (Trident_OneRankProduct at P = 1, Trident_RowWiseProduct at P > 1), and the
// little that has to be formed apart: A's columns renumbered as B's rows, A without its stored
// zeros, and C's row offsets as Tpetra's view.
#include <optional>
#include <type_traits>
#include <vector>

#include "Trident_TpetraTypes.hpp"
#include <trident/local/Csr.hpp>
#include <trident/local/CsrView.hpp>

namespace Trident {
namespace tpetra {

using local_host_type = std::decay_t<decltype(std::declval<const crs_matrix_type&>().getLocalMatrixHost())>;
using row_map_view = crs_matrix_type::local_graph_device_type::row_map_type::non_const_type;

// Tpetra's row offsets are size_t; the kernel reads them as int64_t, the signed type of the same
// width, which may alias them. Offsets past 2^63 cannot occur.
CsrView viewOf(const local_host_type& M);

// A's columns as B's rows, where they differ (rows[c]: the row of B of A's column c; empty: the
// same index). A's row offsets and values are read as they are.
std::vector<int> columnsAsRows(const CsrView& a, const std::vector<int>& rows);

// A without its stored zeros (and with its columns as B's rows), where it has any (zeros > 0).
std::optional<Csr> ownCopyOfA(const CsrView& a, const std::vector<int>& rows, std::size_t zeros, std::int64_t nrowsB);

// A's view as the kernel reads it: ownA where A had stored zeros, else A's arrays with colsAsRows
// as its columns where those are not empty; its width is B's row count.
CsrView viewOfA(const local_host_type& a, const std::optional<Csr>& ownA, const std::vector<int>& colsAsRows,
                std::int64_t nrowsB);

// C's row offsets as the view Tpetra keeps.
row_map_view rowOffsetsOf(const Csr& shape);

}  // namespace tpetra
}  // namespace Trident
