// The row-wise product at P > 1: B's remote rows in, the kernel on Tpetra's arrays, C's final
// arrays out.
#include "Trident_RowWiseProduct.hpp"

#include <Tpetra_Import.hpp>
#include <algorithm>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "Trident_LocalViews.hpp"
#include "Trident_NodeWorkSharing.hpp"
#include "Trident_OwnerImport.hpp"
#include "Trident_RemoteRows.hpp"
#include "Trident_ResultAssembly.hpp"
#include "Trident_StoredZeros.hpp"
#include "Trident_TpetraCompat.hpp"
#include "Trident_TpetraConversion.hpp"
#include <trident/stats/PhaseTimer.hpp>

namespace Trident {
namespace tpetra {

namespace {

// B's rows as the kernel reads them: its local rows where Tpetra keeps them, then the remote ones
// in the order of A's Import's remote LIDs. Columns in one numbering: B's column map's local
// indices, then the columns only the remote rows have ("extra" columns), with their global IDs
// and owners. Copying B's local rows into one array with the remote ones was a quarter of
// tetdual:35's product at P = 4 (0.005 of 0.020 s, most of it page faults).
struct StackedB {
  Csr remote;  // the remote rows, columns in the stacked numbering
  std::int64_t b_cols = 0;  // width of B's column map
  std::vector<GO> extra_gids;
  std::vector<int> extra_owners;
  StackedCsrView view(const local_host_type& b) const {
    return {viewOf(b), CsrView::of(remote), b_cols + static_cast<std::int64_t>(extra_gids.size())};
  }
};

// The stacked column of each remote entry: B's column map's local index where it has the GID, else
// a new "extra" column (numbered from b_cols in order of first appearance).
struct ExtraColumns {
  std::int64_t b_cols = 0;
  std::vector<GO> gids;
  std::vector<int> owners;
  int add(GO g, int owner) {
    gids.push_back(g);
    owners.push_back(owner);
    return static_cast<int>(b_cols + static_cast<std::int64_t>(gids.size()) - 1);
  }
};

// By a table over the GIDs' range, where that range is within a few times the columns and entries
// looked up (hep-th at P = 4: Tpetra's hash look-up of each remote entry's GID, with a hash map for
// the extra ones, was most of "stack B"); otherwise by Tpetra's hash.
void numberByTable(const map_type& colMap, const RemoteRows& rows, GO lo, GO hi, ExtraColumns& extra, int* out) {
  std::vector<int> slot(static_cast<std::size_t>(hi - lo + 1), -1);
  const auto gids = Compat::localElementList(colMap);
  for (std::size_t c = 0; c < static_cast<std::size_t>(gids.size()); ++c)
    slot[static_cast<std::size_t>(gids[c] - lo)] = static_cast<int>(c);
  for (std::size_t q = 0; q < rows.col.size(); ++q) {
    int& s = slot[static_cast<std::size_t>(rows.col[q] - lo)];
    if (s < 0) s = extra.add(rows.col[q], rows.owner[q]);
    out[q] = s;
  }
}

void numberByHash(const map_type& colMap, const RemoteRows& rows, ExtraColumns& extra, int* out) {
  const LO invalid = Teuchos::OrdinalTraits<LO>::invalid();
  std::unordered_map<GO, int> seen;
  for (std::size_t q = 0; q < rows.col.size(); ++q) {
    const GO g = rows.col[q];
    const LO c = colMap.getLocalElement(g);
    if (c != invalid) {
      out[q] = c;
      continue;
    }
    const auto [it, added] = seen.emplace(g, 0);
    if (added) it->second = extra.add(g, rows.owner[q]);
    out[q] = it->second;
  }
}

StackedB stackB(const local_host_type& b, const crs_matrix_type& B, RemoteRows&& rows) {
  StackedB s;
  s.b_cols = static_cast<std::int64_t>(b.numCols());
  s.remote = Csr(rows.nrows(), 0);
  s.remote.rowptr = std::move(rows.rowptr);
  s.remote.val = std::move(rows.val);
  s.remote.col.resize(rows.col.size());
  const map_type& colMap = *B.getColMap();
  ExtraColumns extra;
  extra.b_cols = s.b_cols;
  GO lo = std::numeric_limits<GO>::max(), hi = std::numeric_limits<GO>::min();
  if (s.b_cols > 0) lo = colMap.getMinGlobalIndex(), hi = colMap.getMaxGlobalIndex();
  for (const GO g : rows.col) lo = std::min(lo, g), hi = std::max(hi, g);
  const auto looked = static_cast<double>(s.b_cols) + static_cast<double>(rows.col.size());
  if (lo <= hi && static_cast<double>(hi - lo) < 4.0 * looked + 65536.0)
    numberByTable(colMap, rows, lo, hi, extra, s.remote.col.data());
  else
    numberByHash(colMap, rows, extra, s.remote.col.data());
  s.extra_gids = std::move(extra.gids);
  s.extra_owners = std::move(extra.owners);
  s.remote.ncols = s.b_cols + static_cast<std::int64_t>(s.extra_gids.size());
  return s;
}

// A's column c as a row of the stacked B: its own row for the columns A's Import keeps, nlocalB + t
// for the t-th remote one. Empty where that is c itself (Tpetra's column maps: owned first).
std::vector<int> rowsOfStackedB(const Tpetra::Import<LO, GO, Node>& imp, std::int64_t nlocalB, std::int64_t ncolA) {
  std::vector<int> rows(static_cast<std::size_t>(ncolA), -1);
  const auto same = static_cast<std::int64_t>(imp.getNumSameIDs());
  for (std::int64_t c = 0; c < same; ++c) rows[c] = static_cast<int>(c);
  const auto to = imp.getPermuteToLIDs(), from = imp.getPermuteFromLIDs();
  for (std::size_t i = 0; i < static_cast<std::size_t>(to.size()); ++i) rows[to[i]] = from[i];
  const auto remote = imp.getRemoteLIDs();
  for (std::size_t t = 0; t < static_cast<std::size_t>(remote.size()); ++t)
    rows[remote[t]] = static_cast<int>(nlocalB + static_cast<std::int64_t>(t));
  bool identity = true;
  for (std::int64_t c = 0; c < ncolA && identity; ++c) identity = rows[c] == c;
  if (identity) rows.clear();
  return rows;
}

// Tpetra's column-map order (Tpetra::Details::makeColMap): the columns this rank owns in domain-map
// order, then the remote ones by owner, then by global ID.
struct ColumnKey {
  int owner;  // -1: this rank
  GO order;   // the domain map's local index where owned, else the global ID
  bool operator<(const ColumnKey& o) const { return owner != o.owner ? owner < o.owner : order < o.order; }
};

// C's columns: the used ones of the stacked numbering in Tpetra's order (the remote ones last).
struct CColumns {
  std::vector<int> slot;  // stacked column -> C's local column
  std::vector<GO> gids;
  std::vector<int> remote_pids;
};

// The stacked columns as C's column numbering needs them: their GIDs, and their keys in Tpetra's
// order. Local (no other rank's positions), so that the columns are counted before the ranks meet.
struct StackedColumns {
  const StackedB& sb;
  const GO* b_gids;  // B's column map's GIDs
  const std::vector<int>& b_owners;
  const map_type& domain;
  int me;
  bool contiguous = domain.isContiguous();  // asked once, not per column
  GO first = domain.getMinGlobalIndex();
  std::size_t bCols() const { return static_cast<std::size_t>(sb.b_cols); }
  GO gidOf(std::size_t c) const { return c < bCols() ? b_gids[c] : sb.extra_gids[c - bCols()]; }
  ColumnKey keyOf(std::size_t c) const {
    const int owner = c < bCols() ? b_owners[c] : sb.extra_owners[c - bCols()];
    const GO g = gidOf(c);
    if (owner != me) return {owner, g};
    // A contiguous domain map's local index by arithmetic, not a call into Tpetra per column.
    return {-1, contiguous ? g - first : static_cast<GO>(domain.getLocalElement(g))};
  }
  // Column c as C's next column.
  void place(CColumns& cc, const ColumnKey& key, std::size_t c) const {
    cc.slot[c] = static_cast<int>(cc.gids.size());
    cc.gids.push_back(gidOf(c));
    if (key.owner >= 0) cc.remote_pids.push_back(key.owner);
  }
};

// The remote columns' local indices on their owners, where the domain map is linear (by
// arithmetic); otherwise Tpetra's Import finds them.
std::vector<LO> remoteOwnerLids(const CColumns& cc, const MapPositions& domainPos) {
  std::vector<LO> lids;
  if (!domainPos.linear()) return lids;
  const std::size_t first = cc.gids.size() - cc.remote_pids.size();
  lids.reserve(cc.remote_pids.size());
  for (std::size_t t = 0; t < cc.remote_pids.size(); ++t)
    lids.push_back(static_cast<LO>(cc.gids[first + t] - domainPos.base() - domainPos.begin(cc.remote_pids[t])));
  return lids;
}

using KeyedColumn = std::pair<ColumnKey, int>;
bool byKey(const KeyedColumn& x, const KeyedColumn& y) { return x.first < y.first; }

// B's used columns in their own order, the sorted extra ones merged in; false (cc to be redone)
// where B's column map is not in Tpetra's order after all.
bool mergeInOrder(const StackedColumns& sc, const std::vector<char>& used, const std::vector<KeyedColumn>& extras,
                  CColumns& cc) {
  std::size_t e = 0;
  bool first = true;
  ColumnKey prev{};
  for (std::size_t c = 0; c < sc.bCols(); ++c) {
    if (!used[c]) continue;
    const ColumnKey key = sc.keyOf(c);
    if (!first && key < prev) return false;
    first = false;
    prev = key;
    for (; e < extras.size() && extras[e].first < key; ++e) sc.place(cc, extras[e].first, static_cast<std::size_t>(extras[e].second));
    sc.place(cc, key, c);
  }
  for (; e < extras.size(); ++e) sc.place(cc, extras[e].first, static_cast<std::size_t>(extras[e].second));
  return true;
}

CColumns numberColumns(const int* col, std::size_t nnz, const StackedB& sb, const crs_matrix_type& B,
                       const std::vector<int>& bOwners, int me) {
  const auto bGids = Compat::localElementList(*B.getColMap());
  const StackedColumns sc{sb, bGids.size() > 0 ? &bGids[0] : nullptr, bOwners, *B.getDomainMap(), me};
  const auto width = static_cast<std::size_t>(sb.remote.ncols);
  std::vector<char> used(width, 0);
  for (std::size_t q = 0; q < nnz; ++q) used[static_cast<std::size_t>(col[q])] = 1;
  std::vector<KeyedColumn> extras;
  for (std::size_t c = sc.bCols(); c < width; ++c)
    if (used[c]) extras.emplace_back(sc.keyOf(c), static_cast<int>(c));
  std::sort(extras.begin(), extras.end(), byKey);
  CColumns cc;
  cc.slot.assign(width, -1);
  // B's column map is usually in this order already (Tpetra made it): then only the extra columns
  // are sorted and merged in, without listing B's; otherwise every used column is sorted.
  if (mergeInOrder(sc, used, extras, cc)) return cc;
  std::vector<KeyedColumn> all = std::move(extras);
  for (std::size_t c = 0; c < sc.bCols(); ++c)
    if (used[c]) all.emplace_back(sc.keyOf(c), static_cast<int>(c));
  std::sort(all.begin(), all.end(), byKey);
  cc = CColumns();
  cc.slot.assign(width, -1);
  for (const auto& [key, c] : all) sc.place(cc, key, static_cast<std::size_t>(c));
  return cc;
}

// C's columns numbered in Tpetra's order and renumbered in place (local).
CColumns renumberC(const Csr& shape, FinalArraysSink& sink, const StackedB& sb, const crs_matrix_type& B,
                   const std::vector<int>& bOwners, int me) {
  const auto nnz = static_cast<std::size_t>(shape.nnz());
  int* const col = sink.col();
  CColumns cc = numberColumns(col, nnz, sb, B, bOwners, me);
  for (std::size_t q = 0; q < nnz; ++q) col[q] = cc.slot[static_cast<std::size_t>(col[q])];
  return cc;
}

// C's column map (`columns` of them over all ranks), its arrays, and an Import from the known owners.
void fillC(const Csr& shape, FinalArraysSink& sink, const CColumns& cc, std::int64_t columns,
           const MapPositions& domainPos, const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C,
           bool fill_complete, const Teuchos::RCP<Teuchos::ParameterList>& fill_params, MPI_Comm comm) {
  const auto domain = B.getDomainMap();
  const auto nnz = static_cast<std::size_t>(shape.nnz());
  // The global count given, Tpetra's Map does not sum it again.
  const Teuchos::RCP<const map_type> colMap =
      Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(columns),
                                Teuchos::ArrayView<const GO>(cc.gids.data(), cc.gids.size()), domain->getIndexBase(),
                                domain->getComm()));
  C.replaceColMap(colMap);
  C.setAllValues(rowOffsetsOf(shape), sink.indices(nnz), sink.values(nnz));
  Teuchos::RCP<const import_type> importer;
  if (domainPos.linear()) {
    importer = importFromOwners(domain, colMap, cc.remote_pids, remoteOwnerLids(cc, domainPos), domainPos, comm);
  } else {
    Teuchos::Array<int> pids(cc.remote_pids.begin(), cc.remote_pids.end());
    importer = Teuchos::rcp(new import_type(domain, colMap, pids));
  }
  if (fill_complete) C.expertStaticFillComplete(domain, A.getRangeMap(), importer, Teuchos::null, fill_params);
}

}  // namespace

