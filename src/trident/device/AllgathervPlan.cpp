#include "trident/device/AllgathervPlan.hpp"

#include <algorithm>
#include <stdexcept>

#include "trident/device/DeviceCsr.hpp"

namespace Trident {

AllgathervPlan planAllgatherv(const std::vector<std::int64_t>& slice_rows, const std::vector<std::int64_t>& slice_nnz) {
  if (slice_rows.empty() || slice_rows.size() != slice_nnz.size())
    throw std::invalid_argument("Trident Allgatherv plan: one row count and one entry count per group rank needed");
  AllgathervPlan plan;
  plan.slices.resize(slice_rows.size());
  for (std::size_t t = 0; t < slice_rows.size(); ++t) {
    if (slice_rows[t] < 0 || slice_nnz[t] < 0)
      throw std::invalid_argument("Trident Allgatherv plan: negative slice size");
    SliceBroadcast& s = plan.slices[t];
    s.root = static_cast<int>(t);
    s.row_offset = plan.total_rows;
    s.rows = slice_rows[t];
    s.nnz_offset = plan.total_nnz;
    s.nnz = slice_nnz[t];
    plan.total_rows += s.rows;
    plan.total_nnz += s.nnz;
  }
  checkDeviceIndexRange(plan.total_rows, 0, plan.total_nnz);
  return plan;
}

std::uint64_t AllgathervPlan::bytesSent(int me) const {
  const SliceBroadcast& s = slices.at(static_cast<std::size_t>(me));
  return (slices.size() - 1) * deviceWireBytes(s.rows, s.nnz);
}

std::uint64_t AllgathervPlan::bytesReceived(int me) const {
  std::uint64_t b = 0;
  for (const SliceBroadcast& s : slices)
    if (s.root != me) b += deviceWireBytes(s.rows, s.nnz);
  return b;
}

std::uint64_t AllgathervPlan::paddedBytesReceived(int me) const {
  (void)slices.at(static_cast<std::size_t>(me));
  std::int64_t rows = 0, nnz = 0;
  for (const SliceBroadcast& s : slices) rows = std::max(rows, s.rows), nnz = std::max(nnz, s.nnz);
  return (slices.size() - 1) * deviceWireBytes(rows, nnz);
}

void rebaseGatheredOffsetsHost(int* rowptr, const AllgathervPlan& plan) {
  rowptr[0] = 0;
  for (const SliceBroadcast& s : plan.slices)
    for (std::int64_t r = s.row_offset + 1; r <= s.row_offset + s.rows; ++r)
      rowptr[r] += static_cast<int>(s.nnz_offset);
}

}  // namespace Trident
