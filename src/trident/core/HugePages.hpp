#pragma once
// Large arrays that are written once (a product's output, C's final CSR) spend much of their
// writing time in page faults: 4 KiB at a time, each zeroed and charged separately by the kernel,
// and inside a virtual machine each one also exits to the hypervisor. Asking for transparent huge
// pages on such a fresh, still untouched range makes that 512x fewer faults: on as-caida at P = 1
// the local phase went from 0.65-0.78 s to 0.46 s on a bare 2-core machine, and
// from 1.04-1.08 s to 0.13 s on a VM whose 4 KiB fault costs ~11 us.
//
// The risk is the kernel's compaction: under Debian's default THP settings ("madvise" for both
// enabled and defrag) a fault in an advised range with no free 2 MiB block at hand waits for the
// kernel to compact memory (a first call took 3.4-3.9 s instead of under 2 s on a busy machine).
// So by default (TRIDENT_HUGE_PAGES unset or "auto") the advice is given only where the buddy
// allocator (/proc/buddyinfo) holds free blocks of 2 MiB or more worth 8 times the array: enough
// for every rank of a node asking at once, with no compaction. TRIDENT_HUGE_PAGES=1 asks always,
// 0 never. Small arrays are left alone: a huge page would round them up.
#include <cstddef>

namespace Trident {

// Whether an array of `bytes` should be advised (the policy above); reads the environment once.
bool hugePagesWorthAsking(std::size_t bytes);

// madvise(MADV_HUGEPAGE) on the whole pages inside [data, data + bytes) where the policy says so.
// Advice only: nothing fails when the kernel does not follow it.
void adviseHugePages(const void* data, std::size_t bytes);

// v.reserve(n), then the advice on the whole reserved array (a fresh one: reserved before any
// entry is written, the pages are not yet touched).
template <class Vector>
void reserveHugePages(Vector& v, std::size_t n) {
  v.reserve(n);
  adviseHugePages(v.data(), v.capacity() * sizeof(typename Vector::value_type));
}

}  // namespace Trident
