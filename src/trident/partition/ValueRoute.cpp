#include "trident/partition/ValueRoute.hpp"

#include <algorithm>
#include <stdexcept>
#include <tuple>

#include "trident/core/BigCount.hpp"

namespace Trident {

namespace {
constexpr std::int64_t kExact = std::int64_t{1} << 53;  // every integer below is exact in a double

// The tiles a rank holds, A's stages then B's: the numbering of a Slot's tile.
template <class Tiles, class F>
void forEachTile(Tiles& tiles, F&& f) {
  std::int32_t t = 0;
  for (std::size_t s = 0; s < tiles.a.size(); ++s, ++t)
    if (tiles.owns_a[s]) f(t, tiles.a[s]);
  for (std::size_t s = 0; s < tiles.b.size(); ++s, ++t)
    if (tiles.owns_b[s]) f(t, tiles.b[s]);
}
}  // namespace

double ValueRoute::encodeId(std::int64_t q, int rank, int P) {
  if (q >= (kExact - rank) / P)
    throw std::length_error("Trident: too many values on one rank to route a kept plan's values (q * P >= 2^53)");
  return static_cast<double>(q * P + rank);
}

ValueRoute::ValueRoute(const std::vector<std::int64_t>& sent_q, const std::vector<int>& dest,
                       const OwnedTiles& id_tiles, std::int64_t nA, MPI_Comm comm)
    : comm_(comm), nA_(nA) {
  if (sent_q.size() != dest.size()) throw std::logic_error("Trident: internal error: ValueRoute's inputs differ in length");
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);

  // Sending, per destination in increasing q: the receiver sorts what it got the same way.
  std::vector<std::int64_t> count(P, 0);
  for (int d : dest) ++count[d];
  std::vector<std::size_t> at(P, 0);
  for (int d = 0; d < P; ++d) {
    if (d == me || count[d] == 0) continue;
    at[d] = send_q_.size();
    send_rank_.push_back(d);
    send_off_.push_back(send_q_.size());
    send_q_.resize(send_q_.size() + static_cast<std::size_t>(count[d]));
  }
  send_off_.push_back(send_q_.size());
  for (std::size_t t = 0; t < dest.size(); ++t) {
    if (dest[t] == me)
      self_q_.push_back(sent_q[t]);
    else
      send_q_[at[dest[t]]++] = sent_q[t];
  }
  for (std::size_t p = 0; p + 1 < send_off_.size(); ++p)
    std::sort(send_q_.begin() + send_off_[p], send_q_.begin() + send_off_[p + 1]);
  std::sort(self_q_.begin(), self_q_.end());

  // Receiving: each id says whose value, and which, landed at a slot.
  struct Arrival {
    int src;
    std::int64_t q;
    Slot slot;
  };
  std::vector<Arrival> arrivals;
  forEachTile(id_tiles, [&](std::int32_t t, const Csr& tile) {
    for (std::size_t i = 0; i < tile.val.size(); ++i) {
      const double id = tile.val[i];
      if (!(id >= 0 && id < static_cast<double>(kExact)))
        throw std::logic_error("Trident: internal error: a kept plan's tile holds no entry id");
      const auto v = static_cast<std::int64_t>(id);
      if (i >> kIdxBits) throw std::length_error("Trident: a tile too large to route a kept plan's values (2^40 entries)");
      arrivals.push_back({static_cast<int>(v % P), v / P, (static_cast<Slot>(t) << kIdxBits) | static_cast<Slot>(i)});
    }
  });
  std::sort(arrivals.begin(), arrivals.end(),
            [](const Arrival& x, const Arrival& y) { return std::tie(x.src, x.q) < std::tie(y.src, y.q); });
  for (std::size_t i = 0; i < arrivals.size(); ++i) {
    const Arrival& a = arrivals[i];
    if (a.src == me) {
      self_slot_.push_back(a.slot);
      continue;
    }
    if (recv_rank_.empty() || recv_rank_.back() != a.src) {
      recv_rank_.push_back(a.src);
      recv_off_.push_back(recv_slot_.size());
    }
    recv_slot_.push_back(a.slot);
  }
  recv_off_.push_back(recv_slot_.size());
  if (self_slot_.size() != self_q_.size())
    throw std::logic_error("Trident: internal error: a kept plan's own values and their places differ in number");
}

void ValueRoute::refresh(const double* a, const double* b, OwnedTiles& tiles,
                         std::vector<std::uint64_t>* bytes_to) const {
  auto value = [&](std::int64_t q) { return q < nA_ ? a[q] : b[q - nA_]; };
  std::vector<double*> dst;
  forEachTile(tiles, [&](std::int32_t t, Csr& tile) {
    if (static_cast<std::size_t>(t) >= dst.size()) dst.resize(static_cast<std::size_t>(t) + 1, nullptr);
    dst[static_cast<std::size_t>(t)] = tile.val.data();
  });
  std::vector<MPI_Request> reqs;
  std::vector<double> in(recv_slot_.size());
  for (std::size_t p = 0; p < recv_rank_.size(); ++p)
    bigcount::irecv(in.data() + recv_off_[p], recv_off_[p + 1] - recv_off_[p], MPI_DOUBLE, recv_rank_[p], kTag,
                    comm_, reqs);
  const std::size_t nrecv = reqs.size();
  std::vector<double> out(send_q_.size());
  for (std::size_t i = 0; i < send_q_.size(); ++i) out[i] = value(send_q_[i]);
  for (std::size_t p = 0; p < send_rank_.size(); ++p) {
    const std::size_t n = send_off_[p + 1] - send_off_[p];
    bigcount::isend(out.data() + send_off_[p], n, MPI_DOUBLE, send_rank_[p], kTag, comm_, reqs);
    if (bytes_to) (*bytes_to)[send_rank_[p]] += 8 * static_cast<std::uint64_t>(n);
  }
  // Own values while the messages travel.
  const Slot mask = (Slot{1} << kIdxBits) - 1;
  for (std::size_t i = 0; i < self_q_.size(); ++i)
    dst[self_slot_[i] >> kIdxBits][self_slot_[i] & mask] = value(self_q_[i]);
  MPI_Waitall(static_cast<int>(nrecv), reqs.data(), MPI_STATUSES_IGNORE);
  for (std::size_t i = 0; i < recv_slot_.size(); ++i) dst[recv_slot_[i] >> kIdxBits][recv_slot_[i] & mask] = in[i];
  MPI_Waitall(static_cast<int>(reqs.size() - nrecv), reqs.data() + nrecv, MPI_STATUSES_IGNORE);
}

}  // namespace Trident
