#pragma once
// The random symmetric relabeling ("trident: permute" = "random"): a permutation of [0, n) that
// depends only on (n, seed), so every rank computes the same one without communication and a
// square matrix gets the same relabeling of its rows and columns. It spreads the nonzeros of
// structured matrices (banded, block) evenly over the 2D tiles; it is undone on the way out.
//
// Computed on the fly, O(1) memory per rank whatever n (a stored table of n entries per rank
// would make memory grow with the global dimension): a keyed Feistel network is a bijection of
// [0, 2^b), 2^b the smallest power of two >= n, and "cycle walking" (apply it again while the
// image falls outside [0, n)) restricts it to a bijection of [0, n). Since 2^b < 2n, fewer than
// two steps are needed on average.
#include <cstdint>

namespace Trident {

class Permutation {
 public:
  Permutation() = default;                          // identity
  Permutation(std::int64_t n, std::uint64_t seed);  // pseudo-random, deterministic from (n, seed)
  bool identity() const { return n_ == 0; }
  std::int64_t operator()(std::int64_t p) const;
  std::int64_t inverse(std::int64_t p) const;

  static constexpr int kRounds = 6;

 private:
  std::uint64_t forwardOnce(std::uint64_t x) const;
  std::uint64_t inverseOnce(std::uint64_t x) const;

  std::int64_t n_ = 0;   // 0: identity
  int bits_ = 0;         // b: the network permutes [0, 2^b)
  std::uint64_t key_[kRounds] = {};
};

}  // namespace Trident
