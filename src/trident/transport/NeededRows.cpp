#include "trident/transport/NeededRows.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "trident/core/BigCount.hpp"

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

// One list made of `counts.size()` pieces (piece p ascending, in [0, widths[p]), stored back to
// back in `lists`), packed: a piece travels as a bitmap of its range when that is shorter than the
// list. Lists of the rows a tile needs are often most of the tile (unstructured graphs), where the
// bitmap is 32 times smaller, and on a slow Gi link the in phase's bytes are its time.
PackedLists pack(const std::vector<int>& lists, const std::vector<std::int64_t>& counts,
                 const std::vector<std::int64_t>& widths) {
  const std::size_t parts = counts.size();
  PackedLists out;
  out.meta.resize(2 * parts);
  out.wire.reserve(lists.size());
  std::int64_t from = 0;
  for (std::size_t p = 0; p < parts; ++p) {
    const std::int64_t count = counts[p], words = (widths[p] + 31) / 32;
    out.meta[2 * p] = count;
    if (words < count) {
      const std::size_t base = out.wire.size();
      out.wire.resize(base + static_cast<std::size_t>(words), 0);
      for (std::int64_t t = from; t < from + count; ++t)
        out.wire[base + lists[t] / 32] =
            static_cast<int>(static_cast<std::uint32_t>(out.wire[base + lists[t] / 32]) | (1u << (lists[t] % 32)));
      out.meta[2 * p + 1] = words;
    } else {
      out.wire.insert(out.wire.end(), lists.begin() + from, lists.begin() + from + count);
      out.meta[2 * p + 1] = count;
    }
    from += count;
  }
  return out;
}

// Inverse of pack: piece p of the packet as a list, appended to *lists. `wire` points at the
// packet's words; returns how many it used.
std::int64_t unpackPiece(const std::int64_t* meta, std::size_t p, const int* wire, std::vector<int>* lists) {
  const std::int64_t count = meta[2 * p], len = meta[2 * p + 1];
  if (len == count) {
    lists->insert(lists->end(), wire, wire + len);
    return len;
  }
  const std::size_t base = lists->size();
  for (std::int64_t t = 0; t < len; ++t)
    for (std::uint32_t x = static_cast<std::uint32_t>(wire[t]); x; x &= x - 1)
      lists->push_back(static_cast<int>(32 * t + __builtin_ctz(x)));
  if (static_cast<std::int64_t>(lists->size() - base) != count)
    throw std::logic_error("Trident: needed rows: a bitmap that does not match its count");
  return len;
}

// Allgather of one packed list per rank over comm (the same number of pieces on every rank):
// *all gets every rank's pieces as lists, rank-major, and at[q * (parts + 1) + p] where piece p of
// rank q starts in it.
void allgatherLists(const PackedLists& mine, MPI_Comm comm, std::vector<int>* all, std::vector<std::int64_t>* at) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  const std::size_t parts = mine.meta.size() / 2;
  std::vector<std::int64_t> metas(static_cast<std::size_t>(size) * 2 * parts);
  if (parts > 0)
    MPI_Allgather(mine.meta.data(), static_cast<int>(2 * parts), MPI_INT64_T, metas.data(),
                  static_cast<int>(2 * parts), MPI_INT64_T, comm);
  std::vector<std::int64_t> totals(size, 0);
  std::int64_t listTotal = 0, wireTotal = 0;
  for (int q = 0; q < size; ++q)
    for (std::size_t p = 0; p < parts; ++p) {
      listTotal += metas[(q * parts + p) * 2];
      totals[q] += metas[(q * parts + p) * 2 + 1];
    }
  for (int q = 0; q < size; ++q) wireTotal += totals[q];
  std::vector<int> wireAll(static_cast<std::size_t>(wireTotal));
  bigcount::allgatherv(mine.wire.data(), wireAll.data(), totals, MPI_INT, comm);
  all->clear();
  all->reserve(static_cast<std::size_t>(listTotal));
  at->assign(static_cast<std::size_t>(size) * (parts + 1), 0);
  std::int64_t w = 0;
  for (int q = 0; q < size; ++q) {
    for (std::size_t p = 0; p < parts; ++p) {
      (*at)[q * (parts + 1) + p] = static_cast<std::int64_t>(all->size());
      w += unpackPiece(metas.data() + q * parts * 2, p, wireAll.data() + w, all);
    }
    (*at)[q * (parts + 1) + parts] = static_cast<std::int64_t>(all->size());
  }
}
}  // namespace

NeededRows::NeededRows(const Layout& L, const OwnedTiles& tiles, int my_k, MPI_Comm li_comm)
    : grid_(L.grid), rounds_(L.grid.rounds) {
  const TileGrid& g = L.grid;
  std::vector<std::int64_t> slice_rows(g.rounds);  // rows of slice my_k of B's row block s
  for (int s = 0; s < g.rounds; ++s) slice_rows[s] = L.b_slice(s, my_k + 1) - L.b_slice(s, my_k);
  auto sliceBegin = [&](int s) { return L.b_slice(s, my_k) - L.inner_bounds[s]; };  // in block s

  // The columns of each A slice my group owns, from every member (one Allgatherv over Li for all
  // tiles): merged, they are what the group's A tile uses; one by one, they are what each member
  // asks for in the Li row exchange of the rounds where the group multiplies its own A tile
  // (LiRowExchange then skips its per-round request exchange).
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
  allgatherLists(pack(own, own_counts, widths), li_comm, &group_cols_, &group_at_);
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
    const std::int64_t b0 = sliceBegin(s), b1 = b0 + slice_rows[s];
    const auto from = std::lower_bound(used.begin(), used.end(), b0);
    const auto to = std::lower_bound(from, used.end(), b1);
    for (auto c = from; c != to; ++c) mine.push_back(static_cast<int>(*c - b0));
    mine_counts[s] = to - from;
  }
  portions_ = pack(mine, mine_counts, slice_rows);
}

void NeededRows::setPortions(const std::vector<PackedLists>& by_unit) {
  const TileGrid& g = grid_;
  if (static_cast<int>(by_unit.size()) != g.units())
    throw std::logic_error("Trident: needed rows: portions from a number of groups that is not the grid's");
  rows_.assign(static_cast<std::size_t>(g.rows) * g.rounds, {});
  for (int u = 0; u < g.units(); ++u) {
    const PackedLists& in = by_unit[u];
    if (in.meta.size() != 2 * static_cast<std::size_t>(rounds_))
      throw std::logic_error("Trident: needed rows: a packet with the wrong number of pieces");
    const int i = g.unit_row(u);
    std::int64_t w = 0;
    for (int s = 0; s < g.rounds; ++s) {
      if (w + in.meta[2 * s + 1] > static_cast<std::int64_t>(in.wire.size()))
        throw std::logic_error("Trident: needed rows: a packet shorter than its pieces");
      std::vector<int> list;
      w += unpackPiece(in.meta.data(), s, in.wire.data() + w, &list);
      if (g.a_owner(i, s) == u) rows_[static_cast<size_t>(i) * rounds_ + s] = std::move(list);
    }
    if (w != static_cast<std::int64_t>(in.wire.size()))
      throw std::logic_error("Trident: needed rows: a packet longer than its pieces");
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
