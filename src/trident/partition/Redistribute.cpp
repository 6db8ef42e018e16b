#include "trident/partition/Redistribute.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "trident/core/Errors.hpp"
#include "trident/core/BigCount.hpp"

namespace Trident {

Triplets exchangeTriplets(const Triplets& in, const std::vector<int>& dest, MPI_Comm comm,
                          std::vector<std::uint64_t>* bytes_to) {
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  // 64-bit counts: one rank may send or receive more than 2^31 entries.
  std::vector<std::int64_t> scount(P, 0);
  for (int d : dest) ++scount[d];
  const std::vector<std::int64_t> rcount = bigcount::exchangeCounts(scount, comm);
  std::vector<std::int64_t> sdispl(P, 0);
  std::exclusive_scan(scount.begin(), scount.end(), sdispl.begin(), std::int64_t{0});
  const std::size_t nsend = in.size();
  const std::size_t nrecv = static_cast<std::size_t>(std::accumulate(rcount.begin(), rcount.end(), std::int64_t{0}));

  // Indices travel as 32-bit integers whenever every index fits (8 bytes less per entry).
  std::int64_t maxIndex = 0;
  for (std::size_t t = 0; t < nsend; ++t) maxIndex = std::max({maxIndex, in.row[t], in.col[t]});
  MPI_Allreduce(MPI_IN_PLACE, &maxIndex, 1, MPI_INT64_T, MPI_MAX, comm);
  const bool narrow = maxIndex <= std::numeric_limits<std::int32_t>::max();

  std::vector<std::int64_t> next = sdispl;
  std::vector<std::size_t> slot(nsend);
  for (std::size_t t = 0; t < nsend; ++t) slot[t] = static_cast<std::size_t>(next[dest[t]]++);
  Triplets out;
  out.row.resize(nrecv);
  out.col.resize(nrecv);
  out.val.resize(nrecv);
  auto alltoallv = [&](const void* send, void* recv, MPI_Datatype type) {
    bigcount::alltoallv(send, scount, recv, rcount, type, comm);
  };
  std::vector<double> vsend(nsend);
  for (std::size_t t = 0; t < nsend; ++t) vsend[slot[t]] = in.val[t];
  alltoallv(vsend.data(), out.val.data(), MPI_DOUBLE);
  vsend = {};
  if (narrow) {
    std::vector<std::int32_t> isend(nsend), irecv(nrecv);
    for (std::size_t t = 0; t < nsend; ++t) isend[slot[t]] = static_cast<std::int32_t>(in.row[t]);
    alltoallv(isend.data(), irecv.data(), MPI_INT32_T);
    std::copy(irecv.begin(), irecv.end(), out.row.begin());
    for (std::size_t t = 0; t < nsend; ++t) isend[slot[t]] = static_cast<std::int32_t>(in.col[t]);
    alltoallv(isend.data(), irecv.data(), MPI_INT32_T);
    std::copy(irecv.begin(), irecv.end(), out.col.begin());
  } else {
    std::vector<std::int64_t> isend(nsend);
    for (std::size_t t = 0; t < nsend; ++t) isend[slot[t]] = in.row[t];
    alltoallv(isend.data(), out.row.data(), MPI_INT64_T);
    for (std::size_t t = 0; t < nsend; ++t) isend[slot[t]] = in.col[t];
    alltoallv(isend.data(), out.col.data(), MPI_INT64_T);
  }
  if (bytes_to) {
    const std::uint64_t per = (narrow ? 2 * sizeof(std::int32_t) : 2 * sizeof(std::int64_t)) + sizeof(double);
    bytes_to->resize(P, 0);
    for (int d = 0; d < P; ++d)
      if (d != me) (*bytes_to)[d] += per * static_cast<std::uint64_t>(scount[d]);
  }
  return out;
}

void checkLocalIndexRange(const Layout& L) {
  const TileGrid& g = L.grid;
  const std::int64_t limit = Csr::kMaxLocalIndex;
  const std::string fix =
      "; use a squarer grid (\"trident: grid\" = \"square\") or more node groups (smaller \"trident: ranks per "
      "group\") so that every tile is narrower and every slice shorter";
  auto dims = [&] {
    return " (C = A*B with A " + std::to_string(L.m) + " x " + std::to_string(L.k) + ", B " + std::to_string(L.k) +
           " x " + std::to_string(L.n) + ", grid " + std::to_string(g.rows) + " x " + std::to_string(g.cols) + ", " +
           std::to_string(g.rounds) + " inner blocks, " + std::to_string(L.slices) + " slices per tile)";
  };
  for (int s = 0; s < g.rounds; ++s)
    requireAll(L.inner_width(s) <= limit, "Trident: a tile of A is " + std::to_string(L.inner_width(s)) +
                                              " columns wide, more than the " + std::to_string(limit) +
                                              " its 32-bit local column indices hold" + dims() + fix);
  for (int j = 0; j < g.cols; ++j)
    requireAll(L.col_width(j) <= limit, "Trident: a tile of B is " + std::to_string(L.col_width(j)) +
                                            " columns wide, more than the " + std::to_string(limit) +
                                            " its 32-bit local column indices hold" + dims() + fix);
  // Rows too: the local kernels index a slice's rows with the same 32-bit ordinals.
  auto checkRows = [&](const char* what, int blocks, auto slice) {
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < L.slices; ++t) {
        const std::int64_t rows = slice(b, t + 1) - slice(b, t);
        requireAll(rows <= limit, std::string("Trident: a slice of ") + what + " has " + std::to_string(rows) +
                                      " rows, more than the " + std::to_string(limit) +
                                      " the local kernels' 32-bit row indices hold" + dims() + fix);
      }
  };
  checkRows("A", g.rows, [&](int b, int t) { return L.a_slice(b, t); });
  checkRows("B", g.rounds, [&](int b, int t) { return L.b_slice(b, t); });
}

