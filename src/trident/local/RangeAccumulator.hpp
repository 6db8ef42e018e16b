#pragma once
// Dense accumulator for rows that fill a fair part of their column range: no branch and no list of
// touched columns per multiply-add (a bit is OR-ed in, the value added), and the row is read out in
// column order by sweeping the bit words between the lowest and the highest column touched. Rows
// with few multiply-adds for their width go to SortedRowAccumulator instead, whose first touch of a
// column is a branch: on rows that touch a new column every few multiply-adds (social graphs'
// squares, MCL's iterations) that branch is a coin toss for the predictor.
//
// The values start at -0.0, the additive identity of IEEE arithmetic (-0.0 + x == x bit for bit,
// also for x = +/-0.0), so every sum is bit-identical to SortedRowAccumulator's, which stores the
// first product and adds the rest.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>
#include "trident/core/Bits.hpp"

namespace Trident {

class RangeAccumulator {
 public:
  explicit RangeAccumulator(std::int64_t ncols)
      : acc_(static_cast<std::size_t>(ncols), -0.0), bits_(static_cast<std::size_t>((ncols + 63) / 64), 0) {}
  void add(int c, double v) {
    addInRange(c, v);
    span(c, c);
  }
  // add() for callers that report the column range with span() themselves (once per sorted row
  // of B instead of twice per multiply-add).
  void addInRange(int c, double v) {
    acc_[static_cast<std::size_t>(c)] += v;
    bits_[static_cast<std::size_t>(c) >> 6] |= std::uint64_t{1} << (c & 63);
  }
  void span(int lo, int hi) {
    lo_ = std::min(lo_, lo);
    hi_ = std::max(hi_, hi);
  }
  // The row's entries, exactly: a sweep over the bit words it spans.
  std::size_t size() const {
    std::size_t n = 0;
    for (int w = lo_ >> 6; w <= (hi_ >> 6) && hi_ >= 0; ++w)
      n += static_cast<std::size_t>(popcount64(bits_[static_cast<std::size_t>(w)]));
    return n;
  }
  // At most as many entries as the row has: its multiply-adds (`work`) and the columns it spans.
  // What the kernel makes room by: size() would be a second sweep.
  std::size_t atMost(std::int64_t work) const {
    return hi_ < 0 ? 0 : static_cast<std::size_t>(std::min<std::int64_t>(work, hi_ - lo_ + 1));
  }
  // Calls emit(col, value) for every touched column in ascending order, then resets; returns how
  // many.
  template <class Emit>
  std::size_t flush(Emit&& emit) {
    if (hi_ < 0) return 0;
    std::size_t n = 0;
    for (int w = lo_ >> 6; w <= (hi_ >> 6); ++w) {
      std::uint64_t bw = bits_[static_cast<std::size_t>(w)];
      bits_[static_cast<std::size_t>(w)] = 0;
      while (bw) {
        const int c = w * 64 + __builtin_ctzll(bw);
        bw &= bw - 1;
        emit(c, acc_[static_cast<std::size_t>(c)]);
        acc_[static_cast<std::size_t>(c)] = -0.0;
        ++n;
      }
    }
    lo_ = std::numeric_limits<int>::max();
    hi_ = -1;
    return n;
  }
  // Whether a row with `work` multiply-adds over `width` columns should use this accumulator:
  // sweeping the bit words costs up to width/64 per row, worth it once the row's multiply-adds
  // are a fair fraction of that.
  static bool pays(std::int64_t work, std::int64_t width) { return work >= width / 256; }

 private:
  std::vector<double> acc_;
  std::vector<std::uint64_t> bits_;
  int lo_ = std::numeric_limits<int>::max(), hi_ = -1;
};

}  // namespace Trident
