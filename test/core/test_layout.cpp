// Trident partitioning's row cuts: A's row blocks are even (they are then the rows a group's ranks
// own under Tpetra's contiguous maps, so C's rows never cross Gi on the way out), and each block
// is cut into `slices` slices balanced by the rows' weights. Checked on power-law weights (heavy
// rows first, as in SNAP graphs), where even slices would leave one rank with most of a block's
// work, for several grids and lambda, with the rows spread over the ranks in a stride: any
// distribution must give the same layout, and the same as one process holding every row (the
// planner builds its layout on MPI_COMM_SELF). Blocks no rank holds a row of are cut evenly.
// With a block rule (SliceCuts::balance_blocks) that asks for it, the row blocks are cut by work
// too: the rule sees the even blocks' work, and every slice is then near the world's average.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/TestUtils.hpp"
#include "trident/partition/Layout.hpp"

using namespace Trident;
using TridentTest::Tally;

namespace {

// Per row block: its heaviest slice's weight (entries + 1 per row, as makeLayout bins them), the
// block's average slice and its heaviest histogram bin (min(rows, 128 * slices) even bins).
struct Balance {
  double max_slice = 0, avg_slice = 0, heaviest_bin = 0, even_max_slice = 0;
};

double weightOf(const std::vector<std::int64_t>& w, std::int64_t from, std::int64_t to) {
  double s = 0;
  for (std::int64_t r = from; r < to; ++r) s += static_cast<double>(w[r]) + 1.0;
  return s;
}

Balance balanceOf(const Layout& L, int i, const std::vector<std::int64_t>& w) {
  Balance b;
  const std::int64_t lo = L.row_bounds[i], hi = L.row_bounds[i + 1], rows = hi - lo;
  b.avg_slice = weightOf(w, lo, hi) / L.slices;
  for (int t = 0; t < L.slices; ++t) {
    b.max_slice = std::max(b.max_slice, weightOf(w, L.a_slice(i, t), L.a_slice(i, t + 1)));
    b.even_max_slice = std::max(b.even_max_slice, weightOf(w, lo + rows * t / L.slices, lo + rows * (t + 1) / L.slices));
  }
  const std::int64_t bins = std::min<std::int64_t>(rows, 128 * static_cast<std::int64_t>(L.slices));
  for (std::int64_t t = 0; t < bins; ++t)
    b.heaviest_bin = std::max(b.heaviest_bin, weightOf(w, lo + rows * t / bins, lo + rows * (t + 1) / bins));
  return b;
}

bool structureOk(const Layout& L, std::string& why) {
  const int S = L.slices;
  if (L.row_bounds.front() != 0 || L.row_bounds.back() != L.m) return why = "row bounds do not span [0, m)", false;
  for (int i = 0; i < L.grid.rows; ++i) {
    if (L.a_slice(i, 0) != L.row_bounds[i] || L.a_slice(i, S) != L.row_bounds[i + 1])
      return why = "row block " + std::to_string(i) + " is not the union of its slices", false;
    for (int t = 0; t < S; ++t)
      if (L.a_slice(i, t) > L.a_slice(i, t + 1)) return why = "slice bounds descend", false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Tally tally;
  const int P = TridentTest::size(), me = TridentTest::rank();
  const std::int64_t m = 20000, k = 20000, n = 20000;
  // Power-law row weights, heavy rows first: row r has about 200000 / (r + 100) entries, at least 2.
  std::vector<std::int64_t> w(m);
  for (std::int64_t r = 0; r < m; ++r) w[r] = std::max<std::int64_t>(2, 200000 / (r + 100));
  std::vector<std::int64_t> myPos, myW, allPos(m);
  for (std::int64_t r = me; r < m; r += P) {
    myPos.push_back(r);
    myW.push_back(w[r]);
  }
  for (std::int64_t r = 0; r < m; ++r) allPos[r] = r;
  const std::vector<std::int64_t> bPos(myPos), bW(myPos.size(), 3);

  struct Case {
    TileGrid grid;
    int slices;
    const char* name;
  };
  const Case cases[] = {{TileGrid::rowsOnly(4), 4, "4 x 1 grid, lambda 4"},
                        {TileGrid::forUnits(4), 2, "2 x 2 grid, lambda 2"},
                        {TileGrid::forUnits(16), 1, "4 x 4 grid, one slice (SUMMA)"},
                        {TileGrid::rowsOnly(3), 3, "3 x 1 grid, lambda 3"},
                        {TileGrid::forUnits(1), 8, "one group, lambda 8"}};
  for (const Case& c : cases) {
    const Layout L = makeLayout(c.grid, c.slices, m, k, n, myPos, myW, bPos, bW, MPI_COMM_WORLD);
    std::string why;
    tally.check(structureOk(L, why), std::string(c.name) + ": row blocks are unions of ascending slices", why);
    tally.check(L.row_bounds == evenBounds(m, c.grid.rows), std::string(c.name) + ": row blocks even");
    bool balanced = true, evenWouldFail = false;
    std::string detail;
    for (int i = 0; i < c.grid.rows; ++i) {
      const Balance b = balanceOf(L, i, w);
      // A slice may exceed the average by about one bin on each side of it.
      if (b.max_slice > b.avg_slice + 2 * b.heaviest_bin) {
        balanced = false;
        detail += "block " + std::to_string(i) + ": heaviest slice " + std::to_string(b.max_slice) + ", average " +
                  std::to_string(b.avg_slice) + ", heaviest bin " + std::to_string(b.heaviest_bin) + "; ";
      }
      evenWouldFail = evenWouldFail || b.even_max_slice > b.avg_slice + 2 * b.heaviest_bin;
    }
    tally.check(balanced, std::string(c.name) + ": every slice within two bins of its block's average weight", detail);
    // Even slices fail this bound on these weights: the check can tell balanced cuts from even ones.
    if (c.slices > 1)
      tally.check(evenWouldFail, std::string(c.name) + ": even slices would not be balanced here (the check is not vacuous)");
    // Every rank and one process holding all rows build the same layout (the planner's).
    const Layout self = makeLayout(c.grid, c.slices, m, k, n, allPos, w, allPos, std::vector<std::int64_t>(m, 3),
                                   MPI_COMM_SELF);
    tally.check(self.row_bounds == L.row_bounds && self.a_slice_bounds == L.a_slice_bounds &&
                    self.inner_bounds == L.inner_bounds && self.b_slice_bounds == L.b_slice_bounds,
                std::string(c.name) + ": the same layout from a strided distribution and from one process");
    // B's inner blocks stay even (A's column blocks must line up with them).
    tally.check(L.inner_bounds == evenBounds(k, c.grid.rounds), std::string(c.name) + ": inner blocks even");
  }
  for (const Case& c : cases) {
    if (c.grid.rows < 2) continue;
    std::vector<double> seen;
    SliceCuts cuts;
    cuts.balance_blocks = [&seen](const std::vector<double>& work) {
      seen = work;
      return true;
    };
    const Layout L = makeLayout(c.grid, c.slices, m, k, n, myPos, myW, bPos, bW, MPI_COMM_WORLD, cuts);
    const std::vector<std::int64_t> even = evenBounds(m, c.grid.rows);
    bool weightsRight = seen.size() == static_cast<std::size_t>(c.grid.rows);
    for (int i = 0; i < c.grid.rows && weightsRight; ++i) weightsRight = seen[i] == weightOf(w, even[i], even[i + 1]);
    tally.check(weightsRight, std::string(c.name) + ": the block rule sees the even blocks' work");
    std::string why;
    tally.check(structureOk(L, why), std::string(c.name) + ", blocks by work: row blocks are unions of ascending slices", why);
    tally.check(L.row_bounds != even, std::string(c.name) + ", blocks by work: the blocks moved");
    // Every slice within two of the heaviest bins (of any even block) of the world's average slice.
    const double avg = weightOf(w, 0, m) / (c.grid.rows * c.slices);
    double heaviestBin = 0, maxSlice = 0;
    for (int i = 0; i < c.grid.rows; ++i) {
      const Balance e = balanceOf(makeLayout(c.grid, c.slices, m, k, n, allPos, w, allPos, w, MPI_COMM_SELF), i, w);
      heaviestBin = std::max(heaviestBin, e.heaviest_bin);
      for (int t = 0; t < c.slices; ++t) maxSlice = std::max(maxSlice, weightOf(w, L.a_slice(i, t), L.a_slice(i, t + 1)));
    }
    tally.check(maxSlice <= avg + 2 * heaviestBin, std::string(c.name) + ", blocks by work: every slice near the average",
                "heaviest " + std::to_string(maxSlice) + ", average " + std::to_string(avg));
    SliceCuts no;
    no.balance_blocks = [](const std::vector<double>&) { return false; };
    const Layout kept = makeLayout(c.grid, c.slices, m, k, n, myPos, myW, bPos, bW, MPI_COMM_WORLD, no);
    const Layout plain = makeLayout(c.grid, c.slices, m, k, n, myPos, myW, bPos, bW, MPI_COMM_WORLD);
    tally.check(kept.row_bounds == plain.row_bounds && kept.a_slice_bounds == plain.a_slice_bounds,
                std::string(c.name) + ": a rule that says no keeps the even layout");
  }
  {
    // No rows given (a layout of the index range only): even blocks and slices.
    const std::vector<std::int64_t> none;
    const Layout L = makeLayout(TileGrid::rowsOnly(4), 2, 1000, 1000, 1000, none, none, none, none, MPI_COMM_WORLD);
    bool even = L.row_bounds == evenBounds(1000, 4);
    for (int i = 0; i < 4; ++i) even = even && L.a_slice(i, 1) == L.row_bounds[i] + (L.row_bounds[i + 1] - L.row_bounds[i]) / 2;
    tally.check(even, "no weights: even row blocks and even slices");
  }
  const int rc = tally.finish();
  MPI_Finalize();
  return rc;
}
