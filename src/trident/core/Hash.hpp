#pragma once
// The project's hashes, in one place so that every fingerprint mixes alike:
// - mix64: SplitMix64's finalizer, a bijection that spreads every input bit over the word;
// - hashBytes: bulk bytes (graph arrays, GID lists) at about one multiply a word;
// - agreementHash: FNV-1a as a non-negative long long, for CollectiveCheck's agreement slots
//   (option names, the machine model's fields), computed alike on every rank from equal bytes.
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace Trident {

inline constexpr std::uint64_t kGoldenGamma = 0x9E3779B97F4A7C15ull;

inline std::uint64_t mix64(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Four independent lanes: one multiply chain would cost ~4 cycles a word, four about one.
inline std::uint64_t hashBytes(const void* data, std::size_t bytes, std::uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h[4] = {seed, seed ^ kGoldenGamma, seed ^ 0xC2B2AE3D27D4EB4Full, seed ^ 0x165667B19E3779F9ull};
  std::size_t q = 0;
  for (; q + 32 <= bytes; q += 32)
    for (int l = 0; l < 4; ++l) {
      std::uint64_t w;
      std::memcpy(&w, p + q + 8 * l, 8);
      h[l] = (h[l] ^ w) * 0x100000001B3ull + kGoldenGamma;
    }
  std::uint64_t tail = bytes;
  for (; q < bytes; ++q) tail = (tail << 8 | p[q]) * 0x100000001B3ull;
  return mix64(h[0] ^ mix64(h[1] ^ mix64(h[2] ^ mix64(h[3] ^ tail))));
}

inline long long agreementHash(const void* data, std::size_t bytes) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return static_cast<long long>(h >> 1);
}

}  // namespace Trident
