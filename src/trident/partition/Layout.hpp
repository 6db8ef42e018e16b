#pragma once
// Trident partitioning as an explicit value: which global row/inner/column positions form which
// tile, and how each tile's rows are cut into 1D slices, one per rank of the owning group.
//
// Positions are 0-based indices into the dimensions of C = A*B (A is m x k, B is k x n); the
// Tpetra adapter maps global IDs (and an optional random relabeling) to positions.
//   row block i     = [row_bounds[i], row_bounds[i+1])          i < grid.rows
//   inner block s   = [inner_bounds[s], inner_bounds[s+1])      s < grid.rounds
//   column block j  = [col_bounds[j], col_bounds[j+1])          j < grid.cols
//   slice t of A's row block i: [a_slice(i, t), a_slice(i, t+1)), t < slices
//   slice t of B's row block s: [b_slice(s, t), b_slice(s, t+1))
// Slices are balanced by nonzeros (of A's rows, of B's rows), not only by rows.
#include <mpi.h>
#include <cstdint>
#include <functional>
#include <vector>

#include "trident/grid/TileGrid.hpp"

namespace Trident {

struct Layout {
  TileGrid grid;
  int slices = 1;  // lambda for Trident, 1 for SUMMA
  std::int64_t m = 0, k = 0, n = 0;
  std::vector<std::int64_t> row_bounds, inner_bounds, col_bounds;
  std::vector<std::int64_t> a_slice_bounds;  // grid.rows * (slices + 1)
  std::vector<std::int64_t> b_slice_bounds;  // grid.rounds * (slices + 1)

  int row_block(std::int64_t p) const { return find(row_bounds, p); }
  int inner_block(std::int64_t p) const { return find(inner_bounds, p); }
  int col_block(std::int64_t p) const { return find(col_bounds, p); }
  std::int64_t a_slice(int i, int t) const { return a_slice_bounds[i * (slices + 1) + t]; }
  std::int64_t b_slice(int s, int t) const { return b_slice_bounds[s * (slices + 1) + t]; }
  int a_slice_of(int i, std::int64_t row) const;
  int b_slice_of(int s, std::int64_t row) const;
  std::int64_t inner_width(int s) const { return inner_bounds[s + 1] - inner_bounds[s]; }
  std::int64_t col_width(int j) const { return col_bounds[j + 1] - col_bounds[j]; }

 private:
  static int find(const std::vector<std::int64_t>& bounds, std::int64_t p);
};

// Even split of [0, n) into parts blocks.
std::vector<std::int64_t> evenBounds(std::int64_t n, int parts);

// Whether A's row blocks are cut by work instead of evenly, decided from their work (entries + 1
// per row, summed over the world) under even cuts; called on every rank with the same values.
// Even blocks of the G x 1 grid are, under Tpetra's contiguous row maps, the rows the group's
// ranks own, so the in and out phases stay inside each group (Li); blocks cut by work balance
// the groups, and the rows that change group cross Gi twice (A's in, C's out).
using BlockRule = std::function<bool(const std::vector<double>& block_work)>;

// Slices cut at given rows instead of balanced: a has grid.rows * slices + 1 ascending positions
// of A's rows (block i = [a[i*slices], a[(i+1)*slices]), its slice t starts at a[i*slices + t]),
// b likewise over B's rows and the grid.rounds inner blocks. Empty: balanced. The Tpetra adapter
// passes the 1D row owners' boundaries, so that each rank's slice is the rows it already holds.
// balance_blocks (used when a is empty; none: even blocks) may cut A's row blocks by work.
struct SliceCuts {
  std::vector<std::int64_t> a, b;
  BlockRule balance_blocks;
};

// Collective over comm. Builds the layout; each rank passes the positions of the rows of A and of
// B it holds and their nonzero counts (any distribution), from which the slices are balanced
// (those that cuts does not fix).
Layout makeLayout(const TileGrid& grid, int slices, std::int64_t m, std::int64_t k, std::int64_t n,
                  const std::vector<std::int64_t>& a_row_pos, const std::vector<std::int64_t>& a_row_nnz,
                  const std::vector<std::int64_t>& b_row_pos, const std::vector<std::int64_t>& b_row_nnz,
                  MPI_Comm comm, const SliceCuts& cuts = {});

}  // namespace Trident
