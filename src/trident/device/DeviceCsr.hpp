#pragma once
// A CSR block in the layout the GPU kernels take (cuSPARSE's generic SpGEMM: 32-bit row offsets
// and column indices, zero-based, columns sorted within rows), in buffers that know their memory
// space. The host Csr (local/Csr.hpp) has 64-bit row offsets and may have unsorted rows; the
// conversions here are the only place the two meet, and they run unchanged on hostMemory(), so
// the round trip is tested without a GPU.
#include <cstdint>

#include "trident/device/Buffer.hpp"
#include "trident/local/Csr.hpp"

namespace Trident {

struct DeviceCsr {
  std::int64_t nrows = 0, ncols = 0, nnz = 0;
  Buffer<int> rowptr;  // nrows + 1 entries
  Buffer<int> col;     // nnz
  Buffer<double> val;  // nnz
  MemorySpace space() const { return rowptr.space(); }
};

// Throws std::length_error naming the limit when a block does not fit 32-bit device indices.
void checkDeviceIndexRange(std::int64_t nrows, std::int64_t ncols, std::int64_t nnz);

// rows x cols with nnz entries allocated; row offsets zeroed, columns and values left undefined.
DeviceCsr allocateDeviceCsr(MemoryResource& mem, std::int64_t nrows, std::int64_t ncols, std::int64_t nnz);

// Host -> mem. Rows are sorted on the way (on the host, into the staging copy) when they are not.
DeviceCsr toDeviceCsr(const Csr& h, MemoryResource& mem);
// Any space -> host Csr with 64-bit offsets; rows come out as stored (sorted when produced by
// toDeviceCsr or by the cuSPARSE kernel, which sorts).
Csr toHostCsr(const DeviceCsr& d);

// Host-side checks shared by the conversions and the tests.
bool rowsSorted(const std::int64_t* rowptr, const int* col, std::int64_t nrows);

}  // namespace Trident
