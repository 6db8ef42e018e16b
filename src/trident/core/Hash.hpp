#pragma once
// FNV-1a over bytes, as a non-negative long long: a value every rank computes alike from equal
// bytes, for CollectiveCheck's agreement slots (option names, the machine model's fields).
#include <cstddef>
#include <cstdint>

namespace Trident {

inline long long agreementHash(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return static_cast<long long>(h >> 1);
}

}  // namespace Trident
