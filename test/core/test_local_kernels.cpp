// Every local kernel against the reference Gustavson, and the accumulation of partial products,
// on random blocks (empty rows, empty operands, cancellation to exact zeros).
#include <Tpetra_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <tuple>

#include "common/TestUtils.hpp"
#include <trident/device/MemorySpace.hpp>
#include <trident/local/CsrView.hpp>
#include <trident/local/LocalSpGEMM.hpp>
#include <trident/local/RangeAccumulator.hpp>
#include <trident/local/SortedRowAccumulator.hpp>

using namespace TridentTest;
using Trident::Csr;

namespace {
// A BlockSink over plain vectors, as the Tpetra adapter's FinalArraysSink is over Kokkos views.
class VectorSink final : public Trident::BlockSink {
 public:
  void reserve(std::size_t capacity, std::size_t keep) override {
    if (capacity <= col_.size()) return;
    std::vector<int> c(capacity);
    std::vector<double> v(capacity);
    std::copy(col_.begin(), col_.begin() + static_cast<std::ptrdiff_t>(keep), c.begin());
    std::copy(val_.begin(), val_.begin() + static_cast<std::ptrdiff_t>(keep), v.begin());
    col_.swap(c);
    val_.swap(v);
  }
  std::size_t capacity() const override { return col_.size(); }
  int* col() override { return col_.data(); }
  double* val() override { return val_.data(); }

