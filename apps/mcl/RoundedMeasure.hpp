#pragma once
// The first pass of mcl's column pruning over a product row straight from the fused kernel, eight
// entries at a time where the CPU has AVX-512 (checked at run time; the build targets plain x86-64).
// Each value is rounded where mcl stores it (float when flt), zeros are dropped in place, the entries
// >= cut are gathered, and the largest value and the sum of squares are taken. Rounding, dropping,
// gathering and the max are lane-wise; the sum of squares still adds one entry at a time in column
// order, so it is mcl's sum to the bit, and that chain of adds is now all the pass waits for. The
// scalar pass was ~27 instructions an entry (perf annotate on email-Enron), and its throughput, not
// the chain, bounded it.
#include <cstddef>

namespace Trident {
namespace mcl {

// The pass's state, carried from the vector part into the scalar loop that finishes the row.
struct RoundedMeasureState {
  std::size_t kept = 0;   // entries written back (nonzero after rounding)
  std::size_t gathered = 0;  // entries >= cut written to the gather arrays
  double center = 0, maxval = 0;
};

// Runs the pass over the first n - n % 8 entries of col/val (in place) where AVX-512 is there and
// returns how many it did (0 where not). cutCol/cutVal have room for n entries.
std::size_t roundedMeasureVector(int* col, double* val, std::size_t n, bool flt, double cut, int* cutCol,
                                 double* cutVal, RoundedMeasureState& st);

}  // namespace mcl
}  // namespace Trident