std::vector<int> tileDestinations(const Layout& L, const Triplets& T, bool is_a, const RankOf& rank_of) {
  const TileGrid& g = L.grid;
  // Entries come row by row: the row's block and slice are looked up once per row.
  std::vector<int> dest(T.size());
  std::int64_t lastRow = -1;
  int block = 0, slice = 0;
  for (std::size_t t = 0; t < T.size(); ++t) {
    if (T.row[t] != lastRow) {
      lastRow = T.row[t];
      block = is_a ? L.row_block(lastRow) : L.inner_block(lastRow);
      slice = is_a ? L.a_slice_of(block, lastRow) : L.b_slice_of(block, lastRow);
    }
    dest[t] = is_a ? rank_of(g.a_owner(block, L.inner_block(T.col[t])), slice)
                   : rank_of(g.b_owner(block, L.col_block(T.col[t])), slice);
  }
  return dest;
}

namespace {
// An operand that stays, cut into its tiles from the rank's own rows: a counting pass and a
// filling pass, each entry written once into its tile (as csrFromTriplets(toTriplets(rows))
// would place it: rows by position, entries in the rows' order). Tile membership is checked as
// distributeTiles checks a staying operand's destinations.
void tilesFromRows(const Layout& L, const LocalRows& R, bool isA, int my_unit, int my_k, OwnedTiles& tiles) {
  const TileGrid& g = L.grid;
  const int ui = g.unit_row(my_unit), uj = g.unit_col(my_unit);
  std::vector<Csr>& out = isA ? tiles.a : tiles.b;
  std::vector<bool>& owns = isA ? tiles.owns_a : tiles.owns_b;
  auto misplaced = [isA] {
    throw std::logic_error(std::string("Trident: internal error: an entry of ") + (isA ? "A" : "B") +
                           " would have to move although its slices are its holders' rows");
  };
  std::vector<std::int64_t> r0(g.rounds, 0), r1(g.rounds, 0);
  for (int s = 0; s < g.rounds; ++s) {
    owns[s] = isA ? (g.a_owner(ui, s) == my_unit) : (g.b_owner(s, uj) == my_unit);
    if (!owns[s]) continue;
    r0[s] = isA ? L.a_slice(ui, my_k) : L.b_slice(s, my_k);
    r1[s] = isA ? L.a_slice(ui, my_k + 1) : L.b_slice(s, my_k + 1);
    out[s] = Csr(r1[s] - r0[s], isA ? L.inner_width(s) : L.col_width(uj));
  }
  // Per local column, once: A's stage (by column) and every column's index inside its tile; -1
  // for a column of B outside my column block (B's stage goes by row).
  std::vector<int> stageOfCol(isA ? R.col_pos.size() : 0), tileCol(R.col_pos.size());
  for (std::size_t c = 0; c < R.col_pos.size(); ++c) {
    const std::int64_t cp = R.col_pos[c];
    if (isA) {
      const int s = L.inner_block(cp);
      stageOfCol[c] = s;
      tileCol[c] = static_cast<int>(cp - L.inner_bounds[s]);
    } else {
      tileCol[c] = cp >= L.col_bounds[uj] && cp < L.col_bounds[uj + 1] ? static_cast<int>(cp - L.col_bounds[uj]) : -1;
    }
  }
  for (std::int64_t r = 0; r < R.nrows; ++r) {
    const std::int64_t rp = R.row_pos[static_cast<std::size_t>(r)];
    const int rs = isA ? 0 : L.inner_block(rp);
    for (std::size_t q = R.rowptr[r]; q < R.rowptr[r + 1]; ++q) {
      if (!R.kept(q)) continue;
      const int s = isA ? stageOfCol[static_cast<std::size_t>(R.col[q])] : rs;
      if (!owns[s] || rp < r0[s] || rp >= r1[s] || tileCol[static_cast<std::size_t>(R.col[q])] < 0) misplaced();
      ++out[s].rowptr[rp - r0[s] + 1];
    }
  }
  std::vector<std::vector<std::int64_t>> next(g.rounds);
  for (int s = 0; s < g.rounds; ++s) {
    if (!owns[s]) continue;
    std::vector<std::int64_t>& rp = out[s].rowptr;
    for (std::size_t r = 1; r < rp.size(); ++r) rp[r] += rp[r - 1];
    out[s].col.resize(static_cast<std::size_t>(rp.back()));
    out[s].val.resize(static_cast<std::size_t>(rp.back()));
    next[s].assign(rp.begin(), rp.end() - 1);
  }
  for (std::int64_t r = 0; r < R.nrows; ++r) {
    const std::int64_t rp = R.row_pos[static_cast<std::size_t>(r)];
    const int rs = isA ? 0 : L.inner_block(rp);
    for (std::size_t q = R.rowptr[r]; q < R.rowptr[r + 1]; ++q) {
      if (!R.kept(q)) continue;
      const int s = isA ? stageOfCol[static_cast<std::size_t>(R.col[q])] : rs;
      const std::int64_t at = next[s][rp - r0[s]]++;
      out[s].col[static_cast<std::size_t>(at)] = tileCol[static_cast<std::size_t>(R.col[q])];
      out[s].val[static_cast<std::size_t>(at)] = R.val[q];
    }
  }
  if (isA) return;
  // Hypersparse slices of B keep only their nonempty rows (see OwnedTiles).
  for (int s = 0; s < g.rounds; ++s) {
    if (!owns[s] || !OwnedTiles::hypersparse(out[s].nrows, out[s].nnz())) continue;
    std::vector<int>& stored = tiles.b_rows[s];
    std::vector<std::int64_t> rowptr{0};
    for (std::int64_t r = 0; r < out[s].nrows; ++r)
      if (out[s].rowptr[r + 1] > out[s].rowptr[r]) {
        stored.push_back(static_cast<int>(r));
        rowptr.push_back(out[s].rowptr[r + 1]);
      }
    out[s].rowptr = std::move(rowptr);
    out[s].nrows = static_cast<std::int64_t>(stored.size());
    tiles.b_compressed[s] = true;
  }
}
}  // namespace

