#pragma once
// a * (one row of B) added into a dense accumulator (RangeAccumulator or MCL's value array), for
// rows whose column range the caller has already given the accumulator: two products per SSE2
// multiply (float values widened two at a time), the sums still one column at a time and in the
// row's order, so every sum is bit-identical to the scalar loop's. GCC neither pairs nor unrolls
// the scalar loop, whose scatter cannot vectorize: on MCL's float values its conversion, its
// dependency-breaking clear and the multiply were 3 of 9 instructions per multiply-add.
#include <cstdint>
#include <type_traits>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace Trident {

// The accumulator's column of each entry is colOf(col[j]) (B's columns renumbered for the kernel
// are looked up again for rows summed in B's own order).
struct SameColumn {
  template <class CI>
  int operator()(CI c) const {
    return static_cast<int>(c);
  }
};

template <class Acc, class V, class CI, class ColOf = SameColumn>
inline void addScaledRow(Acc& acc, const CI* col, const V* val, std::int64_t n, double a, ColOf colOf = {}) {
  static_assert(std::is_same<V, float>::value || std::is_same<V, double>::value, "float or double values");
  std::int64_t j = 0;
#ifdef __SSE2__
  const __m128d av = _mm_set1_pd(a);
  for (; j + 2 <= n; j += 2) {
    __m128d b;
    if constexpr (std::is_same<V, float>::value)
      b = _mm_cvtps_pd(_mm_castsi128_ps(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(val + j))));
    else
      b = _mm_loadu_pd(val + j);
    const __m128d p = _mm_mul_pd(b, av);
    acc.addInRange(colOf(col[j]), _mm_cvtsd_f64(p));
    acc.addInRange(colOf(col[j + 1]), _mm_cvtsd_f64(_mm_unpackhi_pd(p, p)));
  }
#endif
  for (; j < n; ++j) acc.addInRange(colOf(col[j]), a * static_cast<double>(val[j]));
}

}  // namespace Trident
