#include "trident/device/DeviceSelection.hpp"

#include <stdexcept>
#include <string>

#include "trident/device/MemorySpace.hpp"

namespace Trident {

int chooseDevice(int requested, int node_local_rank, int device_count) {
  if (device_count <= 0) throw DeviceUnavailable("Trident: no CUDA device (the GPU backend needs one per rank's node)");
  if (requested >= device_count || requested < -1)
    throw std::invalid_argument("Trident: \"trident: device\" = " + std::to_string(requested) + ", but this node has " +
                                std::to_string(device_count) + " CUDA device(s) (use -1 for one per node-local rank)");
  if (requested >= 0) return requested;
  if (node_local_rank < 0) throw std::invalid_argument("Trident: negative node-local rank");
  return node_local_rank % device_count;
}

}  // namespace Trident
