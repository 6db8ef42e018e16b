#pragma once
// Point-to-point messages to partners that only the sender knows, without a world collective
// that carries data: the nonblocking consensus (NBX) of Hoefler, Siebert and Lumsdaine,
// "Scalable communication protocols for dynamic sparse data exchange" (PPoPP 2010).
//
// Why not an all-to-all of counts (or Tpetra's reduce-scatter) first: on a slow global link each
// world collective costs latency times log P, and one that carries P counts per rank grows with
// P. Here every message goes straight to its receiver with a synchronous send; a rank whose
// sends have all been matched enters a nonblocking barrier and keeps receiving until the barrier
// completes, which it does only when every rank's sends have been matched: then nothing is left
// in flight. The barrier carries no data and overlaps the receiving.
#include <mpi.h>
#include <cstdint>
#include <vector>

namespace Trident {

struct SparseMessage {
  int rank = -1;  // destination when sent, source when received
  int tag = 0;    // one of the exchange's tags: tells the receiver how to read the words
  std::vector<std::uint32_t> words;
};

// Collective over comm (every rank calls it, possibly with nothing to send). Sends each message
// of `out` (no message to oneself; at most one per destination and tag; each below 2^31 words)
// and returns every message sent to this rank, ordered by source rank, then tag. `tags` lists the
// tags used; no other traffic on comm may use them while the exchange runs.
std::vector<SparseMessage> sparseExchange(const std::vector<SparseMessage>& out, const std::vector<int>& tags,
                                          MPI_Comm comm);

}  // namespace Trident
