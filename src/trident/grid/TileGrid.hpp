#pragma once
// The coarse 2D grid of tiles and its static Cannon schedule, as an explicit value.
//
// "Units" are node groups for Trident and single ranks for 2D SUMMA. U units form a
// rows x cols grid (near square, rows >= cols; any U works, e.g. 2 = 2x1, 6 = 3x2). The inner dimension is cut
// into `rounds` = lcm(rows, cols) blocks so every unit owns the same number of A and B tiles:
//   A(i,s) is owned by unit (i, s mod cols),   B(s,j) by unit (s mod rows, j).
// Static Cannon, C-stationary: unit (i,j) computes C(i,j); in round r it needs stage
//   s = (r + i + j) mod rounds,
// which staggers the requests so that in each round every tile is fetched by at most one unit of
// its grid row (A) or column (B): no owner is a hot spot and no round needs a global barrier.
#include <numeric>

namespace Trident {

struct TileGrid {
  int rows = 1, cols = 1, rounds = 1;

  static TileGrid forUnits(int units);  // near-square rows >= cols, rounds = lcm(rows, cols)
  // units x 1: row blocks only. With operands and result in a 1D row distribution whose ranks are
  // grouped like the units, nothing crosses Gi on the way in or out; only B's tiles move.
  static TileGrid rowsOnly(int units);

  int units() const { return rows * cols; }
  int unit(int i, int j) const { return i * cols + j; }
  int unit_row(int u) const { return u / cols; }
  int unit_col(int u) const { return u % cols; }
  int a_owner(int i, int s) const { return unit(i, s % cols); }
  int b_owner(int s, int j) const { return unit(s % rows, j); }
  int stage(int round, int i, int j) const { return (round + i + j) % rounds; }
  // The round in which unit (i,j) works on stage s (inverse of stage()).
  int round_of(int s, int i, int j) const { return ((s - i - j) % rounds + 2 * rounds) % rounds; }
};

}  // namespace Trident
