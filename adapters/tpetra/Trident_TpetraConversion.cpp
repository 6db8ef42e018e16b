#include "Trident_TpetraConversion.hpp"

#include <Teuchos_DefaultMpiComm.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_Vector.hpp>
#include <algorithm>
#include <numeric>

#include <trident/core/Errors.hpp>

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
}

int MapPositions::owner(std::int64_t pos) const {
  return static_cast<int>(std::upper_bound(offset_.begin(), offset_.end(), pos) - offset_.begin()) - 1;
}

std::vector<std::int64_t> positionsOf(const map_type& map, const MapPositions& pos,
                                      const Teuchos::ArrayView<const GO>& gids, const std::string& what) {
  std::vector<std::int64_t> out(gids.size());
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

// Tpetra's column-map convention (Tpetra::Details::makeColMap): the GIDs the domain map owns on
// this rank first, in domain-map order, then the remote ones sorted by owning rank, then GID.
Teuchos::RCP<const map_type> makeColumnMap(const LocalRows& rows, const std::vector<int>& col_owner,
                                           const map_type& domainMap, int me) {
  std::vector<std::pair<int, GO>> remote;
  std::vector<std::pair<LO, GO>> local;
  std::vector<GO> gids(rows.col);
  std::vector<int> owner(col_owner);
  std::vector<std::size_t> idx(gids.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return gids[a] < gids[b]; });
  for (std::size_t t = 0; t < idx.size(); ++t) {
    if (t > 0 && gids[idx[t]] == gids[idx[t - 1]]) continue;
    const GO g = gids[idx[t]];
    if (owner[idx[t]] == me)
      local.emplace_back(domainMap.getLocalElement(g), g);
    else
      remote.emplace_back(owner[idx[t]], g);
  }
  std::sort(local.begin(), local.end());
  std::sort(remote.begin(), remote.end());
  std::vector<GO> list;
  list.reserve(local.size() + remote.size());
  for (auto& p : local) list.push_back(p.second);
  for (auto& p : remote) list.push_back(p.second);
  return Teuchos::rcp(new map_type(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                                   Teuchos::ArrayView<const GO>(list.data(), list.size()),
                                   domainMap.getIndexBase(), domainMap.getComm()));
}
}  // namespace

void assembleResult(crs_matrix_type& C, const LocalRows& rows, const std::vector<int>& col_owner,
                    const Teuchos::RCP<const map_type>& domainMap, const Teuchos::RCP<const map_type>& rangeMap,
                    bool fill_complete, const Teuchos::RCP<Teuchos::ParameterList>& fill_params) {
  MPI_Comm comm = rawComm(C.getComm());
  int me = 0;
  MPI_Comm_rank(comm, &me);
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
    if (fill_complete) C.fillComplete(domainMap, rangeMap, fill_params);
    return;
  }

  if (C.hasColMap()) {
    // The caller chose C's column map (and its allocation): insert by global index.
    for (LO r = 0; r < nrows; ++r) {
      const std::size_t b = rows.rowptr[r], n = rows.rowptr[r + 1] - b;
      if (n == 0) continue;
      C.insertGlobalValues(rowMap->getGlobalElement(r), Teuchos::ArrayView<const GO>(rows.col.data() + b, n),
                           Teuchos::ArrayView<const double>(rows.val.data() + b, n));
    }
    if (fill_complete) C.fillComplete(domainMap, rangeMap, fill_params);
    return;
  }

  // Fresh C: build the column map and local arrays directly, as Tpetra's own Multiply does. With
  // fill_complete=false C is left locally indexed and open; the caller's fillComplete finishes it.
  auto colMap = makeColumnMap(rows, col_owner, *domainMap, me);
  Teuchos::ArrayRCP<std::size_t> ptr(nrows + 1);
  Teuchos::ArrayRCP<LO> ind(rows.col.size());
  Teuchos::ArrayRCP<double> val(rows.val.size());
  std::vector<std::pair<LO, double>> row;
  ptr[0] = 0;
  for (LO r = 0; r < nrows; ++r) {
    row.clear();
    for (std::size_t q = rows.rowptr[r]; q < rows.rowptr[r + 1]; ++q)
      row.emplace_back(colMap->getLocalElement(rows.col[q]), rows.val[q]);
    std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::size_t at = rows.rowptr[r];
    for (auto& e : row) {
      ind[at] = e.first;
      val[at] = e.second;
      ++at;
    }
    ptr[r + 1] = rows.rowptr[r + 1];
  }
  C.replaceColMap(colMap);
  C.setAllValues(ptr, ind, val);
  if (!fill_complete) return;
  Teuchos::RCP<const import_type> importer;
  if (!domainMap->isSameAs(*colMap)) importer = Teuchos::rcp(new import_type(domainMap, colMap));
  C.expertStaticFillComplete(domainMap, rangeMap, importer, Teuchos::null, fill_params);
}

}  // namespace tpetra
}  // namespace Trident
