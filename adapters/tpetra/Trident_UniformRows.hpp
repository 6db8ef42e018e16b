#pragma once
// Tpetra's uniform contiguous distribution of n indices over P ranks (what
// Tpetra::Map(n, indexBase, comm) builds): the first n % P ranks get one index more.
#include <algorithm>

namespace Trident {
namespace detail {

struct UniformRows {
  long long n;
  int P;
  long long q, r;
  UniformRows(long long n_, int P_) : n(n_), P(P_), q(n_ / P_), r(n_ % P_) {}
  long long start(int p) const { return p * q + std::min<long long>(p, r); }
  long long count(int p) const { return q + (p < r ? 1 : 0); }
  int owner(long long g) const {
    const long long big = r * (q + 1);
    if (g < big) return static_cast<int>(g / (q + 1));
    return static_cast<int>(r + (g - big) / q);
  }
};

}  // namespace detail
}  // namespace Trident
