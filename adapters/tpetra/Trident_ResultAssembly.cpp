#include "Trident_ResultAssembly.hpp"

#include <Tpetra_Import.hpp>
#include <algorithm>
#include <memory>
#include <numeric>

#include <trident/core/Errors.hpp>
#include <trident/core/HugePages.hpp>
#include <trident/stats/PhaseTimer.hpp>
#include <trident/core/BigCount.hpp>

#include "Trident_OwnerImport.hpp"

namespace Trident {
namespace tpetra {

namespace {
using row_map_view = crs_matrix_type::local_graph_device_type::row_map_type::non_const_type;
using entries_view = crs_matrix_type::local_graph_device_type::entries_type::non_const_type;
using values_view = crs_matrix_type::local_matrix_device_type::values_type;

constexpr int kTagHeader = 7301, kTagCols = 7302, kTagVals = 7303;

// Rows r, r + 1, ... in this order: one run of a block (its entries are then sent from where
// they are) or of C's arrays (received there). With a row permutation a partner's rows can span
// a range without ascending through it.
bool oneRun(const std::vector<std::int64_t>& rows) {
  if (rows.empty()) return false;
  for (std::size_t t = 1; t < rows.size(); ++t)
    if (rows[t] != rows[0] + static_cast<std::int64_t>(t)) return false;
  return true;
}

void waitAll(std::vector<MPI_Request>& reqs) {
  if (!reqs.empty()) MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  reqs.clear();
}

// Rows with global column IDs, for the paths that go through Tpetra's global-index API.
struct GlobalRows {
  std::vector<std::size_t> rowptr;
  std::vector<GO> col;
  std::vector<double> val;
};

void insertOrReuse(crs_matrix_type& C, const GlobalRows& rows, const Teuchos::RCP<const map_type>& domainMap,
                   const Teuchos::RCP<const map_type>& rangeMap, bool fill_complete,
                   const Teuchos::RCP<Teuchos::ParameterList>& fill_params, MPI_Comm comm) {
  const LO nrows = static_cast<LO>(rows.rowptr.size()) - 1;
  auto rowMap = C.getRowMap();
  if (C.isFillComplete()) {
    // Reuse: C's pattern must hold every entry of the product; check before touching C.
    bool fits = true;
    GO bad_row = 0, bad_col = 0;
    auto colMap = C.getColMap();
    for (LO r = 0; r < nrows && fits; ++r) {
      typename crs_matrix_type::local_inds_host_view_type inds;
      typename crs_matrix_type::values_host_view_type vals;
      C.getLocalRowView(r, inds, vals);
      std::vector<LO> have(inds.data(), inds.data() + inds.extent(0));
      std::sort(have.begin(), have.end());
      for (std::size_t q = rows.rowptr[r]; q < rows.rowptr[r + 1]; ++q) {
        const LO c = colMap->getLocalElement(rows.col[q]);
        if (c == Teuchos::OrdinalTraits<LO>::invalid() || !std::binary_search(have.begin(), have.end(), c)) {
          fits = false;
          bad_row = rowMap->getGlobalElement(r);
          bad_col = rows.col[q];
          break;
        }
      }
    }
    throwIfAnyRank(comm, !fits,
                   "C is fill-complete but its pattern lacks entry (" + std::to_string(bad_row) + ", " +
                       std::to_string(bad_col) + ") of the product; pass an empty C or one whose pattern holds A*B");
    C.resumeFill();
    C.setAllToScalar(0.0);
    for (LO r = 0; r < nrows; ++r) {
      const std::size_t b = rows.rowptr[r], n = rows.rowptr[r + 1] - b;
      C.replaceGlobalValues(rowMap->getGlobalElement(r), Teuchos::ArrayView<const GO>(rows.col.data() + b, n),
                            Teuchos::ArrayView<const double>(rows.val.data() + b, n));
    }
  } else {
    // The caller chose C's column map (and its allocation): insert by global index.
    for (LO r = 0; r < nrows; ++r) {
      const std::size_t b = rows.rowptr[r], n = rows.rowptr[r + 1] - b;
      if (n == 0) continue;
      C.insertGlobalValues(rowMap->getGlobalElement(r), Teuchos::ArrayView<const GO>(rows.col.data() + b, n),
                           Teuchos::ArrayView<const double>(rows.val.data() + b, n));
    }
  }
  if (fill_complete) C.fillComplete(domainMap, rangeMap, fill_params);
}

}  // namespace

// Column positions -> C's local column indices, in Tpetra's column-map convention
// (Tpetra::Details::makeColMap): the columns the domain map owns on this rank first, in
// domain-map order, then the remote ones by owning rank, then by GID. Dense (an int per column
// of the matrix) while that is small next to this rank's part of C; otherwise a sorted list of
// the used columns, so memory stays proportional to the local data for hypersparse matrices.
class ResultAssembly::ColumnNumbering {
 public:
  // forEachPosition(f) calls f(position) for every entry of this rank's part of C.
  template <class ForEachPosition>
  ColumnNumbering(ForEachPosition&& forEachPosition, std::size_t nnz, const MapPositions& colPos,
                  const Teuchos::RCP<const map_type>& domainMap) {
    const std::int64_t n = colPos.global(), first = colPos.first();
    const std::int64_t nlocal = static_cast<std::int64_t>(Compat::localNumElements(*domainMap));
    dense_ = n <= 8 * static_cast<std::int64_t>(nnz) + (1 << 16);
    std::vector<std::int64_t> used;
    if (dense_) {
      slot_.assign(static_cast<std::size_t>(n), -1);
      forEachPosition([this](std::int64_t p) { slot_[p] = 0; });
      for (std::int64_t p = 0; p < n; ++p)
        if (slot_[p] == 0) used.push_back(p);
    } else {
      used.reserve(nnz);
      forEachPosition([&used](std::int64_t p) { used.push_back(p); });
      std::sort(used.begin(), used.end());
      used.erase(std::unique(used.begin(), used.end()), used.end());
    }
    // used is ascending; the owned range [first, first + nlocal) is one run of it.
    const auto lo = std::lower_bound(used.begin(), used.end(), first);
    const auto hi = std::lower_bound(lo, used.end(), first + nlocal);
    std::vector<std::int64_t> order(lo, hi);
    local_used_ = static_cast<LO>(order.size());
    owned_only_ = lo == used.begin() && hi == used.end() && static_cast<std::int64_t>(order.size()) == nlocal;
    std::vector<std::int64_t> remote(used.begin(), lo);
    remote.insert(remote.end(), hi, used.end());
    for (std::int64_t p : order) gids_.push_back(domainMap->getGlobalElement(static_cast<LO>(p - first)));
    std::vector<GO> remoteGids;
    if (colPos.linear()) {
      for (std::int64_t p : remote) remoteGids.push_back(colPos.base() + p);
    } else {
      remoteGids = gidsAt(domainMap, colPos, remote);  // collective
      // Positions run by owner; within one owner Tpetra orders by GID.
      std::vector<std::size_t> idx(remote.size());
      std::iota(idx.begin(), idx.end(), 0);
      for (std::size_t b = 0; b < idx.size();) {
        const int o = colPos.owner(remote[b]);
        std::size_t e = b + 1;
        while (e < idx.size() && remote[e] < colPos.begin(o + 1)) ++e;
        std::sort(idx.begin() + b, idx.begin() + e,
                  [&](std::size_t x, std::size_t y) { return remoteGids[x] < remoteGids[y]; });
        b = e;
      }
      std::vector<std::int64_t> r2(remote.size());
      std::vector<GO> g2(remote.size());
      for (std::size_t t = 0; t < idx.size(); ++t) {
        r2[t] = remote[idx[t]];
        g2[t] = remoteGids[idx[t]];
      }
      remote.swap(r2);
      remoteGids.swap(g2);
    }
    for (std::size_t t = 0; t < remote.size(); ++t) {
      order.push_back(remote[t]);
      gids_.push_back(remoteGids[t]);
      const int o = colPos.owner(remote[t]);
      remote_pids_.push_back(o);
      remote_owner_lids_.push_back(static_cast<LO>(remote[t] - colPos.begin(o)));
    }
    if (dense_) {
      for (std::size_t l = 0; l < order.size(); ++l) slot_[order[l]] = static_cast<int>(l);
    } else {
      sorted_pos_ = std::move(used);
      sorted_lid_.resize(sorted_pos_.size());
      for (std::size_t l = 0; l < order.size(); ++l)
        sorted_lid_[std::lower_bound(sorted_pos_.begin(), sorted_pos_.end(), order[l]) - sorted_pos_.begin()] =
            static_cast<LO>(l);
    }
  }
  // With dense slots, lid(p) == slots()[p]; nullptr otherwise.
  const int* slots() const { return dense_ ? slot_.data() : nullptr; }
  // True when every used column is owned and every owned column is used: lid(p) == p - first.
  bool ownedOnly() const { return owned_only_; }
  LO lid(std::int64_t p) const {
    if (dense_) return slot_[p];
    return sorted_lid_[std::lower_bound(sorted_pos_.begin(), sorted_pos_.end(), p) - sorted_pos_.begin()];
  }
  LO localUsed() const { return local_used_; }
  const std::vector<GO>& gids() const { return gids_; }
  // Owner and local index there of each remote column, in column-map order.
  const std::vector<int>& remotePids() const { return remote_pids_; }
  const std::vector<LO>& remoteOwnerLids() const { return remote_owner_lids_; }

