#pragma once
// Gustavson's dense accumulator (SPA) that hands each finished row out sorted by column, without a
// comparison sort of the whole row: touched columns are marked in a two-level bitmap (one bit per
// column, one summary bit per 64 words), and flushing sweeps only the marked words. A row with n
// entries over ncols columns costs O(n + ncols/4096) to flush; rows so short that n log n is less
// than that fall back to sorting their few columns. This is what lets C be written once, already
// in the order Tpetra stores it, instead of being sorted row by row after assembly.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace Trident {

class SortedRowAccumulator {
 public:
  explicit SortedRowAccumulator(std::int64_t ncols)
      : acc_(static_cast<std::size_t>(ncols), 0.0),
        bits_(static_cast<std::size_t>((ncols + 63) / 64), 0),
        summary_(static_cast<std::size_t>((ncols + 4095) / 4096), 0),
        touched_(new int[static_cast<std::size_t>(std::max<std::int64_t>(ncols, 1))]) {}

  void add(int c, double v) {
    const std::uint64_t bit = std::uint64_t{1} << (c & 63);
    std::uint64_t& w = bits_[static_cast<std::size_t>(c) >> 6];
    if (!(w & bit)) {
      w |= bit;
      summary_[static_cast<std::size_t>(c) >> 12] |= std::uint64_t{1} << ((c >> 6) & 63);
      touched_[n_++] = c;
      acc_[c] = v;
    } else {
      acc_[c] += v;
    }
  }
  std::size_t size() const { return n_; }
  std::size_t atMost(std::int64_t) const { return n_; }  // RangeAccumulator's interface: exact here

  // Calls emit(col, value) for every touched column in ascending order, then resets; returns how
  // many.
  template <class Emit>
  std::size_t flush(Emit&& emit) {
    const std::size_t n = n_;
    if (n == 0) return 0;
    if (sortIsCheaper(n)) {
      std::sort(touched_.get(), touched_.get() + n);
      for (std::size_t t = 0; t < n; ++t) {
        const int c = touched_[t];
        emit(c, acc_[c]);
        bits_[static_cast<std::size_t>(c) >> 6] = 0;
        summary_[static_cast<std::size_t>(c) >> 12] = 0;
      }
    } else {
      for (std::size_t s = 0; s < summary_.size(); ++s) {
        std::uint64_t sw = summary_[s];
        if (!sw) continue;
        summary_[s] = 0;
        while (sw) {
          const std::size_t w = s * 64 + static_cast<std::size_t>(__builtin_ctzll(sw));
          sw &= sw - 1;
          std::uint64_t bw = bits_[w];
          bits_[w] = 0;
          while (bw) {
            const int c = static_cast<int>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(bw)));
            bw &= bw - 1;
            emit(c, acc_[c]);
          }
        }
      }
    }
    n_ = 0;
    return n;
  }

 private:
  bool sortIsCheaper(std::size_t n) const {
    const std::size_t lg = 64 - static_cast<std::size_t>(__builtin_clzll(n | 1));
    return n * lg < summary_.size() + 2 * n;
  }

  std::vector<double> acc_;
  std::vector<std::uint64_t> bits_;
  std::vector<std::uint64_t> summary_;
  std::unique_ptr<int[]> touched_;  // the row's columns in first-touch order
  std::size_t n_ = 0;
};

}  // namespace Trident