void multiplyRowWise(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C, bool fill_complete,
                     const Teuchos::RCP<Teuchos::ParameterList>& fill_params, const Topology& topo,
                     bool share_node_work, MultiplyStats& stats) {
  const local_host_type a = A.getLocalMatrixHost(), b = B.getLocalMatrixHost();
  StackedB sb;
  std::optional<KernelA> ka;
  // The owner of each of B's columns: the sender packs it with its rows, and C's column map and
  // Import are made from it.
  const std::vector<int> bOwners = columnOwners(B, topo.rank());
  {
    // The in phase: B's remote rows, and B's local rows stacked with them.
    PhaseTimer t(stats.times.redistribute_in, "Trident: redistribute in");
    const auto importer = A.getGraph()->getImporter();
    if (importer.is_null()) throw std::logic_error("Trident: the row-wise product needs A's Import");
    RemoteRows remote;
    {
      Teuchos::TimeMonitor fetchTimer(*phaseTimer("Trident: redistribute in: remote rows"));
      remote = fetchRemoteRows(*importer, A, B, bOwners, topo, stats);
    }
    Teuchos::TimeMonitor stackTimer(*phaseTimer("Trident: redistribute in: stack B"));
    sb = stackB(b, B, std::move(remote));
    const std::vector<int> rows = rowsOfStackedB(*importer, static_cast<std::int64_t>(b.numRows()),
                                                 static_cast<std::int64_t>(a.numCols()));
    ka.emplace(a, rows, storedZeros(A), static_cast<std::int64_t>(b.numRows()) + sb.remote.nrows);
  }
  FinalArraysSink sink;
  Csr shape = multiplySharingNodeWork(ka->view(), sb.view(b), sink, topo, share_node_work, stats);
  CColumns cc;
  {
    PhaseTimer t(stats.times.redistribute_out, "Trident: redistribute out");
    cc = renumberC(shape, sink, sb, B, bOwners, topo.rank());
  }
  // The ranks' first meeting after the kernel is where the faster ones wait for the slowest: one
  // all-gather, of the domain map's positions and C's column counts, timed as that wait.
  auto columns = static_cast<std::int64_t>(cc.gids.size());
  std::optional<MapPositions> domainPos;
  {
    PhaseTimer t(stats.times.imbalance_wait, "Trident: wait for the slowest rank");
    domainPos.emplace(MapPositions::of({B.getDomainMap().get()}, &columns).front());
  }
  PhaseTimer t(stats.times.redistribute_out, "Trident: redistribute out");
  fillC(shape, sink, cc, columns, *domainPos, A, B, C, fill_complete, fill_params, topo.world());
}

}  // namespace tpetra
}  // namespace Trident
