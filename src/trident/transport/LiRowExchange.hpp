#pragma once
// Li transport of the needed rows of one round's tile, non-blocking, so that the group's exchange
// of round r+1 runs while round r multiplies.
//
// Rank `me` of the group holds slice `me` of the tile B(s,j) and multiplies its A slice by the
// tile's rows that A uses. Each rank tells the group which rows it uses (MPI_Iallgather of one bit
// per tile row; for a hypersparse tile, where the rows used are far fewer than the tile's rows, of
// their sorted indices instead), then every rank sends each other rank the rows of its slice that
// one uses: their lengths, columns and values, point-to-point (Isend/Irecv; the receiver learns the
// entry count from the lengths). Only those rows are kept: the result is B restricted to the rows A
// uses, in ascending row order, and A with its columns renumbered to match (the renumbering is
// monotone, so every product is accumulated in the same order as with the whole tile: results
// are bit-identical). Once the requests are in, they are kept as sorted row lists: memory per
// round is O(rows used + their entries), plus the bit masks while they travel (one bit per tile
// row, only for tiles that are not hypersparse).
//
// All exchanges of one group run in the same round order on every member (the Iallgather is a
// collective on li_comm); messages are tagged by round.
#include <mpi.h>
#include <algorithm>
#include <utility>
#include <cstdint>
#include <vector>

#include "trident/local/Csr.hpp"
#include "trident/transport/LiTransport.hpp"

namespace Trident {

class LiRowExchange final : public LiRowsInFlight {
 public:
  // a: my A slice of this round (columns = rows of the tile); mine: slice `me` of the tile, either
  // all of its rows (mine_rows null) or only the rows mine_rows lists (slice-local, ascending; the
  // others are empty: a Gi fetch of needed rows, or a row-compressed own slice); slice_rows[t]:
  // rows of slice t. a, mine and mine_rows must stay valid until finish().
  // used: when the group's requests of this round are known already (NeededRows::groupColumns,
  // for rounds that multiply the group's own A tile), they are used and not exchanged (empty:
  // exchanged). as_lists: exchange them as index lists, not bit masks (the same on every member).
  LiRowExchange(MPI_Comm li_comm, int round, const Csr& a, const Csr& mine, const std::vector<int>* mine_rows,
                std::vector<std::int64_t> slice_rows, int me, std::vector<std::vector<int>> used = {},
                bool as_lists = false);
  ~LiRowExchange() override;
  LiRowExchange(const LiRowExchange&) = delete;
  LiRowExchange& operator=(const LiRowExchange&) = delete;

  // Advances the exchange without blocking.
  void progress() override;
  // Completes it. *a_used: A with columns renumbered to *b_used's rows; *b_used: the tile's rows
  // that A uses. *sent / *received get the logical bytes (masks, row lengths, entries).
  void finish(Csr* a_used, Csr* b_used, std::uint64_t* sent, std::uint64_t* received) override;

 private:
  enum class Stage { counts, masks, lengths, entries, done };
  bool testAll(std::vector<MPI_Request>& reqs);
  void advance(bool block);
  void onCounts();
  void onMasks();
  void onLengths();
  // The rows q wants in [from, to) (tile rows), as a range of want_[q].
  std::pair<const int*, const int*> wanted(int q, std::int64_t from, std::int64_t to) const {
    const int* b = want_[q].data();
    const int* e = b + want_[q].size();
    const int* lo = std::lower_bound(b, e, from);
    return {lo, std::lower_bound(lo, e, to)};
  }

  MPI_Comm comm_;
  int round_, me_, lambda_;
  const Csr& a_;
  const Csr& mine_;
  const std::vector<int>* mine_rows_;
  // Position in mine_ of slice row r (or -1: an empty row); calls in ascending r after reset.
  struct RowCursor {
    const std::vector<int>* rows;
    std::size_t p = 0;
    std::int64_t operator()(std::int64_t r) {
      if (!rows) return r;
      while (p < rows->size() && (*rows)[p] < r) ++p;
      return p < rows->size() && (*rows)[p] == r ? static_cast<std::int64_t>(p) : -1;
    }
  };
  std::vector<std::int64_t> first_;  // first tile row of each slice
  std::int64_t bytes_;               // bytes of one mask
  bool as_lists_ = false;
  Stage stage_ = Stage::masks;
  std::vector<std::uint8_t> my_mask_, masks_;  // while bit masks travel
  std::vector<int> my_list_, lists_;           // while index lists travel
  std::vector<std::int64_t> list_counts_;
  std::vector<int> list_icounts_, list_displs_;
  std::vector<std::vector<int>> want_;  // tile rows each member uses, ascending
  std::vector<std::uint64_t> request_bytes_;  // what each member's request weighed on the wire
  std::vector<MPI_Request> coll_, sends_, recvs_;
  std::vector<std::int64_t> lsend_;
  std::vector<int> csend_;
  std::vector<double> vsend_;
  std::vector<std::int64_t> lcount_, ecount_;  // rows and entries I send to each rank
  std::vector<std::vector<std::int64_t>> lin_;  // row lengths from each rank
  std::vector<std::vector<int>> cin_;
  std::vector<std::vector<double>> vin_;
};

}  // namespace Trident