OwnedTiles distributeTiles(const Layout& L, const Triplets& A, const Triplets& B, const RankOf& rank_of,
                           int my_unit, int my_k, MPI_Comm comm, std::vector<std::uint64_t>* bytes_to,
                           bool a_stays, bool b_stays) {
  return distributeTiles(L, OperandEntries{&A, nullptr}, OperandEntries{&B, nullptr}, rank_of, my_unit, my_k, comm,
                         bytes_to, a_stays, b_stays);
}

namespace {
// An operand whose slices are its holders' own rows is bucketed from where it is: no counts,
// no all-to-all, no copy. Otherwise `moved` holds what the exchange brought.
const Triplets& entriesForMyTiles(const Triplets& T, const std::vector<int>& dest, bool stays, const char* what,
                                  MPI_Comm comm, int me, std::vector<std::uint64_t>* bytes_to, Triplets& moved) {
  if (!stays) return moved = exchangeTriplets(T, dest, comm, bytes_to);
  for (int d : dest)
    if (d != me)
      throw std::logic_error(std::string("Trident: internal error: an entry of ") + what +
                             " would have to move although its slices are its holders' rows");
  return T;
}

// Renumbers a hypersparse slice's rows to its nonempty ones, listed in `stored` (see OwnedTiles);
// slice rows fit in int (checkLocalIndexRange).
void keepNonemptyRows(std::vector<std::int64_t>& rows, std::vector<int>& stored) {
  if (std::is_sorted(rows.begin(), rows.end())) {  // entries come row by row from Tpetra
    for (std::int64_t& r : rows) {
      if (stored.empty() || stored.back() != r) stored.push_back(static_cast<int>(r));
      r = static_cast<std::int64_t>(stored.size()) - 1;
    }
  } else {
    stored.assign(rows.begin(), rows.end());
    std::sort(stored.begin(), stored.end());
    stored.erase(std::unique(stored.begin(), stored.end()), stored.end());
    for (std::int64_t& r : rows)
      r = std::lower_bound(stored.begin(), stored.end(), static_cast<int>(r)) - stored.begin();
  }
}

// Buckets the received entries by stage, then builds each owned slice as a CSR with block-local
// indices.
void tilesFromTriplets(const Layout& L, const Triplets& T, bool isA, int my_unit, int my_k, OwnedTiles& tiles) {
  const TileGrid& g = L.grid;
  const int ui = g.unit_row(my_unit), uj = g.unit_col(my_unit);
  std::vector<Csr>& out = isA ? tiles.a : tiles.b;
  std::vector<bool>& owns = isA ? tiles.owns_a : tiles.owns_b;
  std::vector<std::vector<std::size_t>> by_stage(g.rounds);
  for (std::size_t t = 0; t < T.size(); ++t)
    by_stage[isA ? L.inner_block(T.col[t]) : L.inner_block(T.row[t])].push_back(t);
  for (int s = 0; s < g.rounds; ++s) {
    const bool owned = isA ? (g.a_owner(ui, s) == my_unit) : (g.b_owner(s, uj) == my_unit);
    if (!owned) continue;
    owns[s] = true;
    const std::int64_t r0 = isA ? L.a_slice(ui, my_k) : L.b_slice(s, my_k);
    const std::int64_t r1 = isA ? L.a_slice(ui, my_k + 1) : L.b_slice(s, my_k + 1);
    const std::int64_t c0 = isA ? L.inner_bounds[s] : L.col_bounds[uj];
    const std::int64_t ncols = isA ? L.inner_width(s) : L.col_width(uj);
    std::vector<std::int64_t> rows;
    std::vector<int> cols;
    std::vector<double> vals;
    rows.reserve(by_stage[s].size());
    cols.reserve(by_stage[s].size());
    vals.reserve(by_stage[s].size());
    for (std::size_t t : by_stage[s]) {
      rows.push_back(T.row[t] - r0);
      cols.push_back(static_cast<int>(T.col[t] - c0));
      vals.push_back(T.val[t]);
    }
    if (isA || !OwnedTiles::hypersparse(r1 - r0, static_cast<std::int64_t>(rows.size()))) {
      out[s] = csrFromTriplets(r1 - r0, ncols, rows, cols, vals, false);
      continue;
    }
    tiles.b_compressed[s] = true;
    std::vector<int>& stored = tiles.b_rows[s];
    keepNonemptyRows(rows, stored);
    out[s] = csrFromTriplets(static_cast<std::int64_t>(stored.size()), ncols, rows, cols, vals, false);
  }
}
}  // namespace

