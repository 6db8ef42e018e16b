#include "trident/partition/Permutation.hpp"

#include <numeric>
#include <utility>

namespace Trident {

namespace {
// splitmix64: fully specified, so the permutation is the same with every compiler and library.
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
}  // namespace

Permutation::Permutation(std::int64_t n, std::uint64_t seed) : forward_(n), inverse_(n) {
  std::iota(forward_.begin(), forward_.end(), 0);
  std::uint64_t state = seed ^ (static_cast<std::uint64_t>(n) * 0xD1B54A32D192ED03ull);
  for (std::int64_t t = n - 1; t > 0; --t) {
    const std::int64_t u = static_cast<std::int64_t>(splitmix64(state) % static_cast<std::uint64_t>(t + 1));
    std::swap(forward_[t], forward_[u]);
  }
  for (std::int64_t t = 0; t < n; ++t) inverse_[forward_[t]] = t;
}

}  // namespace Trident
