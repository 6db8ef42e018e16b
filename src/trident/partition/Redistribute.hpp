#pragma once
// Moving entries between distributions: from any distribution (e.g. Tpetra's 1D rows) into the
// tiles and slices of a Layout, and back. Every move is one all-to-all of (row, col, value)
// triplets in position space (bigcount::alltoallv: 64-bit counts, chunked messages); it happens
// before and after the multiply loop, never inside it.
#include <mpi.h>
#include <cstdint>
#include <functional>
#include <vector>

#include "trident/local/Csr.hpp"
#include "trident/partition/Layout.hpp"
#include "trident/partition/LocalRows.hpp"
#include "trident/partition/Triplets.hpp"

namespace Trident {

// Sends entry t to rank dest[t]. Returns what this rank received (grouped by source rank, in
// send order). (*bytes_to)[d] grows by the bytes this rank sent to rank d (self excluded).
Triplets exchangeTriplets(const Triplets& in, const std::vector<int>& dest, MPI_Comm comm,
                          std::vector<std::uint64_t>* bytes_to = nullptr);

// The tiles one rank owns: its slice of A(i,s) for the stages s its unit owns, and of B(s,j).
// A hypersparse slice of B (more rows than kRowCompressFactor x its entries + kRowCompressMinRows)
// is row-compressed,
// DCSR-like: b[s] holds only its nonempty rows, b_rows[s] lists which (slice-local, ascending),
// b[s].nrows == b_rows[s].size(). A slice of B spans k/lambda positions of the inner dimension, of
// which a hypersparse matrix uses few: row offsets over all of them would make a rank's memory
// grow with the global dimension (test_memory_scaling). Other slices keep all rows (no lookups).
struct OwnedTiles {
  static constexpr std::int64_t kRowCompressFactor = 2;
  // Below this many rows a slice's row offsets cost at most 512 KB: kept (and so the wire bytes
  // the planner predicts for ordinary matrices).
  static constexpr std::int64_t kRowCompressMinRows = std::int64_t{1} << 16;
  static bool hypersparse(std::int64_t rows, std::int64_t nnz) {
    return rows > kRowCompressFactor * nnz + kRowCompressMinRows;
  }
  std::vector<Csr> a;           // indexed by stage s; empty Csr where not owned
  std::vector<bool> owns_a;
  std::vector<Csr> b;
  std::vector<bool> owns_b;
  std::vector<bool> b_compressed;
  std::vector<std::vector<int>> b_rows;  // for compressed slices
  // The rows b[s] holds, or null when it holds all of its slice's.
  const std::vector<int>* bRows(int s) const { return b_compressed[s] ? &b_rows[s] : nullptr; }
};

// Where (unit, slice) lives: the world rank that holds slice `k` of the tiles of `unit`.
using RankOf = std::function<int(int unit, int k)>;

// Throws InvalidInput (on every rank: the layout is the same everywhere, so no communication)
// when a tile of the layout is wider, or a slice longer, than the 32-bit local indices of Csr
// hold. With the G x 1 grid a tile of B is as wide as the whole matrix. distributeTiles calls it;
// call it right after makeLayout to fail before anything moves.
void checkLocalIndexRange(const Layout& L);

// The world rank that holds entry t of A (is_a) or of B in the layout: the tile slice its row and
// column fall in. distributeTiles sends every entry there; a kept plan routes values by it.
std::vector<int> tileDestinations(const Layout& L, const Triplets& T, bool is_a, const RankOf& rank_of);

// Collective over comm. Entries of A (m x k, positions) and of B (k x n) go to the rank that owns
// their tile slice. my_unit/my_k say which tiles this rank owns. a_stays / b_stays (the same on
// every rank): the layout's slices are the rows each rank already holds (SliceCuts at the 1D
// owners), so that operand is bucketed locally with no communication at all; an entry that would
// have to move then is an internal error (std::logic_error).
OwnedTiles distributeTiles(const Layout& L, const Triplets& A, const Triplets& B, const RankOf& rank_of,
                           int my_unit, int my_k, MPI_Comm comm, std::vector<std::uint64_t>* bytes_to,
                           bool a_stays = false, bool b_stays = false);

// An operand as distributeTiles takes it: its entries as triplets, or (an operand that stays only)
// the rank's own CSR rows, cut into tiles where they are.
struct OperandEntries {
  const Triplets* triplets = nullptr;
  const LocalRows* rows = nullptr;
};
// The same; an operand given as rows must stay (std::logic_error otherwise). The tiles equal
// those of its triplets (toTriplets(rows)), entry for entry and in the same order.
OwnedTiles distributeTiles(const Layout& L, OperandEntries A, OperandEntries B, const RankOf& rank_of, int my_unit,
                           int my_k, MPI_Comm comm, std::vector<std::uint64_t>* bytes_to, bool a_stays, bool b_stays);

}  // namespace Trident
