#include "PrunedSpGEMM.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "trident/core/HugePages.hpp"
#include "trident/local/RangeAccumulator.hpp"
#include "ScaledRowAdd.hpp"
#include "trident/local/SortedRowAccumulator.hpp"

namespace Trident {

namespace {
#if defined(__x86_64__) && defined(__GNUC__)
// ScanAccumulator::drain's sweep eight columns at a time where the CPU has AVX-512 (checked at run
// time; the build targets plain x86-64): one compare gives the nonzero lanes, the values and
// their columns are compressed into the front of a register and stored whole (the arrays have
// room for kDrainSlack past the row's width), and the write position advances by the count.
// Returns the first column it did not sweep; *n counts what it wrote.
constexpr std::size_t kDrainSlack = 16;
__attribute__((target("avx512f"))) int drainAvx512(double* acc, int lo, int hi, int* col, double* val, std::size_t* n) {
  const __m512d zero = _mm512_setzero_pd();
  __m512i idx = _mm512_add_epi32(_mm512_set1_epi32(lo), _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0));
  const __m512i eight = _mm512_set1_epi32(8);
  std::size_t w = *n;
  int c = lo;
  for (; c + 8 <= hi + 1; c += 8) {
    const __m512d v = _mm512_loadu_pd(acc + c);
    const __mmask8 m = _mm512_cmp_pd_mask(v, zero, _CMP_NEQ_UQ);  // v != 0.0, as the scalar loop asks
    _mm512_storeu_pd(acc + c, zero);
    _mm512_storeu_pd(val + w, _mm512_maskz_compress_pd(m, v));
    _mm512_storeu_si512(col + w, _mm512_maskz_compress_epi32(static_cast<__mmask16>(m), idx));
    w += static_cast<std::size_t>(__builtin_popcount(m));
    idx = _mm512_add_epi32(idx, eight);
  }
  *n = w;
  return c;
}
bool hasVectorDrain() {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  return avx512;
}
#else
constexpr std::size_t kDrainSlack = 0;
bool hasVectorDrain() { return false; }
#endif

// For rows that cover most of their column range (MCL's heavy iterations: tens of thousands of
// multiply-adds into some thousands of columns): the value array alone, read out by a sweep over
// the range for nonzero values. Nothing but the add per multiply-add, as mcl's own dense
// ("full matrix-vector") expansion does; the price is that a sum that is exactly 0.0 cannot be told
// from an untouched column, which is why prunedMultiply drops exact zeros on every path.
class ScanAccumulator {
 public:
  explicit ScanAccumulator(std::int64_t ncols) : acc_(static_cast<std::size_t>(ncols), 0.0) {}
  void add(int c, double v) {
    addInRange(c, v);
    span(c, c);
  }
  void addInRange(int c, double v) { acc_[static_cast<std::size_t>(c)] += v; }
  void span(int lo, int hi) {
    lo_ = std::min(lo_, lo);
    hi_ = std::max(hi_, hi);
  }
  std::size_t size() const {
    std::size_t n = 0;
    for (int c = lo_; c <= hi_; ++c) n += acc_[static_cast<std::size_t>(c)] != 0.0 ? 1 : 0;
    return n;
  }
  template <class Emit>
  void flush(Emit&& emit) {
    for (int c = lo_; c <= hi_; ++c) {
      const double v = acc_[static_cast<std::size_t>(c)];
      if (v != 0.0) {
        emit(c, v);
        acc_[static_cast<std::size_t>(c)] = 0.0;
      }
    }
    lo_ = std::numeric_limits<int>::max();
    hi_ = -1;
  }
  std::size_t width() const { return hi_ >= lo_ ? static_cast<std::size_t>(hi_ - lo_ + 1) : 0; }
  // flush() into arrays with room for width() entries, without a branch per column: MCL's heavy
  // product rows fill 45-65% of their range, where "is it nonzero" is a coin toss for the branch
  // predictor. Every column is written and the write position advances only past nonzeros.
  std::size_t drain(int* col, double* val) {
    std::size_t n = 0;
    int c = lo_;
#if defined(__x86_64__) && defined(__GNUC__)
    if (hasVectorDrain() && hi_ >= lo_) c = drainAvx512(acc_.data(), lo_, hi_, col, val, &n);
#endif
    return sweep(c, hi_, [](int k) { return k; }, col, val, n);
  }
  // drain() for B's columns renumbered (RowRefs::kernelOf): every column of B in its own order,
  // read where the kernel summed it; arrays with room for ncols entries.
  std::size_t drainInOrder(const int* kernelOf, int ncols, int* col, double* val) {
    return sweep(0, ncols - 1, [kernelOf](int c) { return kernelOf[c]; }, col, val, 0);
  }

