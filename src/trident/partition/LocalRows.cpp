#include "trident/partition/LocalRows.hpp"

#include <algorithm>

namespace Trident {

void LocalRows::countEntries() {
  const std::size_t nz = nrows > 0 ? rowptr[nrows] : 0;
  entries = skip_zeros ? nz - static_cast<std::size_t>(std::count(val, val + nz, 0.0)) : nz;
}

Triplets toTriplets(const LocalRows& rows, std::vector<std::int64_t>* value_index) {
  // Sized once and written by index: this runs on every entry of both operands on every call.
  Triplets T;
  T.row.resize(rows.entries);
  T.col.resize(rows.entries);
  T.val.resize(rows.entries);
  if (value_index) value_index->resize(rows.entries);
  std::size_t t = 0;
  for (std::int64_t r = 0; r < rows.nrows; ++r) {
    const std::int64_t rp = rows.row_pos[static_cast<std::size_t>(r)];
    for (std::size_t q = rows.rowptr[r]; q < rows.rowptr[r + 1]; ++q) {
      if (!rows.kept(q)) continue;
      T.row[t] = rp;
      T.col[t] = rows.col_pos[static_cast<std::size_t>(rows.col[q])];
      T.val[t] = rows.val[q];
      if (value_index) (*value_index)[t] = static_cast<std::int64_t>(q);
      ++t;
    }
  }
  return T;
}

}  // namespace Trident
