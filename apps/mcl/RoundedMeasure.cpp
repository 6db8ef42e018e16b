#include "RoundedMeasure.hpp"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

namespace Trident {
namespace mcl {

#if defined(__x86_64__) && defined(__GNUC__)
namespace {
// Compressed results are stored whole (8 lanes, 8 columns) at the write positions: those trail the
// read position (kept and gathered <= k), so the lanes past the count overwrite only entries
// already read, and the gather arrays have room for n.
__attribute__((target("avx512f"))) std::size_t measureAvx512(int* col, double* val, std::size_t n, bool flt,
                                                             double cut, int* cutCol, double* cutVal,
                                                             RoundedMeasureState& st) {
  const __m512d zero = _mm512_setzero_pd(), vcut = _mm512_set1_pd(cut);
  __m512d vmax = _mm512_set1_pd(st.maxval);
  double center = st.center;
  std::size_t w = st.kept, g = st.gathered, k = 0;
  alignas(64) double sq[8];
  for (; k + 8 <= n; k += 8) {
    __m512d v = _mm512_loadu_pd(val + k);
    const __m512i c = _mm512_maskz_loadu_epi32(0xFF, col + k);  // 8 columns, the upper lanes 0
    if (flt) v = _mm512_mask_cvtps_pd(zero, 0xFF, _mm512_mask_cvtpd_ps(_mm256_setzero_ps(), 0xFF, v));
    const __mmask8 nz = _mm512_cmp_pd_mask(v, zero, _CMP_NEQ_UQ);
    const __mmask8 ge = nz & _mm512_cmp_pd_mask(v, vcut, _CMP_GE_OQ);
    _mm512_storeu_pd(val + w, _mm512_maskz_compress_pd(nz, v));
    _mm512_mask_storeu_epi32(col + w, 0xFF, _mm512_maskz_compress_epi32(static_cast<__mmask16>(nz), c));
    _mm512_storeu_pd(cutVal + g, _mm512_maskz_compress_pd(ge, v));
    _mm512_mask_storeu_epi32(cutCol + g, 0xFF, _mm512_maskz_compress_epi32(static_cast<__mmask16>(ge), c));
    w += static_cast<std::size_t>(__builtin_popcount(nz));
    g += static_cast<std::size_t>(__builtin_popcount(ge));
    vmax = _mm512_mask_max_pd(vmax, 0xFF, vmax, v);
    _mm512_store_pd(sq, _mm512_mul_pd(v, v));
    for (int j = 0; j < 8; ++j) center += sq[j];  // a rounded zero adds +0.0, as in the scalar pass
  }
  st.kept = w;
  st.gathered = g;
  st.center = center;
  alignas(64) double lanes[8];
  _mm512_store_pd(lanes, vmax);
  for (double x : lanes) st.maxval = x > st.maxval ? x : st.maxval;
  return k;
}
}  // namespace

std::size_t roundedMeasureVector(int* col, double* val, std::size_t n, bool flt, double cut, int* cutCol,
                                 double* cutVal, RoundedMeasureState& st) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512 ? measureAvx512(col, val, n, flt, cut, cutCol, cutVal, st) : 0;
}
#else
std::size_t roundedMeasureVector(int*, double*, std::size_t, bool, double, int*, double*, RoundedMeasureState&) {
  return 0;
}
#endif

}  // namespace mcl
}  // namespace Trident
