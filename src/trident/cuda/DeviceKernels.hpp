#pragma once
// The GPU kernels trident_cuda needs beside cuSPARSE (nvcc-compiled, DeviceKernels.cu). The
// arguments live in device memory (DeviceCsr on cudaDeviceMemory()); no CUDA header here.
#include <vector>

#include "trident/device/AllgathervPlan.hpp"
#include "trident/device/DeviceCsr.hpp"

namespace Trident {

// Sum of equally shaped blocks (any of them empty), structure = union of their structures (no
// entry dropped, even one that sums to zero), rows sorted: the K partial products of a tile of C
// summed on the device. Inputs need not have sorted rows.
DeviceCsr sumDeviceBlocks(const std::vector<const DeviceCsr*>& parts, std::int64_t nrows, std::int64_t ncols,
                          MemoryResource& mem);

// If some row of (rowptr, col) is unsorted: returns true and fills perm (nnz entries, device) with
// the stable order that sorts every row, and writes the sorted columns to sorted_col. False and
// nothing written when rows are already sorted.
bool sortedRowOrder(const DeviceCsr& pattern, const int* col, int* sorted_col, Buffer<int>& perm);
// dst[i] = src[perm[i]] for i < n (device pointers).
void gatherValues(double* dst, const double* src, const int* perm, std::int64_t n);

// rebaseGatheredOffsetsHost (device/AllgathervPlan.hpp) on a device rowptr.
void rebaseGatheredOffsets(int* rowptr, const AllgathervPlan& plan);

}  // namespace Trident