 private:
  bool dense_ = true;
  bool owned_only_ = false;
  std::vector<int> slot_;
  std::vector<std::int64_t> sorted_pos_;
  std::vector<LO> sorted_lid_;
  LO local_used_ = 0;
  std::vector<GO> gids_;
  std::vector<int> remote_pids_;
  std::vector<LO> remote_owner_lids_;
};

// A fresh C's rows in local-index order. Every row is in position order per piece; in
// local-index order the owned columns come first: with contiguous maps and no column
// relabeling that is one rotation of the row, otherwise rows that are out of order are sorted.
// With keep, where each entry came from is remembered once any row moves.
class ResultAssembly::RowOrder {
 public:
  RowOrder(bool keep, std::size_t nnz, LO nLocalUsed) : keep_(keep), nnz_(nnz), nLocalUsed_(nLocalUsed) {}
  // Orders entries [b, e) of ind/val, one row.
  void put(LO* ind, double* val, std::size_t b, std::size_t e);
  // origin()[final index] = arrival index; empty while no row moved (or without keep).
  const std::vector<std::int64_t>& origin() const { return origin_; }

 private:
  bool keep_;
  std::size_t nnz_;
  LO nLocalUsed_;
  std::vector<std::int64_t> origin_;
  std::vector<std::pair<LO, double>> row_;
  std::vector<std::int64_t> rowOrigin_;
};

void ResultAssembly::RowOrder::put(LO* ind, double* val, std::size_t b, std::size_t e) {
  if (std::is_sorted(ind + b, ind + e)) return;
  if (keep_ && origin_.empty()) {
    origin_.resize(nnz_);
    std::iota(origin_.begin(), origin_.end(), std::int64_t{0});
  }
  // Position order -> local order: [remote before the owned range][owned][remote after].
  std::size_t mid = b;
  while (mid < e && ind[mid] >= nLocalUsed_) ++mid;
  std::size_t end = mid;
  while (end < e && ind[end] < nLocalUsed_) ++end;
  std::rotate(ind + b, ind + mid, ind + end);
  std::rotate(val + b, val + mid, val + end);
  if (!origin_.empty()) std::rotate(origin_.begin() + b, origin_.begin() + mid, origin_.begin() + end);
  if (std::is_sorted(ind + b, ind + e)) return;
  // Relabeled columns or a non-contiguous domain map: a real sort.
  const std::size_t n = e - b;
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), b);
  std::sort(perm.begin(), perm.end(), [&](std::size_t x, std::size_t y) { return ind[x] < ind[y]; });
  row_.resize(n);
  rowOrigin_.resize(n);
  for (std::size_t t = 0; t < n; ++t) {
    row_[t] = {ind[perm[t]], val[perm[t]]};
    if (!origin_.empty()) rowOrigin_[t] = origin_[perm[t]];
  }
  for (std::size_t t = 0; t < n; ++t) {
    ind[b + t] = row_[t].first;
    val[b + t] = row_[t].second;
    if (!origin_.empty()) origin_[b + t] = rowOrigin_[t];
  }
}

