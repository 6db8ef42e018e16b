#pragma once
// Gi transport for Trident: rank (i,j,k) fetches slice k of A(i,s) and B(s,j) from rank k of the
// owning group. The schedule is static (static Cannon): point-to-point, non-blocking, no barrier
// and no world collective inside the loop. Messages travel on the gi communicator (the ranks with
// my k, one per group, ranked by group = unit index).
//
// Both sides keep a window of `lookahead` rounds: requesters post receives, owners post sends, in
// round order, for the rounds up to `lookahead` ahead of the one being multiplied. On a link that
// is the bottleneck, posting every round's sends at once would let all rounds share the link, so
// round 0 would arrive no sooner than the last; in round order the link carries the round that is
// needed next. No deadlock: before blocking on round r a rank has posted every send of rounds
// <= r, so round r completes on every rank once round r-1 has. progress() (called between rows
// of the local kernel, see LocalProgressHook) tests the sends and receives in flight, because MPI
// moves a rendezvous message only inside an MPI call.
//
// Ready gating (a ready_comm given: "trident: gi pacing" = "ready"): no rank
// sends a tile to a group before every rank of that group, and of its own, has finished the in
// phase. It was built against the in phase's small messages (the needed-rows all-gather, the
// tile triplets of slower ranks) queueing behind the tiles that faster ranks already streamed into
// a saturated node link; TileMetadata's one round now keeps those messages ahead of every tile,
// and the gate only idles the link while the slowest rank ends its in phase. Not the default;
// kept for measurement. It is a non-blocking barrier over
// ready_comm (the group) and one empty token to each Gi peer that sends to this rank, posted when
// that barrier completes: no world collective, and a group whose peers are ready starts at once.
#include <mpi.h>
#include <cstdint>
#include <vector>

#include "trident/local/Csr.hpp"
#include "trident/partition/Layout.hpp"
#include "trident/partition/Redistribute.hpp"
#include "trident/transport/GiTransport.hpp"
#include "trident/transport/NeededRows.hpp"
#include "trident/transport/NnzTable.hpp"
#include <deque>

namespace Trident {

// The host backend's GiTransport.
class GiFetch final : public GiTransport {
 public:
  // needed: when given, slices of B travel with only the rows the requesting group's A uses.
  // ready_comm: when given (the group's li_comm), sends wait for ready gating (above); collective
  // over it (a non-blocking barrier, started here). MPI_COMM_NULL: sends go out at once.
  GiFetch(const Layout& L, const OwnedTiles& tiles, const NnzTable& nnz, int my_unit, int my_k, MPI_Comm gi_comm,
          int lookahead, const NeededRows* needed = nullptr, MPI_Comm ready_comm = MPI_COMM_NULL);
  ~GiFetch() override;
  GiFetch(const GiFetch&) = delete;
  GiFetch& operator=(const GiFetch&) = delete;

  // Posts, in round order, the sends of owned slices that other units need in rounds < round_end
  // (with ready gating: those to units that are ready; the others follow as their tokens come).
  void postSendsUpTo(int round_end) override;
  // All of them at once (the robustness tests' cleanup scenarios).
  void postSends() { postSendsUpTo(L_.grid.rounds); }
  // Makes sure receives of rounds < `round_end` are posted.
  void postReceivesUpTo(int round_end) override;
  // Blocks until round r's slices are here. Pointers stay valid until release(r). With b_rows, a
  // slice of B that came with only the needed rows, or an own slice (row-compressed, see
  // OwnedTiles), stays compressed: *b holds just those rows and *b_rows lists them (slice-local,
  // ascending); *b_rows is null when *b has all the slice's rows. Whole slices that are
  // hypersparse travel row-compressed and come so. Without b_rows every slice is expanded to all
  // rows (empty where not needed or not stored).
  void wait(int r, const Csr** a, const Csr** b, const std::vector<int>** b_rows = nullptr) override;
  void release(int r) override;
  // True when round r's slices are here (receives posted and complete); wait(r) then does not block.
  bool test(int r) override;
  // Lets MPI progress the transfers in flight (called between rows of the local kernel).
  void progress() override;
  // Posts the sends not posted yet and completes all. Must be called before the owned tiles go away.
  void finish() override;

