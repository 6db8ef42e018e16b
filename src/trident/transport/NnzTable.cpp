#include "trident/transport/NnzTable.hpp"

#include "trident/core/BigCount.hpp"

namespace Trident {

NnzTable zeroTable(const Layout& L) {
  const TileGrid& g = L.grid;
  NnzTable T;
  T.slices = L.slices;
  T.rounds = g.rounds;
  T.grid_cols = g.cols;
  T.a.assign(static_cast<size_t>(g.rows) * g.rounds * L.slices, 0);
  T.b.assign(static_cast<size_t>(g.rounds) * g.cols * L.slices, 0);
  T.b_rows.assign(T.b.size(), 0);
  return T;
}

void sumOver(NnzTable& T, MPI_Comm comm) {
  std::vector<std::int64_t> all(T.a);
  all.insert(all.end(), T.b.begin(), T.b.end());
  all.insert(all.end(), T.b_rows.begin(), T.b_rows.end());
  bigcount::allreduce(all.data(), all.size(), MPI_INT64_T, MPI_SUM, comm);
  auto from = all.begin();
  for (auto* part : {&T.a, &T.b, &T.b_rows}) {
    std::copy(from, from + static_cast<std::ptrdiff_t>(part->size()), part->begin());
    from += static_cast<std::ptrdiff_t>(part->size());
  }
}

NnzTable gatherNnzTable(const Layout& L, const OwnedTiles& tiles, int my_unit, int my_k, MPI_Comm comm) {
  const TileGrid& g = L.grid;
  NnzTable T = zeroTable(L);
  const int i = g.unit_row(my_unit), j = g.unit_col(my_unit);
  for (int s = 0; s < g.rounds; ++s) {
    if (tiles.owns_a[s]) T.a[(static_cast<size_t>(i) * g.rounds + s) * L.slices + my_k] = tiles.a[s].nnz();
    if (tiles.owns_b[s]) {
      T.b[(static_cast<size_t>(s) * g.cols + j) * L.slices + my_k] = tiles.b[s].nnz();
      T.b_rows[(static_cast<size_t>(s) * g.cols + j) * L.slices + my_k] = tiles.b[s].nrows;
    }
  }
  sumOver(T, comm);
  return T;
}

}  // namespace Trident
