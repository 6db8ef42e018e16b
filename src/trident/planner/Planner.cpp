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

namespace {
// Trident's volumes, row block of A by row block: each row block's A decides which rows of B's
// slices its groups fetch over Gi and exchange over Li. The scratch arrays are per row block,
// reused from one to the next.
class TridentVolumes {
 public:
  TridentVolumes(const Pattern& A, const Pattern& B, const Ranks& ranks, const TileGrid& g, bool fetch_needed,
                 const Relabeled& rel, const Tiles& T, Prediction& pr)
      : A_(A), B_(B), ranks_(ranks), g_(g), fetch_needed_(fetch_needed), rel_(rel), T_(T), L_(T.L), pr_(pr),
        lam_(ranks.lambda), cols_(g.cols), rounds_(g.rounds), rowsA_(A.nrows, ranks.P), rowsB_(B.nrows, ranks.P),
        per_(tripletBytes(A.nrows, A.ncols, B.ncols)),
        mask_(static_cast<std::size_t>(rel.a().ncols), 0),
        aT_(static_cast<std::size_t>(rounds_) * lam_),
        flopsJQ_(static_cast<std::size_t>(cols_) * lam_),
        rowsNeeded_(static_cast<std::size_t>(rounds_) * lam_),
        entNeeded_(static_cast<std::size_t>(rounds_) * lam_ * cols_),
        liRows_(static_cast<std::size_t>(lam_) * lam_),
        liEnt_(static_cast<std::size_t>(lam_) * lam_ * cols_) {
    for (int s = 0; s < rounds_; ++s) bitmapBytes_ += static_cast<std::uint64_t>((L_.inner_width(s) + 7) / 8);
  }

  void countRowBlock(int i) {
    countA(i);
    addGiA(i);
    countNeededRows();
    addGiB(i);
    if (lam_ > 1) addLi(i);
  }

  // B's entries into the tiles (A's are counted with its row blocks).
  void moveBIn() {
    const Pattern& Bp = rel_.b();
    for (std::int64_t c = 0; c < Bp.nrows; ++c) {
      const int src = rowOwner(B_, rowsB_, rel_.innerOf(c));
      const int s = T_.inner_block[c], t = T_.b_slice[c];
      for (std::int64_t q = Bp.rowptr[c]; q < Bp.rowptr[c + 1]; ++q)
        moveIn(src, rank(s % g_.rows, T_.col_block[Bp.col[q]], t));
    }
  }

 private:
  int rank(int i, int j, int q) const { return (g_.unit(i, j)) * lam_ + q; }
  std::uint64_t bRows(int s, int t) const {
    return static_cast<std::uint64_t>(L_.b_slice(s, t + 1) - L_.b_slice(s, t));
  }
  std::uint64_t nbt(int s, int t, int j) const {
    return static_cast<std::uint64_t>(T_.nbt[(static_cast<std::size_t>(s) * lam_ + t) * cols_ + j]);
  }
  void moveIn(int src, int dest) {
    if (src != dest) (ranks_.group(src) == ranks_.group(dest) ? pr_.in_li_sent : pr_.in_gi_sent)[src] += per_;
  }

  // Row block i of A: its entries per tile slice, the flops of each rank, the redistribution of
  // A in, and which slices use each inner index (mask_, touched_).
  void countA(int i) {
    const Pattern& Ap = rel_.a();
    std::fill(aT_.begin(), aT_.end(), 0);
    std::fill(flopsJQ_.begin(), flopsJQ_.end(), 0);
    for (int q = 0; q < lam_; ++q)
      for (std::int64_t x = L_.a_slice(i, q); x < L_.a_slice(i, q + 1); ++x) {
        const int src = rowOwner(A_, rowsA_, rel_.rowOf(x));
        for (std::int64_t e = Ap.rowptr[x]; e < Ap.rowptr[x + 1]; ++e) {
          const std::int64_t c = Ap.col[e];
          const int s = T_.inner_block[c];
          ++aT_[static_cast<std::size_t>(s) * lam_ + q];
          moveIn(src, rank(i, s % cols_, q));
          if (mask_[c] == 0) touched_.push_back(c);
          mask_[c] |= std::uint64_t{1} << q;
          for (std::int64_t b = T_.bl_ptr[c]; b < T_.bl_ptr[c + 1]; ++b)
            flopsJQ_[static_cast<std::size_t>(T_.bl_j[b]) * lam_ + q] += static_cast<std::uint64_t>(T_.bl_cnt[b]);
        }
      }
    for (int j = 0; j < cols_; ++j)
      for (int q = 0; q < lam_; ++q) pr_.flops[rank(i, j, q)] += flopsJQ_[static_cast<std::size_t>(j) * lam_ + q];
  }

  // Gi, A: slice q of A(i,s) goes from its owner (i, s mod cols) to every other unit of row i.
  void addGiA(int i) {
    for (int q = 0; q < lam_; ++q) {
      const std::uint64_t arows = static_cast<std::uint64_t>(L_.a_slice(i, q + 1) - L_.a_slice(i, q));
      for (int s = 0; s < rounds_; ++s) {
        const int jo = s % cols_;
        const std::uint64_t bytes = 8 * arows + 12 * aT_[static_cast<std::size_t>(s) * lam_ + q];
        for (int j = 0; j < cols_; ++j) {
          if (j == jo) continue;
          pr_.gi_recv[rank(i, j, q)] += bytes;
          pr_.gi_msgs[rank(i, j, q)] += 3;
          pr_.gi_sent[rank(i, jo, q)] += bytes;
        }
      }
    }
  }

