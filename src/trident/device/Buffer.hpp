#pragma once
// A typed, owning array in one memory space. Move-only: device memory is never copied implicitly.
#include <cstddef>
#include <utility>
#include <vector>

#include "trident/device/MemorySpace.hpp"

namespace Trident {

template <class T>
class Buffer {
 public:
  Buffer() = default;
  Buffer(MemoryResource& mem, std::size_t n)
      : mem_(&mem), data_(static_cast<T*>(mem.allocate(n * sizeof(T)))), size_(n) {}
  ~Buffer() { reset(); }
  Buffer(Buffer&& o) noexcept : mem_(o.mem_), data_(o.data_), size_(o.size_) {
    o.data_ = nullptr;
    o.size_ = 0;
  }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      reset();
      mem_ = o.mem_;
      data_ = std::exchange(o.data_, nullptr);
      size_ = std::exchange(o.size_, 0);
    }
    return *this;
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return size_; }
  MemoryResource* resource() const { return mem_; }
  MemorySpace space() const { return mem_ ? mem_->space() : MemorySpace::Host; }

  void copyFromHost(const T* src, std::size_t n, std::size_t offset = 0) {
    mem_->copyFromHost(data_ + offset, src, n * sizeof(T));
  }
  void copyToHost(T* dst, std::size_t n, std::size_t offset = 0) const {
    mem_->copyToHost(dst, data_ + offset, n * sizeof(T));
  }
  std::vector<T> toHost() const {
    std::vector<T> v(size_);
    if (size_) copyToHost(v.data(), size_);
    return v;
  }

 private:
  void reset() {
    if (data_) mem_->deallocate(data_);
    data_ = nullptr;
    size_ = 0;
  }
  MemoryResource* mem_ = nullptr;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

template <class T>
Buffer<T> bufferFromHost(MemoryResource& mem, const std::vector<T>& v) {
  Buffer<T> b(mem, v.size());
  if (!v.empty()) b.copyFromHost(v.data(), v.size());
  return b;
}

}  // namespace Trident
