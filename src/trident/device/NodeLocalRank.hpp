#pragma once
#include <mpi.h>

namespace Trident {

// This rank's index among the ranks of its node (MPI_COMM_TYPE_SHARED); collective over comm.
// Picks the GPU of a rank (DeviceSelection.hpp).
int nodeLocalRank(MPI_Comm comm);

}  // namespace Trident