 private:
  // Columns [from, to] read out after n entries already written, column c from the slot slotOf(c),
  // each slot cleared; ends the row (its span).
  template <class SlotOf>
  std::size_t sweep(int from, int to, SlotOf slotOf, int* col, double* val, std::size_t n) {
    for (int c = from; c <= to; ++c) {
      const std::size_t k = static_cast<std::size_t>(slotOf(c));
      const double v = acc_[k];
      acc_[k] = 0.0;
      col[n] = c;
      val[n] = v;
      n += v != 0.0 ? 1 : 0;
    }
    lo_ = std::numeric_limits<int>::max();
    hi_ = -1;
    return n;
  }

  std::vector<double> acc_;
  int lo_ = std::numeric_limits<int>::max(), hi_ = -1;
};

// B's columns as a row of B names them, in B's own numbering.
struct OriginalColumn {
  const int* originalOf;
  template <class CI>
  int operator()(CI c) const {
    return originalOf[c];
  }
};

// Whether every row of B is sorted in B's own column order.
template <class V, class CI>
bool rowsSorted(const RowRefs<V, CI>& B) {
  if (B.originalOf) {
    for (const auto& row : B.row)
      for (std::int64_t q = 1; q < row.len; ++q)
        if (B.originalOf[row.col[q - 1]] > B.originalOf[row.col[q]]) return false;
    return true;
  }
  for (const auto& row : B.row)
    for (std::int64_t q = 1; q < row.len; ++q)
      if (row.col[q - 1] > row.col[q]) return false;
  return true;
}

template <class M, class V, class CI, class ColOf>
void addRows(const M& A, const RowRefs<V, CI>& B, std::int64_t r, SortedRowAccumulator& acc, bool, ColOf colOf) {
  for (std::int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p) {
    const double a = static_cast<double>(A.val[p]);
    const auto& b = B.row[static_cast<std::size_t>(A.col[p])];
    for (std::int64_t q = 0; q < b.len; ++q) acc.add(colOf(b.col[q]), a * static_cast<double>(b.val[q]));
  }
}

// Prefetches one chunk's worth (kChunk entries) of a row of B: its column line and value line(s),
// into L2 (prefetcht1), not L1. Measured, not explained by counters (this VM has none): email-Enron's
// second iteration at P = 2 (16-bit columns), alternating runs, 8.34-8.38 s against 8.49-8.87 s.
// The likely reason: a prefetch into L1 holds one of L1's few fill buffers until its line arrives
// from L3 or memory, and the accumulator's misses to L2 need the same buffers.
// A chunk's 32-bit columns are one 64-byte line; 16-bit ones half a line, so each of their lines
// is asked for twice (a prefetch of a line already on its way costs only the instruction).
constexpr std::int64_t kChunk = 16;
template <class V, class CI>
inline void prefetchChunk(const CI* col, const V* val, std::int64_t x) {
  constexpr int kIntoL2 = 2;  // __builtin_prefetch's locality 2: prefetcht1
  __builtin_prefetch(col + x, 0, kIntoL2);
  for (std::size_t b = 0; b < kChunk * sizeof(V); b += 64)
    __builtin_prefetch(reinterpret_cast<const char*>(val + x) + b, 0, kIntoL2);
}

// The rows of B a product row sums are scattered over B, so every one of them starts with cache
// misses the hardware prefetcher cannot foresee (it learns a stream only after its first lines),
// and MCL's heavy rows are a few hundred entries: the misses were a quarter of the kernel's time
// (perf: the load of the row's first column, for the span, took 17% of the samples). So while one
// row of B is summed, the next row's lines are prefetched, one line per chunk of 16 entries.
// Measured on cit-HepTh's and email-Enron's second iterations: 1.41 -> 1.08 and 1.30 -> 0.92 ns per
// multiply-add; prefetching the accumulator's lines as well made it slower (1.17 -> 1.39).
template <class M, class V, class CI, class Acc, class ColOf>
void addRows(const M& A, const RowRefs<V, CI>& B, std::int64_t r, Acc& acc, bool bSorted, ColOf colOf) {
  const std::int64_t pe = A.rowptr[r + 1];
  for (std::int64_t p = A.rowptr[r]; p < pe; ++p) {
    const double a = static_cast<double>(A.val[p]);
    const auto& b = B.row[static_cast<std::size_t>(A.col[p])];
    const CI* bc = b.col;
    const V* bv = b.val;
    const std::int64_t qe = b.len;
    typename RowRefs<V, CI>::Row next;  // the next row of B, to prefetch (none: empty)
    if (p + 1 < pe) next = B.row[static_cast<std::size_t>(A.col[p + 1])];
    std::int64_t x = 0;
    if (qe != 0) {
      if (bSorted) acc.span(colOf(bc[0]), colOf(bc[qe - 1]));
      std::int64_t q = 0;
      for (; q + kChunk <= qe; q += kChunk) {
        if (x < next.len) {
          prefetchChunk(next.col, next.val, x);
          x += kChunk;
        }
        if (bSorted) {
          addScaledRow(acc, bc + q, bv + q, kChunk, a, colOf);
        } else {
          for (std::int64_t j = q; j < q + kChunk; ++j) acc.add(colOf(bc[j]), a * static_cast<double>(bv[j]));
        }
      }
      if (bSorted) {
        addScaledRow(acc, bc + q, bv + q, qe - q, a, colOf);
      } else {
        for (; q < qe; ++q) acc.add(colOf(bc[q]), a * static_cast<double>(bv[q]));
      }
    }
    for (; x < next.len; x += kChunk) prefetchChunk(next.col, next.val, x);
  }
}

// addRows in B's own numbering: renumbered rows of B look each column up (a look-up per
// multiply-add: the rows summed this way are the lighter ones), so the row comes out in B's
// column order as it is.
template <class M, class V, class CI, class Acc>
void addRowsInOwnColumns(const M& A, const RowRefs<V, CI>& B, std::int64_t r, Acc& acc, bool bSorted) {
  if (B.originalOf)
    addRows(A, B, r, acc, bSorted, OriginalColumn{B.originalOf});
  else
    addRows(A, B, r, acc, bSorted, SameColumn{});
}

// Product row r of A*B accumulated in acc, handed to cols/vals in column order.
template <class M, class V, class CI, class Acc>
void accumulateRow(const M& A, const RowRefs<V, CI>& B, std::int64_t r, Acc& acc, bool bSorted, RowCols& cols,
                   RowVals& vals) {
  addRowsInOwnColumns(A, B, r, acc, bSorted);
  const std::size_t n = acc.size();
  cols.resize(n);
  vals.resize(n);
  int* cp = cols.data();
  double* vp = vals.data();
  acc.flush([&cp, &vp](int c, double v) {
    if (v == 0.0) return;
    *cp++ = c;
    *vp++ = v;
  });
  cols.resize(static_cast<std::size_t>(cp - cols.data()));
  vals.resize(cols.size());
}
// renumberedSweep: with B's columns renumbered, sum in the kernel's numbering and read out the
// whole width in B's order (rows with many multiply-adds a column); otherwise in B's numbering.
template <class M, class V, class CI>
void accumulateRow(const M& A, const RowRefs<V, CI>& B, std::int64_t r, ScanAccumulator& acc, bool bSorted,
                   RowCols& cols, RowVals& vals, bool renumberedSweep) {
  if (B.kernelOf && renumberedSweep) {  // renumbered rows are not sorted: the whole width is the span
    acc.span(0, static_cast<int>(B.ncols) - 1);
    addRows(A, B, r, acc, true, SameColumn{});
    cols.resize(static_cast<std::size_t>(B.ncols));
    vals.resize(static_cast<std::size_t>(B.ncols));
    const std::size_t n = acc.drainInOrder(B.kernelOf, static_cast<int>(B.ncols), cols.data(), vals.data());
    cols.resize(n);
    vals.resize(n);
    return;
  }
  addRowsInOwnColumns(A, B, r, acc, bSorted);
  const std::size_t w = acc.width();
  cols.resize(w + kDrainSlack);
  vals.resize(w + kDrainSlack);
  const std::size_t n = acc.drain(cols.data(), vals.data());
  cols.resize(n);
  vals.resize(n);
}
}  // namespace

