#pragma once
// The intra-group (Li) transport behind one interface, so a backend can put its own under the
// algorithms: the MPI one (transport/LiAllgather, LiRowExchange) runs over shared memory or
// whatever MPI uses inside a node; a GPU backend puts NCCL beside it. Everything Trident's loop
// asks of Li is here: whole tiles (Allgatherv), hypersparse tiles as their nonempty rows, and the
// non-blocking exchange of only the rows each rank's A slice uses.
#include <cstdint>
#include <memory>
#include <vector>

#include "trident/local/Csr.hpp"

namespace Trident {

// One round's needed-rows exchange in flight (started by LiTransport::exchangeNeededRows).
class LiRowsInFlight {
 public:
  virtual ~LiRowsInFlight() = default;
  // Advances the exchange without blocking (called between rows of the local multiply).
  virtual void progress() = 0;
  // Completes it. *a_used: A with columns renumbered to *b_used's rows; *b_used: the tile's rows
  // that A uses, ascending. *sent / *received grow by the logical bytes.
  virtual void finish(Csr* a_used, Csr* b_used, std::uint64_t* sent, std::uint64_t* received) = 0;
};

class LiTransport {
 public:
  virtual ~LiTransport() = default;
  // Collective over the group. slice_rows[t], slice_nnz[t]: shape of slice t (known to all).
  // *sent / *received get the logical bytes this rank sent to / received from the others.
  virtual Csr allgather(const Csr& mine, const std::vector<std::int64_t>& slice_rows,
                        const std::vector<std::int64_t>& slice_nnz, std::uint64_t* sent,
                        std::uint64_t* received) = 0;
  // The same tile row-compressed, for hypersparse tiles: the tile comes back as its nonempty rows,
  // *tile_rows listing which (tile-local, ascending). mine_rows: the rows `mine` holds when it is
  // row-compressed itself, null when it has all its rows.
  virtual Csr allgatherRows(const Csr& mine, const std::vector<int>* mine_rows,
                            const std::vector<std::int64_t>& slice_rows, const std::vector<std::int64_t>& slice_nnz,
                            std::vector<int>* tile_rows, std::uint64_t* sent, std::uint64_t* received) = 0;
  // Starts round `round`'s exchange of the tile's rows that a (this rank's A slice; its columns are
  // the tile's rows) uses. mine: this rank's slice, all rows (mine_rows null) or those mine_rows
  // lists. used: the group's requests when already known (empty: exchanged). as_lists: requests as
  // index lists, not bit masks (the same on every member). a, mine, mine_rows must stay valid until
  // finish(). Collective in round order over the group.
  virtual std::unique_ptr<LiRowsInFlight> exchangeNeededRows(int round, const Csr& a, const Csr& mine,
                                                             const std::vector<int>* mine_rows,
                                                             std::vector<std::int64_t> slice_rows,
                                                             std::vector<std::vector<int>> used, bool as_lists) = 0;
};

}  // namespace Trident
