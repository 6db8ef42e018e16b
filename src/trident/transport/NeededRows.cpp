#include "trident/transport/NeededRows.hpp"

#include <numeric>

#include "trident/transport/BigCount.hpp"

namespace Trident {

NeededRows::NeededRows(const Layout& L, const OwnedTiles& tiles, int my_k, MPI_Comm li_comm,
                       MPI_Comm gi_comm)
    : rounds_(L.grid.rounds), rows_(static_cast<size_t>(L.grid.rows) * L.grid.rounds) {
  const TileGrid& g = L.grid;
  auto sliceBegin = [&](int s) { return L.b_slice(s, my_k) - L.inner_bounds[s]; };  // in block s
  auto sliceRows = [&](int s) { return L.b_slice(s, my_k + 1) - L.b_slice(s, my_k); };
  auto packedBytes = [&](int s) { return (sliceRows(s) + 7) / 8; };

  // 1. The column pattern of each A slice my group owns, one bit per column of the tile, from every
  // member (one Allgather over Li for all tiles): ORed, they are what the group's A tile uses;
  // one by one, they are the masks of the Li row exchange in the rounds where the group
  // multiplies its own A tile (LiRowExchange then skips its per-round mask exchange).
  std::vector<std::int64_t> at(g.rounds + 1, 0);  // offset of tile s's mask in my packed masks
  for (int s = 0; s < g.rounds; ++s) at[s + 1] = at[s] + (tiles.owns_a[s] ? (L.inner_width(s) + 7) / 8 : 0);
  std::vector<std::uint8_t> own(static_cast<std::size_t>(at[g.rounds]), 0);
  for (int s = 0; s < g.rounds; ++s)
    if (tiles.owns_a[s])
      for (int c : tiles.a[s].col) own[at[s] + c / 8] |= static_cast<std::uint8_t>(1u << (c % 8));
  int lambda = 1;
  MPI_Comm_size(li_comm, &lambda);
  group_masks_.assign(static_cast<std::size_t>(lambda) * own.size(), 0);
  bigcount::allgatherv(own.data(), group_masks_.data(), std::vector<std::int64_t>(lambda, static_cast<std::int64_t>(own.size())),
                       MPI_UINT8_T, li_comm);
  mask_at_.assign(g.rounds, -1);
  lambda_ = lambda;
  packed_ = static_cast<std::int64_t>(own.size());
  mask_len_.assign(g.rounds, 0);
  for (int s = 0; s < g.rounds; ++s)
    if (tiles.owns_a[s]) {
      mask_at_[s] = at[s];
      mask_len_[s] = at[s + 1] - at[s];
    }

  std::vector<std::uint8_t> mine;  // my slice-k portions of those patterns, packed bits, in s order
  for (int s = 0; s < g.rounds; ++s) {
    if (!tiles.owns_a[s]) continue;
    std::vector<std::uint8_t> used(group_masks_.begin() + at[s], group_masks_.begin() + at[s + 1]);
    for (int q = 1; q < lambda; ++q)
      for (std::int64_t b = 0; b < at[s + 1] - at[s]; ++b) used[b] |= group_masks_[q * packed_ + at[s] + b];
    const std::int64_t b0 = sliceBegin(s);
    std::vector<std::uint8_t> bits(static_cast<std::size_t>(packedBytes(s)), 0);
    for (std::int64_t r = 0; r < sliceRows(s); ++r) {
      const std::int64_t c = b0 + r;
      if ((used[c / 8] >> (c % 8)) & 1u) bits[r / 8] |= static_cast<std::uint8_t>(1u << (r % 8));
    }
    mine.insert(mine.end(), bits.begin(), bits.end());
  }

  // 2. Everyone with my k learns every group's portions (Gi, one all-gather before the loop).
  const int units = g.units();
  std::vector<std::int64_t> counts(units, 0);
  for (int u = 0; u < units; ++u)
    for (int s = 0; s < g.rounds; ++s)
      if (g.a_owner(g.unit_row(u), s) == u) counts[u] += packedBytes(s);
  std::vector<std::int64_t> displ(units, 0);
  std::exclusive_scan(counts.begin(), counts.end(), displ.begin(), std::int64_t{0});
  std::vector<std::uint8_t> all(static_cast<std::size_t>(displ[units - 1] + counts[units - 1]));
  bigcount::allgatherv(mine.data(), all.data(), counts, MPI_UINT8_T, gi_comm);

  for (int u = 0; u < units; ++u) {
    std::size_t at = static_cast<std::size_t>(displ[u]);
    const int i = g.unit_row(u);
    for (int s = 0; s < g.rounds; ++s) {
      if (g.a_owner(i, s) != u) continue;
      std::vector<int>& list = rows_[static_cast<size_t>(i) * rounds_ + s];
      // Slice rows fit in int: checkLocalIndexRange (Redistribute.hpp) rejected the layout otherwise.
      for (std::int64_t r = 0; r < sliceRows(s); ++r)
        if (all[at + r / 8] & (1u << (r % 8))) list.push_back(static_cast<int>(r));
      at += static_cast<std::size_t>(packedBytes(s));
    }
  }
}

std::vector<std::uint8_t> NeededRows::groupMasks(int s) const {
  std::vector<std::uint8_t> out;
  if (s < 0 || s >= static_cast<int>(mask_at_.size()) || mask_at_[s] < 0) return out;
  const std::int64_t n = mask_len_[s];
  out.reserve(static_cast<std::size_t>(lambda_ * n));
  for (int q = 0; q < lambda_; ++q) {
    const auto from = group_masks_.begin() + q * packed_ + mask_at_[s];
    out.insert(out.end(), from, from + n);
  }
  return out;
}

Csr selectRows(const Csr& m, const std::vector<int>& keep) {
  Csr out(static_cast<std::int64_t>(keep.size()), m.ncols);
  std::int64_t nz = 0;
  for (std::size_t t = 0; t < keep.size(); ++t) nz += m.rowptr[keep[t] + 1] - m.rowptr[keep[t]];
  out.col.reserve(nz);
  out.val.reserve(nz);
  for (std::size_t t = 0; t < keep.size(); ++t) {
    const std::int64_t b = m.rowptr[keep[t]], e = m.rowptr[keep[t] + 1];
    out.col.insert(out.col.end(), m.col.begin() + b, m.col.begin() + e);
    out.val.insert(out.val.end(), m.val.begin() + b, m.val.begin() + e);
    out.rowptr[t + 1] = static_cast<std::int64_t>(out.col.size());
  }
  return out;
}

Csr expandRows(const Csr& part, const std::vector<int>& keep, std::int64_t nrows) {
  Csr out(nrows, part.ncols);
  for (std::size_t t = 0; t < keep.size(); ++t) out.rowptr[keep[t] + 1] = part.rowptr[t + 1] - part.rowptr[t];
  for (std::int64_t r = 0; r < nrows; ++r) out.rowptr[r + 1] += out.rowptr[r];
  out.col = part.col;
  out.val = part.val;
  return out;
}

}  // namespace Trident
