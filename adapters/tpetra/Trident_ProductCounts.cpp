#include "Trident_ProductCounts.hpp"

#include <Tpetra_Distributor.hpp>
#include <Tpetra_Vector.hpp>

#include "Trident_MapSameness.hpp"

namespace Trident {
namespace tpetra {

RowLengthsAtColumns rowLengthsAtColumns(const crs_matrix_type& A, const crs_matrix_type& B,
                                        std::optional<bool> a_import_serves) {
  using vec_t = Tpetra::Vector<double, LO, GO, Node>;
  vec_t rowLen(B.getRowMap());
  {
    auto d = rowLen.getDataNonConst(0);
    for (LO r = 0; r < static_cast<LO>(B.getNodeNumRows()); ++r) d[r] = static_cast<double>(B.getNumEntriesInLocalRow(r));
  }
  RowLengthsAtColumns out;
  // A's own Import (domain map -> column map) serves when B's rows are distributed as A's domain
  // (A*A, and most products): no new Import, so no directory look-up and no extra collectives.
  if (aImportServes(A, B, a_import_serves))
    out.importer = A.getGraph()->getImporter();
  else
    out.importer = Teuchos::rcp(new Tpetra::Import<LO, GO, Node>(B.getRowMap(), A.getColMap()));
  vec_t atCols(A.getColMap());
  atCols.doImport(rowLen, *out.importer, Tpetra::INSERT);
  auto d = atCols.getData(0);
  out.len.assign(d.begin(), d.end());
  return out;
}

std::vector<std::int64_t> multiplyAddsPerRow(const crs_matrix_type& A, const std::vector<double>& len,
                                             bool skip_zeros) {
  auto local = A.getLocalMatrixHost();
  std::vector<std::int64_t> work(A.getNodeNumRows(), 0);
  for (LO r = 0; r < static_cast<LO>(work.size()); ++r)
    for (std::size_t q = local.graph.row_map(r); q < local.graph.row_map(r + 1); ++q)
      if (!skip_zeros || local.values(q) != 0.0) work[r] += static_cast<std::int64_t>(len[local.graph.entries(q)]);
  return work;
}

std::optional<std::vector<int>> remoteOwners(const Tpetra::Import<LO, GO, Node>& importer) {
  const auto& dist = importer.getDistributor();
  const auto from = dist.getProcsFrom();
  const auto lengths = dist.getLengthsFrom();
  std::vector<int> owners;
  owners.reserve(importer.getNumRemoteIDs());
  for (std::size_t i = 0; i < static_cast<std::size_t>(from.size()); ++i) owners.insert(owners.end(), lengths[i], from[i]);
  if (owners.size() != importer.getNumRemoteIDs()) return std::nullopt;
  return owners;
}

void addImportBytesReceived(const Tpetra::Import<LO, GO, Node>& importer, const std::vector<int>& owners,
                            const std::vector<double>& len, const Topology& topo, ImportBytes& bytes) {
  const auto lids = importer.getRemoteLIDs();
  for (std::size_t t = 0; t < static_cast<std::size_t>(lids.size()); ++t) {
    const std::uint64_t b = 8 + 20 * static_cast<std::uint64_t>(len[lids[t]]);
    (topo.same_group(topo.rank(), owners[t]) ? bytes.li_recv : bytes.gi_recv) += b;
  }
}

void addImportBytesSent(const Tpetra::Import<LO, GO, Node>& importer, const crs_matrix_type& B, const Topology& topo,
                        ImportBytes& bytes) {
  const auto lids = importer.getExportLIDs();
  const auto pids = importer.getExportPIDs();
  for (std::size_t t = 0; t < static_cast<std::size_t>(lids.size()); ++t) {
    const std::uint64_t b = 8 + 20 * static_cast<std::uint64_t>(B.getNumEntriesInLocalRow(lids[t]));
    (topo.same_group(topo.rank(), pids[t]) ? bytes.li_sent : bytes.gi_sent) += b;
  }
}

}  // namespace tpetra
}  // namespace Trident
