#pragma once
// Li transport: the group rebuilds a whole tile from its lambda row slices with an Allgatherv over
// the fast intra-group link (three Allgatherv: row offsets, columns, values).
#include <mpi.h>
#include <cstdint>
#include <vector>

#include "trident/local/Csr.hpp"

namespace Trident {

// Collective over li_comm. slice_rows[t], slice_nnz[t]: shape of slice t (known to all).
// *sent / *received get the logical bytes this rank sent to / received from the others.
Csr allgatherSlices(const Csr& mine, const std::vector<std::int64_t>& slice_rows,
                    const std::vector<std::int64_t>& slice_nnz, MPI_Comm li_comm, std::uint64_t* sent,
                    std::uint64_t* received);

}  // namespace Trident
