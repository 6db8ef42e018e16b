#pragma once
// Where a buffer lives, and the few operations the device pieces need on it. The host resource
// runs the same code paths as the CUDA one (trident_cuda's cudaDeviceMemory()), so conversions,
// transports and staging are unit-tested on machines without a GPU.
#include <cstddef>
#include <stdexcept>
#include <string>

namespace Trident {

enum class MemorySpace { Host, Device };

inline const char* memorySpaceName(MemorySpace s) { return s == MemorySpace::Host ? "host" : "device"; }

// Thrown where a device is asked for and none is there (no driver, no GPU, or CUDA not built in).
// Callers that can run without a GPU (tests) catch it and skip.
class DeviceUnavailable : public std::runtime_error {
 public:
  explicit DeviceUnavailable(const std::string& what) : std::runtime_error(what) {}
};

class MemoryResource {
 public:
  virtual ~MemoryResource() = default;
  virtual MemorySpace space() const = 0;
  virtual void* allocate(std::size_t bytes) = 0;
  virtual void deallocate(void* p) noexcept = 0;
  // Copies between host memory and this resource's memory, and within it. They complete before
  // returning, so a host buffer may be reused or freed right after.
  virtual void copyFromHost(void* dst, const void* host_src, std::size_t bytes) = 0;
  virtual void copyToHost(void* host_dst, const void* src, std::size_t bytes) = 0;
  virtual void copyWithin(void* dst, const void* src, std::size_t bytes) = 0;
  virtual void setZero(void* dst, std::size_t bytes) = 0;
};

// Plain host memory (malloc/memcpy): the fallback every device code path can run on.
MemoryResource& hostMemory();

}  // namespace Trident
