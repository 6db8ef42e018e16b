#pragma once
// The random symmetric relabeling ("trident: permute" = "random"): a permutation of [0, n) that
// depends only on (n, seed), so every rank builds the same one without communication and a square
// matrix gets the same relabeling of its rows and columns. It spreads the nonzeros of structured
// matrices (banded, block) evenly over the 2D tiles; it is undone on the way out.
#include <cstdint>
#include <vector>

namespace Trident {

class Permutation {
 public:
  Permutation() = default;                     // identity
  Permutation(std::int64_t n, std::uint64_t seed);  // Fisher-Yates with a portable generator
  bool identity() const { return forward_.empty(); }
  std::int64_t operator()(std::int64_t p) const { return forward_.empty() ? p : forward_[p]; }
  std::int64_t inverse(std::int64_t p) const { return inverse_.empty() ? p : inverse_[p]; }

 private:
  std::vector<std::int64_t> forward_, inverse_;
};

}  // namespace Trident
