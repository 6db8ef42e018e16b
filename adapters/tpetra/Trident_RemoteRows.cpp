// B's rows that A's columns need, sent along A's own Import, point to point.
#include "Trident_RemoteRows.hpp"

#include <climits>
#include <cstring>
#include <stdexcept>
#include <string>

#include "Trident_ProductCounts.hpp"
#include "Trident_TpetraCompat.hpp"

namespace Trident {
namespace tpetra {

namespace {

constexpr int kTagRows = 7401;

// One message, in 64-bit words: rows, entries, the rows' global IDs, their lengths, the entries'
// global columns, their values (bit copies), their columns' owners (two to a word).
struct Message {
  std::int64_t rows = 0, entries = 0;
  std::int64_t* gids = nullptr;
  std::int64_t* lengths = nullptr;
  std::int64_t* cols = nullptr;
  std::int64_t* vals = nullptr;
  char* owners = nullptr;  // 4 bytes each, read and written through memcpy
  static std::size_t words(std::int64_t rows, std::int64_t entries) {
    return static_cast<std::size_t>(2 + 2 * rows + 2 * entries + (entries + 1) / 2);
  }
  // The layout over buf (sized by words(), its first two words set).
  static Message over(std::vector<std::int64_t>& buf) {
    Message m;
    if (buf.size() >= 2) {
      m.rows = buf[0];
      m.entries = buf[1];
    }
    if (buf.size() < 2 || m.rows < 0 || m.entries < 0 || buf.size() != words(m.rows, m.entries))
      throw std::logic_error("Trident: a remote-row message whose size does not match its header");
    m.gids = buf.data() + 2;
    m.lengths = m.gids + m.rows;
    m.cols = m.lengths + m.rows;
    m.vals = m.cols + m.entries;
    m.owners = reinterpret_cast<char*>(m.vals + m.entries);
    return m;
  }
};

}  // namespace

std::vector<int> columnOwners(const crs_matrix_type& B, int me) {
  std::vector<int> owner(Compat::localNumElements(*B.getColMap()), me);
  const auto imp = B.getGraph()->getImporter();
  if (imp.is_null()) return owner;
  const std::optional<std::vector<int>> from = remoteOwners(*imp);
  if (!from) throw std::logic_error("Trident: B's Import has a receive layout the row-wise product does not know");
  const auto lids = imp->getRemoteLIDs();
  for (std::size_t t = 0; t < from->size(); ++t) owner[static_cast<std::size_t>(lids[t])] = (*from)[t];
  return owner;
}

namespace {

// The message to rank `to`: B's rows exportLids[j] for the j with exportPids[j] == to, in j order
// (the order Tpetra's Distributor sends them in, which the receiver's remote LIDs follow).
std::vector<std::int64_t> pack(const crs_matrix_type& B, const std::vector<std::size_t>& exports,
                               const Teuchos::ArrayView<const LO>& exportLids, const std::vector<int>& owner) {
  const auto b = B.getLocalMatrixHost();
  const auto rowGids = Compat::localElementList(*B.getRowMap());
  const auto colGids = Compat::localElementList(*B.getColMap());
  std::int64_t entries = 0;
  for (std::size_t j : exports) {
    const LO r = exportLids[j];
    entries += static_cast<std::int64_t>(b.graph.row_map(r + 1) - b.graph.row_map(r));
  }
  const auto rows = static_cast<std::int64_t>(exports.size());
  std::vector<std::int64_t> buf(Message::words(rows, entries), 0);
  buf[0] = rows;
  buf[1] = entries;
  Message m = Message::over(buf);
  std::int64_t e = 0;
  for (std::int64_t t = 0; t < rows; ++t) {
    const LO r = exportLids[exports[static_cast<std::size_t>(t)]];
    m.gids[t] = rowGids[r];
    const auto qb = b.graph.row_map(r), qe = b.graph.row_map(r + 1);
    m.lengths[t] = static_cast<std::int64_t>(qe - qb);
    for (auto q = qb; q < qe; ++q, ++e) {
      const int c = b.graph.entries(q);
      m.cols[e] = colGids[c];
      std::memcpy(m.vals + e, &b.values(q), sizeof(double));
      const std::int32_t o = owner[static_cast<std::size_t>(c)];
      std::memcpy(m.owners + 4 * e, &o, 4);
    }
  }
  return buf;
}

void countBytes(const Topology& topo, int peer, std::size_t words, bool sent, MultiplyStats& stats) {
  const std::uint64_t bytes = 8 * static_cast<std::uint64_t>(words);
  const bool li = topo.same_group(topo.rank(), peer);
  (sent ? (li ? stats.li_bytes_sent : stats.gi_bytes_sent) : (li ? stats.li_bytes_recv : stats.gi_bytes_recv)) += bytes;
}

// Sends this rank's exports, one message per destination (nonblocking; the buffers live in out).
void sendRows(const Tpetra::Import<LO, GO, Node>& importer, const crs_matrix_type& B, const std::vector<int>& owner,
              const Topology& topo, std::vector<std::vector<std::int64_t>>& out, std::vector<MPI_Request>& reqs,
              MultiplyStats& stats) {
  const auto lids = importer.getExportLIDs();
  const auto pids = importer.getExportPIDs();
  if (lids.size() == 0) return;
  std::vector<std::vector<std::size_t>> to(static_cast<std::size_t>(topo.P()));
  for (std::size_t j = 0; j < static_cast<std::size_t>(pids.size()); ++j)
    to[static_cast<std::size_t>(pids[j])].push_back(j);
  for (int d = 0; d < topo.P(); ++d) {
    if (to[d].empty()) continue;
    out.push_back(pack(B, to[d], lids, owner));
    if (out.back().size() > static_cast<std::size_t>(INT_MAX))
      throw std::runtime_error("Trident: a remote-row message of more than 2^31 words");
    reqs.emplace_back();
    MPI_Isend(out.back().data(), static_cast<int>(out.back().size()), MPI_INT64_T, d, kTagRows, topo.world(),
              &reqs.back());
    countBytes(topo, d, out.back().size(), true, stats);
  }
}

// Copies message m (from the source whose remote rows start at slot `first`) into rows, after the
// row offsets are known; checks each row's global ID against A's column there.
void place(const Message& m, std::size_t first, const Teuchos::ArrayView<const LO>& remoteLids,
           const Teuchos::ArrayView<const GO>& aColGids, RemoteRows& rows) {
  std::int64_t e = 0;
  for (std::int64_t t = 0; t < m.rows; ++t) {
    const std::size_t slot = first + static_cast<std::size_t>(t);
    if (m.gids[t] != aColGids[remoteLids[slot]])
      throw std::logic_error("Trident: a remote row arrived for another column of A than its Import expects");
    auto at = static_cast<std::size_t>(rows.rowptr[slot]);
    for (std::int64_t q = 0; q < m.lengths[t]; ++q, ++e, ++at) {
      rows.col[at] = m.cols[e];
      std::memcpy(&rows.val[at], m.vals + e, sizeof(double));
      std::int32_t o = 0;
      std::memcpy(&o, m.owners + 4 * e, 4);
      rows.owner[at] = o;
    }
  }
}

}  // namespace

RemoteRows fetchRemoteRows(const Tpetra::Import<LO, GO, Node>& importer, const crs_matrix_type& A,
                           const crs_matrix_type& B, const std::vector<int>& bOwners, const Topology& topo,
                           MultiplyStats& stats) {
  std::vector<std::vector<std::int64_t>> out;
  std::vector<MPI_Request> reqs;
  sendRows(importer, B, bOwners, topo, out, reqs, stats);
  // The sources, in the order of A's remote LIDs, and how many rows each sends.
  const auto& dist = importer.getDistributor();
  const auto from = dist.getProcsFrom();
  const auto lengths = dist.getLengthsFrom();
  const auto remoteLids = importer.getRemoteLIDs();
  std::vector<std::size_t> first(static_cast<std::size_t>(from.size()), 0);
  std::size_t slots = 0;
  for (std::size_t i = 0; i < first.size(); ++i) {
    first[i] = slots;
    slots += lengths[i];
  }
  if (slots != static_cast<std::size_t>(remoteLids.size()))
    throw std::logic_error("Trident: A's Import has a receive layout the row-wise product does not know");
  std::vector<std::vector<std::int64_t>> in(static_cast<std::size_t>(from.size()));
  RemoteRows rows;
  rows.rowptr.assign(slots + 1, 0);
  // Each source by name, not MPI_ANY_SOURCE: a rank already in the next product may have sent
  // that product's rows, which must not be taken for this one's.
  for (std::size_t i = 0; i < in.size(); ++i) {
    const int src = from[i];
    MPI_Status st;
    MPI_Probe(src, kTagRows, topo.world(), &st);
    int words = 0;
    MPI_Get_count(&st, MPI_INT64_T, &words);
    in[i].resize(static_cast<std::size_t>(words));
    MPI_Recv(in[i].data(), words, MPI_INT64_T, src, kTagRows, topo.world(), MPI_STATUS_IGNORE);
    countBytes(topo, src, in[i].size(), false, stats);
    const Message m = Message::over(in[i]);
    if (static_cast<std::size_t>(m.rows) != lengths[i])
      throw std::logic_error("Trident: rank " + std::to_string(src) + " sent " + std::to_string(m.rows) +
                             " remote rows where A's Import expects " + std::to_string(lengths[i]));
    std::int64_t entries = 0;
    for (std::int64_t t = 0; t < m.rows; ++t) {
      rows.rowptr[first[i] + static_cast<std::size_t>(t) + 1] = m.lengths[t];
      if (m.lengths[t] < 0) throw std::logic_error("Trident: a remote-row message with a negative row length");
      entries += m.lengths[t];
    }
    if (entries != m.entries) throw std::logic_error("Trident: a remote-row message whose rows do not add up");
  }
  for (std::size_t s = 0; s < slots; ++s) rows.rowptr[s + 1] += rows.rowptr[s];
  const auto nnz = static_cast<std::size_t>(rows.rowptr.back());
  rows.col.resize(nnz);
  rows.val.resize(nnz);
  rows.owner.resize(nnz);
  const auto aColGids = Compat::localElementList(*A.getColMap());
  for (std::size_t i = 0; i < in.size(); ++i) {
    place(Message::over(in[i]), first[i], remoteLids, aColGids, rows);
    in[i] = {};
  }
  if (!reqs.empty()) MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return rows;
}

}  // namespace tpetra
}  // namespace Trident