  // The rows of each slice of B the row block uses and their entries per column block, and (Li
  // "needed") what each member sends each other one; clears mask_ and touched_ for the next block.
  void countNeededRows() {
    std::fill(rowsNeeded_.begin(), rowsNeeded_.end(), 0);
    std::fill(entNeeded_.begin(), entNeeded_.end(), 0);
    std::fill(liRows_.begin(), liRows_.end(), 0);
    std::fill(liEnt_.begin(), liEnt_.end(), 0);
    for (std::int64_t c : touched_) {
      const int s = T_.inner_block[c], t = T_.b_slice[c];
      const std::size_t st = static_cast<std::size_t>(s) * lam_ + t;
      ++rowsNeeded_[st];
      for (std::int64_t b = T_.bl_ptr[c]; b < T_.bl_ptr[c + 1]; ++b) entNeeded_[st * cols_ + T_.bl_j[b]] += T_.bl_cnt[b];
      if (lam_ > 1 && fetch_needed_) {
        for (std::uint64_t bits = mask_[c]; bits; bits &= bits - 1) {
          const int q = __builtin_ctzll(bits);
          if (q == t) continue;
          const std::size_t tq = static_cast<std::size_t>(t) * lam_ + q;
          ++liRows_[tq];
          for (std::int64_t b = T_.bl_ptr[c]; b < T_.bl_ptr[c + 1]; ++b) liEnt_[tq * cols_ + T_.bl_j[b]] += T_.bl_cnt[b];
        }
      }
      mask_[c] = 0;
    }
    touched_.clear();
  }

  // Gi, B: slice t of B(s,j) from its owner (s mod rows, j) to unit (i,j): the rows row block
  // i's A uses ("needed"), or all of them.
  void addGiB(int i) {
    for (int s = 0; s < rounds_; ++s) {
      const int io = s % g_.rows;
      if (io == i) continue;
      for (int j = 0; j < cols_; ++j)
        for (int t = 0; t < lam_; ++t) {
          const std::size_t st = static_cast<std::size_t>(s) * lam_ + t;
          const std::uint64_t bytes = fetch_needed_ ? 8 * rowsNeeded_[st] + 12 * entNeeded_[st * cols_ + j]
                                                    : 8 * bRows(s, t) + 12 * nbt(s, t, j);
          pr_.gi_recv[rank(i, j, t)] += bytes;
          pr_.gi_msgs[rank(i, j, t)] += 3;
          pr_.gi_sent[rank(io, j, t)] += bytes;
        }
    }
  }

  // Li: every round the group rebuilds B(s,j) for its ranks.
  void addLi(int i) {
    for (int j = 0; j < cols_; ++j)
      for (int me = 0; me < lam_; ++me) {
        std::uint64_t recv = 0, sent = 0;
        if (fetch_needed_) {
          recv = sent = static_cast<std::uint64_t>(lam_ - 1) * bitmapBytes_;
          for (int q = 0; q < lam_; ++q) {
            if (q == me) continue;
            const std::size_t from = static_cast<std::size_t>(q) * lam_ + me, to = static_cast<std::size_t>(me) * lam_ + q;
            recv += 8 * liRows_[from] + 12 * liEnt_[from * cols_ + j];
            sent += 8 * liRows_[to] + 12 * liEnt_[to * cols_ + j];
          }
        } else {
          for (int s = 0; s < rounds_; ++s)
            for (int t = 0; t < lam_; ++t) {
              const std::uint64_t b = 8 * bRows(s, t) + 12 * nbt(s, t, j);
              if (t == me)
                sent += static_cast<std::uint64_t>(lam_ - 1) * b;
              else
                recv += b;
            }
        }
        pr_.li_recv[rank(i, j, me)] += recv;
        pr_.li_sent[rank(i, j, me)] += sent;
        pr_.li_msgs[rank(i, j, me)] += static_cast<std::uint64_t>(rounds_) * 3 * (lam_ - 1);
      }
  }

  const Pattern& A_;
  const Pattern& B_;
  const Ranks& ranks_;
  const TileGrid& g_;
  const bool fetch_needed_;
  const Relabeled& rel_;
  const Tiles& T_;
  const Layout& L_;
  Prediction& pr_;
  const int lam_, cols_, rounds_;
  const Uniform1D rowsA_, rowsB_;
  const std::uint64_t per_;
  std::uint64_t bitmapBytes_ = 0;  // Li "needed": one bit per row of B's tile, every round

  std::vector<std::uint64_t> mask_;  // which slices use inner index c
  std::vector<std::int64_t> touched_;
  std::vector<std::uint64_t> aT_, flopsJQ_;
  std::vector<std::uint64_t> rowsNeeded_, entNeeded_;
  std::vector<std::uint64_t> liRows_, liEnt_;
};
}  // namespace

Prediction predictTrident(const Pattern& A, const Pattern& B, const Ranks& ranks, const TileGrid& g,
                          bool fetch_needed, const PlanOptions& opt) {
  checkInputs(A, B, ranks);
  const int lam = ranks.lambda;
  requireAll(g.units() == ranks.groups(), "planner: the grid has " + std::to_string(g.units()) + " units, not " +
                                              std::to_string(ranks.groups()) + " groups");
  const Relabeled rel(A, B, opt);
  Tiles T(rel.a(), rel.b(), g, lam, lam > 1);
  Prediction pr(ranks.P);
  pr.algo = "trident";
  pr.grid = g.cols == 1 && g.rows > 1 && TileGrid::forUnits(g.units()).cols != 1 ? "rows" : "square";
  pr.fetch = fetch_needed ? "needed" : "whole";
  pr.grid_rows = g.rows;
  pr.grid_cols = g.cols;
  pr.rounds = g.rounds;
  TridentVolumes volumes(A, B, ranks, g, fetch_needed, rel, T, pr);
  for (int i = 0; i < g.rows; ++i) volumes.countRowBlock(i);
  volumes.moveBIn();
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
