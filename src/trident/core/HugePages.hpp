#pragma once
// Large arrays that are written once (a product's output, C's final CSR) spend much of their
// writing time in page faults: 4 KiB at a time, each zeroed and charged separately by the kernel.
// Asking for transparent huge pages on such a fresh, still untouched range makes that 512x fewer
// faults: on as-caida at P = 1 the local phase went from 0.65-0.78 s to 0.46 s and the out phase
// from 0.47-0.53 s to 0.29 s per call once the process had run one call. But with Debian's
// default THP settings ("madvise" for both enabled and defrag) the first call of a process then
// waits for the kernel to compact memory into huge pages: 3.4-3.9 s instead of under 2 s on a
// busy machine. A one-shot Multiply is the common case, so the request is opt-in:
// TRIDENT_HUGE_PAGES=1 for long runs that multiply many times (MCL, reused plans). Small arrays
// are left alone: a huge page would round them up.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace Trident {

inline void adviseHugePages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::size_t kHuge = std::size_t{2} << 20, kPage = 4096;
  if (data == nullptr || bytes < 4 * kHuge) return;
  static const bool enabled = [] {
    const char* e = std::getenv("TRIDENT_HUGE_PAGES");
    return e != nullptr && std::strcmp(e, "1") == 0;
  }();
  if (!enabled) return;
  // madvise wants page-aligned bounds: the whole pages inside the array.
  const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + kPage - 1) & ~(kPage - 1);
  const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + bytes) & ~(kPage - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advice only
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace Trident