// One partner's rows in flight. Entries are sent straight from the block when a partner's rows
// are one run of it (no relabeling: the usual case), else packed; receive buffers are left
// uninitialized (every element is overwritten by the message).
struct ResultAssembly::Piece {
  std::vector<std::int64_t> counts;
  std::unique_ptr<int[]> colBuf;
  std::unique_ptr<double[]> valBuf;
  const int* cols = nullptr;
  const double* vals = nullptr;
  bool direct = false;  // received straight into C's final arrays, at its rows' place

  // The n entries of the block's rows, in this order, ready to send.
  void gather(const Csr& block, const std::vector<std::int64_t>& rows, std::int64_t n) {
    if (oneRun(rows)) {
      cols = block.col.data() + block.rowptr[rows.front()];
      vals = block.val.data() + block.rowptr[rows.front()];
      return;
    }
    colBuf.reset(new int[static_cast<std::size_t>(n)]);
    valBuf.reset(new double[static_cast<std::size_t>(n)]);
    std::int64_t at = 0;
    for (std::int64_t r : rows) {
      const std::int64_t b = block.rowptr[r], e = block.rowptr[r + 1];
      std::copy(block.col.begin() + b, block.col.begin() + e, colBuf.get() + at);
      std::copy(block.val.begin() + b, block.val.begin() + e, valBuf.get() + at);
      at += e - b;
    }
    cols = colBuf.get();
    vals = valBuf.get();
  }
};

// What the exchange leaves for placing: where the block's entries are (C's final arrays when the
// kernel wrote them there), the pieces sent and received, and C's final arrays as the Kokkos
// views Tpetra keeps (setAllValues on views takes them as they are; its ArrayRCP overload
// deep-copies all of C once more).
struct ResultAssembly::Arrivals {
  Arrivals(const Csr& b, const int* col, const double* val, std::size_t nsend, std::size_t nrecv)
      : block(b), blockCol(col), blockVal(val), out(nsend), in(nrecv) {}
  const Csr& block;
  const int* const blockCol;
  const double* const blockVal;
  std::vector<Piece> out, in;
  int selfSend = -1;  // index in send_ of this rank's own rows, read straight from the block
  row_map_view ptrView;
  std::size_t* ptr = nullptr;
  std::size_t nnz = 0;
  entries_view indView;
  values_view valView;
};

