// Device-side sorting, summing and offset arithmetic. Entries are keyed by (row << 32 | column):
// one 64-bit sort orders a whole block row-major, so union structure and sums are a
// stable sort plus reduce_by_key, independent of whether the inputs' rows were sorted.
#include <thrust/binary_search.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>

#include <stdexcept>

#include "trident/cuda/CudaCheck.hpp"
#include "trident/cuda/DeviceKernels.hpp"

namespace Trident {

namespace {

using key_t = unsigned long long;
constexpr int kThreads = 256;

int blocksFor(std::int64_t n) { return static_cast<int>((n + kThreads - 1) / kThreads); }

// One thread per row: key every entry of the row, copy its value.
__global__ void keyEntries(const int* rowptr, const int* col, const double* val, std::int64_t nrows, key_t* keys,
                           double* vals) {
  const std::int64_t r = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (r >= nrows) return;
  for (int p = rowptr[r]; p < rowptr[r + 1]; ++p) {
    keys[p] = (static_cast<key_t>(r) << 32) | static_cast<unsigned>(col[p]);
    if (vals) vals[p] = val[p];
  }
}

__global__ void splitKeys(const key_t* keys, std::int64_t n, int* col) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) col[i] = static_cast<int>(keys[i] & 0xffffffffull);
}

__global__ void gather(double* dst, const double* src, const int* perm, std::int64_t n) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) dst[i] = src[perm[i]];
}

__global__ void addToRange(int* rowptr, std::int64_t first, std::int64_t count, int shift) {
  const std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  if (i < count) rowptr[first + i] += shift;
}

struct RowStart {
  __host__ __device__ key_t operator()(std::int64_t r) const { return static_cast<key_t>(r) << 32; }
};

void requireDevice(const MemoryResource& mem, const char* what) {
  if (mem.space() != MemorySpace::Device)
    throw std::invalid_argument(std::string("Trident: ") + what + " runs on device memory only");
}

void launchCheck(const char* what) { cuda_detail::check(cudaGetLastError(), what); }

}  // namespace

DeviceCsr sumDeviceBlocks(const std::vector<const DeviceCsr*>& parts, std::int64_t nrows, std::int64_t ncols,
                          MemoryResource& mem) {
  requireDevice(mem, "sumDeviceBlocks");
  std::int64_t total = 0;
  for (const DeviceCsr* p : parts) {
    if (p->nrows != nrows || p->ncols != ncols)
      throw std::invalid_argument("Trident sumDeviceBlocks: blocks of different shapes");
    if (p->nnz > 0 && p->space() != MemorySpace::Device)
      throw std::invalid_argument("Trident sumDeviceBlocks: a block is not in device memory");
    total += p->nnz;
  }
  checkDeviceIndexRange(nrows, ncols, total);
  if (total == 0) return allocateDeviceCsr(mem, nrows, ncols, 0);

  thrust::device_vector<key_t> keys(total);
  thrust::device_vector<double> vals(total);
  std::int64_t at = 0;
  for (const DeviceCsr* p : parts) {
    if (p->nnz == 0) continue;
    // Offsets of a part start at 0: key into the part's own stretch of the arrays.
    keyEntries<<<blocksFor(nrows), kThreads>>>(p->rowptr.data(), p->col.data(), p->val.data(), nrows,
                                                thrust::raw_pointer_cast(keys.data()) + at,
                                                thrust::raw_pointer_cast(vals.data()) + at);
    launchCheck("keyEntries");
    at += p->nnz;
  }
  // Stable: equal keys keep the parts' order, so sums run in part order as on the host.
  thrust::stable_sort_by_key(thrust::device, keys.begin(), keys.end(), vals.begin());
  thrust::device_vector<key_t> ukeys(total);
  thrust::device_vector<double> uvals(total);
  const auto ends = thrust::reduce_by_key(thrust::device, keys.begin(), keys.end(), vals.begin(), ukeys.begin(),
                                          uvals.begin());
  const std::int64_t nnz = ends.first - ukeys.begin();

  DeviceCsr C = allocateDeviceCsr(mem, nrows, ncols, nnz);
  splitKeys<<<blocksFor(nnz), kThreads>>>(thrust::raw_pointer_cast(ukeys.data()), nnz, C.col.data());
  launchCheck("splitKeys");
  TRIDENT_CUDA_CHECK(cudaMemcpy(C.val.data(), thrust::raw_pointer_cast(uvals.data()), nnz * sizeof(double),
                                cudaMemcpyDeviceToDevice));
  // rowptr[r] = first entry at or after row r.
  auto starts = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), RowStart());
  thrust::lower_bound(thrust::device, ukeys.begin(), ukeys.begin() + nnz, starts, starts + (nrows + 1),
                      thrust::device_pointer_cast(C.rowptr.data()));
  TRIDENT_CUDA_CHECK(cudaDeviceSynchronize());
  return C;
}

bool sortedRowOrder(const DeviceCsr& pattern, const int* col, int* sorted_col, Buffer<int>& perm) {
  const std::int64_t nnz = pattern.nnz;
  if (nnz == 0) return false;
  thrust::device_vector<key_t> keys(nnz);
  keyEntries<<<blocksFor(pattern.nrows), kThreads>>>(pattern.rowptr.data(), col, nullptr, pattern.nrows,
                                                      thrust::raw_pointer_cast(keys.data()), nullptr);
  launchCheck("keyEntries");
  if (thrust::is_sorted(thrust::device, keys.begin(), keys.end())) return false;
  perm = Buffer<int>(*pattern.rowptr.resource(), static_cast<std::size_t>(nnz));
  auto p = thrust::device_pointer_cast(perm.data());
  thrust::sequence(thrust::device, p, p + nnz);
  thrust::stable_sort_by_key(thrust::device, keys.begin(), keys.end(), p);
  splitKeys<<<blocksFor(nnz), kThreads>>>(thrust::raw_pointer_cast(keys.data()), nnz, sorted_col);
  launchCheck("splitKeys");
  TRIDENT_CUDA_CHECK(cudaDeviceSynchronize());
  return true;
}

void gatherValues(double* dst, const double* src, const int* perm, std::int64_t n) {
  if (n == 0) return;
  gather<<<blocksFor(n), kThreads>>>(dst, src, perm, n);
  launchCheck("gather");
  TRIDENT_CUDA_CHECK(cudaDeviceSynchronize());
}

void rebaseGatheredOffsets(int* rowptr, const AllgathervPlan& plan) {
  // One launch per slice: a group has few ranks, and each launch is a contiguous range.
  for (const SliceBroadcast& s : plan.slices) {
    if (s.rows == 0 || s.nnz_offset == 0) continue;
    addToRange<<<blocksFor(s.rows), kThreads>>>(rowptr, s.row_offset + 1, s.rows, static_cast<int>(s.nnz_offset));
    launchCheck("addToRange");
  }
  TRIDENT_CUDA_CHECK(cudaMemset(rowptr, 0, sizeof(int)));
  TRIDENT_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace Trident
