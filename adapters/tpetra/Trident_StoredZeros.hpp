#pragma once
// Stored zeros: the kernels skip them, so the planner's counts and a kept plan's pattern check
// must see them. Most matrices have none, and a pass that only counts them is a fraction of one
// that hashes where they are: callers count first and hash only when there are any.
#include <cstddef>
#include <cstdint>
#include <optional>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "Trident_TpetraTypes.hpp"
#include <trident/core/Hash.hpp>

namespace Trident {
namespace tpetra {

// How many of M's local values are exactly zero (either sign). GCC does not vectorize the
// plain count (a comparison per value, 8 instructions each under callgrind); SSE2 compares, whose
// all-ones lanes subtracted count the zeros, eight values per iteration in two independent
// counters, take under 2 (3.5 with one compare of two values per iteration).
inline std::size_t storedZeros(const crs_matrix_type& M) {
  const auto local = M.getLocalMatrixHost();
  const double* v = local.values.data();
  const std::size_t n = local.values.extent(0);
  std::size_t q = 0, zeros = 0;
#ifdef __SSE2__
  const __m128d zero = _mm_setzero_pd();
  __m128i c0 = _mm_setzero_si128(), c1 = _mm_setzero_si128();
  for (; q + 8 <= n; q += 8) {
    const __m128i z0 = _mm_castpd_si128(_mm_cmpeq_pd(_mm_loadu_pd(v + q), zero));
    const __m128i z1 = _mm_castpd_si128(_mm_cmpeq_pd(_mm_loadu_pd(v + q + 2), zero));
    const __m128i z2 = _mm_castpd_si128(_mm_cmpeq_pd(_mm_loadu_pd(v + q + 4), zero));
    const __m128i z3 = _mm_castpd_si128(_mm_cmpeq_pd(_mm_loadu_pd(v + q + 6), zero));
    c0 = _mm_sub_epi64(c0, _mm_add_epi64(z0, z1));
    c1 = _mm_sub_epi64(c1, _mm_add_epi64(z2, z3));
  }
  long long lanes[2];
  _mm_storeu_si128(reinterpret_cast<__m128i*>(lanes), _mm_add_epi64(c0, c1));
  zeros = static_cast<std::size_t>(lanes[0] + lanes[1]);
#endif
  for (; q < n; ++q) zeros += v[q] == 0.0;
  return zeros;
}

// A hash of where M's stored zeros are (a kept plan's pattern check, auto's remembered choices).
// zeros: M's stored zeros when the caller has counted them; with none, no pass over the values.
inline std::uint64_t storedZerosHash(const crs_matrix_type& M, std::optional<std::size_t> zeros = std::nullopt) {
  std::uint64_t h = 0x2545F4914F6CDD1Dull;
  if ((zeros ? *zeros : storedZeros(M)) == 0) return h;
  auto local = M.getLocalMatrixHost();
  for (std::size_t q = 0; q < local.values.extent(0); ++q)
    if (local.values(q) == 0.0) {
      h = mix64(q + kGoldenGamma + h);
    }
  return h;
}

}  // namespace tpetra
}  // namespace Trident
