#pragma once
// The CUDA device of this rank and the memory resource over it. No CUDA header here: the core
// library and applications include this without nvcc or the toolkit's include path.
#include "trident/device/MemorySpace.hpp"

namespace Trident {

// Devices visible to this process; 0 when there is no driver or no GPU (never throws).
int cudaDeviceCount();
// Throws DeviceUnavailable("... no CUDA device ...") when cudaDeviceCount() is 0.
void requireCudaDevice();
// Makes device chooseDevice(requested, node_local_rank, count) current for this thread and
// returns it (-1 = auto: node-local rank modulo the device count).
int activateCudaDevice(int requested, int node_local_rank);

// cudaMalloc'd memory of the current device; copies complete before they return.
MemoryResource& cudaDeviceMemory();

}  // namespace Trident
