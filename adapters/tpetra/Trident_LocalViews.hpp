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
#include <trident/stats/MultiplyStats.hpp>
#include <trident/stats/PhaseTimer.hpp>

namespace Trident {
namespace tpetra {

using local_host_type = std::decay_t<decltype(std::declval<const crs_matrix_type&>().getLocalMatrixHost())>;
using row_map_view = crs_matrix_type::local_graph_device_type::row_map_type::non_const_type;

// Tpetra's row offsets are size_t; the kernel reads them as int64_t, the signed type of the same
// width, which may alias them. Offsets past 2^63 cannot occur.
CsrView viewOf(const local_host_type& M);

// A as the kernel reads it: A's arrays, with its columns renumbered as B's rows (rows[c], empty:
// the same) in an array of its own where they differ, or a copy without A's stored zeros where it
// has any (zeros > 0). Valid while A lives.
class KernelA {
 public:
  KernelA(const local_host_type& a, const std::vector<int>& rows, std::size_t zeros, std::int64_t nrowsB);
  KernelA(const KernelA&) = delete;  // the view points into the object's own arrays
  KernelA& operator=(const KernelA&) = delete;
  CsrView view() const { return view_; }

 private:
  std::optional<Csr> own_;
  std::vector<int> cols_;
  CsrView view_;
};

// The kernel into C's final arrays (sink), timed as the local phase, its multiply-adds (counted
// once: the stats' and the bound C is reserved by) and C's local entries counted.
template <class BView>
Csr multiplyIntoC(const CsrView& a, const BView& b, BlockSink& sink, MultiplyStats& stats) {
  Csr shape;
  {
    PhaseTimer t(stats.times.local_multiply, "Trident: local multiply");
    const std::uint64_t flops = multiplyFlops(a, b);
    shape = gustavsonMultiplyInto(a, b, sink, flops);
    stats.local_flops += flops;
  }
  stats.nnz_c_local = static_cast<std::uint64_t>(shape.nnz());
  return shape;
}

// C's row offsets as the view Tpetra keeps.
row_map_view rowOffsetsOf(const Csr& shape);

}  // namespace tpetra
}  // namespace Trident