ResultAssembly::ResultAssembly(const Layout& L, const RankOf& rank_of, int my_unit, int my_k,
                               const Permutation& row_perm, const Permutation& col_perm, const MapPositions& rowPos,
                               const MapPositions& colPos, MPI_Comm comm)
    : comm_(comm), colPos_(colPos), col_perm_(col_perm), L_(L) {
  MPI_Comm_rank(comm, &me_);
  int P = 1;
  MPI_Comm_size(comm, &P);
  const TileGrid& g = L.grid;
  const int i = g.unit_row(my_unit), j = g.unit_col(my_unit);
  row0_ = L.a_slice(i, my_k);
  col0_ = L.col_bounds[j];
  const std::int64_t nblock = L.a_slice(i, my_k + 1) - row0_;

  // Sending: the owner of every row of my block (empty rows too: the receiver expects them).
  std::vector<int> index(P, -1);
  for (std::int64_t r = 0; r < nblock; ++r) {
    const int owner = rowPos.owner(row_perm.inverse(row0_ + r));
    if (index[owner] < 0) {
      index[owner] = static_cast<int>(send_.size());
      send_.emplace_back();
      send_.back().rank = owner;
    }
    send_[index[owner]].rows.push_back(r);
  }
  // Receiving: for every row I own, the ranks whose blocks hold a piece of it (one per column
  // block), in the order those ranks walk their block rows (ascending relabeled position).
  local_rows_ = static_cast<std::size_t>(rowPos.begin(me_ + 1) - rowPos.first());
  index.assign(P, -1);
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> byRank;
  for (std::size_t l = 0; l < local_rows_; ++l) {
    const std::int64_t pp = row_perm(rowPos.first() + static_cast<std::int64_t>(l));
    const int bi = L.row_block(pp), t = L.a_slice_of(bi, pp);
    for (int bj = 0; bj < g.cols; ++bj) {
      const int src = rank_of(g.unit(bi, bj), t);
      if (index[src] < 0) {
        index[src] = static_cast<int>(recv_.size());
        recv_.emplace_back();
        recv_.back().rank = src;
        recv_.back().col_block = bj;
        byRank.emplace_back();
      }
      byRank[index[src]].emplace_back(pp, static_cast<std::int64_t>(l));
    }
  }
  for (std::size_t s = 0; s < recv_.size(); ++s) {
    auto& v = byRank[s];
    if (!std::is_sorted(v.begin(), v.end())) std::sort(v.begin(), v.end());
    recv_[s].rows.reserve(v.size());
    for (auto& e : v) recv_[s].rows.push_back(e.second);
  }
  // Pieces are placed by column block, so that with no column relabeling a row is already in
  // position order when all its pieces are in.
  std::stable_sort(recv_.begin(), recv_.end(),
                   [](const Partner& a, const Partner& b) { return a.col_block < b.col_block; });
  auto identityRows = [this](const Partner& p) {
    if (p.rank != me_ || p.rows.size() != local_rows_) return false;
    for (std::size_t t = 0; t < p.rows.size(); ++t)
      if (p.rows[t] != static_cast<std::int64_t>(t)) return false;
    return true;
  };
  in_place_ = send_.size() == 1 && recv_.size() == 1 && identityRows(send_[0]) && identityRows(recv_[0]);
}