OwnedTiles distributeTiles(const Layout& L, OperandEntries A, OperandEntries B, const RankOf& rank_of, int my_unit,
                           int my_k, MPI_Comm comm, std::vector<std::uint64_t>* bytes_to, bool a_stays, bool b_stays) {
  const TileGrid& g = L.grid;
  checkLocalIndexRange(L);
  if ((A.rows && !a_stays) || (B.rows && !b_stays) || (!A.rows && !A.triplets) || (!B.rows && !B.triplets))
    throw std::logic_error("Trident: internal error: distributeTiles takes rows only of an operand that stays");
  int me = 0;
  MPI_Comm_rank(comm, &me);
  Triplets movedA, movedB;
  const Triplets* myA = A.rows ? nullptr
                               : &entriesForMyTiles(*A.triplets, tileDestinations(L, *A.triplets, true, rank_of),
                                                    a_stays, "A", comm, me, bytes_to, movedA);
  const Triplets* myB = B.rows ? nullptr
                               : &entriesForMyTiles(*B.triplets, tileDestinations(L, *B.triplets, false, rank_of),
                                                    b_stays, "B", comm, me, bytes_to, movedB);

  OwnedTiles tiles;
  tiles.a.resize(g.rounds);
  tiles.b.resize(g.rounds);
  tiles.owns_a.assign(g.rounds, false);
  tiles.owns_b.assign(g.rounds, false);
  tiles.b_rows.resize(g.rounds);
  tiles.b_compressed.assign(g.rounds, false);
  if (A.rows)
    tilesFromRows(L, *A.rows, true, my_unit, my_k, tiles);
  else
    tilesFromTriplets(L, *myA, true, my_unit, my_k, tiles);
  if (B.rows)
    tilesFromRows(L, *B.rows, false, my_unit, my_k, tiles);
  else
    tilesFromTriplets(L, *myB, false, my_unit, my_k, tiles);
  return tiles;
}

}  // namespace Trident
