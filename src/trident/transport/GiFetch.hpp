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
  GiFetch(const Layout& L, const OwnedTiles& tiles, const NnzTable& nnz, int my_unit, int my_k, MPI_Comm gi_comm,
          int lookahead, const NeededRows* needed = nullptr);
  ~GiFetch() override;
  GiFetch(const GiFetch&) = delete;
  GiFetch& operator=(const GiFetch&) = delete;

  // Posts, in round order, the sends of owned slices that other units need in rounds < round_end.
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
  std::size_t next_send_ = 0;       // schedule_[0, next_send_) are posted
  const NeededRows* needed_;
  std::deque<Csr> filtered_;  // row-selected copies of owned B slices, alive until finish()
  std::uint64_t bytes_sent_ = 0, bytes_recv_ = 0;
};

}  // namespace Trident
