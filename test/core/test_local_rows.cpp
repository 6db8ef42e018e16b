// Tiles cut from a rank's own rows (LocalRows, what the Tpetra adapter passes for an operand that
// stays under owner slices) must equal, entry for entry and in the same order, the tiles the
// triplet path builds from the same entries (toTriplets): the kernels' sums depend on the order.
// Random operands with stored zeros (skipped in A, kept in B), empty rows, a column relabeling
// that is not monotone (in-row order must survive it), and a B slice hypersparse enough to be
// row-compressed; one group of all ranks and, at even P, two groups of the G x 1 grid.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "common/TestUtils.hpp"
#include "trident/partition/Layout.hpp"
#include "trident/partition/LocalRows.hpp"
#include "trident/partition/Redistribute.hpp"

using namespace Trident;
using TridentTest::Tally;

namespace {

// A rank's rows [r0, r1) of a random matrix with `ncols` columns: CSR arrays that LocalRows views.
struct HeldRows {
  std::vector<std::size_t> rowptr{0};
  std::vector<int> col;
  std::vector<double> val;
  std::vector<std::int64_t> row_pos, col_pos;
  LocalRows view(bool skip_zeros) const {
    LocalRows R;
    R.nrows = static_cast<std::int64_t>(row_pos.size());
    R.rowptr = rowptr.data();
    R.col = col.data();
    R.val = val.data();
    R.row_pos = row_pos;
    R.col_pos = col_pos;
    R.skip_zeros = skip_zeros;
    R.countEntries();
    return R;
  }
};

HeldRows randomRows(std::int64_t r0, std::int64_t r1, std::int64_t ncols, double fill, std::uint64_t seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  HeldRows h;
  // Local columns: a random subset of the global ones, in a shuffled order (Tpetra's column maps
  // put remote columns after owned ones: local order is not position order).
  const std::int64_t localCols = std::min<std::int64_t>(ncols, 300);
  std::vector<std::int64_t> pick(static_cast<std::size_t>(ncols));
  for (std::int64_t c = 0; c < ncols; ++c) pick[static_cast<std::size_t>(c)] = c;
  std::shuffle(pick.begin(), pick.end(), gen);
  h.col_pos.assign(pick.begin(), pick.begin() + localCols);
  for (std::int64_t r = r0; r < r1; ++r) {
    h.row_pos.push_back(r);
    if (u(gen) < 0.2) {  // an empty row
      h.rowptr.push_back(h.col.size());
      continue;
    }
    for (std::int64_t c = 0; c < localCols; ++c)
      if (u(gen) < fill) {
        h.col.push_back(static_cast<int>(c));
        h.val.push_back(u(gen) < 0.1 ? 0.0 : u(gen));  // some stored zeros
      }
    h.rowptr.push_back(h.col.size());
  }
  return h;
}

bool sameTiles(const OwnedTiles& x, const OwnedTiles& y, std::string& why) {
  if (x.owns_a != y.owns_a || x.owns_b != y.owns_b) return why = "owned stages", false;
  if (x.b_compressed != y.b_compressed || x.b_rows != y.b_rows) return why = "B's row compression", false;
  for (int pass = 0; pass < 2; ++pass) {
    const auto& u = pass == 0 ? x.a : x.b;
    const auto& v = pass == 0 ? y.a : y.b;
    if (u.size() != v.size()) return why = "stage count", false;
    for (std::size_t s = 0; s < u.size(); ++s)
      if (u[s].nrows != v[s].nrows || u[s].ncols != v[s].ncols || u[s].rowptr != v[s].rowptr || u[s].col != v[s].col ||
          u[s].val != v[s].val)
        return why = std::string(pass == 0 ? "A" : "B") + "'s tile of stage " + std::to_string(s), false;
  }
  return true;
}

// Contiguous cut of [lo, hi) into `parts` pieces.
std::vector<std::int64_t> cut(std::int64_t lo, std::int64_t hi, int parts) {
  std::vector<std::int64_t> b(static_cast<std::size_t>(parts) + 1);
  for (int t = 0; t <= parts; ++t) b[static_cast<std::size_t>(t)] = lo + (hi - lo) * t / parts;
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Tally tally;
  const int P = TridentTest::size(), me = TridentTest::rank();
  struct Case {
    int groups;
    std::int64_t m, k, n;
    double fillB;
    const char* name;
  };
  std::vector<Case> cases = {{1, 900, 700, 500, 0.02, "one group"},
                             // k far above B's entries: B's slices are row-compressed.
                             {1, 400, 300000, 200, 0.0, "one group, hypersparse B"}};
  if (P % 2 == 0) cases.push_back({2, 800, 600, 700, 0.02, "two groups (G x 1 grid)"});
  for (const Case& c : cases) {
    const int lambda = P / c.groups;
    const TileGrid grid = c.groups == 1 ? TileGrid::forUnits(1) : TileGrid::rowsOnly(c.groups);
    // Each rank's slice is its rows: A's split anywhere, B's inside its group's inner block.
    SliceCuts cuts;
    cuts.a = cut(0, c.m, P);
    const std::vector<std::int64_t> inner = evenBounds(c.k, grid.rounds);
    cuts.b.push_back(0);
    for (int s = 0; s < grid.rounds; ++s) {
      const std::vector<std::int64_t> piece = cut(inner[static_cast<std::size_t>(s)], inner[static_cast<std::size_t>(s) + 1], lambda);
      cuts.b.insert(cuts.b.end(), piece.begin() + 1, piece.end());
    }
    const auto r = static_cast<std::size_t>(me);
    HeldRows a = randomRows(cuts.a[r], cuts.a[r + 1], c.k, 0.03, 11 + me);
    HeldRows b = randomRows(cuts.b[r], cuts.b[r + 1], c.n, c.fillB, 101 + me);
    if (c.fillB == 0.0 && b.row_pos.size() > 3) {  // a few entries only
      b = randomRows(cuts.b[r], cuts.b[r], c.n, 0.0, 0);
      for (std::int64_t q = cuts.b[r]; q < cuts.b[r + 1]; ++q) {
        b.row_pos.push_back(q);
        if (q % 5000 == 7) {
          b.col.push_back(static_cast<int>(q % static_cast<std::int64_t>(b.col_pos.size())));
          b.val.push_back(1.0 + static_cast<double>(q));
        }
        b.rowptr.push_back(b.col.size());
      }
    }
    const LocalRows ra = a.view(true), rb = b.view(false);
    std::vector<std::int64_t> aw(a.row_pos.size(), 1), bw(b.row_pos.size(), 1);
    const Layout L = makeLayout(grid, lambda, c.m, c.k, c.n, a.row_pos, aw, b.row_pos, bw, MPI_COMM_WORLD, cuts);
    const RankOf rankOf = [lambda](int unit, int t) { return unit * lambda + t; };
    const Triplets ta = toTriplets(ra), tb = toTriplets(rb);
    std::vector<std::uint64_t> sentTriplets(static_cast<std::size_t>(P), 0), sentRows(sentTriplets);
    const OwnedTiles fromTriplets =
        distributeTiles(L, ta, tb, rankOf, me / lambda, me % lambda, MPI_COMM_WORLD, &sentTriplets, true, true);
    const OwnedTiles fromRows = distributeTiles(L, OperandEntries{nullptr, &ra}, OperandEntries{nullptr, &rb}, rankOf,
                                                me / lambda, me % lambda, MPI_COMM_WORLD, &sentRows, true, true);
    std::string why;
    tally.check(sameTiles(fromRows, fromTriplets, why), std::string(c.name) + ": tiles from rows equal tiles from triplets", why);
    std::size_t zerosA = 0;
    for (double v : a.val) zerosA += v == 0.0;
    tally.check(ra.entries + zerosA == a.val.size() && ta.size() == ra.entries,
                std::string(c.name) + ": A's stored zeros are skipped, B's kept");
    bool compressed = false;
    for (bool x : fromRows.b_compressed) compressed = compressed || x;
    if (c.fillB == 0.0) tally.check(compressed, std::string(c.name) + ": B's slice is row-compressed (the case is not vacuous)");
    tally.check(sentRows == std::vector<std::uint64_t>(static_cast<std::size_t>(P), 0), std::string(c.name) + ": nothing sent");
    // Rows given for an operand that does not stay are refused: they cannot be sent.
    bool refused = false;
    try {
      distributeTiles(L, OperandEntries{nullptr, &ra}, OperandEntries{&tb, nullptr}, rankOf, me / lambda, me % lambda,
                      MPI_COMM_WORLD, nullptr, false, true);
    } catch (const std::logic_error&) {
      refused = true;
    }
    tally.check(refused, std::string(c.name) + ": rows of an operand that moves are refused");
  }
  const int rc = tally.finish();
  MPI_Finalize();
  return rc;
}
