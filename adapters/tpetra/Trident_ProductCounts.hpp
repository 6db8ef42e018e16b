#pragma once
// Counts of a product A*B that only need B's row lengths at A's columns: one Tpetra import of
// nnz(B(k,:)) onto A's column map (the rows Tpetra's own Multiply would import). Used to balance
// Trident's slices by work, to count Tpetra's import volume, by MCL to bound a product's size
// and by trident-bench.
#include <cstdint>
#include <optional>
#include <vector>
#include <Tpetra_Import.hpp>

#include "Trident_TpetraTypes.hpp"
#include <trident/grid/Topology.hpp>

namespace Trident {
namespace tpetra {

struct RowLengthsAtColumns {
  Teuchos::RCP<const Tpetra::Import<LO, GO, Node>> importer;  // B's row map -> A's column map
  std::vector<double> len;                                     // nnz(B(k,:)), indexed by A's local column
};

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
