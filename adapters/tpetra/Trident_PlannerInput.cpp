#include "Trident_PlannerInput.hpp"

#include <map>
#include <memory>
#include <numeric>

#include <Tpetra_Distributor.hpp>
#include <Tpetra_Import.hpp>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include "Trident_MapSameness.hpp"
#include "Trident_ProductCounts.hpp"
#include <trident/grid/TileGrid.hpp>
#include <trident/stats/PhaseTimer.hpp>
#include "Trident_TpetraComm.hpp"
#include "Trident_TpetraConversion.hpp"
#include <trident/core/BigCount.hpp>
#include <trident/core/Hash.hpp>
#include <trident/planner/AutoDecision.hpp>

namespace Trident {
namespace tpetra {

planner::Pattern gatherPattern(const crs_matrix_type& M, bool skip_zeros, int root, const map_type* row_space,
                               const map_type* col_space, bool record_owner) {
  MPI_Comm comm = rawComm(M.getComm());
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  auto rowMap = M.getRowMap();
  auto colMap = M.getColMap();
  const map_type& rs = row_space ? *row_space : *rowMap;
  const map_type& cs = col_space ? *col_space : *M.getDomainMap();
  const MapPositions rpos(rs), cpos(cs);
  const std::vector<std::int64_t> rowAt = positionsOf(rs, rpos, Compat::localElementList(*rowMap), "a row of the pattern");
  const std::vector<std::int64_t> colAt = positionsOf(cs, cpos, Compat::localElementList(*colMap), "a column of the pattern");
  auto local = M.getLocalMatrixHost();
  std::vector<std::int64_t> mine;  // (row, col) pairs; an empty row as (row, -1) so its owner is known
  for (LO r = 0; r < static_cast<LO>(Compat::localNumRows(M)); ++r) {
    mine.push_back(rowAt[r]);
    mine.push_back(-1);
    for (std::size_t q = local.graph.row_map(r); q < local.graph.row_map(r + 1); ++q) {
      if (skip_zeros && local.values(q) == 0.0) continue;
      mine.push_back(rowAt[r]);
      mine.push_back(colAt[local.graph.entries(q)]);
    }
  }
  std::vector<std::int64_t> counts(P, 0);
  const std::int64_t n = static_cast<std::int64_t>(mine.size());
  std::vector<long long> all(P);
  long long nn = n;
  MPI_Allgather(&nn, 1, MPI_LONG_LONG, all.data(), 1, MPI_LONG_LONG, comm);
  for (int p = 0; p < P; ++p) counts[p] = all[p];
  const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
  planner::Pattern pat;
  pat.nrows = rpos.global();
  pat.ncols = cpos.global();
  const bool here = root < 0 || root == me;
  std::vector<std::int64_t> pairs(here ? static_cast<std::size_t>(total) : 0);
  if (root < 0) {
    bigcount::allgatherv(mine.data(), pairs.data(), counts, MPI_INT64_T, comm);
  } else {
    // Point-to-point to the root (a gatherv with 64-bit counts): small pieces, one per rank.
    if (me == root) {
      std::int64_t at = 0;
      for (int p = 0; p < P; ++p) {
        if (p == me) {
          std::copy(mine.begin(), mine.end(), pairs.begin() + at);
        } else {
          std::vector<MPI_Request> reqs;
          bigcount::irecv(pairs.data() + at, static_cast<std::size_t>(counts[p]), MPI_INT64_T, p, 7, comm, reqs);
          MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
        }
        at += counts[p];
      }
    } else {
      std::vector<MPI_Request> reqs;
      bigcount::isend(mine.data(), mine.size(), MPI_INT64_T, root, 7, comm, reqs);
      MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    }
  }
  if (!here) return pat;
  pat.rowptr.assign(static_cast<std::size_t>(pat.nrows) + 1, 0);
  if (record_owner) pat.owner.assign(static_cast<std::size_t>(pat.nrows), 0);
  std::int64_t at = 0;
  for (int p = 0; p < P; ++p) {
    for (std::int64_t e = at; e < at + counts[p]; e += 2) {
      if (record_owner) pat.owner[pairs[e]] = p;
      if (pairs[e + 1] >= 0) ++pat.rowptr[pairs[e] + 1];
    }
    at += counts[p];
  }
  for (std::int64_t r = 0; r < pat.nrows; ++r) pat.rowptr[r + 1] += pat.rowptr[r];
  pat.col.resize(static_cast<std::size_t>(pat.rowptr[pat.nrows]));
  std::vector<std::int64_t> next(pat.rowptr.begin(), pat.rowptr.end() - 1);
  for (std::size_t t = 0; t < pairs.size(); t += 2)
    if (pairs[t + 1] >= 0) pat.col[next[pairs[t]]++] = pairs[t + 1];
  return pat;
}

namespace {

// K-minimum-value sketches: a column's hash is a uniform 32-bit number; a set's sketch is its K
// smallest hashes; the union of sets has the union's K smallest, and a set whose K-th smallest
// hash is h (as a fraction of 2^32) has about (K - 1) / h members (exactly its count when it has
// fewer than K). 32 bits, not 53: the estimate reads a sketch at random for every entry of A, and
// half the bytes halved cit-HepTh's estimate; two of a row's K smallest colliding is ~K^2 / 2^32.
constexpr int kSketch = 8;
using Hash = std::uint32_t;
constexpr Hash kNone = 0xFFFFFFFFu;  // an empty slot of a sketch (no column hashes to it)

Hash hashOf(GO g) {
  std::uint64_t x = static_cast<std::uint64_t>(g) + 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  const Hash h = static_cast<Hash>(x >> 32);
  return h == kNone ? kNone - 1 : h;
}

// The K smallest distinct hashes seen so far, ascending, in a fixed array: each column's sketch is
// ascending too, so a column stops at its first hash that cannot enter (usually the first).
struct MinHashes {
  Hash h[kSketch];
  int n = 0;
  void clear() { n = 0; }
  bool full() const { return n == kSketch; }
  // false once the value is too large to enter: the rest of an ascending sketch is too.
  bool offer(Hash v) {
    if (n == kSketch && v >= h[n - 1]) return false;
    int at = n;
    while (at > 0 && h[at - 1] > v) --at;
    if (at > 0 && h[at - 1] == v) return true;  // already there
    const int last = n == kSketch ? n - 1 : n;
    for (int t = last; t > at; --t) h[t] = h[t - 1];
    h[at] = v;
    if (n < kSketch) ++n;
    return true;
  }
  double size() const {
    return n < kSketch ? n : (kSketch - 1) / ((static_cast<double>(h[kSketch - 1]) + 0.5) * (1.0 / 4294967296.0));
  }
};

// B's row lengths and row sketches at A's columns, in ONE exchange (per row: the length, then the
// K hashes): on a loaded machine each exchange costs a synchronization with the neighbours.
// Sent by exchangeAtColumns, as rowLengthsAtColumns sends the lengths: a 1 + K column
// MultiVector's doImport cost 2.2 ms a call on hep-th (P = 4 on 2 cores) against 0.6 ms for the
// plan's lengths-only exchange, most of it the DistObject's copies and packing, not the bytes.
struct AtColumns {
  Teuchos::RCP<const Tpetra::Import<LO, GO, Node>> importer;
  std::vector<double> len;   // B's row length at each of A's local columns
  std::vector<Hash> sketch;  // kSketch hashes per column, row-major (kNone: empty slot)
  // Each column's smallest hash, apart: once a row's K slots are full most columns cannot enter,
  // and this array (4 B a column, cache-resident) says so without touching their sketches.
  std::vector<Hash> first;
};

AtColumns importAtColumns(const crs_matrix_type& A, const crs_matrix_type& B, std::optional<bool> a_import_serves) {
  constexpr int kPacket = 1 + kSketch;
  AtColumns out;
  out.importer = importerAtColumns(A, B, a_import_serves);
  const Tpetra::Import<LO, GO, Node>& imp = *out.importer;
  // B's local rows: length and sketch, packed.
  std::vector<Hash> rows(static_cast<std::size_t>(Compat::localNumRows(B)) * kPacket);
  {
    Teuchos::TimeMonitor sketchTimer(*phaseTimer("Trident: auto: sketch B's rows"));
    auto bl = B.getLocalMatrixHost();
    auto bcols = B.getColMap();
    std::vector<Hash> colHash(Compat::localNumElements(*bcols));
    for (std::size_t q = 0; q < colHash.size(); ++q) colHash[q] = hashOf(bcols->getGlobalElement(static_cast<LO>(q)));
    MinHashes mins;
    for (LO r = 0; r < static_cast<LO>(Compat::localNumRows(B)); ++r) {
      // A row's columns are distinct: its K smallest by insertion, most rejected at one compare.
      mins.clear();
      for (std::size_t q = bl.graph.row_map(r); q < bl.graph.row_map(r + 1); ++q) mins.offer(colHash[bl.graph.entries(q)]);
      Hash* at = rows.data() + static_cast<std::size_t>(r) * kPacket;
      at[0] = static_cast<Hash>(bl.graph.row_map(r + 1) - bl.graph.row_map(r));
      for (int j = 0; j < kSketch; ++j) at[1 + j] = j < mins.n ? mins.h[j] : kNone;
    }
  }
  const std::size_t nCols = Compat::localNumElements(*A.getColMap());
  out.len.assign(nCols, 0.0);
  out.sketch.assign(nCols * kSketch, kNone);
  out.first.assign(nCols, kNone);
  exchangeAtColumns<Hash>(
      imp, kPacket,
      [&](LO r, Hash* packet) {
        const Hash* at = rows.data() + static_cast<std::size_t>(r) * kPacket;
        std::copy(at, at + kPacket, packet);
      },
      [&](LO c, const Hash* packet) {
        out.len[static_cast<std::size_t>(c)] = static_cast<double>(packet[0]);
        std::copy(packet + 1, packet + kPacket, out.sketch.data() + static_cast<std::size_t>(c) * kSketch);
        out.first[static_cast<std::size_t>(c)] = packet[1];
      });
  return out;
}

// Estimated entries of C in this rank's rows of A*B: each row of A merges the sketches of the B
// rows at its columns.
// A row of C has at most as many entries as its multiply-adds and as C has columns (the sketch's
// estimate can overshoot both; clamped, it also stays below the bound of LocalBoundInputs).
// With more than kSampledRows rows of 2 or more multiply-adds, a pseudo-random kSampledRows of them
// are merged, and their entries per multiply-add scale to all such rows (a ratio estimator): the
// merge reads a sketch at random for every entry of A, 6 of a first call's 15 ms of choosing on
// cit-HepTh at P = 4, and each row's estimate is only within ~40 % (K = 8) anyway; summed over
// thousands of rows the sample moves the total by 1-2 % (cit-HepTh, pubmed, as-caida, email-Enron,
// facebook, ca-CondMat at P = 4).
constexpr std::size_t kSampledRows = 2048;

double estimatedProductEntries(const crs_matrix_type& A, const AtColumns& at, const std::vector<std::int64_t>& work,
                               double columns) {
  const Hash* sketch = at.sketch.data();
  const Hash* first = at.first.data();
  auto al = A.getLocalMatrixHost();
  const LO rows = static_cast<LO>(Compat::localNumRows(A));
  double exact = 0, heavyWork = 0;
  std::size_t heavy = 0;
  for (LO r = 0; r < rows; ++r) {
    if (work[r] <= 1) {  // 0 or 1 multiply-adds: that many entries
      exact += std::min(static_cast<double>(work[r]), columns);
    } else {
      ++heavy;
      heavyWork += static_cast<double>(work[r]);
    }
  }
  // A row is drawn when its multiplicative (Weyl) hash falls below the threshold, spread evenly
  // over the rows; all of them when few.
  const std::uint64_t threshold =
      heavy <= kSampledRows ? ~0ull : static_cast<std::uint64_t>(static_cast<double>(~0ull) * (static_cast<double>(kSampledRows) / heavy));
  double sampled = 0, sampledWork = 0;
  MinHashes mins;
  for (LO r = 0; r < rows; ++r) {
    if (work[r] <= 1) continue;
    if (threshold != ~0ull && (static_cast<std::uint64_t>(r) + 1) * 0x9E3779B97F4A7C15ull > threshold) continue;
    mins.clear();
    for (std::size_t q = al.graph.row_map(r); q < al.graph.row_map(r + 1); ++q) {
      const std::size_t c = static_cast<std::size_t>(al.graph.entries(q));
      if (first[c] == kNone || (mins.full() && first[c] >= mins.h[kSketch - 1])) continue;
      const Hash* in = sketch + c * kSketch;
      for (int j = 0; j < kSketch && in[j] != kNone; ++j)
        if (!mins.offer(in[j])) break;
    }
    sampled += std::min({mins.size(), static_cast<double>(work[r]), columns});
    sampledWork += static_cast<double>(work[r]);
  }
  if (heavy == 0) return exact;
  // No row drawn (a vanishing chance): every heavy row at its multiply-adds, the bound from above.
  return exact + (sampledWork > 0 ? sampled * (heavyWork / sampledWork) : heavyWork);
}

}  // namespace

planner::LocalCounts localCounts(const crs_matrix_type& A, const crs_matrix_type& B, const Topology& topo,
                                 ImportBytes* bytes, bool use_directory, std::optional<bool> a_import_serves,
                                 std::vector<std::int64_t>* row_work) {
  planner::LocalCounts c;
  auto importTimer = Teuchos::rcp(new Teuchos::TimeMonitor(*phaseTimer("Trident: auto: import lengths and sketches")));
  const AtColumns rl = importAtColumns(A, B, a_import_serves);
  importTimer = Teuchos::null;
  c.a_rows = static_cast<double>(Compat::localNumRows(A));
  c.a_entries = static_cast<double>(Compat::localNumEntries(A));
  c.b_entries = static_cast<double>(Compat::localNumEntries(B));
  std::vector<std::int64_t> work = multiplyAddsPerRow(A, rl.len);
  for (std::int64_t w : work) {
    c.flops += static_cast<double>(w);
    c.max_row_flops = std::max(c.max_row_flops, static_cast<double>(w));
  }
  {
    Teuchos::TimeMonitor estimateTimer(*phaseTimer("Trident: auto: estimate C's entries"));
    c.c_entries = estimatedProductEntries(A, rl, work, static_cast<double>(B.getDomainMap()->getGlobalNumElements()));
  }
  // Tpetra's Multiply imports the B rows at A's remote columns: 8 B per row, 20 B per entry, as
  // the drop-in accounts them, from the ranks that own them.
  auto lids = rl.importer->getRemoteLIDs();
  std::optional<std::vector<int>> owners = remoteOwners(*rl.importer);
  if (!owners || use_directory) {
    // Not the receive layout expected: the caller learns it from the reduced counts and asks
    // again with use_directory on every rank, since the source map's directory look-up is collective.
    c.layout_unknown = 1;
    if (use_directory) {
      auto target = A.getColMap();
      Teuchos::Array<GO> gids(lids.size());
      for (std::size_t t = 0; t < static_cast<std::size_t>(lids.size()); ++t) gids[t] = target->getGlobalElement(lids[t]);
      Teuchos::Array<int> pids(lids.size());
      Teuchos::Array<LO> srcLids(lids.size());
      rl.importer->getSourceMap()->getRemoteIndexList(gids(), pids(), srcLids());
      owners = std::vector<int>(pids.begin(), pids.end());
      c.layout_unknown = 0;
    } else {
      owners = std::vector<int>(static_cast<std::size_t>(lids.size()), topo.rank());  // placeholder, recounted
    }
  }
  ImportBytes counted;
  addImportBytesReceived(*rl.importer, *owners, rl.len, topo, counted);
  c.tpetra_gi_bytes = static_cast<double>(counted.gi_recv);
  c.tpetra_li_bytes = static_cast<double>(counted.li_recv);
  c.tpetra_import_rows = static_cast<double>(lids.size());
  if (bytes) {
    *bytes = counted;
    addImportBytesSent(*rl.importer, B, topo, *bytes);
  }
  std::vector<int> sources(owners->begin(), owners->end());
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  for (int s : sources) (topo.same_group(topo.rank(), s) ? c.tpetra_li_msgs : c.tpetra_gi_msgs) += 1.0;
  c.work = c.a_entries + c.flops;
  if (row_work) *row_work = std::move(work);
  return c;
}

namespace {
// B's local row at each of A's local columns; -1: the row lives on another rank. Without an
// Import A's column map is its domain map, so column c is B's local row c.
std::vector<LO> bRowsAtColumns(const crs_matrix_type& A) {
  std::vector<LO> rowAt(Compat::localNumElements(*A.getColMap()), -1);
  const auto imp = A.getGraph()->getImporter();
  if (imp.is_null()) {
    for (std::size_t c = 0; c < rowAt.size(); ++c) rowAt[c] = static_cast<LO>(c);
    return rowAt;
  }
  for (std::size_t c = 0; c < imp->getNumSameIDs(); ++c) rowAt[c] = static_cast<LO>(c);
  const auto to = imp->getPermuteToLIDs(), from = imp->getPermuteFromLIDs();
  for (std::size_t t = 0; t < static_cast<std::size_t>(to.size()); ++t) rowAt[to[t]] = from[t];
  return rowAt;
}

// C's entries in a row are at most `local` (the entries it can form from the local rows of B:
// their multiply-adds, or the union of their columns) plus the longest row of B for each entry at
// a remote column, and at most B's columns. The longest row on any rank is B's global maximum
// when fill-complete computed it; otherwise those entries are left to the caller, who reduces the
// longest local rows (and a second bound takes B's columns for every such row).
struct RowBoundOfC {
  long long columns = 0, global_max_row = -1;  // -1: not known
  // sign -1 takes a row's bound back out (tightenedByUnions replaces rows one by one).
  void add(long long local, long long remote, LocalBoundInputs& in, long long sign = 1) const {
    if (remote > 0 && global_max_row >= 0) {
      in.c_entries_known += sign * std::min(local + remote * global_max_row, columns);
    } else {
      in.c_entries_known += sign * std::min(local, columns);
      in.c_remote_entries += sign * remote;
    }
    in.c_entries_capped += sign * (remote > 0 ? columns : std::min(local, columns));
  }
};

RowBoundOfC rowBoundOfC(const crs_matrix_type& B, long long localMaxRow) {
  RowBoundOfC r;
  r.columns = static_cast<long long>(B.getDomainMap()->getGlobalNumElements());
  // MueLu's matrices are often completed without global constants; asking then would throw.
  if (B.getCrsGraph()->haveGlobalConstants()) {
    const std::size_t m = B.getGlobalMaxNumRowEntries();
    if (m != Teuchos::OrdinalTraits<std::size_t>::invalid() && static_cast<long long>(m) >= localMaxRow)
      r.global_max_row = static_cast<long long>(m);
  }
  return r;
}

// Rows have far fewer than 2^40 multiply-adds: a column's word (lengthWords) holds B's row length
// in the low bits, or 1 in the high bits for a remote row.
constexpr int kRemoteShift = 40;
constexpr long long kLowBits = (1LL << kRemoteShift) - 1;

// What Tpetra's import of B's rows brings (remote columns, sources) and sends from here to each
// rank: its exports are B's rows (B's rows are A's domain here), 8 B a row and 20 B an entry, as
// the accounting counts them.
template <class Import, class RowLength>
void addImportFacts(const Import& imp, RowLength bLen, LocalBoundInputs& in) {
  in.remote_columns = static_cast<long long>(imp.getNumRemoteIDs());
  in.sources = static_cast<long long>(imp.getDistributor().getNumReceives());
  std::map<int, long long> sentTo;
  const auto lids = imp.getExportLIDs();
  const auto pids = imp.getExportPIDs();
  for (std::size_t t = 0; t < static_cast<std::size_t>(lids.size()); ++t) sentTo[pids[t]] += 8 + 20 * bLen(lids[t]);
  for (const auto& kv : sentTo) in.max_sent_to_one = std::max(in.max_sent_to_one, kv.second);
}

// Each of A's columns' word, written straight from A's Import (same and permuted IDs are local
// rows of B, the rest remote), without an index array or a zeroed vector first.
template <class Import, class RowLength>
std::unique_ptr<long long[]> lengthWords(const Import* imp, std::size_t nCols, RowLength bLen) {
  std::unique_ptr<long long[]> words(new long long[nCols]);
  long long* lenAt = words.get();
  if (!imp) {
    for (std::size_t c = 0; c < nCols; ++c) lenAt[c] = bLen(static_cast<LO>(c));
    return words;
  }
  const std::size_t same = imp->getNumSameIDs();
  for (std::size_t c = 0; c < same; ++c) lenAt[c] = bLen(static_cast<LO>(c));
  for (std::size_t c = same; c < nCols; ++c) lenAt[c] = 1LL << kRemoteShift;
  const auto to = imp->getPermuteToLIDs(), from = imp->getPermuteFromLIDs();
  for (std::size_t t = 0; t < static_cast<std::size_t>(to.size()); ++t) lenAt[to[t]] = bLen(from[t]);
  return words;
}
}  // namespace

LocalBoundInputs localBoundInputs(const crs_matrix_type& A, const crs_matrix_type& B, std::optional<std::size_t> a_zeros) {
  LocalBoundInputs in;
  if (!A.isFillComplete() || !B.isFillComplete() || !locallySame(*A.getDomainMap(), *B.getRowMap())) return in;
  in.ok = true;
  in.a_entries = static_cast<long long>(Compat::localNumEntries(A));
  in.b_entries = static_cast<long long>(Compat::localNumEntries(B));
  const auto bl = B.getLocalMatrixHost();
  const auto* bRowMap = bl.graph.row_map.data();
  auto bLen = [bRowMap](LO r) { return static_cast<long long>(bRowMap[r + 1] - bRowMap[r]); };
  // fillComplete computes the longest local row (computeLocalConstants, with or without global
  // constants); scanning B's rows for it cost as much as the rest of this pass's set-up.
  const std::size_t storedMax = Compat::localMaxNumRowEntries(B);
  if (storedMax != Teuchos::OrdinalTraits<std::size_t>::invalid()) {
    in.b_max_row = static_cast<long long>(storedMax);
  } else {
    for (LO r = 0; r < static_cast<LO>(Compat::localNumRows(B)); ++r) in.b_max_row = std::max(in.b_max_row, bLen(r));
  }
  const auto imp = A.getGraph()->getImporter();
  if (!imp.is_null()) addImportFacts(*imp, bLen, in);
  // C bounded by each row's multiply-adds; tightenedByUnions can do better where it is needed.
  // This pass runs on every product "auto" sees; on MueLu's it cost a sixth of Tpetra's multiply
  // with a look-up through B's local row and two branches per entry. Each column's word holds B's
  // row length there, or 2^kRemoteShift for a remote row, so one sum per row gives both its
  // multiply-adds (low bits) and its entries at remote columns (high bits); stored zeros add 0.
  // The words are written straight from A's Import (same and permuted IDs are local rows of B,
  // the rest remote), without an index array or a zeroed vector first.
  const std::size_t nCols = Compat::localNumElements(*A.getColMap());
  std::unique_ptr<long long[]> lenAtOwner = lengthWords(imp.get(), nCols, bLen);
  const long long* lenAt = lenAtOwner.get();
  const RowBoundOfC bound = rowBoundOfC(B, in.b_max_row);
  const auto al = A.getLocalMatrixHost();
  const auto* rowMap = al.graph.row_map.data();
  const LO* cols = al.graph.entries.data();
  // The comparison per value costs more than the rest of the sum: only when A is known to store zeros.
  in.zeros_included = !a_zeros;
  const double* vals = a_zeros && *a_zeros > 0 ? al.values.data() : nullptr;
  const LO rows = static_cast<LO>(Compat::localNumRows(A));
  long long nonzeros = 0;
  for (LO r = 0; r < rows; ++r) {
    const std::size_t begin = rowMap[r], end = rowMap[r + 1];
    long long sum = 0;
    if (vals) {
      for (std::size_t q = begin; q < end; ++q) {
        const bool nz = vals[q] != 0.0;
        sum += lenAt[cols[q]] & -static_cast<long long>(nz);
        nonzeros += nz;
      }
    } else {
      for (std::size_t q = begin; q < end; ++q) sum += lenAt[cols[q]];
    }
    const long long known = sum & kLowBits, remote = sum >> kRemoteShift;
    in.flops_known += known;
    in.a_remote_entries += remote;
    bound.add(known, remote, in);
    // The two rows that may be the heaviest once remote rows are estimated (localEstimateInputs).
    if (known > in.heaviest_known[0]) in.heaviest_known = {known, remote};
    if (remote > in.heaviest_remote[1]) in.heaviest_remote = {known, remote};
  }
  if (!vals) nonzeros = static_cast<long long>(rowMap[rows]);
  in.a_local_entries = nonzeros - in.a_remote_entries;
  // The owned rows of B that A's columns meet (the rows Tpetra's import does not bring).
  for (std::size_t c = 0; c < nCols; ++c)
    if (lenAt[c] < (1LL << kRemoteShift)) {
      in.local_columns_length += lenAt[c];
      ++in.local_columns;
    }
  return in;
}

namespace {
// One row r of A*B over the rows of B held here: its multiply-adds there (known), the distinct
// columns they make (a marker pass: seen[col] == r once counted), and A's entries at remote
// columns. Stored zeros of A are skipped with skip_zeros, as the bound's pass skipped them.
struct RowUnion {
  long long known = 0, distinct = 0, remote = 0;
};
template <class LocalA, class RowPtr>
RowUnion unionOfRow(const LocalA& al, LO r, const std::vector<LO>& rowAt, const RowPtr* bRows, const LO* bCols,
                    LO* seen, bool skip_zeros) {
  RowUnion u;
  for (std::size_t q = al.graph.row_map(r); q < al.graph.row_map(r + 1); ++q) {
    if (skip_zeros && al.values(q) == 0.0) continue;
    const LO b = rowAt[al.graph.entries(q)];
    if (b < 0) {
      ++u.remote;
      continue;
    }
    u.known += static_cast<long long>(bRows[b + 1] - bRows[b]);
    // Without a branch: whether a column is new is a coin toss where rows of B overlap (FE and
    // multigrid products), and the mispredictions were this pass's time.
    for (auto t = bRows[b]; t < bRows[b + 1]; ++t) {
      const LO col = bCols[t];
      u.distinct += seen[col] != r ? 1 : 0;
      seen[col] = r;
    }
  }
  return u;
}
}  // namespace

LocalBoundInputs tightenedByUnions(const crs_matrix_type& A, const crs_matrix_type& B, const LocalBoundInputs& cheap,
                                   long long enough) {
  LocalBoundInputs in = cheap;
  if (!in.ok) return in;
  // Counted with a marker, as a symbolic pass would. Where B's multiply-adds meet repeated
  // columns, as in FE and multigrid products, the union is 2-10x below the multiply-adds. Row by
  // row, the cheap bound's share of the row (its multiply-adds) is replaced by its union, so the
  // bound is valid after every row: the pass stops once c_entries_known is down to `enough`
  // (the caller's threshold for settling the choice), or after kUnionBudget multiply-adds, past
  // which the remaining rows keep their cheap bound.
  constexpr long long kUnionBudget = 1000000;
  const auto bl = B.getLocalMatrixHost();
  const auto al = A.getLocalMatrixHost();
  const std::vector<LO> rowAt = bRowsAtColumns(A);
  const RowBoundOfC bound = rowBoundOfC(B, in.b_max_row);
  std::vector<LO> seenIn(Compat::localNumElements(*B.getColMap()), -1);
  LO* seen = seenIn.data();
  const LO* bCols = bl.graph.entries.data();
  const auto* bRows = bl.graph.row_map.data();
  long long unionWork = 0;
  // Given up early where it is clearly going to fail: once an eighth of the rank's multiply-adds is
  // done, the reduction so far, scaled to all of them, must bring the bound to within twice
  // `enough`. Giving up only means counting (what a failed pass leads to anyway); on bcsstk13's
  // A*A at P = 4 the bound ends 6-14x above `enough` after 2.6 ms; the pass now takes 0.7-0.9 ms
  // there, its set-up included. MueLu's products that the pass settles reduce about uniformly
  // (checked: same choices, same reasons on the 2D and 3D Laplacians and bcsstk13).
  const double allWork = static_cast<double>(cheap.flops_known);
  for (LO r = 0; r < static_cast<LO>(Compat::localNumRows(A)); ++r) {
    if (unionWork >= kUnionBudget || (enough >= 0 && in.c_entries_known <= enough)) break;
    if (enough >= 0 && (r & 63) == 0 && 8.0 * static_cast<double>(unionWork) >= allWork && unionWork > 0) {
      const double reduced = static_cast<double>(cheap.c_entries_known - in.c_entries_known);
      const double projected = static_cast<double>(cheap.c_entries_known) - reduced * (allWork / static_cast<double>(unionWork));
      if (projected > 2.0 * static_cast<double>(enough)) break;
    }
    // Zeros skipped as the cheap pass skipped them, so that a row's bound comes out as it went in.
    const RowUnion u = unionOfRow(al, r, rowAt, bRows, bCols, seen, !in.zeros_included);
    unionWork += u.known;
    bound.add(u.known, u.remote, in, -1);
    bound.add(u.distinct, u.remote, in);
  }
  return in;
}

namespace {
// The union of a row's `full` multiply-adds, given that `x` of them (x <= full, at owned columns)
// made `y` distinct columns. Two extrapolations bracket it: the occupancy model (columns drawn
// from a row-specific universe of U columns, y = U (1 - exp(-x / U)), which fixes U) assumes the
// remote part overlaps the owned part as much as the owned part overlaps itself; the linear one
// (y / x per multiply-add) that it adds columns at the owned part's rate. Their geometric mean:
// over the ranks at P = 4, C's entries within 0.9-1.13x of the exact count on cit-HepTh, pubmed,
// 4elt, bcsstk13, Pd (occupancy alone 0.87-1.02, linear 1.01-1.32), 0.6-0.7x on facebook and
// email-Enron, whose communities make owned columns overlap more than remote ones.
double unionExtrapolated(double x, double y, double full) {
  if (x <= 0 || y >= x) return full;
  // A row wholly at owned columns: its union is counted, and both extrapolations give it back
  // (U (1 - exp(-x / U)) = y by U's definition). Skipping Newton's exp() there took the estimate
  // from 107 to 60 us a call on 4elt's A*A at P = 4 (96 % of A's entries at owned columns).
  if (full <= x) return y;
  const double linear = y * (full / x);
  const double q = y / x;  // (1 - exp(-t)) / t = q at t = x / U; h(t) = 1 - exp(-t) - q t is concave
  double t = 2.0 * (1.0 - q) / q;  // right of the root, so Newton descends to it monotonically
  for (int it = 0; it < 12; ++it) {
    const double e = std::exp(-t);
    const double step = (1.0 - e - q * t) / (e - q);
    t -= step;
    if (std::abs(step) < 1e-9 * t) break;
  }
  if (!(t > 0)) return linear;
  const double U = x / t;
  return std::sqrt(U * (1.0 - std::exp(-full / U)) * linear);
}
}  // namespace

LocalEstimateInputs localEstimateInputs(const crs_matrix_type& A, const crs_matrix_type& B, const LocalBoundInputs& bound) {
  LocalEstimateInputs e;
  if (!bound.ok) return e;
  e.ok = true;
  e.sample_entries = static_cast<double>(bound.a_local_entries);
  const double rowsB = static_cast<double>(std::max<std::size_t>(Compat::localNumRows(B), 1));
  // B's rows at remote columns: as long as the owned ones A's entries meet, weighted as A meets
  // them; without such entries, as B's owned rows on average.
  const double mu = bound.a_local_entries > 0
                        ? static_cast<double>(bound.flops_known) / static_cast<double>(bound.a_local_entries)
                        : static_cast<double>(bound.b_entries) / rowsB;
  e.flops = static_cast<double>(bound.flops_known) + static_cast<double>(bound.a_remote_entries) * mu;
  for (const auto& row : {bound.heaviest_known, bound.heaviest_remote})
    e.max_row_flops = std::max(e.max_row_flops, static_cast<double>(row[0]) + static_cast<double>(row[1]) * mu);
  // Each imported row once, as long as the owned rows A's columns meet (unweighted).
  const double muRows = bound.local_columns > 0
                            ? static_cast<double>(bound.local_columns_length) / static_cast<double>(bound.local_columns)
                            : static_cast<double>(bound.b_entries) / rowsB;
  e.import_bytes = static_cast<double>(bound.remote_columns) * (8.0 + 20.0 * muRows);

  // C's entries per multiply-add, from a sample of rows.
  constexpr std::size_t kEstimateRows = 512;
  constexpr long long kUnionBudget = 300000;
  const LO rows = static_cast<LO>(Compat::localNumRows(A));
  const double columns = static_cast<double>(B.getDomainMap()->getGlobalNumElements());
  if (rows == 0 || e.flops <= 0) return e;
  // As many rows as the budget allows at the rank's average known multiply-adds per row, so that
  // the sample spreads over all rows instead of stopping early in the first ones (whose order
  // may follow their degree, as in SNAP's graphs: email-Enron's C came out half its size).
  const double perRow = static_cast<double>(bound.flops_known) / rows;
  const double wanted = std::max(64.0, std::min(static_cast<double>(kEstimateRows), kUnionBudget / std::max(perRow, 1.0)));
  const std::uint64_t threshold =
      rows <= wanted ? ~0ull : static_cast<std::uint64_t>(static_cast<double>(~0ull) * (wanted / rows));
  const std::vector<LO> rowAt = bRowsAtColumns(A);
  const auto al = A.getLocalMatrixHost();
  const auto bl = B.getLocalMatrixHost();
  const LO* bCols = bl.graph.entries.data();
  const auto* bRows = bl.graph.row_map.data();
  std::vector<LO> seenIn(Compat::localNumElements(*B.getColMap()), -1);
  LO* seen = seenIn.data();
  const bool skipZeros = !bound.zeros_included;
  double sampledC = 0, sampledFlops = 0;
  long long work = 0;
  for (LO r = 0; r < rows && work < 4 * kUnionBudget; ++r) {
    if (threshold != ~0ull && (static_cast<std::uint64_t>(r) + 1) * 0x9E3779B97F4A7C15ull > threshold) continue;
    const RowUnion u = unionOfRow(al, r, rowAt, bRows, bCols, seen, skipZeros);
    work += u.known;
    const double full = static_cast<double>(u.known) + static_cast<double>(u.remote) * mu;
    if (full <= 0) continue;
    sampledFlops += full;
    sampledC +=
        std::min({unionExtrapolated(static_cast<double>(u.known), static_cast<double>(u.distinct), full), full, columns});
  }
  e.c_entries = sampledFlops > 0 ? e.flops * (sampledC / sampledFlops) : e.flops;
  return e;
}

bool ownerSlicesPossible(const Topology& topo, bool allowed, bool rows_grid_allowed) {
  return allowed && (rows_grid_allowed || TileGrid::forUnits(topo.groups()).cols == 1) && topo.groups_consecutive();
}

planner::LocalCounts localCountsTransposedA(const crs_matrix_type& A, const crs_matrix_type& B) {
  planner::LocalCounts c;
  c.a_rows = static_cast<double>(Compat::localNumElements(*A.getDomainMap()));
  c.a_entries = static_cast<double>(Compat::localNumEntries(A));
  c.b_entries = static_cast<double>(Compat::localNumEntries(B));
  for (LO r = 0; r < static_cast<LO>(Compat::localNumRows(A)); ++r)
    c.flops += static_cast<double>(A.getNumEntriesInLocalRow(r)) * static_cast<double>(B.getNumEntriesInLocalRow(r));
  c.c_entries = c.flops;  // no sketch without the transpose's rows: the upper bound
  // A row of A^T meets at most one row of B per entry: its flops are unknown here; the busiest
  // rank is taken as the average (reduceCounts' max of flops is replaced by the caller).
  return c;
}

}  // namespace tpetra

namespace MatrixMatrix {

namespace {
// Each rank reads the file named by TRIDENT_MACHINE_MODEL (if any) once per process and path: a
// multiply must not read a file on every call, and rank 0 broadcasting it would cost a collective.
// A bad file is remembered as its message, so every call fails the same way.
struct LoadedModel {
  planner::MachineModel model;
  std::string error;
};
const LoadedModel& modelFromEnvironment() {
  static std::map<std::string, LoadedModel> cache;
  static const LoadedModel defaults;
  const char* path = std::getenv("TRIDENT_MACHINE_MODEL");
  if (!path || !*path) return defaults;
  auto it = cache.find(path);
  if (it != cache.end()) return it->second;
  LoadedModel m;
  try {
    m.model = planner::MachineModel::load(path);
  } catch (const std::exception& e) {
    m.error = std::string("\"trident: algorithm\" = \"auto\": ") + e.what();
  }
  return cache.emplace(path, m).first->second;
}

}  // namespace

const planner::MachineModel& environmentModel(std::string* error) {
  const LoadedModel& loaded = modelFromEnvironment();
  *error = loaded.error;
  return loaded.model;
}

namespace {

long long fingerprintOf(const planner::MachineModel& m) {
  static_assert(std::is_trivially_copyable<planner::MachineModel>::value, "the model is hashed as bytes");
  return agreementHash(&m, sizeof(m));
}

// The bound's part of a summary (bound_ok only where it was made and is allowed).
void putBound(planner::AutoSummary& s, const tpetra::LocalBoundInputs& b, bool allowed) {
  s.bound_ok = b.ok && allowed ? 1 : 0;
  s.flops_known = b.flops_known;
  s.a_remote_entries = b.a_remote_entries;
  s.remote_columns = b.remote_columns;
  s.b_max_row = b.b_max_row;
  s.a_entries = b.a_entries;
  s.b_entries = b.b_entries;
  s.entries = b.a_entries + b.b_entries;
  s.sources = b.sources;
  s.max_sent_to_one = b.max_sent_to_one;
  s.c_entries_known = b.c_entries_known;
  s.c_remote_entries = b.c_remote_entries;
  s.c_entries_capped = b.c_entries_capped;
  s.zeros_included = b.zeros_included ? 1 : 0;
}

// The estimate's part (zeros where it was not made), rounded to whole numbers for the check.
void putEstimate(planner::AutoSummary& s, const tpetra::LocalEstimateInputs& e, long long a_entries) {
  auto ll = [](double x) { return static_cast<long long>(std::llround(x)); };
  s.estimate_ok = e.ok ? 1 : 0;
  s.est_flops = ll(e.flops);
  s.est_max_row_flops = ll(e.max_row_flops);
  s.est_c_entries = ll(e.c_entries);
  s.est_import_bytes = ll(e.import_bytes);
  s.est_work = a_entries + ll(e.flops);
  s.sample_entries = ll(e.sample_entries);
}
}  // namespace

AutoInputs AutoInputs::gather(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                              CollectiveCheck& check, std::optional<std::size_t> a_zeros,
                              std::optional<std::uint64_t> remember_context, bool estimate) {
  AutoInputs in;
  const LoadedModel& loaded = modelFromEnvironment();
  check.failIf(!loaded.error.empty(), loaded.error);
  in.model = loaded.model;
  in.mine.model_print = fingerprintOf(in.model);
  in.a_zeros = a_zeros;
  // TRIDENT_AUTO_COUNT=1 counts every product, also those the bound would settle (to fit a machine
  // model on products where the bound decides) or a remembered choice would. Agreed through the
  // summary's bound_ok minimum, so a rank without it cannot skip the counting collectives the
  // others run.
  const char* countAll = std::getenv("TRIDENT_AUTO_COUNT");
  const bool countEvery = countAll && std::strcmp(countAll, "1") == 0;
  // Only fill-complete operands have the arrays a choice is remembered by (others fail the checks).
  if (remember_context && !countEvery && A.isFillComplete() && B.isFillComplete()) {
    in.memory_context = (*remember_context ^ static_cast<std::uint64_t>(in.mine.model_print)) * 1099511628211ull +
                        static_cast<std::uint64_t>(A.getComm()->getSize());
    Teuchos::TimeMonitor timer(*phaseTimer("Trident: auto: look-up"));
    in.remembered = findRememberedChoice(A, transposeA, B, transposeB, *in.memory_context, a_zeros);
  }
  in.mine.remembered = in.remembered ? static_cast<long long>(in.remembered->algorithm) : -1;
  // Asked only of fill-complete operands (a failure elsewhere is reported instead of this).
  const bool askRows = transposeA && !transposeB && A.isFillComplete() && B.isFillComplete();
  in.mine.rows_same = askRows && tpetra::locallySame(*A.getRowMap(), *B.getRowMap()) ? 1 : 0;
  in.plain = !transposeA && !transposeB;
  in.mine.a_rows = static_cast<long long>(Compat::localNumRows(A));
  in.bound_allowed = !countEvery;
  in.estimate_allowed = estimate;
  in.computeLocally(A, B, false);
  in.slots = planner::contribute(in.mine, check);
  return in;
}

void AutoInputs::holdPlaces(CollectiveCheck& check) { planner::contribute(planner::AutoSummary(), check); }

void AutoInputs::agree(const CollectiveCheck& check) {
  reduced = planner::reducedSummary(check, slots);
  requireAll(reduced.same(&planner::AutoSummary::model_print),
             "Trident: \"trident: algorithm\" = \"auto\": the machine model (TRIDENT_MACHINE_MODEL) differs between ranks");
  transposed_a_on_b_rows = reduced.least.rows_same == 1;
  // Every rank found a choice, and the same one.
  if (!(reduced.least.remembered >= 0 && reduced.same(&planner::AutoSummary::remembered))) remembered.reset();
  incomplete = !remembered && planner::anotherRoundHelps(reduced);
}

void AutoInputs::computeLocally(const crs_matrix_type& A, const crs_matrix_type& B, bool estimate_wanted) {
  // With a choice remembered here the bound is not needed; if another rank has none, agree()
  // forgets it and a later round computes the bound.
  if (plain && bound_allowed && !bound_computed && !remembered) {
    Teuchos::TimeMonitor timer(*phaseTimer("Trident: auto: bound inputs"));
    local_bound = tpetra::localBoundInputs(A, B, a_zeros);
    bound_computed = true;
  }
  const tpetra::LocalBoundInputs& b = local_bound;
  planner::AutoSummary own;  // this rank's bound alone, as if every rank held it
  putBound(own, b, true);
  // local_estimate.ok: made (it is made only from a bound that is ok, and then always ok).
  if (b.ok && bound_allowed && estimate_allowed && !local_estimate.ok &&
      (estimate_wanted || !planner::settlesHere(own, A.getComm()->getSize(), model))) {
    Teuchos::TimeMonitor timer(*phaseTimer("Trident: auto: estimate without counting"));
    local_estimate = tpetra::localEstimateInputs(A, B, b);
  }
  putBound(mine, b, bound_allowed);
  putEstimate(mine, local_estimate, b.a_entries);
  // What this rank skipped that a later round could give: the bound (a remembered choice here),
  // or the estimate (its own bound settled it).
  mine.skipped = planner::kSkippedNothing;
  if (!plain || !bound_allowed) return;
  if (!bound_computed)
    mine.skipped = planner::kSkippedBound;
  else if (b.ok && estimate_allowed && !local_estimate.ok)
    mine.skipped = planner::kSkippedEstimate;
}

AutoInputs AutoInputs::completed(const crs_matrix_type& A, const crs_matrix_type& B, MPI_Comm comm) const {
  AutoInputs x = *this;
  // An agreed bound that did not settle the choice (the caller's reason to be here) wants the
  // estimate on every rank; one some rank lacked still may settle it.
  x.computeLocally(A, B, planner::boundOf(reduced).usable);
  CollectiveCheck check;
  x.slots = planner::contribute(x.mine, check);
  check.run(comm);
  x.reduced = planner::reducedSummary(check, x.slots);
  x.incomplete = planner::anotherRoundHelps(x.reduced);
  return x;
}

}  // namespace MatrixMatrix
}  // namespace Trident
