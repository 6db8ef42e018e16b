#include "trident/planner/Planner.hpp"

#include <algorithm>
#include <limits>
#include <mpi.h>

#include "trident/core/Errors.hpp"
#include "trident/grid/Topology.hpp"
#include "trident/partition/Layout.hpp"
#include "trident/partition/Permutation.hpp"

namespace Trident {
namespace planner {

Prediction::Prediction(int P)
    : gi_recv(P, 0), gi_sent(P, 0), li_recv(P, 0), li_sent(P, 0), gi_msgs(P, 0), li_msgs(P, 0), flops(P, 0),
      import_rows(P, 0), in_gi_sent(P, 0), in_li_sent(P, 0) {}

void Prediction::add(const Prediction& o) {
  auto plus = [](std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
    for (std::size_t t = 0; t < a.size() && t < b.size(); ++t) a[t] += b[t];
  };
  plus(gi_recv, o.gi_recv);
  plus(import_rows, o.import_rows);
  plus(gi_sent, o.gi_sent);
  plus(li_recv, o.li_recv);
  plus(li_sent, o.li_sent);
  plus(gi_msgs, o.gi_msgs);
  plus(li_msgs, o.li_msgs);
  plus(flops, o.flops);
  plus(in_gi_sent, o.in_gi_sent);
  plus(in_li_sent, o.in_li_sent);
  entries_max += o.entries_max;
  time_s += o.time_s;
}

std::uint64_t maxOf(const std::vector<std::uint64_t>& v) {
  return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}
std::uint64_t sumOf(const std::vector<std::uint64_t>& v) {
  std::uint64_t s = 0;
  for (auto x : v) s += x;
  return s;
}

namespace {

void checkInputs(const Pattern& A, const Pattern& B, const Ranks& ranks) {
  requireAll(ranks.P >= 1 && ranks.lambda >= 1 && ranks.P % ranks.lambda == 0,
             "planner: ranks per group (" + std::to_string(ranks.lambda) + ") must divide P (" +
                 std::to_string(ranks.P) + ")");
  for (const Pattern* M : {&A, &B})
    requireAll(M->owner.empty() || static_cast<std::int64_t>(M->owner.size()) == M->nrows,
               "planner: a pattern's row owners do not match its rows");
  requireAll(ranks.lambda <= 64, "planner: at most 64 ranks per group (one 64-bit mask per index)");
  requireAll(A.ncols == B.nrows, "planner: inner dimensions do not match: A is " + std::to_string(A.nrows) + " x " +
                                     std::to_string(A.ncols) + ", B is " + std::to_string(B.nrows) + " x " +
                                     std::to_string(B.ncols));
}

// The pattern in position space (rows relabeled by pr, columns by pc), as the adapter's Triplets.
Pattern toPositions(const Pattern& M, const Permutation& pr, const Permutation& pc) {
  Pattern out;
  out.nrows = M.nrows;
  out.ncols = M.ncols;
  out.rowptr.assign(static_cast<std::size_t>(M.nrows) + 1, 0);
  for (std::int64_t r = 0; r < M.nrows; ++r) out.rowptr[pr(r) + 1] = M.rowNnz(r);
  for (std::int64_t r = 0; r < M.nrows; ++r) out.rowptr[r + 1] += out.rowptr[r];
  out.col.resize(M.col.size());
  for (std::int64_t r = 0; r < M.nrows; ++r) {
    std::int64_t at = out.rowptr[pr(r)];
    for (std::int64_t q = M.rowptr[r]; q < M.rowptr[r + 1]; ++q) out.col[at++] = pc(M.col[q]);
  }
  return out;
}

// Everything both 2D algorithms need about the layout, precomputed once per prediction.
struct Tiles {
  Layout L;
  std::vector<int> inner_block, b_slice, col_block;  // per inner index, per inner index, per column
  // Per row of B: (column block, entries in it), only nonzero counts; CSR over B's rows.
  std::vector<std::int64_t> bl_ptr;
  std::vector<int> bl_j;
  std::vector<std::int64_t> bl_cnt;
  std::vector<std::int64_t> nbt;  // [(s * slices + t) * cols + j]: entries of slice t of B(s, j)

