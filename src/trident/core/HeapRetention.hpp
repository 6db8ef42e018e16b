#pragma once
// Every multiply allocates and frees the same large temporaries and leaves the caller a C of
// the same size as the last one; glibc's malloc gives memory freed at the top of its heap back
// to the kernel (trims it) and then faults it in again, 4 KiB at a time, on the next call. On a
// VM whose page fault costs ~11 us that was half of a small product's time: pubmed's square at
// P = 4 (lambda = 2) took ~1,250 faults and 12 brk calls per call on three of four ranks, 0.057 s,
// and 0.026 s with none (docs/design.md, assembly of C). PETSc's MatMatMult, measured
// the same way, faulted nothing per call.
//
// So the first plan a process builds asks glibc to keep a pad of freed memory at the top of the
// heap (mallopt(M_TOP_PAD)): up to that much stays resident after a multiply instead of being
// returned and faulted again. The pad is address space until it is used; what it keeps resident
// is memory the process used before. The pad freezes glibc's dynamic mmap threshold, so it is
// pinned at 32 MiB, where glibc's own rule ends (M_MMAP_THRESHOLD, unless the user set it; see
// apply()). Not done where the user tuned it already (MALLOC_TOP_PAD_ or a glibc.malloc.top_pad
// tunable), nor with TRIDENT_HEAP_PAD_MB=0; TRIDENT_HEAP_PAD_MB=N sets N MiB (default 64). Other
// C libraries: nothing is done.
#include <cstddef>
#include <string>

namespace Trident {

// Once per process; later calls do nothing. Returns the pad set in bytes (0: left alone; also
// for a TRIDENT_HEAP_PAD_MB that is not a valid number, which heapPadSettingError reports).
std::size_t retainFreedHeap();

// Empty, or why TRIDENT_HEAP_PAD_MB is not a valid setting (the plan fails its collective check
// with it on every rank, like any bad input).
std::string heapPadSettingError();

}  // namespace Trident
