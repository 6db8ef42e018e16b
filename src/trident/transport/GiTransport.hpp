#pragma once
// The inter-group (Gi) transport of Trident's static Cannon behind one interface: in round r, rank
// (i,j,k) gets slice k of A(i,s) and B(s,j) from rank k of the owning groups. A backend supplies
// it (the host one: GiFetch, MPI point-to-point); the loop only posts, tests, waits and releases.
#include <cstdint>
#include <vector>

#include "trident/local/Csr.hpp"

namespace Trident {

class GiTransport {
 public:
  virtual ~GiTransport() = default;
  // Posts, in round order, the sends of owned slices that other groups need in rounds < round_end.
  virtual void postSendsUpTo(int round_end) = 0;
  // Makes sure receives of rounds < round_end are posted.
  virtual void postReceivesUpTo(int round_end) = 0;
  // Blocks until round r's slices are here; pointers stay valid until release(r). With b_rows, a
  // row-compressed slice of B stays so (*b_rows lists its rows, slice-local, ascending; null when
  // *b has all of them); without, every slice comes with all its rows.
  virtual void wait(int r, const Csr** a, const Csr** b, const std::vector<int>** b_rows = nullptr) = 0;
  // True when round r's slices are here (wait(r) then does not block).
  virtual bool test(int r) = 0;
  virtual void release(int r) = 0;
  // Lets the transfers in flight progress (called between rows of the local multiply).
  virtual void progress() = 0;
  // Posts what is not posted yet and completes everything; before the owned tiles go away.
  virtual void finish() = 0;
  virtual std::uint64_t bytes_sent() const = 0;
  virtual std::uint64_t bytes_received() const = 0;
};

}  // namespace Trident
