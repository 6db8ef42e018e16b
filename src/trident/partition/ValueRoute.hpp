#pragma once
// The in phase of a kept plan re-executed with new values (same patterns): every value of op(A)
// and op(B) goes straight from its place in the caller's local arrays to its place in the kept
// tiles. No (row, column, value) triplets, no counts exchanged, no all-to-all: one message of
// doubles to each partner that holds some of this rank's values, 8 bytes per value instead of the
// 16-24 of a triplet.
//
// The route is learned once, from a distributeTiles run whose values are entry identifiers
// (encodeId: source rank and index into the source's value arrays, exact in a double): each id
// lands where its value must go, so the route follows distributeTiles' own placement, whatever
// order it builds its tiles in.
#include <mpi.h>
#include <cstdint>
#include <vector>

#include "trident/partition/Redistribute.hpp"

namespace Trident {

class ValueRoute {
 public:
  // Index q (op(A)'s values first, then op(B)'s at q = nA + ...) of this rank, as a double.
  // Throws std::length_error when q * P + rank would not be exact in a double (2^53).
  static double encodeId(std::int64_t q, int rank, int P);

  ValueRoute() = default;
  // sent_q[t] / dest[t]: for the t-th entry this rank handed to distributeTiles (A's then B's, in
  // the order they were handed over), its value index q and the rank it went to (tileDestinations).
  // id_tiles: what distributeTiles returned for values encodeId(sent_q[t], rank, P). No
  // communication: both sides derive the order of every message from what they hold.
  ValueRoute(const std::vector<std::int64_t>& sent_q, const std::vector<int>& dest, const OwnedTiles& id_tiles,
             std::int64_t nA, MPI_Comm comm);

  // Puts the values (op(A)'s local values a[0..nA), op(B)'s b[...]) into tiles, which have the
  // patterns of the id tiles. Point to point with the partners only. (*bytes_to)[d] grows by the
  // bytes sent to rank d.
  void refresh(const double* a, const double* b, OwnedTiles& tiles, std::vector<std::uint64_t>* bytes_to) const;

  bool empty() const { return comm_ == MPI_COMM_NULL; }

 private:
  // Where a value lands: tile t (A's stages, then B's) at index idx of its val array, packed
  // into one integer (t << kIdxBits | idx) to keep the route at 8 bytes per value.
  using Slot = std::int64_t;
  static constexpr int kIdxBits = 40;
  static constexpr int kTag = 7401;
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::int64_t nA_ = 0;
  // Sending: to send_rank_[p] the values send_q_[send_off_[p] .. send_off_[p + 1]) in that order.
  std::vector<int> send_rank_;
  std::vector<std::size_t> send_off_;
  std::vector<std::int64_t> send_q_;
  // Receiving: from recv_rank_[p] values that land at recv_slot_[recv_off_[p] ..) in arrival order.
  std::vector<int> recv_rank_;
  std::vector<std::size_t> recv_off_;
  std::vector<Slot> recv_slot_;
  // This rank's own values: self_q_[i] lands at self_slot_[i].
  std::vector<std::int64_t> self_q_;
  std::vector<Slot> self_slot_;
};

}  // namespace Trident
