#pragma once
// Bit counting without a library call. Debian builds for the x86-64 baseline, which has no
// popcnt instruction, so __builtin_popcountll becomes a call to libgcc's __popcountdi2: 2-3 % of
// a rank's samples in a Trident multiply (perf, cit-HepTh at P = 4), from the Li row exchange's
// ranks of used rows. The SWAR count below is a dozen inlined instructions.
#include <cstdint>

namespace Trident {

inline int popcount64(std::uint64_t x) {
#if defined(__POPCNT__)
  return __builtin_popcountll(x);
#else
  x = x - ((x >> 1) & 0x5555555555555555ull);
  x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
  x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return static_cast<int>((x * 0x0101010101010101ull) >> 56);
#endif
}

}  // namespace Trident