  Tiles(const Pattern& Ap, const Pattern& Bp, const TileGrid& grid, int slices, bool balance) {
    const std::int64_t m = Ap.nrows, k = Ap.ncols, n = Bp.ncols;
    std::vector<std::int64_t> ap(m), aw(m), bp(k), bw(k);
    for (std::int64_t x = 0; x < m; ++x) {
      ap[x] = x;
      std::int64_t work = 0;
      if (balance)
        for (std::int64_t q = Ap.rowptr[x]; q < Ap.rowptr[x + 1]; ++q) work += Bp.rowNnz(Ap.col[q]);
      aw[x] = Ap.rowNnz(x) + work;
    }
    for (std::int64_t c = 0; c < k; ++c) {
      bp[c] = c;
      bw[c] = Bp.rowNnz(c);
    }
    // The layout exactly as the ranks build it: the histogram of weights is a sum of integers in
    // doubles, so summing it on one process gives the same slices as the Allreduce over P.
    L = makeLayout(grid, slices, m, k, n, ap, aw, bp, bw, MPI_COMM_SELF);
    inner_block.resize(k);
    b_slice.resize(k);
    for (int s = 0; s < grid.rounds; ++s)
      for (std::int64_t c = L.inner_bounds[s]; c < L.inner_bounds[s + 1]; ++c) {
        inner_block[c] = s;
        b_slice[c] = L.b_slice_of(s, c);
      }
    col_block.resize(n);
    for (int j = 0; j < grid.cols; ++j)
      for (std::int64_t c = L.col_bounds[j]; c < L.col_bounds[j + 1]; ++c) col_block[c] = j;
    const int cols = grid.cols;
    bl_ptr.assign(static_cast<std::size_t>(k) + 1, 0);
    nbt.assign(static_cast<std::size_t>(grid.rounds) * slices * cols, 0);
    std::vector<std::int64_t> cnt(cols, 0);
    std::vector<int> touched;
    for (std::int64_t c = 0; c < k; ++c) {
      for (std::int64_t q = Bp.rowptr[c]; q < Bp.rowptr[c + 1]; ++q) {
        const int j = col_block[Bp.col[q]];
        if (cnt[j]++ == 0) touched.push_back(j);
      }
      std::sort(touched.begin(), touched.end());
      const std::size_t base = (static_cast<std::size_t>(inner_block[c]) * slices + b_slice[c]) * cols;
      for (int j : touched) {
        bl_j.push_back(j);
        bl_cnt.push_back(cnt[j]);
        nbt[base + j] += cnt[j];
        cnt[j] = 0;
      }
      touched.clear();
      bl_ptr[c + 1] = static_cast<std::int64_t>(bl_j.size());
    }
  }
};

// The rows of M ordered by the rank that holds them; rows of rank p: order[first[p] .. first[p+1]).
std::vector<std::int64_t> rowsByOwner(const Pattern& M, int P, std::vector<std::int64_t>* first) {
  const Uniform1D uniform(M.nrows, P);
  first->assign(static_cast<std::size_t>(P) + 1, 0);
  for (std::int64_t r = 0; r < M.nrows; ++r) ++(*first)[rowOwner(M, uniform, r) + 1];
  for (int p = 0; p < P; ++p) (*first)[p + 1] += (*first)[p];
  std::vector<std::int64_t> order(static_cast<std::size_t>(M.nrows)), next(first->begin(), first->end() - 1);
  for (std::int64_t r = 0; r < M.nrows; ++r) order[next[rowOwner(M, uniform, r)]++] = r;
  return order;
}

// Bytes per triplet of the redistribution in (Redistribute.cpp: 32-bit indices when all fit).
std::uint64_t tripletBytes(std::int64_t m, std::int64_t k, std::int64_t n) {
  const std::int64_t maxIndex = std::max({m, k, n}) - 1;
  return maxIndex <= std::numeric_limits<std::int32_t>::max() ? 16 : 24;
}

}  // namespace

Prediction predictTpetra(const Pattern& A, const Pattern& B, const Ranks& ranks) {
  checkInputs(A, B, ranks);
  const int P = ranks.P;
  Prediction pr(P);
  pr.algo = "tpetra";
  const Uniform1D rowsB(B.nrows, P);
  std::vector<std::int64_t> first;
  const std::vector<std::int64_t> order = rowsByOwner(A, P, &first);
  std::vector<int> stamp(static_cast<std::size_t>(A.ncols), -1);
  for (int p = 0; p < P; ++p) {
    std::vector<int> sources;
    for (std::int64_t at = first[p]; at < first[p + 1]; ++at) {
      const std::int64_t r = order[at];
      for (std::int64_t q = A.rowptr[r]; q < A.rowptr[r + 1]; ++q) {
        const std::int64_t c = A.col[q];
        const std::int64_t len = B.rowNnz(c);
        pr.flops[p] += static_cast<std::uint64_t>(len);
        if (stamp[c] == p) continue;
        stamp[c] = p;
        const int owner = rowOwner(B, rowsB, c);
        if (owner == p) continue;
        const std::uint64_t bytes = 8 + 20 * static_cast<std::uint64_t>(len);
        const bool li = ranks.group(owner) == ranks.group(p);
        (li ? pr.li_recv : pr.gi_recv)[p] += bytes;
        (li ? pr.li_sent : pr.gi_sent)[owner] += bytes;
        ++pr.import_rows[p];
        sources.push_back(owner);
      }
    }
    std::sort(sources.begin(), sources.end());
    sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
    for (int s : sources) ++(ranks.group(s) == ranks.group(p) ? pr.li_msgs : pr.gi_msgs)[p];
  }
  {
    std::vector<double> held(static_cast<std::size_t>(P), 0.0);
    const Uniform1D rowsA(A.nrows, P);
    for (std::int64_t r = 0; r < A.nrows; ++r) held[rowOwner(A, rowsA, r)] += static_cast<double>(A.rowNnz(r));
    for (std::int64_t r = 0; r < B.nrows; ++r) held[rowOwner(B, rowsB, r)] += static_cast<double>(B.rowNnz(r));
    pr.entries_max = *std::max_element(held.begin(), held.end());
  }
  return pr;
}

namespace {
// A and B in the positions the library multiplies: as given, or under "trident: permute" =
// "random" relabeled as the adapter relabels them (same seed, same permutations).
class Relabeled {
 public:
  Relabeled(const Pattern& A, const Pattern& B, const PlanOptions& opt) : A_(A), B_(B), on_(opt.permute) {
    if (!on_) return;
    prow_ = Permutation(A.nrows, opt.seed);
    pin_ = Permutation(A.ncols, opt.seed);
    const Permutation pcol(B.ncols, opt.seed);
    tA_ = toPositions(A, prow_, pin_);
    tB_ = toPositions(B, pin_, pcol);
  }
  const Pattern& a() const { return on_ ? tA_ : A_; }
  const Pattern& b() const { return on_ ? tB_ : B_; }
  // The given row of A (inner index of B) at a relabeled position.
  std::int64_t rowOf(std::int64_t x) const { return prow_.inverse(x); }
  std::int64_t innerOf(std::int64_t c) const { return pin_.inverse(c); }

