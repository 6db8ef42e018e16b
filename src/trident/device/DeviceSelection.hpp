#pragma once
// One rank per GPU: "trident: device" = auto picks the node-local rank (rank in the
// MPI_COMM_TYPE_SHARED communicator) modulo the node's device count, so the ranks of a node
// spread over its GPUs and ranks beyond the GPU count share them round-robin.
namespace Trident {

// requested >= 0: that device (must be < device_count); -1: auto from node_local_rank.
// Throws DeviceUnavailable when device_count is 0, std::invalid_argument for a bad request.
int chooseDevice(int requested, int node_local_rank, int device_count);

}  // namespace Trident
