#include "Trident_TpetraConversion.hpp"

#include <Teuchos_DefaultMpiComm.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_Vector.hpp>
#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>

#include <trident/core/Errors.hpp>
#include <trident/stats/PhaseTimer.hpp>

namespace Trident {
namespace tpetra {

MPI_Comm rawComm(const comm_ptr& comm) {
  auto mpi = Teuchos::rcp_dynamic_cast<const Teuchos::MpiComm<int>>(comm);
  if (mpi.is_null()) return MPI_COMM_SELF;
  return (*mpi->getRawMpiComm())();
}

MapPositions::MapPositions(const map_type& map) {
  MPI_Comm comm = rawComm(map.getComm());
  int P = 1;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank_);
  std::int64_t mine = static_cast<std::int64_t>(map.getNodeNumElements());
  std::vector<std::int64_t> counts(P);
  MPI_Allgather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm);
  offset_.assign(P + 1, 0);
  std::partial_sum(counts.begin(), counts.end(), offset_.begin() + 1);
  base_ = map.getMinAllGlobalIndex();
  int linear = map.isContiguous() && (mine == 0 || map.getMinGlobalIndex() == base_ + offset_[rank_]) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &linear, 1, MPI_INT, MPI_MIN, comm);
  linear_ = linear == 1;
}

int MapPositions::owner(std::int64_t pos) const {
  return static_cast<int>(std::upper_bound(offset_.begin(), offset_.end(), pos) - offset_.begin()) - 1;
}

std::vector<std::int64_t> positionsOf(const map_type& map, const MapPositions& pos,
                                      const Teuchos::ArrayView<const GO>& gids, const std::string& what) {
  std::vector<std::int64_t> out(gids.size());
  if (pos.linear()) {
    bool bad = false;
    GO missing = 0;
    for (std::size_t t = 0; t < out.size(); ++t) {
      out[t] = gids[t] - pos.base();
      if (out[t] < 0 || out[t] >= pos.global()) {
        bad = true;
        missing = gids[t];
      }
    }
    throwIfAnyRank(rawComm(map.getComm()), bad,
                   what + ": global index " + std::to_string(missing) + " is not in the map it must match");
    return out;
  }
  Teuchos::Array<int> pids(gids.size());
  Teuchos::Array<LO> lids(gids.size());
  const Tpetra::LookupStatus st = map.getRemoteIndexList(gids, pids(), lids());
  bool bad = (st != Tpetra::AllIDsPresent);
  GO missing = 0;
  for (std::size_t t = 0; t < out.size(); ++t) {
    if (pids[t] < 0) {
      if (!bad || missing == 0) missing = gids[t];
      bad = true;
      continue;
    }
    out[t] = pos.begin(pids[t]) + lids[t];
  }
  throwIfAnyRank(rawComm(map.getComm()), bad,
                 what + ": global index " + std::to_string(missing) + " is not in the map it must match");
  return out;
}

std::vector<GO> gidsAt(const Teuchos::RCP<const map_type>& map, const MapPositions& pos,
                       const std::vector<std::int64_t>& positions) {
  if (pos.linear()) {
    std::vector<GO> out(positions.size());
    for (std::size_t t = 0; t < out.size(); ++t) out[t] = pos.base() + positions[t];
    return out;
  }
  using vec_t = Tpetra::Vector<double, LO, GO, Node>;
  // A contiguous map whose GIDs are exactly the positions, distributed like `map`.
  auto posMap = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(pos.global()),
                                          map->getNodeNumElements(), 0, map->getComm()));
  vec_t src(posMap);
  {
    auto data = src.getDataNonConst(0);
    auto mine = map->getNodeElementList();
    for (LO l = 0; l < static_cast<LO>(mine.size()); ++l) data[l] = static_cast<double>(mine[l]);
  }
  std::vector<GO> want(positions.begin(), positions.end());
  auto wantMap = Teuchos::rcp(new map_type(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                                           Teuchos::ArrayView<const GO>(want.data(), want.size()), 0,
                                           map->getComm()));
  vec_t dst(wantMap);
  Tpetra::Import<LO, GO, Node> importer(posMap, wantMap);
  dst.doImport(src, importer, Tpetra::INSERT);
  auto data = dst.getData(0);
  std::vector<GO> out(positions.size());
  for (std::size_t t = 0; t < out.size(); ++t) out[t] = static_cast<GO>(data[t]);
  return out;
}

