#pragma once
// C's Import (domain map -> column map) built from what the assembly already knows: the owner of
// every remote column and the column's local index there.
//
// Tpetra's Import(source, target, remotePIDs) skips the directory look-up but still tells every
// owner what to export: two reduce-scatters over all ranks, then each remote GID with its rank
// (16 bytes) to its owner. On a cluster whose global link is slow that was most of the out
// phase (ca-CondMat, 4 x 4 emulated nodes: 0.17 s per call at 50 Mbit/s against 0.04 s at
// 1000). Here each owner receives one message from each rank that needs its columns: a bitmap
// over its owned range or a list of 32-bit local indices, whichever is shorter, through the
// nonblocking consensus of sparseExchange; the Import is then Tpetra's expert constructor
// (export lists given), which communicates nothing.
#include <mpi.h>
#include <vector>

#include <Tpetra_Import.hpp>

#include "Trident_TpetraConversion.hpp"
#include "Trident_TpetraTypes.hpp"

namespace Trident {
namespace tpetra {

using import_type = Tpetra::Import<LO, GO, Node>;

// Collective over comm (domainMap's communicator). colMap lists this rank's owned columns first,
// then the remote ones grouped by owner in ascending rank order (Tpetra's column-map
// convention); remotePids[t] and remoteOwnerLids[t] are the owner of the t-th remote column and
// its local index in domainMap there. domainPos gives every rank's number of owned columns.
Teuchos::RCP<const import_type> importFromOwners(const Teuchos::RCP<const map_type>& domainMap,
                                                 const Teuchos::RCP<const map_type>& colMap,
                                                 const std::vector<int>& remotePids,
                                                 const std::vector<LO>& remoteOwnerLids, const MapPositions& domainPos,
                                                 MPI_Comm comm);

}  // namespace tpetra
}  // namespace Trident
