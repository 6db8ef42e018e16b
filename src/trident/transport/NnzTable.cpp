#include "trident/transport/NnzTable.hpp"

#include "trident/transport/BigCount.hpp"

namespace Trident {

namespace {
NnzTable reduced(const Layout& L, const OwnedTiles& tiles, int my_unit, int my_k, const std::vector<MPI_Comm>& comms) {
  const TileGrid& g = L.grid;
  NnzTable T;
  T.slices = L.slices;
  T.rounds = g.rounds;
  T.grid_cols = g.cols;
  T.a.assign(static_cast<size_t>(g.rows) * g.rounds * L.slices, 0);
  T.b.assign(static_cast<size_t>(g.rounds) * g.cols * L.slices, 0);
  const int i = g.unit_row(my_unit), j = g.unit_col(my_unit);
  for (int s = 0; s < g.rounds; ++s) {
    if (tiles.owns_a[s]) T.a[(static_cast<size_t>(i) * g.rounds + s) * L.slices + my_k] = tiles.a[s].nnz();
    if (tiles.owns_b[s]) T.b[(static_cast<size_t>(s) * g.cols + j) * L.slices + my_k] = tiles.b[s].nnz();
  }
  std::vector<std::int64_t> both(T.a);
  both.insert(both.end(), T.b.begin(), T.b.end());
  for (MPI_Comm comm : comms) bigcount::allreduce(both.data(), both.size(), MPI_INT64_T, MPI_SUM, comm);
  std::copy(both.begin(), both.begin() + T.a.size(), T.a.begin());
  std::copy(both.begin() + T.a.size(), both.end(), T.b.begin());
  return T;
}
}  // namespace

NnzTable gatherNnzTable(const Layout& L, const OwnedTiles& tiles, int my_unit, int my_k, MPI_Comm comm) {
  return reduced(L, tiles, my_unit, my_k, {comm});
}

NnzTable gatherNnzTable(const Layout& L, const OwnedTiles& tiles, int my_unit, int my_k, MPI_Comm comm1,
                        MPI_Comm comm2) {
  return reduced(L, tiles, my_unit, my_k, {comm1, comm2});
}

}  // namespace Trident
