#pragma once
// A rank's own rows as it already holds them (a CSR it does not own: Tpetra's local matrix), seen
// in position space through two tables, one position per local row and one per local column.
// An operand whose tile slices are exactly these rows ("trident: slices" = "owners") is cut into
// its tiles straight from here (distributeTiles): no (row, col, value) triplet per entry is formed
// and bucketed first. That detour wrote ~40 bytes per entry of fresh memory per operand and call;
// on a VM whose page faults cost ~11 us it was most of a rank's faults (facebook's square, P = 4).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "trident/partition/Triplets.hpp"

namespace Trident {

struct LocalRows {
  std::int64_t nrows = 0;
  const std::size_t* rowptr = nullptr;  // nrows + 1 offsets into col/val
  const int* col = nullptr;             // local column indices
  const double* val = nullptr;
  std::vector<std::int64_t> row_pos;  // position of local row r
  std::vector<std::int64_t> col_pos;  // position of local column c
  // Explicitly stored zeros are not entries (op(A): Tpetra's Multiply skips them).
  bool skip_zeros = false;
  std::size_t entries = 0;  // entries kept (stored zeros excluded where skipped)

  bool kept(std::size_t q) const { return !skip_zeros || val[q] != 0.0; }
  // Counts `entries`; call once the arrays are set.
  void countEntries();
};

// The same entries as triplets, row by row in the CSR's order (what an operand that has to move
// is sent as). value_index (optional): each triplet's index in val.
Triplets toTriplets(const LocalRows& rows, std::vector<std::int64_t>* value_index = nullptr);

}  // namespace Trident
