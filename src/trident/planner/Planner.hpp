#pragma once
// The planner: from the patterns of A and B and a description of the ranks (P, lambda), the
// exact bytes each algorithm moves per rank over Gi and Li, the multiply-adds each rank does and
// the redistribution into the tiles, computed on ONE process that simulates all P ranks. It
// replays the library's decisions (grid, layout, slices balanced by work, needed rows) on the
// global pattern instead of running them, so what it predicts is what MultiplyStats reports for
// the same inputs: gi/li_bytes_recv/sent and local_flops of each rank, exactly.
//
// Memory is O(nnz(A) + nnz(B) + dimensions + P + the grid's tile counts): one bitmask of lambda
// bits per inner index for the row block being counted, never one copy of anything per rank.
//
// Assumptions (what the Tpetra adapter and trident-bench do): A's rows are distributed as
// Tpetra's uniform contiguous map over its row count and B's rows over its row count (= A's
// domain, uniform); groups are consecutive blocks of lambda world ranks ("trident: ranks per
// group" = lambda); Trident's slices balanced by work inside even row blocks ("trident: slices" =
// "balanced", "trident: blocks" = "even"); no stored zeros in A.
#include <cstdint>
#include <string>
#include <vector>

#include "trident/grid/TileGrid.hpp"
#include "trident/planner/Pattern.hpp"

namespace Trident {
namespace planner {

struct Ranks {
  int P = 1;
  int lambda = 1;  // ranks per group; groups are consecutive blocks of lambda ranks
  int groups() const { return P / lambda; }
  int group(int rank) const { return rank / lambda; }
};

struct PlanOptions {
  bool permute = false;       // "trident: permute" = "random"
  std::uint64_t seed = 12345;  // "trident: permute seed"
};

// What one algorithm would do, per world rank.
struct Prediction {
  std::string algo;   // "tpetra", "summa", "trident"
  std::string grid;   // trident: "square" or "rows"
  std::string fetch;  // trident: "needed" or "whole"
  int grid_rows = 1, grid_cols = 1, rounds = 1;
  std::vector<std::uint64_t> gi_recv, gi_sent, li_recv, li_sent;  // inside the multiply
  std::vector<std::uint64_t> gi_msgs, li_msgs;                     // messages received (latency)
  std::vector<std::uint64_t> flops;                                // multiply-adds
  std::vector<std::uint64_t> import_rows;                          // tpetra: rows of B imported
  // Bytes sent by each rank moving A and B from Tpetra's 1D rows into the tiles (tpetra: none).
  std::vector<std::uint64_t> in_gi_sent, in_li_sent;
  // Entries of A and B the busiest rank handles (tpetra: the 1D rows it holds; summa, trident:
  // their share moved into the tiles, nnz/P): the model's per-entry term.
  double entries_max = 0;
  double time_s = 0;  // predicted by a MachineModel (predictTime); 0 until then

  explicit Prediction(int P = 0);
  void add(const Prediction& o);  // a chain of products (R*(A*P)): per-rank sums
};

std::uint64_t maxOf(const std::vector<std::uint64_t>& v);
std::uint64_t sumOf(const std::vector<std::uint64_t>& v);

// Tpetra's own Multiply: each rank imports the rows of B that its rows of A reference and it
// does not own, packed as 8 B per row + 20 B per entry (the adapter's accounting).
Prediction predictTpetra(const Pattern& A, const Pattern& B, const Ranks& ranks);

// 2D Sparse SUMMA over all P ranks (near-square grid of ranks).
Prediction predictSumma(const Pattern& A, const Pattern& B, const Ranks& ranks, const PlanOptions& opt = {});

// Trident on the given grid of groups (TileGrid::forUnits(G) = "square" or rowsOnly(G) = "rows").
Prediction predictTrident(const Pattern& A, const Pattern& B, const Ranks& ranks, const TileGrid& grid,
                          bool fetch_needed, const PlanOptions& opt = {});

// "trident: grid" = "auto": the grid the adapter would choose (its estimate, replayed).
TileGrid tridentAutoGrid(const Pattern& A, const Pattern& B, const Ranks& ranks, bool fetch_needed);

}  // namespace planner
}  // namespace Trident