void FinalArraysSink::reserve(std::size_t capacity, std::size_t keep) {
  if (capacity <= ind_.extent(0)) return;
  // Uninitialized: every entry is written by the kernel before anything reads it.
  entries_view ind(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Trident: C"), capacity);
  values_view val(Kokkos::view_alloc(Kokkos::WithoutInitializing, "Trident: C"), capacity);
  adviseHugePages(ind.data(), capacity * sizeof(LO));
  adviseHugePages(val.data(), capacity * sizeof(double));
  std::copy(ind_.data(), ind_.data() + keep, ind.data());
  std::copy(val_.data(), val_.data() + keep, val.data());
  ind_ = ind;
  val_ = val;
}

FinalArraysSink::entries_view FinalArraysSink::indices(std::size_t n) const {
  return Kokkos::subview(ind_, std::make_pair(std::size_t{0}, n));
}

FinalArraysSink::values_view FinalArraysSink::values(std::size_t n) const {
  return Kokkos::subview(val_, std::make_pair(std::size_t{0}, n));
}


void ResultAssembly::assemble(const Csr& block, crs_matrix_type& C, const Teuchos::RCP<const map_type>& domainMap,
                              const Teuchos::RCP<const map_type>& rangeMap, bool fill_complete,
                              const Teuchos::RCP<Teuchos::ParameterList>& fill_params, bool keep,
                              std::vector<std::uint64_t>* bytes_to, FinalArraysSink* sink) {
  // The kernel wrote the entries into C's final arrays: they are renumbered there, not copied.
  const bool inPlace = sink && sink->filled;
  if (inPlace && (!in_place_ || keep))
    throw std::logic_error("Trident: internal error: a block in C's final arrays for an assembly that moves rows");
  Arrivals a(block, inPlace ? sink->col() : block.col.data(), inPlace ? sink->val() : block.val.data(),
             send_.size(), recv_.size());
  exchangeRows(a, inPlace, bytes_to);
  const ColumnNumbering numbering = numberColumns(a, domainMap);

  const bool freshC = !(C.isFillComplete() || C.hasColMap());
  RowOrder order(keep, a.nnz, numbering.localUsed());
  // With the G x 1 grid each row of C comes whole from one rank: it is put in order right after
  // it is placed, while it is in cache (a separate pass over C cost as much as placing it: 5.8
  // of 25 ms at P = 1 on rajat01's square).
  const bool orderWhilePlacing = freshC && L_.grid.cols == 1;
  {
    Teuchos::TimeMonitor placeTimer(*phaseTimer("Trident: redistribute out: place"));
    if (inPlace) {
      a.indView = sink->indices(a.nnz);
      a.valView = sink->values(a.nnz);
    }
    placeRows(a, numbering, orderWhilePlacing ? &order : nullptr, keep, inPlace, inPlace && sink->rows_sorted);
  }
  if (!freshC) {
    fillThroughGlobalIndices(a, numbering, C, domainMap, rangeMap, fill_complete, fill_params);
    return;
  }
  if (!orderWhilePlacing) {
    Teuchos::TimeMonitor sortTimer(*phaseTimer("Trident: redistribute out: order rows"));
    for (std::size_t r = 0; r < local_rows_; ++r) order.put(a.indView.data(), a.valView.data(), a.ptr[r], a.ptr[r + 1]);
  }
  fillFreshC(a, numbering, order.origin(), keep, C, domainMap, rangeMap, fill_complete, fill_params);
}

// Row-length headers, then the entries, point-to-point with the ranks that share rows; C's row
// offsets and arrays are allocated once the headers are in, so that entries can land there.
void ResultAssembly::exchangeRows(Arrivals& a, bool inPlace, std::vector<std::uint64_t>* bytes_to) {
  Teuchos::TimeMonitor tm(*phaseTimer("Trident: redistribute out: exchange"));
  std::vector<MPI_Request> reqs, hreqs;
  postHeaderReceives(a, hreqs);
  sendRows(a, reqs, bytes_to);
  waitAll(hreqs);
  takeHeaders(a);
  allocateC(a, inPlace);
  postEntryReceives(a, inPlace, hreqs);
  waitAll(hreqs);
  waitAll(reqs);
  a.out.clear();
}

// Posted before anything is sent, so early senders do not land in the unexpected queue.
void ResultAssembly::postHeaderReceives(Arrivals& a, std::vector<MPI_Request>& reqs) const {
  for (std::size_t s = 0; s < recv_.size(); ++s) {
    const Partner& p = recv_[s];
    if (p.rank == me_) continue;
    a.in[s].counts.resize(p.rows.size());
    bigcount::irecv(a.in[s].counts.data(), p.rows.size(), MPI_INT64_T, p.rank, kTagHeader, comm_, reqs);
  }
}

// Every partner's header (entries per row) and entries; this rank's own rows are not sent.
void ResultAssembly::sendRows(Arrivals& a, std::vector<MPI_Request>& reqs, std::vector<std::uint64_t>* bytes_to) {
  const Csr& block = a.block;
  for (std::size_t d = 0; d < send_.size(); ++d) {
    Partner& p = send_[d];
    Piece& pc = a.out[d];
    pc.counts.resize(p.rows.size());
    std::int64_t n = 0;
    for (std::size_t t = 0; t < p.rows.size(); ++t) {
      const std::int64_t r = p.rows[t];
      pc.counts[t] = block.rowptr[r + 1] - block.rowptr[r];
      n += pc.counts[t];
    }
    p.entries = n;
    if (p.rank == me_) {  // read straight from the block when placing
      a.selfSend = static_cast<int>(d);
      continue;
    }
    pc.gather(block, p.rows, n);
    bigcount::isend(pc.counts.data(), pc.counts.size(), MPI_INT64_T, p.rank, kTagHeader, comm_, reqs);
    bigcount::isend(pc.cols, static_cast<std::size_t>(n), MPI_INT, p.rank, kTagCols, comm_, reqs);
    bigcount::isend(pc.vals, static_cast<std::size_t>(n), MPI_DOUBLE, p.rank, kTagVals, comm_, reqs);
    if (bytes_to) (*bytes_to)[p.rank] += 8 * pc.counts.size() + 12 * static_cast<std::uint64_t>(n);
  }
}

// The received headers become each piece's row lengths and size.
void ResultAssembly::takeHeaders(const Arrivals& a) {
  for (std::size_t s = 0; s < recv_.size(); ++s) {
    Partner& p = recv_[s];
    if (p.rank == me_) {
      if (a.selfSend < 0) throw std::logic_error("Trident: internal error: the assembly lost this rank's own rows");
      p.counts = a.out[a.selfSend].counts;
      p.entries = send_[a.selfSend].entries;
      continue;
    }
    p.counts = a.in[s].counts;
    p.entries = std::accumulate(p.counts.begin(), p.counts.end(), std::int64_t{0});
  }
}

// C's row offsets, and its entry arrays unless the kernel already wrote them. Left
// uninitialized: every entry is written exactly once.
void ResultAssembly::allocateC(Arrivals& a, bool inPlace) const {
  const auto noInit = Kokkos::view_alloc(Kokkos::WithoutInitializing, "Trident: C");
  a.ptrView = row_map_view(noInit, local_rows_ + 1);
  std::size_t* const ptr = a.ptr = a.ptrView.data();
  std::fill(ptr, ptr + local_rows_ + 1, std::size_t{0});
  for (const Partner& p : recv_)
    for (std::size_t t = 0; t < p.rows.size(); ++t) ptr[p.rows[t] + 1] += p.counts[t];
  for (std::size_t r = 0; r < local_rows_; ++r) ptr[r + 1] += ptr[r];
  a.nnz = ptr[local_rows_];
  if (inPlace) return;
  a.indView = entries_view(noInit, a.nnz);
  a.valView = values_view(noInit, a.nnz);
  adviseHugePages(a.indView.data(), a.nnz * sizeof(LO));
  adviseHugePages(a.valView.data(), a.nnz * sizeof(double));
}

// With the G x 1 grid a row of C comes whole from one rank: a partner's consecutive rows are
// one run of C's arrays, received there directly (no receive buffer to fault in, no copy of
// the values); their columns are renumbered where they land.
void ResultAssembly::postEntryReceives(Arrivals& a, bool inPlace, std::vector<MPI_Request>& reqs) const {
  static_assert(std::is_same<LO, int>::value, "column indices are received as MPI_INT");
  for (std::size_t s = 0; s < recv_.size(); ++s) {
    const Partner& p = recv_[s];
    if (p.rank == me_) continue;
    const std::size_t n = static_cast<std::size_t>(p.entries);
    Piece& in = a.in[s];
    if (L_.grid.cols == 1 && oneRun(p.rows) && !inPlace) {
      in.direct = true;
      in.cols = a.indView.data() + a.ptr[p.rows.front()];
      in.vals = a.valView.data() + a.ptr[p.rows.front()];
      bigcount::irecv(a.indView.data() + a.ptr[p.rows.front()], n, MPI_INT, p.rank, kTagCols, comm_, reqs);
      bigcount::irecv(a.valView.data() + a.ptr[p.rows.front()], n, MPI_DOUBLE, p.rank, kTagVals, comm_, reqs);
      continue;
    }
    in.colBuf.reset(new int[n]);
    in.valBuf.reset(new double[n]);
    in.cols = in.colBuf.get();
    in.vals = in.valBuf.get();
    bigcount::irecv(in.colBuf.get(), n, MPI_INT, p.rank, kTagCols, comm_, reqs);
    bigcount::irecv(in.valBuf.get(), n, MPI_DOUBLE, p.rank, kTagVals, comm_, reqs);
  }
}

// The t-th row of piece s (at offset e in the piece): its entries' block-local columns and values.
std::pair<const int*, const double*> ResultAssembly::rowOf(const Arrivals& a, std::size_t s, std::size_t t,
                                                           std::int64_t e) const {
  if (recv_[s].rank != me_) return {a.in[s].cols + e, a.in[s].vals + e};
  const std::int64_t r = send_[a.selfSend].rows[t];
  return {a.blockCol + a.block.rowptr[r], a.blockVal + a.block.rowptr[r]};
}

ResultAssembly::ColumnNumbering ResultAssembly::numberColumns(const Arrivals& a,
                                                              const Teuchos::RCP<const map_type>& domainMap) const {
  Teuchos::TimeMonitor colTimer(*phaseTimer("Trident: redistribute out: column map"));
  const bool identityCols = col_perm_.identity();
  auto forEachPosition = [&](auto&& f) {
    for (std::size_t s = 0; s < recv_.size(); ++s) {
      const Partner& p = recv_[s];
      const std::int64_t c0 = L_.col_bounds[p.col_block];
      std::int64_t e = 0;
      for (std::size_t t = 0; t < p.rows.size(); ++t) {
        const int* cols = rowOf(a, s, t, e).first;
        for (std::int64_t q = 0; q < p.counts[t]; ++q)
          f(identityCols ? c0 + cols[q] : col_perm_.inverse(c0 + cols[q]));
        e += p.counts[t];
      }
    }
  };
  return ColumnNumbering(forEachPosition, a.nnz, colPos_, domainMap);
}

// Places the pieces, each behind the previous ones of its row, columns already as local indices.
// orderNow: put each row in order as soon as it is whole (null: later, or never).
void ResultAssembly::placeRows(Arrivals& a, const ColumnNumbering& numbering, RowOrder* orderNow, bool keep,
                               bool inPlace, bool sinkRowsSorted) {
  LO* const ind = a.indView.data();
  double* const val = a.valView.data();
  const bool identityCols = col_perm_.identity();
  const int* const slots = identityCols ? numbering.slots() : nullptr;
  const std::int64_t first = colPos_.first();
  std::vector<std::size_t> next(a.ptr, a.ptr + local_rows_);
  for (std::size_t s = 0; s < recv_.size(); ++s) {
    Partner& p = recv_[s];
    const std::int64_t c0 = L_.col_bounds[p.col_block];
    // Only owned columns, all used, at the block's own offset: local index = block column,
    // so entries already in C's arrays stay as they are.
    const bool unchanged = inPlace && identityCols && numbering.ownedOnly() && c0 == first;
    if (keep) p.start.resize(p.rows.size());
    std::int64_t e = 0;
    for (std::size_t t = 0; t < p.rows.size(); ++t) {
      std::size_t& at = next[p.rows[t]];
      if (keep) p.start[t] = static_cast<std::int64_t>(at);
      const auto piece = rowOf(a, s, t, e);
      const std::int64_t n = p.counts[t];
      // In place, the piece is this very row of ind/val: its columns are renumbered where they are.
      LO* const dst = ind + at;
      const int* const src = piece.first;
      if (unchanged) {
      } else if (slots) {
        const int* const slot = slots + c0;
        for (std::int64_t q = 0; q < n; ++q) dst[q] = slot[src[q]];
      } else {
        for (std::int64_t q = 0; q < n; ++q) {
          const std::int64_t c = c0 + src[q];
          dst[q] = numbering.lid(identityCols ? c : col_perm_.inverse(c));
        }
      }
      if (!inPlace && !a.in[s].direct) std::copy(piece.second, piece.second + n, val + at);
      if (orderNow && !(unchanged && sinkRowsSorted)) orderNow->put(ind, val, at, at + static_cast<std::size_t>(n));
      at += static_cast<std::size_t>(n);
      e += n;
    }
    if (p.rank != me_) a.in[s] = Piece();
  }
}

// A C that is fill-complete or has its column map: through Tpetra's global-index API.
void ResultAssembly::fillThroughGlobalIndices(const Arrivals& a, const ColumnNumbering& numbering,
                                              crs_matrix_type& C, const Teuchos::RCP<const map_type>& domainMap,
                                              const Teuchos::RCP<const map_type>& rangeMap, bool fill_complete,
                                              const Teuchos::RCP<Teuchos::ParameterList>& fill_params) {
  const LO* const ind = a.indView.data();
  const double* const val = a.valView.data();
  GlobalRows g;
  g.rowptr.assign(a.ptr, a.ptr + local_rows_ + 1);
  g.val.assign(val, val + a.nnz);
  g.col.resize(a.nnz);
  for (std::size_t q = 0; q < a.nnz; ++q) g.col[q] = numbering.gids()[ind[q]];
  insertOrReuse(C, g, domainMap, rangeMap, fill_complete, fill_params, comm_);
  kept_ = false;
}

// A fresh C takes its column map and the arrays as they are, and an Import from the known owners.
void ResultAssembly::fillFreshC(const Arrivals& a, const ColumnNumbering& numbering,
                                const std::vector<std::int64_t>& origin, bool keep, crs_matrix_type& C,
                                const Teuchos::RCP<const map_type>& domainMap,
                                const Teuchos::RCP<const map_type>& rangeMap, bool fill_complete,
                                const Teuchos::RCP<Teuchos::ParameterList>& fill_params) {
  Teuchos::TimeMonitor fillTimer(*phaseTimer("Trident: redistribute out: fill complete"));
  const std::vector<GO>& gids = numbering.gids();
  colMap_ = Teuchos::rcp(new map_type(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                                      Teuchos::ArrayView<const GO>(gids.data(), gids.size()),
                                      domainMap->getIndexBase(), domainMap->getComm()));
  C.replaceColMap(colMap_);
  C.setAllValues(a.ptrView, a.indView, a.valView);
  keepPlacement(a.blockCol, origin, a.nnz, keep);
  // Remote owners and their local indices are known: an Import that tells each owner its
  // exports point-to-point, without Tpetra's directory look-up or its reduce-scatters.
  importer_ = importFromOwners(domainMap, colMap_, numbering.remotePids(), numbering.remoteOwnerLids(), colPos_, comm_);
  if (!fill_complete) return;
  C.expertStaticFillComplete(domainMap, rangeMap, importer_, Teuchos::null, fill_params);
}

// What assembleValues needs to write later values into this C: where each arriving value lands
// when ordering moved entries (origin: final index -> arrival index; empty: none moved).
void ResultAssembly::keepPlacement(const int* blockCol, const std::vector<std::int64_t>& origin, std::size_t nnz,
                                   bool keep) {
  landing_.clear();
  straight_cols_.clear();
  straight_ = keep && in_place_;
  if (straight_) {
    // The block is this rank's rows of C in C's order: later values-only runs write C's values
    // themselves (valuesStraightIntoC), given the block's columns in C's order within each row.
    if (!origin.empty()) {
      straight_cols_.resize(nnz);
      for (std::size_t q = 0; q < nnz; ++q) straight_cols_[q] = blockCol[origin[q]];
    }
  } else if (keep && !origin.empty()) {
    landing_.resize(nnz);
    for (std::size_t q = 0; q < nnz; ++q) landing_[origin[q]] = static_cast<std::int64_t>(q);
  }
  nnz_ = static_cast<std::int64_t>(nnz);
  kept_ = keep;
}

bool ResultAssembly::canAssembleValues(const crs_matrix_type& C) const {
  return kept_ && C.getColMap().get() == colMap_.get() && static_cast<std::int64_t>(Compat::localNumEntries(C)) == nnz_;
}

void ResultAssembly::assembleValues(const Csr& block, crs_matrix_type& C,
                                    const Teuchos::RCP<const map_type>& domainMap,
                                    const Teuchos::RCP<const map_type>& rangeMap, bool fill_complete,
                                    const Teuchos::RCP<Teuchos::ParameterList>& fill_params,
                                    std::vector<std::uint64_t>* bytes_to) {
  if (!canAssembleValues(C)) throw std::logic_error("Trident: assembleValues on a C the plan did not build");
  if (block.val.empty() && block.nnz() != 0 && !straight_)
    throw std::logic_error("Trident: assembleValues without values for an assembly that moves rows");
  if (straight_ && block.val.empty()) {
    // The multiply wrote C's values (valuesStraightIntoC): nothing moves, nothing is placed.
    if (C.isFillComplete()) C.resumeFill();
    if (fill_complete) C.expertStaticFillComplete(domainMap, rangeMap, importer_, Teuchos::null, fill_params);
    return;
  }
  const int selfSend = exchangeValues(block, bytes_to);
  Teuchos::TimeMonitor placeTimer(*phaseTimer("Trident: redistribute out: place"));
  placeValues(block, C, selfSend);
  if (fill_complete) C.expertStaticFillComplete(domainMap, rangeMap, importer_, Teuchos::null, fill_params);
}

// Sends the block's values to the owners of its rows and receives this rank's rows' values, in
// the kept pattern; returns the index in send_ of this rank's own rows (read from the block).
int ResultAssembly::exchangeValues(const Csr& block, std::vector<std::uint64_t>* bytes_to) {
  // Kept between calls: a kept plan's executes move the same counts every time, and fresh
  // buffers of C's size were faulted in again on each (email-Enron at P = 4: 61 MB a rank, most of
  // a re-execute's out phase on a VM whose 4 KiB fault costs ~11 us).
  std::vector<std::vector<double>>& out = value_out_;
  std::vector<std::vector<double>>& in = value_in_;
  out.resize(send_.size());
  in.resize(recv_.size());
  std::vector<MPI_Request> reqs, rreqs;
  int selfSend = -1;
  Teuchos::TimeMonitor tm(*phaseTimer("Trident: redistribute out: exchange"));
  for (std::size_t d = 0; d < send_.size(); ++d) {
    const Partner& p = send_[d];
    if (p.rank == me_) {  // read straight from the block when placing
      selfSend = static_cast<int>(d);
      continue;
    }
    const double* from = nullptr;
    std::int64_t n = 0;
    if (oneRun(p.rows)) {
      from = block.val.data() + block.rowptr[p.rows.front()];  // one run of the block: no copy
      n = block.rowptr[p.rows.back() + 1] - block.rowptr[p.rows.front()];
    } else {
      std::vector<double>& v = out[d];
      v.clear();
      v.reserve(p.entries);
      for (std::int64_t r : p.rows)
        v.insert(v.end(), block.val.begin() + block.rowptr[r], block.val.begin() + block.rowptr[r + 1]);
      from = v.data();
      n = static_cast<std::int64_t>(v.size());
    }
    if (n != p.entries) throw std::logic_error("Trident: the product's pattern changed under a plan");
    bigcount::isend(from, static_cast<std::size_t>(n), MPI_DOUBLE, p.rank, kTagVals, comm_, reqs);
    if (bytes_to) (*bytes_to)[p.rank] += 8 * static_cast<std::uint64_t>(n);
  }
  for (std::size_t s = 0; s < recv_.size(); ++s) {
    const Partner& p = recv_[s];
    if (p.rank == me_) continue;
    in[s].resize(p.entries);
    bigcount::irecv(in[s].data(), static_cast<std::size_t>(p.entries), MPI_DOUBLE, p.rank, kTagVals, comm_, rreqs);
  }
  waitAll(rreqs);
  waitAll(reqs);
  return selfSend;
}

// Writes the values into C's value array where assemble() placed them.
void ResultAssembly::placeValues(const Csr& block, crs_matrix_type& C, int selfSend) const {
  const bool wasFilled = C.isFillComplete();
  if (wasFilled) C.resumeFill();
  auto local = C.getLocalMatrixHost();
  auto values = local.values;
  for (std::size_t s = 0; s < recv_.size(); ++s) {
    const Partner& p = recv_[s];
    const bool self = p.rank == me_;
    std::int64_t e = 0;
    for (std::size_t t = 0; t < p.rows.size(); ++t) {
      const double* from = self ? block.val.data() + block.rowptr[send_[selfSend].rows[t]] : value_in_[s].data() + e;
      if (self && block.rowptr[send_[selfSend].rows[t] + 1] - block.rowptr[send_[selfSend].rows[t]] != p.counts[t])
        throw std::logic_error("Trident: the product's pattern changed under a plan");
      if (landing_.empty()) {
        std::copy(from, from + p.counts[t], values.data() + p.start[t]);
      } else {
        for (std::int64_t q = 0; q < p.counts[t]; ++q) values(landing_[p.start[t] + q]) = from[q];
      }
      e += p.counts[t];
    }
  }
}

}  // namespace tpetra
}  // namespace Trident
