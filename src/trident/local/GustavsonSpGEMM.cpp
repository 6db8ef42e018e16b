// Host backend "gustavson": row-by-row Gustavson with a dense accumulator whose rows come out
// sorted (SortedRowAccumulator). Sorted rows are what Tpetra stores, so nothing downstream has to
// sort C again; on the products measured this beat KokkosKernels' serial kernel plus the sort the
// assembly then needed (see docs/benchmarks.md).
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <type_traits>

#include "trident/core/HugePages.hpp"
#include "trident/local/CsrView.hpp"
#include "trident/local/LocalSpGEMM.hpp"
#include "trident/local/RangeAccumulator.hpp"
#include "trident/local/SortedRowAccumulator.hpp"

namespace Trident {

std::int64_t LocalProgressHook::everyWork() {
  static const std::int64_t every = [] {
    const char* e = std::getenv("TRIDENT_PROGRESS_EVERY_WORK");
    const long long v = e ? std::atoll(e) : 0;
    return v > 0 ? static_cast<std::int64_t>(v) : kProgressEveryWork;
  }();
  return every;
}

namespace {
// The kernel's internals read either an owned block or a view of someone else's arrays.
inline const int* colData(const Csr& M) { return M.col.data(); }
inline const int* colData(const CsrView& M) { return M.col; }
inline const double* valData(const Csr& M) { return M.val.data(); }
inline const double* valData(const CsrView& M) { return M.val; }

// Hypersparse operands: a block of B can be far wider than the columns it uses (with the G x 1
// grid a tile is as wide as the matrix). The dense accumulator then runs over B's used columns,
// renumbered in ascending order: the renumbering is monotone, so rows still come out sorted, and
// the accumulator's memory is O(nnz(B)) instead of O(width).
struct CompressedColumns {
  bool on = false;
  std::vector<int> used;  // used[c'] = original column of compressed column c'
  std::vector<int> col;   // B's column indices, compressed
  // other_entries: what else the product's accumulator takes (the addends of multiplyAdd); when
  // they fill the width, compressing would only push the sum onto a slower path.
  template <class M>
  explicit CompressedColumns(const M& B, std::size_t other_entries = 0) {
    const std::size_t nz = static_cast<std::size_t>(B.nnz());
    if (static_cast<std::size_t>(B.ncols) <= 4 * (nz + other_entries) + 4096) return;
    on = true;
    used.assign(colData(B), colData(B) + nz);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    col.resize(nz);
    for (std::size_t q = 0; q < nz; ++q)
      col[q] = static_cast<int>(std::lower_bound(used.begin(), used.end(), B.col[q]) - used.begin());
  }
  template <class M>
  std::int64_t width(const M& B) const { return on ? static_cast<std::int64_t>(used.size()) : B.ncols; }
  template <class M>
  const int* columns(const M& B) const { return on ? col.data() : colData(B); }
  int compressed(int c) const {
    return on ? static_cast<int>(std::lower_bound(used.begin(), used.end(), c) - used.begin()) : c;
  }
};
}  // namespace

namespace {
// Where accumulateRows writes the rows' entries: vectors of its own, which finish() puts into the
// block, or a caller's sink, which keeps them (the block comes back with row offsets only).
// adopt() takes a block that was formed whole by another path (sumBlocks) the same way. room(at, n)
// makes room for a row's n entries at `at`, put() writes the next one: the vectors grow by
// push_back into reserved capacity, not by resize, which would zero every entry before it is
// written (memset was 5% of a rank's time on facebook's square at P = 4).
struct VectorOutput {
  std::vector<int> col;
  std::vector<double> val;
  void reserve(std::size_t n) {
    reserveHugePages(col, n);
    reserveHugePages(val, col.capacity());
  }
  void room(std::size_t at, std::size_t n) {
    if (at + n > col.capacity()) {
      col.reserve(std::max(2 * col.capacity(), at + n));
      val.reserve(col.capacity());
    }
  }
  void put(int c, double v) {
    col.push_back(c);
    val.push_back(v);
  }
  Csr finish(Csr&& rows) {
    rows.col = std::move(col);
    rows.val = std::move(val);
    return std::move(rows);
  }
  Csr adopt(Csr&& whole) { return std::move(whole); }
};
struct SinkOutput {
  BlockSink& sink;
  int* cp = nullptr;
  double* vp = nullptr;
  // The sink's arrays and capacity as of its last reserve: asking the sink (virtual calls) for
  // every row was 6% of the kernel on rows of a few entries.
  int* col0 = nullptr;
  double* val0 = nullptr;
  std::size_t cap = 0;
  void reserve(std::size_t n) {
    sink.reserve(n, 0);
    refresh();
  }
  void refresh() {
    col0 = sink.col();
    val0 = sink.val();
    cap = sink.capacity();
  }
  void room(std::size_t at, std::size_t n) {
    if (at + n > cap) {
      sink.reserve(std::max(2 * cap, at + n), at);
      refresh();
    }
    cp = col0 + at;
    vp = val0 + at;
  }
  void put(int c, double v) {
    *cp++ = c;
    *vp++ = v;
  }
  Csr finish(Csr&& rows) {
    sink.filled = true;
    sink.rows_sorted = true;
    return std::move(rows);
  }
  Csr adopt(Csr&& whole) { return LocalSpGEMM::moveIntoSink(std::move(whole), sink, true); }
};

// Whether every row's columns ascend. Two passes without a branch per row (a row-by-row loop of a
// few trips each was 8% of the kernel on very sparse B): count the descents between neighbouring
// entries, then take away those that straddle a row boundary (at the start of a non-empty row).
template <class M>
bool rowsSorted(const M& B, const int* bcol) {
  if (B.nrows == 0) return true;
  const std::int64_t first = B.rowptr[0], end = B.rowptr[B.nrows];  // a view's entries may not start at 0
  std::int64_t descents = 0;
  for (std::int64_t q = first + 1; q < end; ++q) descents += bcol[q - 1] > bcol[q];
  for (std::int64_t r = 1; r < B.nrows; ++r) {
    const std::int64_t q = B.rowptr[r];  // an empty row's start is the next row's: counted once
    descents -= q > first && q < B.rowptr[r + 1] && bcol[q - 1] > bcol[q];
  }
  return descents == 0;
}
bool rowsSorted(const StackedCsrView& B, const int*) {
  return rowsSorted(B.first, B.first.col) && rowsSorted(B.second, B.second.col);
}

// Row k of B: its columns (in the accumulator's numbering, bcol) and values.
struct RowSpan {
  const int* col;
  const double* val;
  std::int64_t n;
};
template <class M>
inline RowSpan rowOf(const M& B, const int* bcol, std::int64_t k) {
  const std::int64_t qb = B.rowptr[k];
  return {bcol + qb, valData(B) + qb, B.rowptr[k + 1] - qb};
}
inline RowSpan rowOf(const StackedCsrView& B, const int*, std::int64_t k) {
  const CsrView& part = B.part(k);
  const std::int64_t r = B.rowInPart(k);
  const std::int64_t qb = part.rowptr[r];
  return {part.col + qb, part.val + qb, part.rowptr[r + 1] - qb};
}
template <class M>
inline std::int64_t rowLength(const M& B, std::int64_t k) {
  return B.rowptr[k + 1] - B.rowptr[k];
}
inline std::int64_t rowLength(const StackedCsrView& B, std::int64_t k) { return rowOf(B, nullptr, k).n; }

// What the plain products pass as accumulateRows' addFirst: nothing goes in before A's row times
// B, which lets rows of one or two entries be merged instead of accumulated.
struct NothingFirst {
  template <class Acc>
  void operator()(std::int64_t, Acc&) const {}
};

// A's row r when it has one or two entries and B's rows are sorted: C's row is one row of B
// scaled, or two scaled rows merged, emitted in column order with no accumulator. On very sparse
// matrices (Pd: 85% of the rows have one or two entries) the accumulators' per-row costs (a
// column array as wide as B, marks to reset, a sort) were most of the kernel. A column in both
// rows is a0 * x + a1 * y, the sum an accumulator forms in the same order, so the same bits.
template <class MA, class MB, class Emit>
std::size_t mergeRow(const MA& A, const MB& B, const int* bcol, std::int64_t r, Emit&& emit) {
  const std::int64_t p = A.rowptr[r];
  const double a0 = A.val[p];
  const RowSpan x = rowOf(B, bcol, A.col[p]);
  if (A.rowptr[r + 1] - p == 1) {
    for (std::int64_t q = 0; q < x.n; ++q) emit(x.col[q], a0 * x.val[q]);
    return static_cast<std::size_t>(x.n);
  }
  const double a1 = A.val[p + 1];
  const RowSpan y = rowOf(B, bcol, A.col[p + 1]);
  std::int64_t i = 0, j = 0;
  std::size_t n = 0;
  for (; i < x.n && j < y.n; ++n) {
    const int cx = x.col[i], cy = y.col[j];
    if (cx < cy) {
      emit(cx, a0 * x.val[i++]);
    } else if (cy < cx) {
      emit(cy, a1 * y.val[j++]);
    } else {
      emit(cx, a0 * x.val[i++] + a1 * y.val[j++]);
    }
  }
  for (; i < x.n; ++i, ++n) emit(x.col[i], a0 * x.val[i]);
  for (; j < y.n; ++j, ++n) emit(y.col[j], a1 * y.val[j]);
  return n;
}

// A's row r times B into acc, after addFirst(r, acc) has put its entries in. With sorted rows of B
// the dense accumulator's column range is taken once per row of B.
template <class MA, class MB, class Acc, class AddFirst>
void addRow(const MA& A, const MB& B, const int* bcol, bool bSorted, std::int64_t r, Acc& acc, AddFirst&& addFirst) {
  addFirst(r, acc);
  for (std::int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p) {
    const double a = A.val[p];
    const RowSpan b = rowOf(B, bcol, A.col[p]);
    if constexpr (std::is_same<Acc, RangeAccumulator>::value) {
      if (bSorted) {
        if (b.n != 0) acc.span(b.col[0], b.col[b.n - 1]);
        for (std::int64_t q = 0; q < b.n; ++q) acc.addInRange(b.col[q], a * b.val[q]);
        continue;
      }
    }
    for (std::int64_t q = 0; q < b.n; ++q) acc.add(b.col[q], a * b.val[q]);
  }
}

// The row loop of both products: for each row of A, addFirst(r, acc) may put entries into the
// accumulator, then A's row times B is added, and the row is written in column order with
// value(c, v) as its values. bcol: B's column indices in the accumulator's numbering. rowWork(r):
// the row's multiply-adds plus what addFirst adds, computed once: it picks the row's accumulator
// and is what the progress ticker counts.
//
// The multiply-adds (+ what addFirst adds) bound nnz(C) from above, so reserving that much means
// the arrays are never reallocated (growing by doubling copied and page-faulted each entry about
// three times: half the local phase on as-caida at P = 1). Capacity that is never written costs
// address space only, not memory. Past kReserveLimit entries it falls back to doubling; an exact
// symbolic pass would read A and B twice, which costs more on the sparse products this targets.
template <class MA, class MB, class Output, class AddFirst, class RowWork, class Value>
Csr accumulateRows(const MA& A, const MB& B, const int* bcol, std::int64_t width, std::uint64_t bound, Output&& out,
                   AddFirst&& addFirst, RowWork&& rowWork, Value&& value) {
  constexpr std::uint64_t kReserveLimit = std::uint64_t{1} << 28;
  Csr C(A.nrows, B.ncols);
  // Each row goes to the accumulator that suits its density; their sums are bit-identical, so
  // the choice never shows in C.
  SortedRowAccumulator sparse(width);
  RangeAccumulator dense(width);
  const bool bSorted = rowsSorted(B, bcol);
  out.reserve(static_cast<std::size_t>(std::min(bound, kReserveLimit)));
  ProgressTicker ticker;
  std::size_t at = 0;
  auto emit = [&out, &value](int c, double v) { out.put(c, value(c, v)); };
  auto accumulate = [&](std::int64_t r, std::int64_t work, auto& acc) {
    addRow(A, B, bcol, bSorted, r, acc, addFirst);
    out.room(at, acc.atMost(work));
    return acc.flush(emit);
  };
  constexpr bool kPlain = std::is_same<std::decay_t<AddFirst>, NothingFirst>::value;
  const bool merges = kPlain && bSorted;
  auto merge = [&](std::int64_t r, std::int64_t work) {
    out.room(at, static_cast<std::size_t>(work));
    return mergeRow(A, B, bcol, r, emit);
  };
  for (std::int64_t r = 0; r < A.nrows; ++r) {
    const std::int64_t work = rowWork(r);
    const std::int64_t len = A.rowptr[r + 1] - A.rowptr[r];
    const std::size_t n = merges && (len == 1 || len == 2) ? merge(r, work)
                          : RangeAccumulator::pays(work, width) ? accumulate(r, work, dense)
                                                                : accumulate(r, work, sparse);
    ticker.tick(work);
    at += n;
    C.rowptr[r + 1] = static_cast<std::int64_t>(at);
  }
  return out.finish(std::move(C));
}

// A's row r's multiply-adds with B.
template <class MA, class MB>
struct RowFlops {
  const MA& A;
  const MB& B;
  std::int64_t operator()(std::int64_t r) const {
    std::int64_t w = 0;
    for (std::int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p) w += rowLength(B, A.col[p]);
    return w;
  }
};
template <class MA, class MB>
RowFlops(const MA&, const MB&) -> RowFlops<MA, MB>;
}  // namespace

Csr gustavsonMultiply(const Csr& A, const Csr& B) {
  if (A.ncols != B.nrows) throw std::invalid_argument("gustavson SpGEMM: A.ncols != B.nrows");
  if (A.nnz() == 0 || B.nnz() == 0) return Csr(A.nrows, B.ncols);
  const CompressedColumns cc(B);
  Csr C = accumulateRows(
      A, B, cc.columns(B), cc.width(B), multiplyFlops(A, B), VectorOutput{},
      NothingFirst{}, RowFlops{A, B}, [](int, double v) { return v; });
  if (cc.on)
    for (int& c : C.col) c = cc.used[c];
  return C;
}

namespace {
// gustavsonMultiplyAdd's body, writing through `out` (VectorOutput or SinkOutput).
// A0/B0 (both or neither): a deferred product, summed after the addends (LocalSpGEMM::multiplyAddDeferred).
template <class Output>
Csr multiplyAddWith(const Csr& A, const Csr& B, std::vector<Csr>&& addends, Output&& out, const Csr* A0 = nullptr,
                    const Csr* B0 = nullptr) {
  if (A.ncols != B.nrows) throw std::invalid_argument("gustavson SpGEMM: A.ncols != B.nrows");
  if (A0 && (A0->ncols != B0->nrows || A0->nrows != A.nrows || B0->ncols != B.ncols))
    throw std::invalid_argument("gustavson SpGEMM: the deferred product's shape differs from the product's");
  std::uint64_t addendEntries = 0;
  for (const Csr& p : addends) {
    if (p.nrows != 0 && (p.nrows != A.nrows || p.ncols != B.ncols))
      throw std::invalid_argument("gustavson SpGEMM: an addend's shape differs from the product's");
    addendEntries += static_cast<std::uint64_t>(p.nnz());
  }
  // The accumulator spans B's width unless B and the addends together are hypersparse in it: a
  // nearly empty last round (a band of B with few entries) then still writes C once, in place,
  // instead of forming its product apart, merging the blocks and copying the sum into the sink
  // (three passes over C, each page-faulting fresh memory: 3x the kernel's time on cit-HepTh's
  // square at P = 4, the ranks whose last tile of B had few entries).
  const CompressedColumns cc(B, static_cast<std::size_t>(addendEntries) +
                                    (A0 ? static_cast<std::size_t>(B0->nnz()) : std::size_t{0}));
  // Hypersparse B: its accumulator's numbering is not the deferred product's; form it apart.
  if (A0 && cc.on) {
    addends.push_back(gustavsonMultiply(*A0, *B0));
    addendEntries += static_cast<std::uint64_t>(addends.back().nnz());
    A0 = B0 = nullptr;
  }
  std::uint64_t bound = multiplyFlops(A, B) + addendEntries;
  // Hypersparse B: the addends' columns are not in B's compressed numbering; sum apart.
  if (cc.on) {
    addends.push_back(gustavsonMultiply(A, B));
    return out.adopt(sumBlocks(std::move(addends), A.nrows, B.ncols, true));
  }
  std::vector<const Csr*> live;
  for (const Csr& p : addends)
    if (p.nrows != 0 && p.nnz() != 0) live.push_back(&p);
  // The product's terms and the addends are summed apart and added at the end, in the order the
  // plan's numeric re-execution sums rounds (earlier rounds first, then this round's sum), so a
  // re-executed plan gives bit-identical values.
  std::vector<double> earlier(static_cast<std::size_t>(B.ncols), 0.0);
  // The deferred product's terms in a dense row of their own, summed from 0 in the order
  // gustavsonMultiply and numericMultiplyInto sum them: the same bits as its block's entry.
  std::vector<double> deferred(A0 ? static_cast<std::size_t>(B.ncols) : 0, 0.0);
  if (A0) bound += multiplyFlops(*A0, *B0);
  auto addEarlier = [&](std::int64_t r, auto& acc) {
    for (const Csr* p : live)
      for (std::int64_t q = p->rowptr[r]; q < p->rowptr[r + 1]; ++q) {
        earlier[p->col[q]] += p->val[q];
        acc.add(p->col[q], 0.0);
      }
    if (!A0) return;
    for (std::int64_t p = A0->rowptr[r]; p < A0->rowptr[r + 1]; ++p) {
      const double a = A0->val[p];
      const int k = A0->col[p];
      for (std::int64_t q = B0->rowptr[k]; q < B0->rowptr[k + 1]; ++q) {
        deferred[B0->col[q]] += a * B0->val[q];
        acc.add(B0->col[q], 0.0);
      }
    }
  };
  const RowFlops flops{A, B};
  auto rowWork = [&](std::int64_t r) {
    std::int64_t w = flops(r);
    for (const Csr* p : live) w += p->rowptr[r + 1] - p->rowptr[r];
    if (A0) w += RowFlops{*A0, *B0}(r);
    return w;
  };
  auto withEarlier = [&earlier](int c, double v) {
    const double sum = earlier[c] + v;
    earlier[c] = 0.0;
    return sum;
  };
  auto withDeferred = [&earlier, &deferred](int c, double v) {
    const double sum = (earlier[c] + deferred[c]) + v;
    earlier[c] = 0.0;
    deferred[c] = 0.0;
    return sum;
  };
  if (A0) return accumulateRows(A, B, B.col.data(), B.ncols, bound, out, addEarlier, rowWork, withDeferred);
  return accumulateRows(A, B, B.col.data(), B.ncols, bound, out, addEarlier, rowWork, withEarlier);
}
}  // namespace

Csr gustavsonMultiplyInto(const CsrView& A, const CsrView& B, BlockSink& sink) {
  return gustavsonMultiplyInto(A, B, sink, multiplyFlops(A, B));
}

Csr gustavsonMultiplyInto(const CsrView& A, const CsrView& B, BlockSink& sink, std::uint64_t flops) {
  if (A.ncols != B.nrows) throw std::invalid_argument("gustavson SpGEMM: A.ncols != B.nrows");
  const CompressedColumns cc(B);
  Csr C = accumulateRows(
      A, B, cc.columns(B), cc.width(B), flops, SinkOutput{sink},
      NothingFirst{}, RowFlops{A, B}, [](int, double v) { return v; });
  if (cc.on) {
    int* col = sink.col();
    for (std::int64_t q = 0; q < C.nnz(); ++q) col[q] = cc.used[col[q]];
  }
  return C;
}

Csr gustavsonMultiplyInto(const CsrView& A, const StackedCsrView& B, BlockSink& sink, std::uint64_t flops) {
  if (A.ncols != B.nrows()) throw std::invalid_argument("gustavson SpGEMM: A.ncols != B.nrows");
  return accumulateRows(
      A, B, nullptr, B.ncols, flops, SinkOutput{sink},
      NothingFirst{}, RowFlops{A, B}, [](int, double v) { return v; });
}

namespace {
template <class MB>
std::uint64_t flopsOf(const CsrView& A, const MB& B) {
  std::uint64_t f = 0;
  for (std::int64_t p = 0; p < A.nnz(); ++p) f += static_cast<std::uint64_t>(rowLength(B, A.col[p]));
  return f;
}
}  // namespace

std::uint64_t multiplyFlops(const CsrView& A, const StackedCsrView& B) { return flopsOf(A, B); }
std::uint64_t multiplyFlops(const CsrView& A, const CsrView& B) { return flopsOf(A, B); }

namespace {
template <class MB>
std::vector<std::uint64_t> flopsPerRowOf(const CsrView& A, const MB& B) {
  const RowFlops rowFlops{A, B};
  std::vector<std::uint64_t> f(static_cast<std::size_t>(A.nrows));
  for (std::int64_t r = 0; r < A.nrows; ++r) f[static_cast<std::size_t>(r)] = static_cast<std::uint64_t>(rowFlops(r));
  return f;
}
}  // namespace

std::vector<std::uint64_t> multiplyFlopsPerRow(const CsrView& A, const CsrView& B) { return flopsPerRowOf(A, B); }
std::vector<std::uint64_t> multiplyFlopsPerRow(const CsrView& A, const StackedCsrView& B) { return flopsPerRowOf(A, B); }

Csr gustavsonMultiplyAdd(const Csr& A, const Csr& B, std::vector<Csr>&& addends) {
  return multiplyAddWith(A, B, std::move(addends), VectorOutput{});
}

Csr gustavsonMultiplyAddInto(const Csr& A, const Csr& B, std::vector<Csr>&& addends, BlockSink& sink) {
  return multiplyAddWith(A, B, std::move(addends), SinkOutput{sink});
}

Csr gustavsonMultiplyAddDeferred(const Csr& A0, const Csr& B0, const Csr& A, const Csr& B, std::vector<Csr>&& addends,
                                 BlockSink* sink) {
  if (sink) return multiplyAddWith(A, B, std::move(addends), SinkOutput{*sink}, &A0, &B0);
  return multiplyAddWith(A, B, std::move(addends), VectorOutput{}, &A0, &B0);
}

Csr LocalSpGEMM::moveIntoSink(Csr&& C, BlockSink& sink, bool rows_sorted) {
  const std::size_t n = static_cast<std::size_t>(C.nnz());
  sink.reserve(n, 0);
  std::copy(C.col.begin(), C.col.begin() + static_cast<std::ptrdiff_t>(n), sink.col());
  std::copy(C.val.begin(), C.val.begin() + static_cast<std::ptrdiff_t>(n), sink.val());
  sink.filled = true;
  sink.rows_sorted = rows_sorted;
  C.col = std::vector<int>();
  C.val = std::vector<double>();
  return std::move(C);
}

void numericMultiplyInto(const Csr& A, const Csr& B, const Csr& pattern, double* values, const int* cols,
                         std::vector<double>& dense, bool assign) {
  if (A.ncols != B.nrows || pattern.nrows != A.nrows || pattern.ncols != B.ncols)
    throw std::invalid_argument("numericMultiplyInto: shapes do not match");
  if (!cols) cols = pattern.col.data();
  const CompressedColumns cc(B);
  const int* bcol = cc.columns(B);
  dense.assign(static_cast<std::size_t>(cc.width(B)), 0.0);
  // With B's columns compressed, each pattern entry's slot in dense: a table over B's columns
  // where it costs no more than the pattern's entries (a binary search per entry was 70 % of a
  // re-execute on cit-HepTh's square at P = 4, slower than the fresh multiply), else the search.
  std::vector<int> slot;
  const auto patternNnz = static_cast<std::int64_t>(pattern.col.size());
  if (cc.on && B.ncols <= 4 * patternNnz + 4096) {
    slot.assign(static_cast<std::size_t>(B.ncols), -1);
    for (std::size_t c = 0; c < cc.used.size(); ++c) slot[static_cast<std::size_t>(cc.used[c])] = static_cast<int>(c);
  }
  // A row's pattern entries take their sums out of dense; slotOf maps a pattern column to its
  // place there, or to -1 where no entry of this B uses it (another round's). With assign they are
  // written as 0.0 + x (the bits of adding into zeros, a -0.0 included) and those without a slot
  // become 0. One loop, instantiated per look-up.
  auto gather = [&](std::int64_t q0, std::int64_t q1, auto slotOf) {
    for (std::int64_t q = q0; q < q1; ++q) {
      const int c = slotOf(cols[q]);
      if (c < 0) {
        if (assign) values[q] = 0.0;
        continue;
      }
      values[q] = (assign ? 0.0 : values[q]) + dense[c];
      dense[c] = 0.0;
    }
  };
  ProgressTicker ticker;
  for (std::int64_t r = 0; r < A.nrows; ++r) {
    std::int64_t work = 0;
    for (std::int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p) {
      const double a = A.val[p];
      const int k = A.col[p];
      work += B.rowptr[k + 1] - B.rowptr[k];
      for (std::int64_t q = B.rowptr[k]; q < B.rowptr[k + 1]; ++q) dense[bcol[q]] += a * B.val[q];
    }
    const std::int64_t q0 = pattern.rowptr[r], q1 = pattern.rowptr[r + 1];
    // A row this round adds nothing to (another round's rows of B) keeps its values (assign: 0).
    if (work == 0) {
      if (assign) std::fill(values + q0, values + q1, 0.0);
      continue;
    }
    ticker.tick(work);
    if (!cc.on) {
      gather(q0, q1, [](int c) { return c; });
    } else if (!slot.empty()) {
      gather(q0, q1, [&slot](int c) { return slot[static_cast<std::size_t>(c)]; });
    } else {
      gather(q0, q1, [&cc](int c) {
        const int k = cc.compressed(c);
        return k < static_cast<int>(cc.used.size()) && cc.used[k] == c ? k : -1;
      });
    }
  }
}

void numericMultiplyInto(const Csr& A, const Csr& B, Csr& C, std::vector<double>& dense) {
  if (C.val.size() != C.col.size()) throw std::invalid_argument("numericMultiplyInto: shapes do not match");
  numericMultiplyInto(A, B, C, C.val.data(), nullptr, dense, false);
}

void LocalSpGEMM::numeric(const Csr& A, const Csr& B, KernelHandle& h, double* values, const int* cols, bool assign) {
  numericMultiplyInto(A, B, h.pattern, values, cols, h.scratch, assign);
}

namespace {
class GustavsonKernel final : public LocalSpGEMM {
 public:
  std::string name() const override { return "gustavson"; }
  bool sortsRows() const override { return true; }
  Csr multiply(const Csr& A, const Csr& B) override { return gustavsonMultiply(A, B); }
  Csr multiplyAdd(const Csr& A, const Csr& B, std::vector<Csr>&& addends) override {
    return gustavsonMultiplyAdd(A, B, std::move(addends));
  }
  Csr multiplyAddInto(const Csr& A, const Csr& B, std::vector<Csr>&& addends, BlockSink& sink) override {
    return gustavsonMultiplyAddInto(A, B, std::move(addends), sink);
  }
  bool fusesDeferred() const override { return true; }
  Csr multiplyAddDeferred(const Csr& A0, const Csr& B0, const Csr& A, const Csr& B,
                          std::vector<Csr>&& addends) override {
    return gustavsonMultiplyAddDeferred(A0, B0, A, B, std::move(addends), nullptr);
  }
  Csr multiplyAddDeferredInto(const Csr& A0, const Csr& B0, const Csr& A, const Csr& B, std::vector<Csr>&& addends,
                              BlockSink& sink) override {
    return gustavsonMultiplyAddDeferred(A0, B0, A, B, std::move(addends), &sink);
  }
};
}  // namespace

// Listed in src/CMakeLists.txt (TRIDENT_LOCAL_KERNEL_REGISTRARS), first: the default kernel.
void registerGustavsonKernel() {
  registerLocalKernel({"gustavson", [] { return true; }, [] { return std::make_unique<GustavsonKernel>(); }});
}

}  // namespace Trident
