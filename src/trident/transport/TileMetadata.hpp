#pragma once
// What every rank of a 2D multiply learns before its loop: the size of every tile slice
// (NnzTable) and, for Trident when only needed rows travel, which rows of its B slices each group
// uses (NeededRows). Built once per plan.
//
// Two communicators whose product is the job: `peers` (Trident: gi_comm, the ranks with my k, one
// per group; SUMMA: my process row) and `partners` (Trident: li_comm, my group; SUMMA: my process
// column). Order, and why: (1) Trident: over partners (Li), the group's column lists (NeededRows'
// first step); (2) ONE round of direct messages from every rank to every peer, carrying its tile
// sizes and its needed-rows portions together; (3) over partners, an Allreduce that completes the
// size table. A rank leaves (3) only once every partner has received (2) from every peer, i.e.
// once every rank of the job has posted its messages of (2). So no tile of the loop can enter a
// node's Gi link ahead of an in-phase message: on a saturated, deep-queued link (a 50 Mbit
// emulated cluster, an HPC fabric under load) the in phase's few kB no longer wait behind
// megabytes of tiles that faster ranks already stream, as they did when the Gi part was an
// Allreduce and then an Allgather(v) whose later steps left only after some ranks had started
// their loop (docs/design.md, transport). One round also pays the Gi latency once,
// where the collectives' recursive steps paid it log2(groups) times or more.
#include <mpi.h>
#include <memory>
#include <vector>

#include "trident/partition/Layout.hpp"
#include "trident/partition/Redistribute.hpp"
#include "trident/transport/NeededRows.hpp"
#include "trident/transport/NnzTable.hpp"

namespace Trident {

struct TileMetadata {
  NnzTable nnz;
  std::unique_ptr<NeededRows> needed;  // null: whole slices travel
};

// Collective over peers and partners. my_k: my slice in every tile (my rank in partners for
// Trident, 0 for SUMMA); unit_of_peer[q]: the grid unit of peers' rank q. needed_rows (Trident):
// partners is my group and every unit is one peer (unit_of_peer[q] = q).
TileMetadata gatherTileMetadata(const Layout& L, const OwnedTiles& tiles, int my_k, MPI_Comm peers,
                                const std::vector<int>& unit_of_peer, MPI_Comm partners, bool needed_rows);

}  // namespace Trident
