#pragma once
// The displacement arithmetic of the group's Allgatherv of row slices, apart from any transport:
// NCCL has no Allgatherv, so the device Li transport issues one broadcast per slice (rooted at
// its owner) inside one ncclGroupStart/End, each landing at the slice's displacement. The same
// plan drives the host rebase of row offsets, so it is tested without NCCL or a GPU.
#include <cstdint>
#include <vector>

namespace Trident {

struct SliceBroadcast {
  int root = 0;                   // the group rank that owns the slice
  std::int64_t row_offset = 0;    // first row of the slice in the gathered block
  std::int64_t rows = 0;
  std::int64_t nnz_offset = 0;    // first entry of the slice in the gathered block
  std::int64_t nnz = 0;
};

struct AllgathervPlan {
  std::vector<SliceBroadcast> slices;  // one per group rank, in rank order
  std::int64_t total_rows = 0, total_nnz = 0;

  // Bytes of one slice on the device wire: 32-bit row offsets (rowptr[1..rows]), 32-bit
  // columns, double values.
  static std::uint64_t deviceWireBytes(std::int64_t rows, std::int64_t nnz) {
    return 4u * static_cast<std::uint64_t>(rows) + 12u * static_cast<std::uint64_t>(nnz);
  }
  // Logical bytes rank `me` sends to / receives from the other ranks of the group (counted as
  // MpiLiTransport counts them: its slice once per other rank; every other slice once).
  std::uint64_t bytesSent(int me) const;
  std::uint64_t bytesReceived(int me) const;
  // What a padded ncclAllGather (every slice padded to the largest) would move into each rank,
  // for comparing the two ways NCCL can do an Allgatherv.
  std::uint64_t paddedBytesReceived(int me) const;
};

// slice_rows[t], slice_nnz[t]: shape of group rank t's slice. Throws std::invalid_argument on
// empty groups, mismatched lengths or negative sizes, and std::length_error when the gathered
// block exceeds 32-bit device indices.
AllgathervPlan planAllgatherv(const std::vector<std::int64_t>& slice_rows, const std::vector<std::int64_t>& slice_nnz);

// After the broadcasts, slice t's row offsets (rowptr[1..rows], relative to the slice) sit at
// rowptr[row_offset + 1 ...]; this adds nnz_offset to them so the block is one CSR. The host
// version of the device kernel (cuda/DeviceKernels.cu, rebaseGatheredOffsets), same loop.
void rebaseGatheredOffsetsHost(int* rowptr, const AllgathervPlan& plan);

}  // namespace Trident