Triplets toTriplets(const crs_matrix_type& A, const std::vector<std::int64_t>& row_pos,
                    const std::vector<std::int64_t>& col_pos, const Permutation& row_perm,
                    const Permutation& col_perm, bool skip_zeros) {
  auto local = A.getLocalMatrixHost();
  auto rowmap = local.graph.row_map;
  auto entries = local.graph.entries;
  auto values = local.values;
  Triplets T;
  T.reserve(entries.extent(0));
  const LO nrows = static_cast<LO>(A.getNodeNumRows());
  for (LO r = 0; r < nrows; ++r) {
    const std::int64_t rp = row_perm(row_pos[r]);
    for (std::size_t q = rowmap(r); q < rowmap(r + 1); ++q) {
      if (skip_zeros && values(q) == 0.0) continue;
      T.push(rp, col_perm(col_pos[entries(q)]), values(q));
    }
  }
  return T;
}

namespace {
using import_type = Tpetra::Import<LO, GO, Node>;

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

namespace {
// Scratch arrays that are written before they are read: no zero fill (which cost as much as the
// copying itself on large products).
template <class T>
std::unique_ptr<T[]> scratch(std::size_t n) {
  return std::unique_ptr<T[]>(new T[n]);
}

template <class T>
MPI_Datatype mpiType();
template <>
MPI_Datatype mpiType<std::int32_t>() { return MPI_INT32_T; }
template <>
MPI_Datatype mpiType<std::int64_t>() { return MPI_INT64_T; }

// Rows go to their owners in one pass: per destination, a header (row, count) per row and the
// entries in row order. Col is the column type on the wire: 32-bit whenever the columns fit, so
// an entry costs 12 bytes instead of 16.
template <class Col>
ResultRows shipRows(const Csr& block, std::int64_t row0, std::int64_t col0, const Permutation& row_perm,
                    const Permutation& col_perm, const MapPositions& rowPos, std::size_t local_rows, MPI_Comm comm,
                    std::vector<std::uint64_t>* bytes_to) {
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  std::vector<int> owner(block.nrows);
  std::vector<std::int64_t> rowOf(block.nrows);
  std::vector<int> hcount(P, 0), ecount(P, 0);
  for (std::int64_t r = 0; r < block.nrows; ++r) {
    const std::int64_t n = block.rowptr[r + 1] - block.rowptr[r];
    if (n == 0) {
      owner[r] = -1;
      continue;
    }
    rowOf[r] = row_perm.inverse(row0 + r);
    owner[r] = rowPos.owner(rowOf[r]);
    if (owner[r] == me) continue;  // placed directly below, no copy through MPI
    hcount[owner[r]] += 2;
    ecount[owner[r]] += static_cast<int>(n);
  }
  std::vector<int> hdispl(P, 0), edispl(P, 0);
  std::exclusive_scan(hcount.begin(), hcount.end(), hdispl.begin(), 0);
  std::exclusive_scan(ecount.begin(), ecount.end(), edispl.begin(), 0);
  const std::size_t nh = static_cast<std::size_t>(hdispl[P - 1]) + hcount[P - 1];
  const std::size_t ne = static_cast<std::size_t>(edispl[P - 1]) + ecount[P - 1];
  auto hsend = scratch<std::int64_t>(nh);
  auto csend = scratch<Col>(ne);
  auto vsend = scratch<double>(ne);
  {
    std::vector<int> hnext = hdispl, enext = edispl;
    for (std::int64_t r = 0; r < block.nrows; ++r) {
      const int d = owner[r];
      if (d < 0 || d == me) continue;
      hsend[hnext[d]++] = rowOf[r];
      hsend[hnext[d]++] = block.rowptr[r + 1] - block.rowptr[r];
      for (std::int64_t q = block.rowptr[r]; q < block.rowptr[r + 1]; ++q) {
        csend[enext[d]] = static_cast<Col>(col_perm.inverse(col0 + block.col[q]));
        vsend[enext[d]++] = block.val[q];
      }
    }
  }
  std::vector<int> hrecv(P), erecv(P), hrdispl(P, 0), erdispl(P, 0);
  MPI_Alltoall(hcount.data(), 1, MPI_INT, hrecv.data(), 1, MPI_INT, comm);
  MPI_Alltoall(ecount.data(), 1, MPI_INT, erecv.data(), 1, MPI_INT, comm);
  std::exclusive_scan(hrecv.begin(), hrecv.end(), hrdispl.begin(), 0);
  std::exclusive_scan(erecv.begin(), erecv.end(), erdispl.begin(), 0);
  const std::size_t nhin = static_cast<std::size_t>(hrdispl[P - 1]) + hrecv[P - 1];
  const std::size_t nein = static_cast<std::size_t>(erdispl[P - 1]) + erecv[P - 1];
  auto hin = scratch<std::int64_t>(nhin);
  auto cin = scratch<Col>(nein);
  auto vin = scratch<double>(nein);
  MPI_Alltoallv(hsend.get(), hcount.data(), hdispl.data(), MPI_INT64_T, hin.get(), hrecv.data(), hrdispl.data(),
                MPI_INT64_T, comm);
  MPI_Alltoallv(csend.get(), ecount.data(), edispl.data(), mpiType<Col>(), cin.get(), erecv.data(),
                erdispl.data(), mpiType<Col>(), comm);
  MPI_Alltoallv(vsend.get(), ecount.data(), edispl.data(), MPI_DOUBLE, vin.get(), erecv.data(), erdispl.data(),
                MPI_DOUBLE, comm);
  if (bytes_to) {
    bytes_to->resize(P, 0);
    for (int d = 0; d < P; ++d)
      if (d != me) (*bytes_to)[d] += 8 * static_cast<std::uint64_t>(hcount[d]) + (sizeof(Col) + 8) * ecount[d];
  }
  hsend.reset();
  csend.reset();
  vsend.reset();

  // Place the pieces: count per local row, then copy each piece behind the previous ones.
  ResultRows out;
  out.rowptr.assign(local_rows + 1, 0);
  const std::int64_t first = rowPos.first();
  std::size_t ownEntries = 0;
  for (std::int64_t r = 0; r < block.nrows; ++r)
    if (owner[r] == me) {
      const std::int64_t n = block.rowptr[r + 1] - block.rowptr[r];
      out.rowptr[rowOf[r] - first + 1] += n;
      ownEntries += n;
    }
  for (std::size_t h = 0; h < nhin; h += 2) out.rowptr[hin[h] - first + 1] += hin[h + 1];
  for (std::size_t r = 0; r < local_rows; ++r) out.rowptr[r + 1] += out.rowptr[r];
  out.colpos.resize(nein + ownEntries);
  out.val.resize(nein + ownEntries);
  std::vector<std::size_t> next(out.rowptr.begin(), out.rowptr.end() - 1);
  for (std::int64_t r = 0; r < block.nrows; ++r) {
    if (owner[r] != me) continue;
    std::size_t& at = next[rowOf[r] - first];
    for (std::int64_t q = block.rowptr[r]; q < block.rowptr[r + 1]; ++q) {
      out.colpos[at] = col_perm.inverse(col0 + block.col[q]);
      out.val[at++] = block.val[q];
    }
  }
  std::size_t e = 0;
  for (std::size_t h = 0; h < nhin; h += 2) {
    const std::size_t r = hin[h] - first, n = hin[h + 1];
    std::copy(cin.get() + e, cin.get() + e + n, out.colpos.begin() + next[r]);
    std::copy(vin.get() + e, vin.get() + e + n, out.val.begin() + next[r]);
    next[r] += n;
    e += n;
  }
  return out;
}
}  // namespace

ResultRows sendRowsToOwners(const Csr& block, std::int64_t row0, std::int64_t col0, const Permutation& row_perm,
                            const Permutation& col_perm, const MapPositions& rowPos, std::size_t local_rows,
                            MPI_Comm comm, std::vector<std::uint64_t>* bytes_to, std::int64_t ncols) {
  Teuchos::TimeMonitor tm(*phaseTimer("Trident: redistribute out: exchange"));
  if (ncols <= std::numeric_limits<std::int32_t>::max())
    return shipRows<std::int32_t>(block, row0, col0, row_perm, col_perm, rowPos, local_rows, comm, bytes_to);
  return shipRows<std::int64_t>(block, row0, col0, row_perm, col_perm, rowPos, local_rows, comm, bytes_to);
}

void assembleResult(crs_matrix_type& C, const ResultRows& rows, const MapPositions& colPos,
                    const Teuchos::RCP<const map_type>& domainMap, const Teuchos::RCP<const map_type>& rangeMap,
                    bool fill_complete, const Teuchos::RCP<Teuchos::ParameterList>& fill_params) {
  MPI_Comm comm = rawComm(C.getComm());
  const LO nrows = static_cast<LO>(rows.rowptr.size()) - 1;
  const std::int64_t n = colPos.global(), first = colPos.first();
  const std::int64_t nlocal = static_cast<std::int64_t>(domainMap->getNodeNumElements());

  auto colTimer = Teuchos::rcp(new Teuchos::TimeMonitor(*phaseTimer("Trident: redistribute out: column map")));
  // The column positions used here, marked densely over op(B)'s columns (4 bytes per column).
  std::vector<int> slot(static_cast<std::size_t>(n), -1);
  for (std::int64_t p : rows.colpos) slot[p] = 0;
  // Tpetra's column-map convention (Tpetra::Details::makeColMap): the GIDs the domain map owns on
  // this rank first, in domain-map order, then the remote ones by owning rank, then GID.
  std::vector<GO> colGids;
  for (std::int64_t p = first; p < first + nlocal; ++p)
    if (slot[p] == 0) colGids.push_back(domainMap->getGlobalElement(static_cast<LO>(p - first)));
  std::vector<std::int64_t> remote;
  for (std::int64_t p = 0; p < n; ++p)
    if (slot[p] == 0 && (p < first || p >= first + nlocal)) remote.push_back(p);
  std::vector<GO> remoteGids = gidsAt(domainMap, colPos, remote);  // collective
  {
    // Positions are in owner order already; within one owner, Tpetra orders by GID (already so
    // for contiguous maps: then every segment is sorted and nothing moves).
    std::vector<std::size_t> idx(remote.size());
    std::iota(idx.begin(), idx.end(), 0);
    for (std::size_t b = 0; b < idx.size();) {
      const int o = colPos.owner(remote[b]);
      std::size_t e = b + 1;
      while (e < idx.size() && remote[e] < colPos.begin(o + 1)) ++e;
      auto byGid = [&](std::size_t x, std::size_t y) { return remoteGids[x] < remoteGids[y]; };
      if (!std::is_sorted(idx.begin() + b, idx.begin() + e, byGid)) std::sort(idx.begin() + b, idx.begin() + e, byGid);
      b = e;
    }
    LO lid = static_cast<LO>(colGids.size());
    for (std::int64_t p = first; p < first + nlocal; ++p)
      if (slot[p] == 0) slot[p] = -2;  // placeholder, numbered below
    LO l = 0;
    for (std::int64_t p = first; p < first + nlocal; ++p)
      if (slot[p] == -2) slot[p] = l++;
    for (std::size_t t : idx) {
      slot[remote[t]] = lid++;
      colGids.push_back(remoteGids[t]);
    }
  }

  colTimer = Teuchos::null;
  if (C.isFillComplete() || C.hasColMap()) {
    GlobalRows g;
    g.rowptr = rows.rowptr;
    g.val = rows.val;
    g.col.resize(rows.colpos.size());
    for (std::size_t q = 0; q < g.col.size(); ++q) g.col[q] = colGids[slot[rows.colpos[q]]];
    insertOrReuse(C, g, domainMap, rangeMap, fill_complete, fill_params, comm);
    return;
  }

  // Fresh C: build the column map and local arrays directly, as Tpetra's own Multiply does. With
  // fill_complete=false C is left locally indexed and open; the caller's fillComplete finishes it.
  auto colMap = Teuchos::rcp(new map_type(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                                          Teuchos::ArrayView<const GO>(colGids.data(), colGids.size()),
                                          domainMap->getIndexBase(), domainMap->getComm()));
  auto sortTimer = Teuchos::rcp(new Teuchos::TimeMonitor(*phaseTimer("Trident: redistribute out: sort rows")));
  // Every row sorted by local column, adaptively: short rows (the vast majority) by a comparison
  // sort of (column, value) pairs in cache; rows long enough that a sweep over all local columns
  // is cheaper than n log n by scattering into a dense accumulator and sweeping it.
  const std::size_t nnz = rows.colpos.size();
  const std::size_t ncolsLocal = colGids.size();
  Teuchos::ArrayRCP<std::size_t> ptr = Teuchos::arcp<std::size_t>(nrows + 1);
  Teuchos::ArrayRCP<LO> ind = Teuchos::arcp<LO>(nnz);
  Teuchos::ArrayRCP<double> val = Teuchos::arcp<double>(nnz);
  for (LO r = 0; r <= nrows; ++r) ptr[r] = rows.rowptr[r];
  std::vector<std::pair<LO, double>> row;
  std::vector<double> dense;
  std::vector<char> present;
  for (LO r = 0; r < nrows; ++r) {
    const std::size_t b = rows.rowptr[r], e = rows.rowptr[r + 1], n = e - b;
    if (n > 64 && n * 16 > ncolsLocal) {
      if (dense.empty()) {
        dense.assign(ncolsLocal, 0.0);
        present.assign(ncolsLocal, 0);
      }
      for (std::size_t q = b; q < e; ++q) {
        const LO c = slot[rows.colpos[q]];
        dense[c] = rows.val[q];
        present[c] = 1;
      }
      std::size_t at = b;
      for (std::size_t c = 0; c < ncolsLocal; ++c)
        if (present[c]) {
          ind[at] = static_cast<LO>(c);
          val[at++] = dense[c];
          present[c] = 0;
        }
      continue;
    }
    row.resize(n);
    for (std::size_t q = b; q < e; ++q) row[q - b] = {slot[rows.colpos[q]], rows.val[q]};
    std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (std::size_t t = 0; t < n; ++t) {
      ind[b + t] = row[t].first;
      val[b + t] = row[t].second;
    }
  }
  sortTimer = Teuchos::null;
  Teuchos::TimeMonitor fillTimer(*phaseTimer("Trident: redistribute out: fill complete"));
  C.replaceColMap(colMap);
  C.setAllValues(ptr, ind, val);
  if (!fill_complete) return;
  Teuchos::RCP<const import_type> importer;
  if (!domainMap->isSameAs(*colMap)) importer = Teuchos::rcp(new import_type(domainMap, colMap));
  C.expertStaticFillComplete(domainMap, rangeMap, importer, Teuchos::null, fill_params);
}

}  // namespace tpetra
}  // namespace Trident
