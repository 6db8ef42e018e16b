#include "trident/device/DeviceCsr.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace Trident {

void checkDeviceIndexRange(std::int64_t nrows, std::int64_t ncols, std::int64_t nnz) {
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  if (nrows < 0 || ncols < 0 || nnz < 0)
    throw std::invalid_argument("Trident device CSR: negative shape or entry count");
  if (nrows > kMax || ncols > kMax || nnz > kMax)
    throw std::length_error("Trident device CSR: a block of " + std::to_string(nrows) + " x " +
                            std::to_string(ncols) + " with " + std::to_string(nnz) +
                            " entries exceeds the 32-bit indices of the device kernels (at most " +
                            std::to_string(kMax) + " rows, columns and entries per tile); use more ranks");
}

bool rowsSorted(const std::int64_t* rowptr, const int* col, std::int64_t nrows) {
  for (std::int64_t r = 0; r < nrows; ++r)
    for (std::int64_t p = rowptr[r] + 1; p < rowptr[r + 1]; ++p)
      if (col[p - 1] > col[p]) return false;
  return true;
}

DeviceCsr allocateDeviceCsr(MemoryResource& mem, std::int64_t nrows, std::int64_t ncols, std::int64_t nnz) {
  checkDeviceIndexRange(nrows, ncols, nnz);
  DeviceCsr d;
  d.nrows = nrows;
  d.ncols = ncols;
  d.nnz = nnz;
  d.rowptr = Buffer<int>(mem, static_cast<std::size_t>(nrows + 1));
  d.col = Buffer<int>(mem, static_cast<std::size_t>(nnz));
  d.val = Buffer<double>(mem, static_cast<std::size_t>(nnz));
  mem.setZero(d.rowptr.data(), d.rowptr.size() * sizeof(int));
  return d;
}

DeviceCsr toDeviceCsr(const Csr& h, MemoryResource& mem) {
  const std::int64_t nnz = h.nnz();
  if (static_cast<std::int64_t>(h.rowptr.size()) != h.nrows + 1 || static_cast<std::int64_t>(h.col.size()) < nnz ||
      static_cast<std::int64_t>(h.val.size()) < nnz)
    throw std::invalid_argument("Trident device CSR: host block arrays do not match its shape");
  DeviceCsr d = allocateDeviceCsr(mem, h.nrows, h.ncols, nnz);
  std::vector<int> rowptr(h.rowptr.begin(), h.rowptr.end());  // in range: checked above
  d.rowptr.copyFromHost(rowptr.data(), rowptr.size());
  if (nnz == 0) return d;
  if (rowsSorted(h.rowptr.data(), h.col.data(), h.nrows)) {
    d.col.copyFromHost(h.col.data(), static_cast<std::size_t>(nnz));
    d.val.copyFromHost(h.val.data(), static_cast<std::size_t>(nnz));
    return d;
  }
  // cuSPARSE's SpGEMM takes sorted rows; Trident's host kernels may leave them unsorted.
  std::vector<int> col(static_cast<std::size_t>(nnz));
  std::vector<double> val(static_cast<std::size_t>(nnz));
  std::vector<std::int64_t> perm;
  for (std::int64_t r = 0; r < h.nrows; ++r) {
    const std::int64_t b = h.rowptr[r], e = h.rowptr[r + 1];
    perm.resize(static_cast<std::size_t>(e - b));
    std::iota(perm.begin(), perm.end(), b);
    std::stable_sort(perm.begin(), perm.end(), [&](std::int64_t x, std::int64_t y) { return h.col[x] < h.col[y]; });
    for (std::int64_t t = 0; t < e - b; ++t) {
      col[b + t] = h.col[perm[t]];
      val[b + t] = h.val[perm[t]];
    }
  }
  d.col.copyFromHost(col.data(), col.size());
  d.val.copyFromHost(val.data(), val.size());
  return d;
}

Csr toHostCsr(const DeviceCsr& d) {
  Csr h(d.nrows, d.ncols);
  const std::vector<int> rowptr = d.rowptr.toHost();
  if (static_cast<std::int64_t>(rowptr.size()) != d.nrows + 1 || rowptr.back() != d.nnz)
    throw std::logic_error("Trident device CSR: row offsets do not match the entry count");
  std::copy(rowptr.begin(), rowptr.end(), h.rowptr.begin());
  h.col.resize(static_cast<std::size_t>(d.nnz));
  h.val.resize(static_cast<std::size_t>(d.nnz));
  if (d.nnz) {
    d.col.copyToHost(h.col.data(), h.col.size());
    d.val.copyToHost(h.val.data(), h.val.size());
  }
  return h;
}

}  // namespace Trident
