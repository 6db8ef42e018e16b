#pragma once
// The host Li transport (LiTransport over MPI): the group rebuilds a whole tile from its lambda row
// slices with an Allgatherv over the fast intra-group link (three Allgatherv: row offsets,
// columns, values), or exchanges only the rows each rank uses (LiRowExchange).
#include <mpi.h>
#include <cstdint>
#include <vector>

#include "trident/local/Csr.hpp"
#include "trident/transport/LiTransport.hpp"

namespace Trident {

class MpiLiTransport final : public LiTransport {
 public:
  explicit MpiLiTransport(MPI_Comm li_comm);
  Csr allgather(const Csr& mine, const std::vector<std::int64_t>& slice_rows,
                const std::vector<std::int64_t>& slice_nnz, std::uint64_t* sent, std::uint64_t* received) override;

  // The same tile row-compressed, for hypersparse tiles: each slice travels as its nonempty rows
  // (their tile-local indices and lengths, then columns and values), and the tile comes back as
  // its nonempty rows, *tile_rows listing which (tile-local, ascending). mine_rows: the rows
  // `mine` holds when it is row-compressed itself (OwnedTiles), null when it has all its rows.
  // Memory O(nonempty rows + entries), not O(tile rows).
  Csr allgatherRows(const Csr& mine, const std::vector<int>* mine_rows, const std::vector<std::int64_t>& slice_rows,
                    const std::vector<std::int64_t>& slice_nnz, std::vector<int>* tile_rows, std::uint64_t* sent,
                    std::uint64_t* received) override;

  // The needed-rows exchange, non-blocking and row-compressed: an LiRowExchange.
  std::unique_ptr<LiRowsInFlight> exchangeNeededRows(int round, const Csr& a, const Csr& mine,
                                                     const std::vector<int>* mine_rows,
                                                     std::vector<std::int64_t> slice_rows,
                                                     std::vector<std::vector<int>> used, bool as_lists) override;

 private:
  MPI_Comm comm_;
  int me_ = 0;  // rank in comm_
};

}  // namespace Trident
