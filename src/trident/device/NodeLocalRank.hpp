#pragma once
#include <mpi.h>

namespace Trident {

// This rank's index among the ranks of its node (MPI_COMM_TYPE_SHARED); collective over comm.
// Picks the GPU of a rank (DeviceSelection.hpp).
int nodeLocalRank(MPI_Comm comm);

// The ranks of comm on this rank's node per hardware thread of the node, at least 1 (1: every
// rank can have a core of its own); collective over comm (Topology agrees it over all ranks).
double ranksPerCore(MPI_Comm comm);

}  // namespace Trident