 private:
  std::vector<int> col_;
  std::vector<double> val_;
};

Csr randomCsr(std::int64_t rows, std::int64_t cols, double density, std::mt19937_64& rng, bool ints) {
  std::vector<std::int64_t> r;
  std::vector<int> c;
  std::vector<double> v;
  std::uniform_real_distribution<double> u(0, 1);
  for (std::int64_t i = 0; i < rows; ++i) {
    if (u(rng) < 0.15) continue;  // empty rows
    for (std::int64_t j = 0; j < cols; ++j)
      if (u(rng) < density) {
        r.push_back(i);
        c.push_back(static_cast<int>(j));
        // Small integers make exact cancellation (explicit zeros in the product) likely.
        v.push_back(ints ? static_cast<double>(static_cast<int>(u(rng) * 5) - 2) : u(rng) - 0.5);
      }
  }
  return Trident::csrFromTriplets(rows, cols, r, c, v);
}

bool same(const Csr& a, Csr b, std::string& why) {
  b.sortRows();
  if (a.nrows != b.nrows || a.ncols != b.ncols) { why = "shape"; return false; }
  if (a.rowptr != b.rowptr) { why = "row structure"; return false; }
  if (a.col != b.col) { why = "column structure"; return false; }
  for (std::size_t t = 0; t < a.val.size(); ++t)
    if (std::abs(a.val[t] - b.val[t]) > 1e-12 * std::max(1.0, std::abs(a.val[t]))) { why = "values"; return false; }
  return true;
}

// A * B with each entry the first product stored and the later ones added in the order A's and
// B's entries come: the sums the Gustavson kernel promises bit for bit (referenceMultiply adds
// into 0.0, which turns -0.0 into +0.0).
Csr inOrderProduct(const Csr& A, const Csr& B) {
  std::vector<std::int64_t> r;
  std::vector<int> c;
  std::vector<double> v;
  for (std::int64_t i = 0; i < A.nrows; ++i) {
    std::map<int, double> row;
    for (std::int64_t p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p)
      for (std::int64_t q = B.rowptr[A.col[p]]; q < B.rowptr[A.col[p] + 1]; ++q) {
        const double x = A.val[p] * B.val[q];
        auto [it, fresh] = row.emplace(B.col[q], x);
        if (!fresh) it->second += x;
      }
    for (const auto& [col, val] : row) {
      r.push_back(i);
      c.push_back(col);
      v.push_back(val);
    }
  }
  Csr C(A.nrows, B.ncols);
  for (std::size_t t = 0; t < r.size(); ++t) {
    C.col.push_back(c[t]);
    C.val.push_back(v[t]);
    ++C.rowptr[static_cast<std::size_t>(r[t]) + 1];
  }
  for (std::int64_t i = 0; i < A.nrows; ++i) C.rowptr[i + 1] += C.rowptr[i];
  return C;
}

// Rows of 0-3 entries at distinct random columns, values that make signed zeros and exact
// cancellation likely (0, -0, +-1, +-0.5, +-3).
Csr shortRows(std::int64_t rows, std::int64_t cols, int maxLen, std::mt19937_64& rng) {
  const double values[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 3.0, -3.0};
  Csr M(rows, cols);
  for (std::int64_t i = 0; i < rows; ++i) {
    std::vector<int> picked;
    const int len = static_cast<int>(rng() % static_cast<unsigned>(maxLen + 1));
    while (static_cast<int>(picked.size()) < len && static_cast<std::int64_t>(picked.size()) < cols) {
      const int c = static_cast<int>(rng() % static_cast<std::uint64_t>(cols));
      if (std::find(picked.begin(), picked.end(), c) == picked.end()) picked.push_back(c);
    }
    std::sort(picked.begin(), picked.end());
    for (int c : picked) {
      M.col.push_back(c);
      M.val.push_back(values[rng() % 8]);
    }
    M.rowptr[i + 1] = static_cast<std::int64_t>(M.col.size());
  }
  return M;
}

bool sameBits(const Csr& a, const Csr& b) {
  return a.nrows == b.nrows && a.rowptr == b.rowptr && a.col == b.col && a.val.size() == b.val.size() &&
         std::memcmp(a.val.data(), b.val.data(), a.val.size() * sizeof(double)) == 0;
}

// Rows of A with one or two entries are B's row scaled, or two scaled rows merged, without an
// accumulator, when B's rows are sorted; the same bits as accumulating them, signed zeros
// included. Also with a row of B out of order (no merging), with B hypersparse (compressed
// columns) and written into a sink.
void checkShortRows(Tally& tally, std::mt19937_64& rng) {
  for (const auto& [k, n, unsortedRow] : {std::tuple<int, int, bool>{60, 90, false}, {60, 90, true}, {40, 300000, false}}) {
    const Csr A = shortRows(400, k, 3, rng);
    Csr B = shortRows(k, n, 6, rng);
    if (unsortedRow)
      for (std::int64_t r = 0; r < B.nrows; ++r)
        if (B.rowptr[r + 1] - B.rowptr[r] >= 3) {
          std::reverse(B.col.begin() + B.rowptr[r], B.col.begin() + B.rowptr[r + 1]);
          std::reverse(B.val.begin() + B.rowptr[r], B.val.begin() + B.rowptr[r + 1]);
          break;
        }
    const Csr expected = inOrderProduct(A, B);
    Csr C = Trident::gustavsonMultiply(A, B);
    if (unsortedRow) C.sortRows();
    VectorSink sink;
    Csr viaSink = Trident::gustavsonMultiplyInto(Trident::CsrView::of(A), Trident::CsrView::of(B), sink);
    viaSink.col.assign(sink.col(), sink.col() + viaSink.nnz());
    viaSink.val.assign(sink.val(), sink.val() + viaSink.nnz());
    if (unsortedRow) viaSink.sortRows();
    const std::string shape = std::to_string(k) + " x " + std::to_string(n) + (unsortedRow ? ", a row of B unsorted" : "");
    tally.check(sameBits(expected, C), "short rows of A (" + shape + "): gustavsonMultiply = in-order sums, bit for bit");
    tally.check(sameBits(expected, viaSink), "short rows of A (" + shape + "): gustavsonMultiplyInto = in-order sums, bit for bit");
  }
}

// The "cusparse" kernel (CUDA builds) needs a GPU: without one it is skipped, saying why.
std::unique_ptr<Trident::LocalSpGEMM> makeOrSkip(const std::string& name) {
  try {
    return Trident::makeLocalSpGEMM(name);
  } catch (const Trident::DeviceUnavailable& e) {
    if (rank() == 0) std::cout << "SKIP " << name << ": " << e.what() << std::endl;
    return nullptr;
  }
}

void checkKernelsAgainstReference(Tally& tally, std::mt19937_64& rng) {
  struct Shape { std::int64_t m, k, n; double d; };
  const Shape shapes[] = {{0, 0, 0, 0.1}, {5, 0, 7, 0.1}, {10, 10, 10, 0.0}, {1, 50, 1, 0.3},
                          {40, 30, 50, 0.05}, {100, 80, 120, 0.03}, {300, 200, 10, 0.02}, {64, 64, 64, 0.2},
                          // wide: rows long enough for the bitmap sweep over several summary words
                          {50, 40, 10000, 0.05}, {20, 300, 70000, 0.004},
                          // hypersparse: far wider than their entries (compressed accumulator)
                          {30, 200, 300000, 0.00002}, {200, 40, 1000000, 0.000004}};
  for (const std::string& name : Trident::localKernelNames()) {
    if (name == "reference") continue;
    auto kernel = makeOrSkip(name);
    if (!kernel) continue;
    int n = 0;
    for (const Shape& s : shapes)
      for (bool ints : {false, true}) {
        Csr A = randomCsr(s.m, s.k, s.d, rng, ints), B = randomCsr(s.k, s.n, s.d, rng, ints);
        Csr ref = Trident::referenceMultiply(A, B);
        std::string why;
        Csr C = kernel->multiply(A, B);
        bool sorted = true;
        for (std::int64_t r = 0; r < C.nrows && kernel->sortsRows(); ++r)
          sorted = sorted && std::is_sorted(C.col.begin() + C.rowptr[r], C.col.begin() + C.rowptr[r + 1]);
        tally.check(sorted, name + " rows sorted as it promises, case " + std::to_string(n));
        tally.check(same(ref, std::move(C), why), name + " == reference, case " + std::to_string(n++), why);
        // A plan's numeric-only kernel: values into the known pattern, twice (it accumulates).
        Csr P = ref;
        std::fill(P.val.begin(), P.val.end(), 0.0);
        std::vector<double> dense;
        Trident::numericMultiplyInto(A, B, P, dense);
        Trident::numericMultiplyInto(A, B, P, dense);
        Csr twice = ref;
        for (double& v : twice.val) v *= 2;
        tally.check(same(twice, P, why), "numericMultiplyInto == 2 x reference, case " + std::to_string(n), why);
      }
  }
}

// The numeric step as a kept plan runs it into C's final arrays: each row's values in another
// order than the pattern's (cols), the first round written over whatever the array held (assign),
// later rounds added. Rows the first round does not reach must come out 0. Shapes: a plain
// accumulator, a hypersparse B whose compressed columns are found by table (its columns at most
// 4x the pattern's entries + 4096) and one where they are found by binary search.
void checkNumericIntoFinalArrays(Tally& tally, std::mt19937_64& rng) {
  struct Case { std::int64_t m, k, n; double da, db; };
  const Case cases[] = {{40, 30, 50, 0.1, 0.1}, {200, 10, 20000, 0.5, 0.0002}, {30, 200, 300000, 0.05, 0.00002}};
  int n = 0;
  for (const Case& c : cases) {
    Csr A = randomCsr(c.m, c.k, c.da, rng, false), B = randomCsr(c.k, c.n, c.db, rng, false);
    Csr A2 = randomCsr(c.m, c.k, c.da, rng, false);
    // The first round reaches only even rows of A.
    Csr Aeven = A;
    {
      std::vector<int> col;
      std::vector<double> val;
      std::vector<std::int64_t> ptr(1, 0);
      for (std::int64_t r = 0; r < A.nrows; ++r) {
        if (r % 2 == 0)
          for (std::int64_t q = A.rowptr[r]; q < A.rowptr[r + 1]; ++q) {
            col.push_back(A.col[q]);
            val.push_back(A.val[q]);
          }
        ptr.push_back(static_cast<std::int64_t>(col.size()));
      }
      Aeven.rowptr = ptr;
      Aeven.col = col;
      Aeven.val = val;
    }
    // The pattern holds both rounds' products; the sum is the reference of Aeven*B + A2*B.
    Csr first = Trident::referenceMultiply(Aeven, B), second = Trident::referenceMultiply(A2, B);
    std::vector<Csr> both{first, second};
    Csr sum = Trident::sumBlocks(std::move(both), c.m, c.n, true);
    // cols: each row's pattern columns reversed; values laid out in that order.
    std::vector<int> cols(sum.col.size());
    for (std::int64_t r = 0; r < sum.nrows; ++r)
      std::reverse_copy(sum.col.begin() + sum.rowptr[r], sum.col.begin() + sum.rowptr[r + 1], cols.begin() + sum.rowptr[r]);
    std::vector<double> values(sum.col.size(), 12345.0), dense;  // stale values
    Trident::numericMultiplyInto(Aeven, B, sum, values.data(), cols.data(), dense, true);
    Trident::numericMultiplyInto(A2, B, sum, values.data(), cols.data(), dense, false);
    Csr got = sum;
    for (std::int64_t r = 0; r < sum.nrows; ++r)
      std::reverse_copy(values.begin() + sum.rowptr[r], values.begin() + sum.rowptr[r + 1], got.val.begin() + sum.rowptr[r]);
    std::string why;
    tally.check(same(sum, got, why), "numericMultiplyInto, reordered columns, first round assigned == reference, case " +
                std::to_string(n++), why);
  }
}

// Accumulation: sum of K products = product of the concatenated inner dimension.
// (K = 7, 9: hypersparse blocks, 200000 columns, so sumBlocks accumulates over used columns.)
void checkAccumulation(Tally& tally, std::mt19937_64& rng) {
  for (int K : {1, 2, 3, 5, 7, 9}) {
    const bool hyper = K > 5;
    const std::int64_t m = 60, n = hyper ? 200000 : 70, kb = 25;
    const double db = hyper ? 0.0001 : 0.08;
    std::vector<Csr> As, Bs, parts;
    for (int s = 0; s < K; ++s) {
      As.push_back(randomCsr(m, kb, 0.08, rng, true));
      Bs.push_back(randomCsr(kb, n, db, rng, true));
      parts.push_back(Trident::referenceMultiply(As.back(), Bs.back()));
    }
    // The same product with the inner blocks side by side.
    std::vector<std::int64_t> r;
    std::vector<int> c;
    std::vector<double> v;
    std::vector<std::int64_t> br;
    std::vector<int> bc;
    std::vector<double> bv;
    for (int s = 0; s < K; ++s) {
      for (std::int64_t i = 0; i < m; ++i)
        for (std::int64_t q = As[s].rowptr[i]; q < As[s].rowptr[i + 1]; ++q) {
          r.push_back(i);
          c.push_back(As[s].col[q] + static_cast<int>(s * kb));
          v.push_back(As[s].val[q]);
        }
      for (std::int64_t i = 0; i < kb; ++i)
        for (std::int64_t q = Bs[s].rowptr[i]; q < Bs[s].rowptr[i + 1]; ++q) {
          br.push_back(i + s * kb);
          bc.push_back(Bs[s].col[q]);
          bv.push_back(Bs[s].val[q]);
        }
    }
    Csr Aall = Trident::csrFromTriplets(m, K * kb, r, c, v), Ball = Trident::csrFromTriplets(K * kb, n, br, bc, bv);
    std::string why;
    // Sorted parts take the linear merge (up to 8 of them), unsorted ones the accumulator; an
    // empty part (a round with nothing to multiply) must not matter to either.
    parts.push_back(Csr());
    // The last round's multiply adding the earlier rounds' products in its accumulator.
    for (const std::string& name : Trident::localKernelNames()) {
      auto kernel = makeOrSkip(name);
      if (!kernel) continue;
      std::vector<Csr> earlier(parts.begin(), parts.begin() + (K - 1));
      Csr fused = kernel->multiplyAdd(As.back(), Bs.back(), std::move(earlier));
      if (!kernel->sortsRows()) fused.sortRows();
      tally.check(same(Trident::referenceMultiply(Aall, Ball), fused, why),
                  name + " multiplyAdd of " + std::to_string(K) + " rounds", why);
      // The same with the entries written into a caller's arrays (BlockSink): bit-identical.
      VectorSink sink;
      Csr rows = kernel->multiplyAddInto(As.back(), Bs.back(), std::vector<Csr>(parts.begin(), parts.begin() + (K - 1)),
                                         sink);
      bool ok = sink.filled && rows.col.empty() && rows.val.empty() && rows.nrows == m && rows.ncols == n;
      Csr joined = rows;
      joined.col.assign(sink.col(), sink.col() + rows.nnz());
      joined.val.assign(sink.val(), sink.val() + rows.nnz());
      if (!kernel->sortsRows()) joined.sortRows();
      Csr plain = kernel->multiplyAdd(As.back(), Bs.back(), std::vector<Csr>(parts.begin(), parts.begin() + (K - 1)));
      if (!kernel->sortsRows()) plain.sortRows();
      ok = ok && joined.rowptr == plain.rowptr && joined.col == plain.col && joined.val == plain.val;
      tally.check(ok, name + " multiplyAddInto a sink of " + std::to_string(K) + " rounds = multiplyAdd, bit for bit");
    }
    for (bool sorted : {false, true})
      tally.check(same(Trident::referenceMultiply(Aall, Ball), Trident::sumBlocks(std::vector<Trident::Csr>(parts), m, n, sorted), why),
                  "sumBlocks of " + std::to_string(K) + " partial products" + (sorted ? " (sorted)" : ""), why);
  }
}

// The round before the last deferred into the last one's accumulator (RoundAccumulator): the
// same bits as forming it as the last addend, with and without a sink. Non-integer values, so
// that a different summation order shows.
void checkDeferredRound(Tally& tally, std::mt19937_64& rng) {
  for (int K : {2, 3, 4}) {
    std::vector<Csr> As, Bs;
    for (int s = 0; s < K; ++s) {
      As.push_back(randomCsr(60, 25, 0.3, rng, false));
      Bs.push_back(randomCsr(25, 70, 0.3, rng, false));
    }
    for (const std::string& name : Trident::localKernelNames()) {
      auto kernel = makeOrSkip(name);
      if (!kernel) continue;
      std::vector<Csr> before;
      for (int s = 0; s + 2 < K; ++s) before.push_back(kernel->multiply(As[s], Bs[s]));
      std::vector<Csr> formed = before;
      formed.push_back(kernel->multiply(As[K - 2], Bs[K - 2]));
      Csr plain = kernel->multiplyAdd(As.back(), Bs.back(), std::move(formed));
      Csr deferred = kernel->multiplyAddDeferred(As[K - 2], Bs[K - 2], As.back(), Bs.back(), std::vector<Csr>(before));
      VectorSink sink;
      Csr rows = kernel->multiplyAddDeferredInto(As[K - 2], Bs[K - 2], As.back(), Bs.back(), std::vector<Csr>(before), sink);
      Csr joined = rows;
      joined.col.assign(sink.col(), sink.col() + rows.nnz());
      joined.val.assign(sink.val(), sink.val() + rows.nnz());
      if (!kernel->sortsRows()) {
        plain.sortRows();
        deferred.sortRows();
        joined.sortRows();
      }
      const bool ok = sink.filled && deferred.rowptr == plain.rowptr && deferred.col == plain.col &&
                      deferred.val == plain.val && joined.rowptr == plain.rowptr && joined.col == plain.col &&
                      joined.val == plain.val;
      tally.check(ok, name + " multiplyAddDeferred(Into) of " + std::to_string(K) + " rounds = multiplyAdd, bit for bit");
    }
  }
}

// The kernel on views of arrays it does not own (the one-rank product reads Tpetra's), written
// into a sink: the same bits as on owned blocks, also with B hypersparse (compressed columns)
// and with empty operands.
void checkViews(Tally& tally, std::mt19937_64& rng) {
  for (const auto& [kb, n, density] : {std::tuple<int, int, double>{25, 70, 0.3}, {40, 60000, 0.002}, {10, 30, 0.0}}) {
    const Csr A = randomCsr(50, kb, 0.3, rng, false), B = randomCsr(kb, n, density, rng, false);
    VectorSink sink;
    Csr rows = Trident::gustavsonMultiplyInto(Trident::CsrView::of(A), Trident::CsrView::of(B), sink);
    Csr joined = rows;
    joined.col.assign(sink.col(), sink.col() + rows.nnz());
    joined.val.assign(sink.val(), sink.val() + rows.nnz());
    const Csr plain = Trident::gustavsonMultiply(A, B);
    const bool ok = sink.filled && sink.rows_sorted && joined.rowptr == plain.rowptr && joined.col == plain.col &&
                    joined.val == plain.val &&
                    Trident::multiplyFlops(Trident::CsrView::of(A), Trident::CsrView::of(B)) == Trident::multiplyFlops(A, B);
    tally.check(ok, "gustavsonMultiplyInto on views (" + std::to_string(kb) + " x " + std::to_string(n) +
                        ") = gustavsonMultiply, bit for bit");
  }
}

// The Gustavson kernel sends each row to one of two accumulators by its density; their sums must
// be the same bits, signed zeros included (a stored zero of B times a negative entry of A).
void checkAccumulatorBits(Tally& tally) {
  Trident::SortedRowAccumulator sparse(200);
  Trident::RangeAccumulator dense(200);
  const std::pair<int, double> adds[] = {{5, -0.0}, {7, 1.5}, {5, 0.0}, {9, -0.0}, {7, -1.5}, {150, 2.25}, {9, -0.0}, {0, 0.1}};
  for (const auto& [c, v] : adds) {
    sparse.add(c, v);
    dense.add(c, v);
  }
  std::vector<std::pair<int, double>> a, b;
  sparse.flush([&a](int c, double v) { a.emplace_back(c, v); });
  dense.flush([&b](int c, double v) { b.emplace_back(c, v); });
  bool ok = a.size() == 5 && a.size() == b.size();
  for (std::size_t t = 0; ok && t < a.size(); ++t)
    ok = a[t].first == b[t].first && std::memcmp(&a[t].second, &b[t].second, sizeof(double)) == 0;
  ok = ok && a[3].first == 9 && std::signbit(b[3].second);
  tally.check(ok, "range and sorted accumulators: same columns, same bits (-0.0 kept)");
  dense.add(9, 1.0);  // flushed: starts again from the additive identity
  b.clear();
  dense.flush([&b](int c, double v) { b.emplace_back(c, v); });
  tally.check(b.size() == 1 && b[0].first == 9 && b[0].second == 1.0, "range accumulator resets on flush");
}
}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  Tally tally;
  tally.verbose(false);
  std::mt19937_64 rng(42);
  checkKernelsAgainstReference(tally, rng);
  checkNumericIntoFinalArrays(tally, rng);
  checkAccumulation(tally, rng);
  checkDeferredRound(tally, rng);
  checkViews(tally, rng);
  checkShortRows(tally, rng);
  // Stacking slices.
  {
    Csr a = randomCsr(7, 9, 0.3, rng, false), b = randomCsr(0, 9, 0.3, rng, false), c = randomCsr(5, 9, 0.3, rng, false);
    Csr s = Trident::stackRows({&a, &b, &c});
    bool ok = s.nrows == 12 && s.nnz() == a.nnz() + c.nnz() && s.rowptr[7] == a.nnz();
    tally.check(ok, "stackRows");
  }
  checkAccumulatorBits(tally);
  bool threw = false;
  try { Trident::makeLocalSpGEMM("nope"); } catch (const std::invalid_argument&) { threw = true; }
  tally.check(threw, "unknown kernel name throws");
  return tally.finish();
}