  std::uint64_t bytes_sent() const override { return bytes_sent_; }
  std::uint64_t bytes_received() const override { return bytes_recv_; }

 private:
  struct Incoming {
    Csr a, b;
    bool a_remote = false, b_remote = false;
    bool b_filtered = false;
    bool b_compressed = false;  // a hypersparse slice of B: b holds the rows b_ids lists
    std::vector<int> b_ids;
    std::size_t b_req = 0;       // index in reqs of the first message of B's columns
    std::size_t b_col_reqs = 0;  // and how many messages they are
    std::vector<MPI_Request> reqs;
    std::vector<MPI_Status> st;  // statuses of reqs, kept as they complete (filtered B reads its count)
    bool posted = false;
  };
  // One owned slice to one unit, for that unit's round `round`.
  struct Outgoing {
    int round, s, peer_row_or_col;
    bool isB;
  };
  void postReceive(int r);
  void postSend(const Outgoing& o);
  // Ready gating: tests the group's barrier and the peers' tokens, sends this rank's tokens once
  // its group is ready, and posts the sends of the window that became allowed. True when no
  // gating request is open any more.
  bool pumpGate();
  // Blocks until one request of reqs or one open gating request (the group's barrier, a token)
  // completes; keeps reqs' statuses in *st. A blocked wait must also wait for the gate, or two
  // ranks could each wait for a slice that the other may only send after testing a token.
  void waitSomeWithGate(std::vector<MPI_Request>& reqs, std::vector<MPI_Status>* st);
  bool peerReady(int unit) const {
    return !gated_ || (group_ready_ && peer_ready_[static_cast<std::size_t>(unit)]);
  }
  bool gateOpen() const;  // no gating, or every gating request complete
  void groupReady();      // the group's barrier completed: send this rank's tokens
  void tokenCame(std::size_t t);  // token_recvs_[t] completed: its unit is ready
  // Posts the sends of rounds < send_window_ whose peers are ready, in round order.
  void postAllowed();
  int destination(const Outgoing& o) const;  // the unit (gi_comm rank) o goes to
  // Tests in.reqs, keeping statuses; true when all are complete.
  bool testIncoming(Incoming& in);

  const Layout& L_;
  const OwnedTiles& tiles_;
  const NnzTable& nnz_;
  int unit_, k_, i_, j_;
  MPI_Comm comm_;
  int lookahead_;
  std::vector<Incoming> in_;
  std::vector<MPI_Request> sends_;
  std::vector<Outgoing> schedule_;  // every send of this rank, in round order
  std::vector<char> posted_;        // schedule_[t] is posted (with gating, not always a prefix)
  std::size_t next_send_ = 0;       // schedule_[0, next_send_) are posted
  int send_window_ = 0;             // the largest round_end asked of postSendsUpTo
  // Ready gating (see the class comment).
  bool gated_ = false;
  bool group_ready_ = false;
  MPI_Request group_barrier_ = MPI_REQUEST_NULL;
  std::vector<int> token_from_;            // units this rank sends to, whose tokens it waits for
  std::vector<MPI_Request> token_recvs_;   // one per token_from_
  std::vector<int> token_to_;              // units that send to this rank
  std::vector<MPI_Request> token_sends_;
  std::vector<char> peer_ready_;           // by unit: its token came
  std::size_t tokens_open_ = 0;            // token_recvs_ not complete
  const NeededRows* needed_;
  std::deque<Csr> filtered_;  // row-selected copies of owned B slices, alive until finish()
  std::uint64_t bytes_sent_ = 0, bytes_recv_ = 0;
};

}  // namespace Trident
