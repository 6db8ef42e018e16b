#include "trident/device/MemorySpace.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace Trident {

namespace {
class HostMemory final : public MemoryResource {
 public:
  MemorySpace space() const override { return MemorySpace::Host; }
  void* allocate(std::size_t bytes) override {
    if (bytes == 0) return nullptr;
    void* p = std::malloc(bytes);
    if (!p) throw std::bad_alloc();
    return p;
  }
  void deallocate(void* p) noexcept override { std::free(p); }
  void copyFromHost(void* dst, const void* src, std::size_t bytes) override { copy(dst, src, bytes); }
  void copyToHost(void* dst, const void* src, std::size_t bytes) override { copy(dst, src, bytes); }
  void copyWithin(void* dst, const void* src, std::size_t bytes) override { copy(dst, src, bytes); }
  void setZero(void* dst, std::size_t bytes) override {
    if (bytes) std::memset(dst, 0, bytes);
  }

 private:
  static void copy(void* dst, const void* src, std::size_t bytes) {
    if (bytes) std::memmove(dst, src, bytes);
  }
};
}  // namespace

MemoryResource& hostMemory() {
  static HostMemory m;
  return m;
}

}  // namespace Trident