 private:
  const Pattern& A_;
  const Pattern& B_;
  bool on_;
  Permutation prow_, pin_;  // identity unless relabeled
  Pattern tA_, tB_;
};
}  // namespace

Prediction predictSumma(const Pattern& A, const Pattern& B, const Ranks& ranks, const PlanOptions& opt) {
  checkInputs(A, B, ranks);
  const int P = ranks.P;
  const Relabeled rel(A, B, opt);
  const Pattern& Ap = rel.a();
  const Pattern& Bp = rel.b();
  const TileGrid g = TileGrid::forUnits(P);
  Tiles T(Ap, Bp, g, 1, false);
  const Layout& L = T.L;
  Prediction pr(P);
  pr.algo = "summa";
  pr.grid_rows = g.rows;
  pr.grid_cols = g.cols;
  pr.rounds = g.rounds;
  const Uniform1D rowsA(A.nrows, P), rowsB(B.nrows, P);
  const std::uint64_t per = tripletBytes(A.nrows, A.ncols, B.ncols);
  auto moveIn = [&](int src, int dest) {
    if (src != dest) (ranks.group(src) == ranks.group(dest) ? pr.in_li_sent : pr.in_gi_sent)[src] += per;
  };
  std::vector<std::int64_t> nA(static_cast<std::size_t>(g.rounds));
  for (int i = 0; i < g.rows; ++i) {
    std::fill(nA.begin(), nA.end(), 0);
    for (std::int64_t x = L.row_bounds[i]; x < L.row_bounds[i + 1]; ++x) {
      const int src = rowOwner(A, rowsA, rel.rowOf(x));
      for (std::int64_t q = Ap.rowptr[x]; q < Ap.rowptr[x + 1]; ++q) {
        const std::int64_t c = Ap.col[q];
        const int s = T.inner_block[c];
        ++nA[s];
        moveIn(src, g.unit(i, s % g.cols));
        for (std::int64_t e = T.bl_ptr[c]; e < T.bl_ptr[c + 1]; ++e)
          pr.flops[g.unit(i, T.bl_j[e])] += static_cast<std::uint64_t>(T.bl_cnt[e]);
      }
    }
    const std::uint64_t rows = static_cast<std::uint64_t>(L.row_bounds[i + 1] - L.row_bounds[i]);
    for (int s = 0; s < g.rounds; ++s) {
      const int root = g.unit(i, s % g.cols);
      const std::uint64_t bytes = 8 * rows + 12 * static_cast<std::uint64_t>(nA[s]);
      for (int q = 0; q < g.cols; ++q) {
        const int other = g.unit(i, q);
        if (other == root) continue;
        const bool li = ranks.group(other) == ranks.group(root);
        (li ? pr.li_recv : pr.gi_recv)[other] += bytes;
        (li ? pr.li_sent : pr.gi_sent)[root] += bytes;
        (li ? pr.li_msgs : pr.gi_msgs)[other] += 3;
      }
    }
  }
  for (int s = 0; s < g.rounds; ++s)
    for (int j = 0; j < g.cols; ++j) {
      const int root = g.unit(s % g.rows, j);
      const std::uint64_t bytes = 8 * static_cast<std::uint64_t>(L.inner_width(s)) +
                                  12 * static_cast<std::uint64_t>(T.nbt[static_cast<std::size_t>(s) * g.cols + j]);
      for (int q = 0; q < g.rows; ++q) {
        const int other = g.unit(q, j);
        if (other == root) continue;
        const bool li = ranks.group(other) == ranks.group(root);
        (li ? pr.li_recv : pr.gi_recv)[other] += bytes;
        (li ? pr.li_sent : pr.gi_sent)[root] += bytes;
        (li ? pr.li_msgs : pr.gi_msgs)[other] += 3;
      }
    }
  for (std::int64_t c = 0; c < Bp.nrows; ++c) {
    const int src = rowOwner(B, rowsB, rel.innerOf(c));
    const int s = T.inner_block[c];
    for (std::int64_t q = Bp.rowptr[c]; q < Bp.rowptr[c + 1]; ++q) moveIn(src, g.unit(s % g.rows, T.col_block[Bp.col[q]]));
  }
  pr.entries_max = static_cast<double>(A.nnz() + B.nnz()) / P;
  return pr;
}

Prediction predictTrident(const Pattern& A, const Pattern& B, const Ranks& ranks, const TileGrid& g,
                          bool fetch_needed, const PlanOptions& opt) {
  checkInputs(A, B, ranks);
  const int P = ranks.P, lam = ranks.lambda;
  requireAll(g.units() == ranks.groups(), "planner: the grid has " + std::to_string(g.units()) + " units, not " +
                                              std::to_string(ranks.groups()) + " groups");
  const Relabeled rel(A, B, opt);
  const Pattern& Ap = rel.a();
  const Pattern& Bp = rel.b();
  Tiles T(Ap, Bp, g, lam, lam > 1);
  const Layout& L = T.L;
  const int cols = g.cols, rounds = g.rounds;
  Prediction pr(P);
  pr.algo = "trident";
  pr.grid = cols == 1 && g.rows > 1 && TileGrid::forUnits(g.units()).cols != 1 ? "rows" : "square";
  pr.fetch = fetch_needed ? "needed" : "whole";
  pr.grid_rows = g.rows;
  pr.grid_cols = cols;
  pr.rounds = rounds;
  auto rank = [&](int i, int j, int q) { return (g.unit(i, j)) * lam + q; };
  auto bRows = [&](int s, int t) { return static_cast<std::uint64_t>(L.b_slice(s, t + 1) - L.b_slice(s, t)); };
  auto nbt = [&](int s, int t, int j) {
    return static_cast<std::uint64_t>(T.nbt[(static_cast<std::size_t>(s) * lam + t) * cols + j]);
  };
  const Uniform1D rowsA(A.nrows, P), rowsB(B.nrows, P);
  const std::uint64_t per = tripletBytes(A.nrows, A.ncols, B.ncols);
  auto moveIn = [&](int src, int dest) {
    if (src != dest) (ranks.group(src) == ranks.group(dest) ? pr.in_li_sent : pr.in_gi_sent)[src] += per;
  };
  std::uint64_t bitmapBytes = 0;  // Li "needed": one bit per row of B's tile, every round
  for (int s = 0; s < rounds; ++s) bitmapBytes += static_cast<std::uint64_t>((L.inner_width(s) + 7) / 8);

  std::vector<std::uint64_t> mask(static_cast<std::size_t>(Ap.ncols), 0);  // which slices use inner index c
  std::vector<std::int64_t> touched;
  std::vector<std::uint64_t> aT(static_cast<std::size_t>(rounds) * lam), flopsJQ(static_cast<std::size_t>(cols) * lam);
  std::vector<std::uint64_t> rowsNeeded(static_cast<std::size_t>(rounds) * lam),
      entNeeded(static_cast<std::size_t>(rounds) * lam * cols);
  std::vector<std::uint64_t> liRows(static_cast<std::size_t>(lam) * lam), liEnt(static_cast<std::size_t>(lam) * lam * cols);
  for (int i = 0; i < g.rows; ++i) {
    std::fill(aT.begin(), aT.end(), 0);
    std::fill(flopsJQ.begin(), flopsJQ.end(), 0);
    for (int q = 0; q < lam; ++q)
      for (std::int64_t x = L.a_slice(i, q); x < L.a_slice(i, q + 1); ++x) {
        const int src = rowOwner(A, rowsA, rel.rowOf(x));
        for (std::int64_t e = Ap.rowptr[x]; e < Ap.rowptr[x + 1]; ++e) {
          const std::int64_t c = Ap.col[e];
          const int s = T.inner_block[c];
          ++aT[static_cast<std::size_t>(s) * lam + q];
          moveIn(src, rank(i, s % cols, q));
          if (mask[c] == 0) touched.push_back(c);
          mask[c] |= std::uint64_t{1} << q;
          for (std::int64_t b = T.bl_ptr[c]; b < T.bl_ptr[c + 1]; ++b)
            flopsJQ[static_cast<std::size_t>(T.bl_j[b]) * lam + q] += static_cast<std::uint64_t>(T.bl_cnt[b]);
        }
      }
    for (int j = 0; j < cols; ++j)
      for (int q = 0; q < lam; ++q) pr.flops[rank(i, j, q)] += flopsJQ[static_cast<std::size_t>(j) * lam + q];

    // Gi, A: slice q of A(i,s) goes from its owner (i, s mod cols) to every other unit of row i.
    for (int q = 0; q < lam; ++q) {
      const std::uint64_t arows = static_cast<std::uint64_t>(L.a_slice(i, q + 1) - L.a_slice(i, q));
      for (int s = 0; s < rounds; ++s) {
        const int jo = s % cols;
        const std::uint64_t bytes = 8 * arows + 12 * aT[static_cast<std::size_t>(s) * lam + q];
        for (int j = 0; j < cols; ++j) {
          if (j == jo) continue;
          pr.gi_recv[rank(i, j, q)] += bytes;
          pr.gi_msgs[rank(i, j, q)] += 3;
          pr.gi_sent[rank(i, jo, q)] += bytes;
        }
      }
    }

    // Gi, B: slice t of B(s,j) from its owner (s mod rows, j) to unit (i,j): the rows row block
    // i's A uses ("needed"), or all of them.
    std::fill(rowsNeeded.begin(), rowsNeeded.end(), 0);
    std::fill(entNeeded.begin(), entNeeded.end(), 0);
    std::fill(liRows.begin(), liRows.end(), 0);
    std::fill(liEnt.begin(), liEnt.end(), 0);
    for (std::int64_t c : touched) {
      const int s = T.inner_block[c], t = T.b_slice[c];
      const std::size_t st = static_cast<std::size_t>(s) * lam + t;
      ++rowsNeeded[st];
      for (std::int64_t b = T.bl_ptr[c]; b < T.bl_ptr[c + 1]; ++b) entNeeded[st * cols + T.bl_j[b]] += T.bl_cnt[b];
      if (lam > 1 && fetch_needed) {
        for (std::uint64_t bits = mask[c]; bits; bits &= bits - 1) {
          const int q = __builtin_ctzll(bits);
          if (q == t) continue;
          const std::size_t tq = static_cast<std::size_t>(t) * lam + q;
          ++liRows[tq];
          for (std::int64_t b = T.bl_ptr[c]; b < T.bl_ptr[c + 1]; ++b) liEnt[tq * cols + T.bl_j[b]] += T.bl_cnt[b];
        }
      }
      mask[c] = 0;
    }
    touched.clear();
    for (int s = 0; s < rounds; ++s) {
      const int io = s % g.rows;
      if (io == i) continue;
      for (int j = 0; j < cols; ++j)
        for (int t = 0; t < lam; ++t) {
          const std::size_t st = static_cast<std::size_t>(s) * lam + t;
          const std::uint64_t bytes = fetch_needed ? 8 * rowsNeeded[st] + 12 * entNeeded[st * cols + j]
                                                   : 8 * bRows(s, t) + 12 * nbt(s, t, j);
          pr.gi_recv[rank(i, j, t)] += bytes;
          pr.gi_msgs[rank(i, j, t)] += 3;
          pr.gi_sent[rank(io, j, t)] += bytes;
        }
    }

    // Li: every round the group rebuilds B(s,j) for its ranks.
    if (lam > 1) {
      for (int j = 0; j < cols; ++j)
        for (int me = 0; me < lam; ++me) {
          std::uint64_t recv = 0, sent = 0;
          if (fetch_needed) {
            recv = sent = static_cast<std::uint64_t>(lam - 1) * bitmapBytes;
            for (int q = 0; q < lam; ++q) {
              if (q == me) continue;
              const std::size_t from = static_cast<std::size_t>(q) * lam + me, to = static_cast<std::size_t>(me) * lam + q;
              recv += 8 * liRows[from] + 12 * liEnt[from * cols + j];
              sent += 8 * liRows[to] + 12 * liEnt[to * cols + j];
            }
          } else {
            for (int s = 0; s < rounds; ++s)
              for (int t = 0; t < lam; ++t) {
                const std::uint64_t b = 8 * bRows(s, t) + 12 * nbt(s, t, j);
                if (t == me)
                  sent += static_cast<std::uint64_t>(lam - 1) * b;
                else
                  recv += b;
              }
          }
          pr.li_recv[rank(i, j, me)] += recv;
          pr.li_sent[rank(i, j, me)] += sent;
          pr.li_msgs[rank(i, j, me)] += static_cast<std::uint64_t>(rounds) * 3 * (lam - 1);
        }
    }
  }
  for (std::int64_t c = 0; c < Bp.nrows; ++c) {
    const int src = rowOwner(B, rowsB, rel.innerOf(c));
    const int s = T.inner_block[c], t = T.b_slice[c];
    for (std::int64_t q = Bp.rowptr[c]; q < Bp.rowptr[c + 1]; ++q)
      moveIn(src, rank(s % g.rows, T.col_block[Bp.col[q]], t));
  }
  pr.entries_max = static_cast<double>(A.nnz() + B.nnz()) / ranks.P;
  return pr;
}

TileGrid tridentAutoGrid(const Pattern& A, const Pattern& B, const Ranks& ranks, bool fetch_needed) {
  checkInputs(A, B, ranks);
  const int G = ranks.groups(), lam = ranks.lambda;
  const TileGrid square = TileGrid::forUnits(G);
  if (G == 1 || square.cols == 1) return square;
  const std::int64_t k = A.ncols;
  double sumCoverage = G;  // whole slices: every group's coverage counts as 1
  if (fetch_needed && k > 0) {
    // The adapter: each group counts the distinct columns of its ranks' 1D rows of A.
    sumCoverage = 0;
    std::vector<std::int64_t> first;
    const std::vector<std::int64_t> order = rowsByOwner(A, ranks.P, &first);
    std::vector<int> stamp(static_cast<std::size_t>(k), -1);
    for (int grp = 0; grp < G; ++grp) {
      std::int64_t covered = 0;
      for (std::int64_t at = first[grp * lam]; at < first[(grp + 1) * lam]; ++at) {
        const std::int64_t r = order[at];
        for (std::int64_t q = A.rowptr[r]; q < A.rowptr[r + 1]; ++q)
          if (stamp[A.col[q]] != grp) {
            stamp[A.col[q]] = grp;
            ++covered;
          }
      }
      sumCoverage += static_cast<double>(covered) / static_cast<double>(k);
    }
  }
  const double nnzA = static_cast<double>(A.nnz()), nnzB = static_cast<double>(B.nnz());
  const double rows = sumCoverage * nnzB * (G - 1) / G;
  const double qc = square.cols, qr = square.rows;
  const double squareGi = (qc - 1) * nnzA + (qr - 1) * nnzB * (sumCoverage / G) + (qc - 1) / qc * (nnzA + nnzB);
  return rows <= squareGi ? TileGrid::rowsOnly(G) : square;
}

}  // namespace planner
}  // namespace Trident