template <class M, class CI>
M prunedMultiply(const M& A, const RowRefs<typename decltype(M::val)::value_type, CI>& B, std::int64_t row_begin,
                 std::int64_t row_end, const RowPruner& prune, PrunedSpGEMMCounts* counts,
                 std::int64_t kept_per_row_hint) {
  if (A.ncols != B.nrows()) throw std::invalid_argument("pruned SpGEMM: A.ncols != B.nrows");
  if (row_begin < 0 || row_end < row_begin || row_end > A.nrows)
    throw std::invalid_argument("pruned SpGEMM: row range outside A");
  M C(row_end - row_begin, B.ncols);
  // The accumulator is as wide as B; the MCL iterand is square and its width is the number of
  // nodes, which the pruned rows' memory already scales with.
  SortedRowAccumulator spa(B.ncols);
  RangeAccumulator dense(B.ncols);
  // Rows with many multiply-adds per column fill most of them: the values alone, swept for
  // nonzeros. A column at a time, the sweep pays from 8 multiply-adds per column (below that it
  // took ca-CondMat from 4.6 to 6.8 s); eight at a time (AVX-512), from one: email-Enron's third
  // iteration 3.3 -> 2.4 s, ca-CondMat 3.5-4.1 -> 3.1 s, cit-HepTh and facebook unchanged.
  ScanAccumulator full(B.ncols);
  const std::int64_t fullFrom = (hasVectorDrain() ? 1 : 8) * B.ncols;
  const bool bSorted = rowsSorted(B);
  RowCols cols;
  RowVals vals;
  // C's arrays reserve, before the first row, room for every row's most entries: its multiply-adds,
  // B's columns and the caller's hint, whichever is least. A reservation this large comes straight
  // from mmap and only the pages written become resident, so C costs its kept entries and nothing
  // else: no staging copy, and no growing vector that at its last doubling holds the old and the
  // new array together (2x the pruned product, which is what MCL's memory is made of). A row over
  // the hint only makes the vector grow.
  std::vector<std::int64_t> rowFlopsOf(static_cast<std::size_t>(row_end - row_begin));
  std::int64_t room = 0;
  for (std::int64_t r = row_begin; r < row_end; ++r) {
    std::int64_t rowFlops = 0;
    for (std::int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p)
      rowFlops += B.row[static_cast<std::size_t>(A.col[p])].len;
    rowFlopsOf[static_cast<std::size_t>(r - row_begin)] = rowFlops;
    std::int64_t most = std::min(rowFlops, B.ncols);
    if (kept_per_row_hint > 0) most = std::min(most, kept_per_row_hint);
    room += most;
  }
  reserveHugePages(C.col, static_cast<std::size_t>(room));
  reserveHugePages(C.val, static_cast<std::size_t>(room));
  std::int64_t kept = 0;
  std::uint64_t flops = 0, expanded = 0;
  for (std::int64_t r = row_begin; r < row_end; ++r) {
    const std::int64_t rowFlops = rowFlopsOf[static_cast<std::size_t>(r - row_begin)];
    flops += static_cast<std::uint64_t>(rowFlops);
    if (rowFlops >= fullFrom)
      accumulateRow(A, B, r, full, bSorted, cols, vals, rowFlops >= kRenumberedFrom * B.ncols);
    else if (RangeAccumulator::pays(rowFlops, B.ncols))
      accumulateRow(A, B, r, dense, bSorted, cols, vals);
    else
      accumulateRow(A, B, r, spa, bSorted, cols, vals);
    expanded += cols.size();
    prune(r, cols, vals);
    if (cols.size() != vals.size()) throw std::logic_error("pruned SpGEMM: pruner left cols and vals unequal");
    C.col.insert(C.col.end(), cols.begin(), cols.end());
    for (double v : vals) C.val.push_back(static_cast<typename decltype(C.val)::value_type>(v));
    kept += static_cast<std::int64_t>(cols.size());
    C.rowptr[r - row_begin + 1] = kept;
  }
  if (counts) {
    counts->flops += flops;
    counts->expanded += expanded;
  }
  return C;
}

template Csr prunedMultiply(const Csr&, const RowRefs<double>&, std::int64_t, std::int64_t, const RowPruner&,
                            PrunedSpGEMMCounts*, std::int64_t);
template CsrFloat prunedMultiply(const CsrFloat&, const RowRefs<float>&, std::int64_t, std::int64_t,
                                 const RowPruner&, PrunedSpGEMMCounts*, std::int64_t);
template Csr prunedMultiply(const Csr&, const RowRefs<double, std::uint16_t>&, std::int64_t, std::int64_t,
                            const RowPruner&, PrunedSpGEMMCounts*, std::int64_t);
template CsrFloat prunedMultiply(const CsrFloat&, const RowRefs<float, std::uint16_t>&, std::int64_t, std::int64_t,
                                 const RowPruner&, PrunedSpGEMMCounts*, std::int64_t);

}  // namespace Trident
