#pragma once
// MPI with 64-bit element counts. MPI-3 counts and displacements are `int`: one message, or one
// collective's total, past 2^31 - 1 elements silently overflows (matrices with billions of
// nonzeros reach that in one redistribution). Everything here takes std::size_t / int64 counts
// and moves data as point-to-point messages of at most chunkLimit() elements each.
//
// Chunks of one transfer share a tag; MPI's non-overtaking rule (messages between one pair of
// ranks with the same communicator and tag match in the order they were posted) puts them back
// in order. A transfer is always at least one message (an empty transfer is one empty message),
// so sender and receiver agree on the number of messages from the count alone.
//
// Usage:
//   std::vector<MPI_Request> reqs;
//   bigcount::isend(buf, n, MPI_DOUBLE, dest, tag, comm, reqs);        // n: std::size_t
//   bigcount::irecv(buf, n, MPI_DOUBLE, src, tag, comm, reqs);
//   MPI_Waitall(reqs.size(), reqs.data(), ...);
//   auto rcounts = bigcount::exchangeCounts(scounts, comm);           // int64 per rank
//   bigcount::alltoallv(send.data(), scounts, recv.data(), rcounts, MPI_INT64_T, comm);
#include <mpi.h>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace Trident {
namespace bigcount {

// Largest number of elements one message carries: INT_MAX, or the value of the environment
// variable TRIDENT_MPI_CHUNK_LIMIT (read once, at the first call; a test hook that makes the
// chunked paths run on small matrices).
std::size_t chunkLimit();

// Number of messages a transfer of `n` elements (or of at most `n`, see below) takes: at least 1.
std::size_t chunkCount(std::size_t n);

// Non-blocking send of n elements of `type` from buf in chunkCount(bound) messages with `tag`,
// requests appended to reqs. `bound` (>= n, default n) is the receiver's capacity when it only
// knows an upper bound of n: the sender then sends as many messages as the receiver posts
// (trailing ones empty). Returns the number of requests appended.
std::size_t isend(const void* buf, std::size_t n, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  std::vector<MPI_Request>& reqs, std::size_t bound = 0);

// Matching non-blocking receive of up to `capacity` elements (the sender's n or its bound) into
// buf. Returns the number of requests appended; once they complete, receivedCount() of their
// statuses is the number of elements that arrived.
std::size_t irecv(void* buf, std::size_t capacity, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                  std::vector<MPI_Request>& reqs);
std::size_t receivedCount(const MPI_Status* statuses, std::size_t nreq, MPI_Datatype type);

// Blocking wrappers of the two above.
void send(const void* buf, std::size_t n, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
void recv(void* buf, std::size_t n, MPI_Datatype type, int src, int tag, MPI_Comm comm);

// Collective (MPI_Alltoall of int64): element counts this rank will receive from every rank.
std::vector<std::int64_t> exchangeCounts(const std::vector<std::int64_t>& sendcounts, MPI_Comm comm);

// Collective over comm. Like MPI_Alltoallv with packed buffers: send holds sendcounts[0] elements
// for rank 0, then sendcounts[1] for rank 1, ...; recv gets recvcounts[q] elements from rank q in
// rank order. Messages go only to ranks with a nonzero count; the own part is copied.
void alltoallv(const void* send, const std::vector<std::int64_t>& sendcounts, void* recv,
               const std::vector<std::int64_t>& recvcounts, MPI_Datatype type, MPI_Comm comm);

// Collective over comm. Like MPI_Allgatherv with packed output: every rank contributes
// counts[me] elements (counts identical on all ranks); recv gets all of them in rank order.
// Runs MPI_Allgatherv itself when every count and offset fits the chunk limit.
void allgatherv(const void* send, void* recv, const std::vector<std::int64_t>& counts, MPI_Datatype type,
                MPI_Comm comm);

// Collective over comm. Like MPI_Gatherv to `root` with packed output: returns the counts of
// every rank at the root (empty elsewhere); the root's recv must hold their sum. Use
// gatherCounts first when the root has to size recv.
std::vector<std::int64_t> gatherCounts(std::int64_t mine, int root, MPI_Comm comm);
void gatherv(const void* send, std::int64_t n, void* recv, const std::vector<std::int64_t>& counts, MPI_Datatype type,
             int root, MPI_Comm comm);

// Collective over comm: MPI_Bcast of n elements in pieces of at most chunkLimit().
void bcast(void* buf, std::size_t n, MPI_Datatype type, int root, MPI_Comm comm);

// Collective over comm: MPI_Ibcast of n elements (n known to every rank) in chunkCount(n)
// non-blocking broadcasts, requests appended to reqs. Returns how many.
std::size_t ibcast(void* buf, std::size_t n, MPI_Datatype type, int root, MPI_Comm comm,
                   std::vector<MPI_Request>& reqs);

// Collective over comm: MPI_Allreduce in place, in pieces of at most chunkLimit() elements.
void allreduce(void* buf, std::size_t n, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

}  // namespace bigcount
}  // namespace Trident
