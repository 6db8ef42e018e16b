#pragma once
// Gi transport for Trident: rank (i,j,k) fetches slice k of A(i,s) and B(s,j) from rank k of the
// owning group. The schedule is static (static Cannon), so owners post every send up front and
// requesters keep `lookahead` rounds of receives in flight: point-to-point, non-blocking, no
// barrier and no world collective inside the loop. Messages travel on the gi communicator (the
// ranks with my k, one per group, ranked by group = unit index).
#include <mpi.h>
#include <cstdint>
#include <vector>

#include "trident/local/Csr.hpp"
#include "trident/partition/Layout.hpp"
#include "trident/partition/Redistribute.hpp"
#include "trident/transport/NeededRows.hpp"
#include "trident/transport/NnzTable.hpp"
#include <deque>

namespace Trident {

class GiFetch {
 public:
  // needed: when given, slices of B travel with only the rows the requesting group's A uses.
  GiFetch(const Layout& L, const OwnedTiles& tiles, const NnzTable& nnz, int my_unit, int my_k, MPI_Comm gi_comm,
          int lookahead, const NeededRows* needed = nullptr);
  ~GiFetch();
  GiFetch(const GiFetch&) = delete;
  GiFetch& operator=(const GiFetch&) = delete;

  // Posts the sends of every owned slice to every unit that will need it, in any round.
  void postSends();
  // Makes sure receives of rounds < `round_end` are posted.
  void postReceivesUpTo(int round_end);
  // Blocks until round r's slices are here. Pointers stay valid until release(r).
  void wait(int r, const Csr** a, const Csr** b);
  void release(int r);
  // Lets MPI progress pending sends (called between local kernels).
  void progress();
  // Completes all sends. Must be called before the owned tiles go away.
  void finish();

  std::uint64_t bytes_sent() const { return bytes_sent_; }
  std::uint64_t bytes_received() const { return bytes_recv_; }

 private:
  struct Incoming {
    Csr a, b;
    bool a_remote = false, b_remote = false;
    bool b_filtered = false;
    std::size_t b_req = 0;       // index in reqs of the first message of B's columns
    std::size_t b_col_reqs = 0;  // and how many messages they are
    std::vector<MPI_Request> reqs;
    bool posted = false;
  };
  void postReceive(int r);

  const Layout& L_;
  const OwnedTiles& tiles_;
  const NnzTable& nnz_;
  int unit_, k_, i_, j_;
  MPI_Comm comm_;
  int lookahead_;
  std::vector<Incoming> in_;
  std::vector<MPI_Request> sends_;
  const NeededRows* needed_;
  std::deque<Csr> filtered_;  // row-selected copies of owned B slices, alive until finish()
  std::uint64_t bytes_sent_ = 0, bytes_recv_ = 0;
};

}  // namespace Trident
