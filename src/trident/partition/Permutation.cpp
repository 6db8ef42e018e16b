#include "trident/partition/Permutation.hpp"

#include "trident/core/Hash.hpp"

namespace Trident {

namespace {
// splitmix64: fully specified, so the permutation is the same with every compiler and library.
std::uint64_t splitmix64(std::uint64_t& x) { return mix64(x += kGoldenGamma); }

std::uint64_t mix(std::uint64_t z) { return splitmix64(z); }

std::uint64_t mask(int w) { return w >= 64 ? ~0ull : (1ull << w) - 1; }
}  // namespace

Permutation::Permutation(std::int64_t n, std::uint64_t seed) : n_(n < 0 ? 0 : n) {
  while (bits_ < 63 && (std::int64_t{1} << bits_) < n_) ++bits_;
  std::uint64_t state = seed ^ (static_cast<std::uint64_t>(n_) * 0xD1B54A32D192ED03ull);
  for (auto& k : key_) k = splitmix64(state);
}

// One round splits x into a high part of w_hi bits and a low part of w_lo bits and maps
// (hi, lo) -> (lo, hi ^ F(lo)): the old low part becomes the high part, so the widths swap
// every round. With b odd the halves differ by one bit (an unbalanced Feistel network); each
// round is invertible whatever F is, so the whole network is a bijection of [0, 2^b).
std::uint64_t Permutation::forwardOnce(std::uint64_t x) const {
  int lo_w = bits_ / 2, hi_w = bits_ - lo_w;
  for (int r = 0; r < kRounds; ++r) {
    const std::uint64_t lo = x & mask(lo_w), hi = x >> lo_w;
    const std::uint64_t nlo = (hi ^ mix(lo ^ key_[r])) & mask(hi_w);
    x = (lo << hi_w) | nlo;
    const int t = lo_w;
    lo_w = hi_w;
    hi_w = t;
  }
  return x;
}

std::uint64_t Permutation::inverseOnce(std::uint64_t x) const {
  // Widths after the last forward round.
  int lo_w = bits_ / 2, hi_w = bits_ - lo_w;
  if (kRounds % 2) {
    const int t = lo_w;
    lo_w = hi_w;
    hi_w = t;
  }
  for (int r = kRounds - 1; r >= 0; --r) {
    // x = (lo_prev << hi_prev_w) | nlo, with nlo of lo_w bits (= hi_prev_w) and lo_prev of hi_w bits.
    const std::uint64_t nlo = x & mask(lo_w), lo_prev = x >> lo_w;
    const std::uint64_t hi_prev = (nlo ^ mix(lo_prev ^ key_[r])) & mask(lo_w);
    x = (hi_prev << hi_w) | lo_prev;
    const int t = lo_w;
    lo_w = hi_w;
    hi_w = t;
  }
  return x;
}

std::int64_t Permutation::operator()(std::int64_t p) const {
  if (n_ == 0) return p;
  std::uint64_t x = static_cast<std::uint64_t>(p);
  do x = forwardOnce(x);
  while (x >= static_cast<std::uint64_t>(n_));
  return static_cast<std::int64_t>(x);
}

std::int64_t Permutation::inverse(std::int64_t p) const {
  if (n_ == 0) return p;
  std::uint64_t x = static_cast<std::uint64_t>(p);
  do x = inverseOnce(x);
  while (x >= static_cast<std::uint64_t>(n_));
  return static_cast<std::int64_t>(x);
}

}  // namespace Trident
