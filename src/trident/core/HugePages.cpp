#include "trident/core/HugePages.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace Trident {

namespace {
constexpr std::size_t kHuge = std::size_t{2} << 20;

enum class Policy { Never, Auto, Always };

Policy policyFromEnvironment() {
  const char* e = std::getenv("TRIDENT_HUGE_PAGES");
  if (e == nullptr || *e == '\0' || std::strcmp(e, "auto") == 0) return Policy::Auto;
  if (std::strcmp(e, "1") == 0) return Policy::Always;
  return Policy::Never;
}

// Bytes the buddy allocator holds free in blocks of at least 2 MiB, over every zone; 0 when
// /proc/buddyinfo cannot be read. A line is "Node N, zone NAME c0 c1 ... c10": the free blocks of
// each order, a block of order o being 2^o pages.
std::uint64_t freeHugeBlockBytes() {
  std::ifstream in("/proc/buddyinfo");
  if (!in) return 0;
  const long page = sysconf(_SC_PAGESIZE);
  if (page <= 0) return 0;
  int hugeOrder = 0;
  while ((static_cast<std::size_t>(page) << hugeOrder) < kHuge) ++hugeOrder;
  std::uint64_t total = 0;
  std::string line;
  while (std::getline(in, line)) {
    const std::size_t zone = line.find("zone");
    if (zone == std::string::npos) continue;
    std::istringstream fields(line.substr(zone + 4));
    std::string name;
    fields >> name;
    std::uint64_t count = 0;
    for (int order = 0; fields >> count; ++order)
      if (order >= hugeOrder) total += count * (static_cast<std::uint64_t>(page) << order);
  }
  return total;
}
}  // namespace

bool hugePagesWorthAsking(std::size_t bytes) {
  if (bytes < 4 * kHuge) return false;
  static const Policy policy = policyFromEnvironment();
  switch (policy) {
    case Policy::Never:
      return false;
    case Policy::Always:
      return true;
    case Policy::Auto:
      break;
  }
  return freeHugeBlockBytes() >= 8 * static_cast<std::uint64_t>(bytes);
}

void adviseHugePages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (data == nullptr || !hugePagesWorthAsking(bytes)) return;
  constexpr std::uintptr_t kPage = 4096;
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
