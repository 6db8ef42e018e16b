#pragma once
// Li transport: the group rebuilds a whole tile from its lambda row slices with an Allgatherv over
// the fast intra-group link (three Allgatherv: row offsets, columns, values).
#include <mpi.h>
#include <cstdint>
#include <vector>

#include "trident/local/Csr.hpp"

namespace Trident {

// The intra-group transport behind a small interface: the MPI one below runs over shared memory
// (or whatever MPI uses inside a node); a GPU build slots an NCCL one in beside it.
class LiTransport {
 public:
  virtual ~LiTransport() = default;
  // Collective over the group. slice_rows[t], slice_nnz[t]: shape of slice t (known to all).
  // *sent / *received get the logical bytes this rank sent to / received from the others.
  virtual Csr allgather(const Csr& mine, const std::vector<std::int64_t>& slice_rows,
                        const std::vector<std::int64_t>& slice_nnz, std::uint64_t* sent,
                        std::uint64_t* received) = 0;
};

// Three MPI_Allgatherv over li_comm.
class MpiLiTransport final : public LiTransport {
 public:
  explicit MpiLiTransport(MPI_Comm li_comm) : comm_(li_comm) {}
  Csr allgather(const Csr& mine, const std::vector<std::int64_t>& slice_rows,
                const std::vector<std::int64_t>& slice_nnz, std::uint64_t* sent, std::uint64_t* received) override;

  // The same tile row-compressed, for hypersparse tiles: each slice travels as its nonempty rows
  // (their tile-local indices and lengths, then columns and values), and the tile comes back as
  // its nonempty rows, *tile_rows listing which (tile-local, ascending). mine_rows: the rows
  // `mine` holds when it is row-compressed itself (OwnedTiles), null when it has all its rows.
  // Memory O(nonempty rows + entries), not O(tile rows).
  Csr allgatherRows(const Csr& mine, const std::vector<int>* mine_rows, const std::vector<std::int64_t>& slice_rows,
                    const std::vector<std::int64_t>& slice_nnz, std::vector<int>* tile_rows, std::uint64_t* sent,
                    std::uint64_t* received);

  // (The needed-rows exchange, non-blocking and row-compressed, is LiRowExchange.)

 private:
  MPI_Comm comm_;
};

}  // namespace Trident
