#pragma once
// Counts of a product A*B that only need B's row lengths at A's columns: one Tpetra import of
// nnz(B(k,:)) onto A's column map (the rows Tpetra's own Multiply would import). Used to balance
// Trident's slices by work, to count Tpetra's import volume, by MCL to bound a product's size
// and by trident-bench.
#include <cstdint>
#include <optional>
#include <vector>
#include <Tpetra_Distributor.hpp>
#include <Tpetra_Import.hpp>

#include "Trident_TpetraTypes.hpp"
#include <trident/grid/Topology.hpp>

namespace Trident {
namespace tpetra {

struct RowLengthsAtColumns {
  Teuchos::RCP<const Tpetra::Import<LO, GO, Node>> importer;  // B's row map -> A's column map
  std::vector<double> len;                                     // nnz(B(k,:)), indexed by A's local column
};

// The Import from B's row map to A's column map: A's own (domain map -> column map) when it
// serves, i.e. B's rows are distributed as A's domain (A*A, and most products: no new Import, so
// no directory look-up and no extra collectives), else a new one (collective). Never null:
// aImportServes is false where A has no Import.
// a_import_serves: whether A's own Import serves (Trident_MapSameness.hpp), when the caller knows.
Teuchos::RCP<const Tpetra::Import<LO, GO, Node>> importerAtColumns(const crs_matrix_type& A, const crs_matrix_type& B,
                                                                  std::optional<bool> a_import_serves);

// Collective over the Import's communicator: a fixed-size packet of T per row of B (its source
// map) delivered to each of A's local columns (its target map), through the Import's own plan:
// same and permuted IDs copied here, the rest sent by its Distributor from packed arrays, exports
// in the order of the export list and imports in the order of the remote list, as Tpetra's
// DistObject packs them. pack(bRow, T* packet) writes a row's packet; place(column, const T*
// packet) takes one in. Far cheaper than a DistObject's doImport for small packets (a 9-column
// MultiVector cost 2.2 ms a call against 1.4 ms on hep-th at P = 4; rowLengthsAtColumns' ints
// halve the bytes of a Vector<double> on a Gi-bound link).
template <class T, class Pack, class Place>
void exchangeAtColumns(const Tpetra::Import<LO, GO, Node>& imp, int packet, Pack&& pack, Place&& place) {
  const std::size_t n = static_cast<std::size_t>(packet);
  std::vector<T> buf(n);
  for (std::size_t c = 0; c < imp.getNumSameIDs(); ++c) {
    pack(static_cast<LO>(c), buf.data());
    place(static_cast<LO>(c), static_cast<const T*>(buf.data()));
  }
  const auto to = imp.getPermuteToLIDs(), from = imp.getPermuteFromLIDs();
  for (std::size_t t = 0; t < static_cast<std::size_t>(to.size()); ++t) {
    pack(from[t], buf.data());
    place(to[t], static_cast<const T*>(buf.data()));
  }
  const auto exportLids = imp.getExportLIDs();
  const auto remoteLids = imp.getRemoteLIDs();
  std::vector<T> send(static_cast<std::size_t>(exportLids.size()) * n), recv(static_cast<std::size_t>(remoteLids.size()) * n);
  for (std::size_t t = 0; t < static_cast<std::size_t>(exportLids.size()); ++t) pack(exportLids[t], send.data() + t * n);
  Compat::postsAndWaits(imp.getDistributor(), send.data(), send.size(), n, recv.data(), recv.size());
  for (std::size_t t = 0; t < static_cast<std::size_t>(remoteLids.size()); ++t)
    place(remoteLids[t], static_cast<const T*>(recv.data() + t * n));
}

// Collective. B's rows must be the global IDs of A's columns' map (A*B defined).
// a_import_serves: whether A's own Import serves (Trident_MapSameness.hpp), when the caller knows.
RowLengthsAtColumns rowLengthsAtColumns(const crs_matrix_type& A, const crs_matrix_type& B,
                                        std::optional<bool> a_import_serves = std::nullopt);

// Multiply-adds of every local row of A*B: each entry A(i,k) meets the nnz(B(k,:)) entries of row
// k. skip_zeros: A's stored zeros are skipped, as Tpetra's kernel does.
std::vector<std::int64_t> multiplyAddsPerRow(const crs_matrix_type& A, const std::vector<double>& len,
                                             bool skip_zeros = true);

// What Tpetra's own Multiply imports: the remote B rows at A's columns, packed with global
// column, owning PID and value per entry (20 B) plus a row header (8 B), as Tpetra's MMM import
// packs them; by link (same group or not), received and sent.
struct ImportBytes {
  std::uint64_t gi_recv = 0, li_recv = 0, gi_sent = 0, li_sent = 0;
};

// The owner of each of the Import's remote LIDs, in their order, without a directory look-up: the
// receive buffer holds them in blocks of lengthsFrom[i] from procsFrom[i] (what doImport unpacks).
// Local; std::nullopt for any other receive layout (never seen; Tpetra's doImport relies on it).
std::optional<std::vector<int>> remoteOwners(const Tpetra::Import<LO, GO, Node>& importer);

// The received half, given the owners of the remote LIDs (remoteOwners, or a directory look-up).
// len: B's row lengths at A's columns.
void addImportBytesReceived(const Tpetra::Import<LO, GO, Node>& importer, const std::vector<int>& owners,
                            const std::vector<double>& len, const Topology& topo, ImportBytes& bytes);

// The sent half, from the Import's export lists (the rows of B this rank sends and to whom):
// local, no collective. importer: B's row map (or a map locally the same) -> A's column map.
void addImportBytesSent(const Tpetra::Import<LO, GO, Node>& importer, const crs_matrix_type& B, const Topology& topo,
                        ImportBytes& bytes);

}  // namespace tpetra
}  // namespace Trident
