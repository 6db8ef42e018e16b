#pragma once
// The rows of B that A's columns need from other ranks, for the row-wise product at P > 1
// (Trident_RowWiseProduct): the rows Tpetra's own Multiply imports, sent along A's own Import
// (domain map -> column map) point to point, each row with its global columns, the rank that owns
// each column in B's domain map (so that C's column map and Import need no directory look-up)
// and its values.
#include <mpi.h>
#include <cstdint>
#include <vector>

#include <Tpetra_Import.hpp>

#include "Trident_TpetraTypes.hpp"
#include <trident/grid/Topology.hpp>
#include <trident/stats/MultiplyStats.hpp>

namespace Trident {
namespace tpetra {

struct RemoteRows {
  // Row t is the row of A's column importer.getRemoteLIDs()[t].
  std::vector<std::int64_t> rowptr{0};
  std::vector<GO> col;    // global column
  std::vector<int> owner;  // owner of the column in B's domain map
  std::vector<double> val;
  std::int64_t nrows() const { return static_cast<std::int64_t>(rowptr.size()) - 1; }
};

// The owner of each of B's columns (by local index) in B's domain map: `me` for the columns B's
// Import keeps, the Import's sources for the remote ones. Not collective.
std::vector<int> columnOwners(const crs_matrix_type& B, int me);

// Collective over topo.world() (a duplicate of A's communicator). `importer` is A's Import, whose
// source map is B's row map on every rank (aImportServes). Bytes sent and received go into stats
// by link (Gi between groups of topo, Li inside one). bOwners: columnOwners(B, topo.rank()).
RemoteRows fetchRemoteRows(const Tpetra::Import<LO, GO, Node>& importer, const crs_matrix_type& A,
                           const crs_matrix_type& B, const std::vector<int>& bOwners, const Topology& topo,
                           MultiplyStats& stats);

}  // namespace tpetra
}  // namespace Trident
