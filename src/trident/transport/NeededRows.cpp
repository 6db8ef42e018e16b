#include "trident/transport/NeededRows.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "trident/transport/BigCount.hpp"

namespace Trident {

namespace {
// The distinct values of `values` (all in [0, width)), ascending. A bit per value of the range
// when that is small next to the list (a word per 64 values: O(list) memory, no sort), a sort
// otherwise (hypersparse tiles, where the range is far larger than the list).
std::vector<int> distinctSorted(std::vector<int> values, std::int64_t width) {
  if (width <= 64 * static_cast<std::int64_t>(values.size()) + 4096) {
    std::vector<std::uint64_t> bits(static_cast<std::size_t>((width + 63) / 64), 0);
    for (int v : values) bits[v / 64] |= std::uint64_t{1} << (v % 64);
    values.clear();
    for (std::size_t w = 0; w < bits.size(); ++w)
      for (std::uint64_t x = bits[w]; x; x &= x - 1) values.push_back(static_cast<int>(64 * w + __builtin_ctzll(x)));
    return values;
  }
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

// Allgather of one list per rank (each rank's made of `parts` pieces, piece p ascending and in
// [0, widths[p]), widths the same on every rank): *all gets every rank's pieces, rank-major, and
// at[q * (parts + 1) + p] where piece p of rank q starts in it. A piece travels as a bitmap of
// its range when that is shorter than the list: lists of the rows a tile needs are often most of
// the tile (unstructured graphs), where the bitmap is 32 times smaller, and on a slow Gi link the
// bytes of this gather are the in phase's time. Pieces are stored as lists again on arrival.
void allgatherLists(const std::vector<int>& mine, const std::vector<std::int64_t>& mine_counts,
                    const std::vector<std::int64_t>& widths, MPI_Comm comm, std::vector<int>* all,
                    std::vector<std::int64_t>* at) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const int parts = static_cast<int>(mine_counts.size());
  // Per piece: its length as a list, and its length on the wire (shorter only as a bitmap).
  std::vector<std::int64_t> meta(2 * static_cast<std::size_t>(parts));
  std::vector<int> wire;
  wire.reserve(mine.size());
  std::int64_t from = 0;
  for (int p = 0; p < parts; ++p) {
    const std::int64_t count = mine_counts[p], words = (widths[p] + 31) / 32;
    meta[2 * p] = count;
    if (words < count) {
      const std::size_t base = wire.size();
      wire.resize(base + static_cast<std::size_t>(words), 0);
      for (std::int64_t t = from; t < from + count; ++t)
        wire[base + mine[t] / 32] = static_cast<int>(static_cast<std::uint32_t>(wire[base + mine[t] / 32]) |
                                                     (1u << (mine[t] % 32)));
      meta[2 * p + 1] = words;
    } else {
      wire.insert(wire.end(), mine.begin() + from, mine.begin() + from + count);
      meta[2 * p + 1] = count;
    }
    from += count;
  }
  std::vector<std::int64_t> metas(static_cast<std::size_t>(size) * 2 * parts);
  if (parts > 0)
    MPI_Allgather(meta.data(), 2 * parts, MPI_INT64_T, metas.data(), 2 * parts, MPI_INT64_T, comm);
  std::vector<std::int64_t> totals(size, 0);
  at->assign(static_cast<std::size_t>(size) * (parts + 1), 0);
  std::int64_t offset = 0, wireTotal = 0;
  for (int q = 0; q < size; ++q) {
    for (int p = 0; p < parts; ++p) {
      (*at)[q * (parts + 1) + p] = offset;
      offset += metas[(static_cast<std::size_t>(q) * parts + p) * 2];
      totals[q] += metas[(static_cast<std::size_t>(q) * parts + p) * 2 + 1];
    }
    (*at)[q * (parts + 1) + parts] = offset;
    wireTotal += totals[q];
  }
  std::vector<int> wireAll(static_cast<std::size_t>(wireTotal));
  bigcount::allgatherv(wire.data(), wireAll.data(), totals, MPI_INT, comm);
  wire = {};
  all->resize(static_cast<std::size_t>(offset));
  std::int64_t w = 0;
  for (int q = 0; q < size; ++q)
    for (int p = 0; p < parts; ++p) {
      const std::int64_t count = metas[(static_cast<std::size_t>(q) * parts + p) * 2];
      const std::int64_t len = metas[(static_cast<std::size_t>(q) * parts + p) * 2 + 1];
      int* out = all->data() + (*at)[q * (parts + 1) + p];
      if (len == count) {
        std::copy(wireAll.begin() + w, wireAll.begin() + w + len, out);
      } else {
        std::int64_t n = 0;
        for (std::int64_t t = 0; t < len; ++t)
          for (std::uint32_t x = static_cast<std::uint32_t>(wireAll[w + t]); x; x &= x - 1)
            out[n++] = static_cast<int>(32 * t + __builtin_ctz(x));
        if (n != count) throw std::logic_error("Trident: needed rows: a bitmap that does not match its count");
      }
      w += len;
    }
}
}  // namespace

NeededRows::NeededRows(const Layout& L, const OwnedTiles& tiles, int my_k, MPI_Comm li_comm,
                       MPI_Comm gi_comm)
    : rounds_(L.grid.rounds), rows_(static_cast<size_t>(L.grid.rows) * L.grid.rounds) {
  const TileGrid& g = L.grid;
  auto sliceBegin = [&](int s) { return L.b_slice(s, my_k) - L.inner_bounds[s]; };  // in block s
  auto sliceRows = [&](int s) { return L.b_slice(s, my_k + 1) - L.b_slice(s, my_k); };

  // 1. The columns of each A slice my group owns, from every member (one Allgatherv over Li for
  // all tiles): merged, they are what the group's A tile uses; one by one, they are what each
  // member asks for in the Li row exchange of the rounds where the group multiplies its own A
  // tile (LiRowExchange then skips its per-round request exchange).
  std::vector<int> own;
  std::vector<std::int64_t> own_counts(g.rounds, 0);
  for (int s = 0; s < g.rounds; ++s) {
    if (!tiles.owns_a[s]) continue;
    const std::vector<int> cols = distinctSorted(tiles.a[s].col, L.inner_width(s));
    own_counts[s] = static_cast<std::int64_t>(cols.size());
    own.insert(own.end(), cols.begin(), cols.end());
  }
  MPI_Comm_size(li_comm, &lambda_);
  std::vector<std::int64_t> widths(g.rounds);
  for (int s = 0; s < g.rounds; ++s) widths[s] = L.inner_width(s);
  allgatherLists(own, own_counts, widths, li_comm, &group_cols_, &group_at_);
  own = {};

  std::vector<int> mine;  // my slice-k portions of the merged lists, slice-local, in s order
  std::vector<std::int64_t> mine_counts(g.rounds, 0);
  for (int s = 0; s < g.rounds; ++s) {
    if (!tiles.owns_a[s]) continue;
    std::vector<int> used;
    for (int q = 0; q < lambda_; ++q)
      used.insert(used.end(), group_cols_.begin() + group_at_[q * (rounds_ + 1) + s],
                  group_cols_.begin() + group_at_[q * (rounds_ + 1) + s + 1]);
    used = distinctSorted(std::move(used), L.inner_width(s));
    const std::int64_t b0 = sliceBegin(s), b1 = b0 + sliceRows(s);
    const auto from = std::lower_bound(used.begin(), used.end(), b0);
    const auto to = std::lower_bound(from, used.end(), b1);
    for (auto c = from; c != to; ++c) mine.push_back(static_cast<int>(*c - b0));
    mine_counts[s] = to - from;
  }

  // 2. Everyone with my k learns every group's portions (Gi, one all-gather before the loop).
  std::vector<int> all;
  std::vector<std::int64_t> at;
  for (int s = 0; s < g.rounds; ++s) widths[s] = sliceRows(s);
  allgatherLists(mine, mine_counts, widths, gi_comm, &all, &at);
  for (int u = 0; u < g.units(); ++u) {
    const int i = g.unit_row(u);
    for (int s = 0; s < g.rounds; ++s) {
      if (g.a_owner(i, s) != u) continue;
      rows_[static_cast<size_t>(i) * rounds_ + s].assign(all.begin() + at[u * (rounds_ + 1) + s],
                                                          all.begin() + at[u * (rounds_ + 1) + s + 1]);
    }
  }
}

std::vector<std::vector<int>> NeededRows::groupColumns(int s) const {
  std::vector<std::vector<int>> out;
  if (s < 0 || s >= rounds_) return out;
  bool owned = false;
  for (int q = 0; q < lambda_ && !owned; ++q)
    owned = group_at_[q * (rounds_ + 1) + s + 1] > group_at_[q * (rounds_ + 1) + s];
  if (!owned) return out;
  out.resize(lambda_);
  for (int q = 0; q < lambda_; ++q)
    out[q].assign(group_cols_.begin() + group_at_[q * (rounds_ + 1) + s],
                  group_cols_.begin() + group_at_[q * (rounds_ + 1) + s + 1]);
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

Csr selectRows(const Csr& m, const std::vector<int>& stored, const std::vector<int>& keep) {
  // Position in m of each kept row (-1: not stored, empty); both lists ascending.
  std::vector<std::int64_t> at(keep.size(), -1);
  std::int64_t nz = 0;
  std::size_t p = 0;
  for (std::size_t t = 0; t < keep.size(); ++t) {
    while (p < stored.size() && stored[p] < keep[t]) ++p;
    if (p < stored.size() && stored[p] == keep[t]) {
      at[t] = static_cast<std::int64_t>(p);
      nz += m.rowptr[p + 1] - m.rowptr[p];
    }
  }
  Csr out(static_cast<std::int64_t>(keep.size()), m.ncols);
  out.col.reserve(nz);
  out.val.reserve(nz);
  for (std::size_t t = 0; t < keep.size(); ++t) {
    if (at[t] >= 0) {
      const std::int64_t b = m.rowptr[at[t]], e = m.rowptr[at[t] + 1];
      out.col.insert(out.col.end(), m.col.begin() + b, m.col.begin() + e);
      out.val.insert(out.val.end(), m.val.begin() + b, m.val.begin() + e);
    }
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
