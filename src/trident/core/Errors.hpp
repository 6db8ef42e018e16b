#pragma once
// Collective error reporting: a bad input found on one rank must become the same exception on
// every rank (never a hang where the other ranks wait in a collective, never a wrong result).
#include <mpi.h>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

namespace Trident {

// Thrown for bad input (maps, sizes, parameters, grid that does not fit P).
class InvalidInput : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Collective over comm. If any rank passes failed=true, every rank throws InvalidInput with the
// message of the lowest failing rank (prefixed by that rank's number).
void throwIfAnyRank(MPI_Comm comm, bool failed, const std::string& message);

// Same, for conditions every rank evaluates identically: no communication needed.
inline void requireAll(bool ok, const std::string& message) {
  if (!ok) throw InvalidInput(message);
}

// Many checks, one collective. On a loaded machine each collective costs milliseconds, which a
// small product (MueLu's coarse levels) cannot afford once per check. Each rank records its local
// failures and the values all ranks must agree on (or whose minimum/maximum decides something),
// then run() does ONE MPI_Allreduce (and, only when some rank failed, the broadcast of the lowest
// failing rank's message): every rank throws the same InvalidInput, or every rank goes on with
// the same minima and maxima.
class CollectiveCheck {
 public:
  // A local failure; the first message of this rank is the one reported.
  void failIf(bool failed, const std::string& message);
  bool failedHere() const { return !message_.empty(); }
  // A value reduced over the ranks; returns its slot for min()/max() after run().
  std::size_t contribute(long long value);
  // Collective over comm.
  void run(MPI_Comm comm);
  long long min(std::size_t slot) const { return reduced_.at(slot); }
  long long max(std::size_t slot) const { return -reduced_.at(values_.size() + slot); }
  bool same(std::size_t slot) const { return min(slot) == max(slot); }
  // A value summed over the ranks, in the same collective; returns its slot for sum() after run().
  // Every rank must contribute as many sums as the others (as many values too).
  std::size_t contributeSum(long long value);
  long long sum(std::size_t slot) const { return sums_.at(slot); }

 private:
  std::string message_;
  std::vector<long long> values_, reduced_, sums_;
};

}  // namespace Trident
