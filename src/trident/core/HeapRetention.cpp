#include "trident/core/HeapRetention.hpp"

#include <cstdlib>
#include <cstring>
#include <string>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace Trident {

namespace {
constexpr std::size_t kDefaultPadMiB = 64;

// TRIDENT_HEAP_PAD_MB's value in MiB: a whole number from 0 (off) to 2047 (mallopt takes an int
// of bytes); false for anything else.
bool padMiBOf(const char* text, long long& mib) {
  char* end = nullptr;
  mib = std::strtoll(text, &end, 10);
  return end != text && *end == '\0' && mib >= 0 && mib <= 2047;
}

// Whether the user set a malloc parameter glibc read at start-up, by its environment variable
// (MALLOC_TOP_PAD_) or as a glibc.malloc tunable (top_pad): the user's own setting wins.
bool userSet(const char* variable, const char* tunable) {
  const char* value = std::getenv(variable);
  if (value && *value) return true;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  return tunables && std::strstr(tunables, tunable);
}

std::size_t padFromEnvironment() {
  if (userSet("MALLOC_TOP_PAD_", "top_pad")) return 0;
  const char* mib = std::getenv("TRIDENT_HEAP_PAD_MB");
  if (!mib || !*mib) return kDefaultPadMiB << 20;
  long long v = 0;
  if (!padMiBOf(mib, v)) return 0;  // left alone; heapPadSettingError says why
  return static_cast<std::size_t>(v) << 20;
}

// glibc's largest dynamic mmap threshold on 64-bit systems (DEFAULT_MMAP_THRESHOLD_MAX).
constexpr int kMmapThreshold = 32 << 20;

std::size_t apply() {
#if defined(__GLIBC__) && defined(M_TOP_PAD) && defined(M_MMAP_THRESHOLD)
  const std::size_t pad = padFromEnvironment();
  if (pad == 0 || pad > static_cast<std::size_t>(0x7fffffff)) return 0;
  if (mallopt(M_TOP_PAD, static_cast<int>(pad)) != 1) return 0;
  // Setting the pad switches off glibc's dynamic mmap threshold, which rises to the size of the
  // largest mapped block freed (up to 32 MiB): it stayed wherever the process's history had left
  // it, and so did a call's page faults. lap3d:40's square at P = 1 faulted ~670 pages a call with
  // A read from a file and ~5 with A from the generator, which had freed large blocks first
  // (0.021 s against 0.011 s); pinned where the dynamic rule ends, ~0 both ways (0.011 s).
  if (!userSet("MALLOC_MMAP_THRESHOLD_", "mmap_threshold")) mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  return pad;
#else
  return 0;
#endif
}
}  // namespace

std::string heapPadSettingError() {
  const char* mib = std::getenv("TRIDENT_HEAP_PAD_MB");
  long long v = 0;
  if (!mib || !*mib || padMiBOf(mib, v)) return {};
  return std::string("TRIDENT_HEAP_PAD_MB='") + mib +
         "' is not a whole number of MiB from 0 (off) to 2047 (the pad freed heap memory is kept resident by)";
}

std::size_t retainFreedHeap() {
  static const std::size_t pad = apply();  // thread-safe once
  return pad;
}

}  // namespace Trident
