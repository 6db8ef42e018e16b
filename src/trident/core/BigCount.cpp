#include "trident/core/BigCount.hpp"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace Trident {
namespace bigcount {

namespace {

std::size_t readLimit() {
  const char* env = std::getenv("TRIDENT_MPI_CHUNK_LIMIT");
  if (!env || !*env) return static_cast<std::size_t>(INT_MAX);
  char* end = nullptr;
  const long long v = std::strtoll(env, &end, 10);
  if (*end != '\0' || v < 1 || v > INT_MAX)
    throw std::invalid_argument(std::string("TRIDENT_MPI_CHUNK_LIMIT must be an integer in [1, 2^31-1], got '") +
                                env + "'");
  return static_cast<std::size_t>(v);
}

std::size_t extentOf(MPI_Datatype type) {
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(type, &lb, &extent);
  return static_cast<std::size_t>(extent);
}

// Elements of chunk c of a transfer of n elements.
int chunkSize(std::size_t n, std::size_t c, std::size_t limit) {
  const std::size_t at = c * limit;
  return at >= n ? 0 : static_cast<int>(std::min(limit, n - at));
}

// The tag the collectives below use for their point-to-point messages: the largest one, far from
// the small tags the Gi transport uses (on the same communicator only before or after it). Calls
// do not mix: a rank completes all of one call's messages before the next call starts, and
// non-overtaking keeps messages of consecutive calls from one sender in order.
int collectiveTag(MPI_Comm comm) {
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &flag);
  return flag ? *ub : 32767;
}

std::vector<std::size_t> offsetsOf(const std::vector<std::int64_t>& counts) {
  std::vector<std::size_t> off(counts.size() + 1, 0);
  for (std::size_t q = 0; q < counts.size(); ++q) off[q + 1] = off[q] + static_cast<std::size_t>(counts[q]);
  return off;
}

void waitAll(std::vector<MPI_Request>& reqs) {
  if (!reqs.empty()) MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  reqs.clear();
}

}  // namespace

std::size_t chunkLimit() {
  static const std::size_t limit = readLimit();
  return limit;
}

std::size_t chunkCount(std::size_t n) {
  const std::size_t limit = chunkLimit();
  return n == 0 ? 1 : (n + limit - 1) / limit;
}

std::size_t isend(const void* buf, std::size_t n, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  std::vector<MPI_Request>& reqs, std::size_t bound) {
  if (bound < n) bound = n;
  const std::size_t limit = chunkLimit(), chunks = chunkCount(bound), ext = extentOf(type);
  const char* p = static_cast<const char*>(buf);
  for (std::size_t c = 0; c < chunks; ++c) {
    const int len = chunkSize(n, c, limit);
    MPI_Request r;
    MPI_Isend(len ? p + c * limit * ext : p, len, type, dest, tag, comm, &r);
    reqs.push_back(r);
  }
  return chunks;
}

std::size_t irecv(void* buf, std::size_t capacity, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                  std::vector<MPI_Request>& reqs) {
  const std::size_t limit = chunkLimit(), chunks = chunkCount(capacity), ext = extentOf(type);
  char* p = static_cast<char*>(buf);
  for (std::size_t c = 0; c < chunks; ++c) {
    const int len = chunkSize(capacity, c, limit);
    MPI_Request r;
    MPI_Irecv(len ? p + c * limit * ext : p, len, type, src, tag, comm, &r);
    reqs.push_back(r);
  }
  return chunks;
}

std::size_t receivedCount(const MPI_Status* statuses, std::size_t nreq, MPI_Datatype type) {
  std::size_t total = 0;
  for (std::size_t c = 0; c < nreq; ++c) {
    int got = 0;
    MPI_Get_count(&statuses[c], type, &got);
    total += static_cast<std::size_t>(got);
  }
  return total;
}

void send(const void* buf, std::size_t n, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  std::vector<MPI_Request> reqs;
  isend(buf, n, type, dest, tag, comm, reqs);
  waitAll(reqs);
}

void recv(void* buf, std::size_t n, MPI_Datatype type, int src, int tag, MPI_Comm comm) {
  std::vector<MPI_Request> reqs;
  irecv(buf, n, type, src, tag, comm, reqs);
  waitAll(reqs);
}

std::vector<std::int64_t> exchangeCounts(const std::vector<std::int64_t>& sendcounts, MPI_Comm comm) {
  std::vector<std::int64_t> recv(sendcounts.size(), 0);
  MPI_Alltoall(sendcounts.data(), 1, MPI_INT64_T, recv.data(), 1, MPI_INT64_T, comm);
  return recv;
}

void alltoallv(const void* send, const std::vector<std::int64_t>& sendcounts, void* recv,
               const std::vector<std::int64_t>& recvcounts, MPI_Datatype type, MPI_Comm comm) {
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  if (sendcounts[me] != recvcounts[me])
    throw std::logic_error("bigcount::alltoallv: a rank's count to itself differs from its count from itself");
  const int tag = collectiveTag(comm);
  const std::size_t ext = extentOf(type);
  const std::vector<std::size_t> soff = offsetsOf(sendcounts), roff = offsetsOf(recvcounts);
  const char* s = static_cast<const char*>(send);
  char* r = static_cast<char*>(recv);
  std::vector<MPI_Request> reqs;
  // Receives first (so that most messages find a posted receive), starting after me so that not
  // every rank sends to rank 0 first.
  for (int t = 1; t < P; ++t) {
    const int q = (me + P - t) % P;
    if (recvcounts[q] > 0) irecv(r + roff[q] * ext, static_cast<std::size_t>(recvcounts[q]), type, q, tag, comm, reqs);
  }
  for (int t = 1; t < P; ++t) {
    const int q = (me + t) % P;
    if (sendcounts[q] > 0) isend(s + soff[q] * ext, static_cast<std::size_t>(sendcounts[q]), type, q, tag, comm, reqs);
  }
  if (sendcounts[me] > 0) std::memcpy(r + roff[me] * ext, s + soff[me] * ext, static_cast<std::size_t>(sendcounts[me]) * ext);
  waitAll(reqs);
}

void allgatherv(const void* send, void* recv, const std::vector<std::int64_t>& counts, MPI_Datatype type,
                MPI_Comm comm) {
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  const std::size_t ext = extentOf(type);
  const std::vector<std::size_t> off = offsetsOf(counts);
  // Every rank has the same counts, so every rank takes the same path.
  const std::size_t limit = chunkLimit();
  if (off[P] <= limit && off[P] <= static_cast<std::size_t>(INT_MAX)) {
    std::vector<int> c(P), d(P);
    for (int q = 0; q < P; ++q) {
      c[q] = static_cast<int>(counts[q]);
      d[q] = static_cast<int>(off[q]);
    }
    MPI_Allgatherv(send, c[me], type, recv, c.data(), d.data(), type, comm);
    return;
  }
  const int tag = collectiveTag(comm);
  char* r = static_cast<char*>(recv);
  std::vector<MPI_Request> reqs;
  for (int t = 1; t < P; ++t) {
    const int q = (me + P - t) % P;
    if (counts[q] > 0) irecv(r + off[q] * ext, static_cast<std::size_t>(counts[q]), type, q, tag, comm, reqs);
  }
  const std::size_t mine = static_cast<std::size_t>(counts[me]);
  for (int t = 1; t < P && mine > 0; ++t) isend(send, mine, type, (me + t) % P, tag, comm, reqs);
  if (mine > 0) std::memcpy(r + off[me] * ext, send, mine * ext);
  waitAll(reqs);
}

std::vector<std::int64_t> gatherCounts(std::int64_t mine, int root, MPI_Comm comm) {
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  std::vector<std::int64_t> counts(me == root ? P : 0);
  MPI_Gather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, root, comm);
  return counts;
}

void gatherv(const void* send, std::int64_t n, void* recv, const std::vector<std::int64_t>& counts, MPI_Datatype type,
             int root, MPI_Comm comm) {
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  const int tag = collectiveTag(comm);
  std::vector<MPI_Request> reqs;
  if (me != root) {
    if (n > 0) isend(send, static_cast<std::size_t>(n), type, root, tag, comm, reqs);
    waitAll(reqs);
    return;
  }
  const std::size_t ext = extentOf(type);
  const std::vector<std::size_t> off = offsetsOf(counts);
  char* r = static_cast<char*>(recv);
  for (int q = 0; q < P; ++q)
    if (q != me && counts[q] > 0) irecv(r + off[q] * ext, static_cast<std::size_t>(counts[q]), type, q, tag, comm, reqs);
  if (n > 0) std::memcpy(r + off[me] * ext, send, static_cast<std::size_t>(n) * ext);
  waitAll(reqs);
}

void bcast(void* buf, std::size_t n, MPI_Datatype type, int root, MPI_Comm comm) {
  const std::size_t limit = chunkLimit(), ext = extentOf(type);
  char* p = static_cast<char*>(buf);
  for (std::size_t at = 0; at < n; at += limit)
    MPI_Bcast(p + at * ext, static_cast<int>(std::min(limit, n - at)), type, root, comm);
}

std::size_t ibcast(void* buf, std::size_t n, MPI_Datatype type, int root, MPI_Comm comm,
                   std::vector<MPI_Request>& reqs) {
  const std::size_t limit = chunkLimit(), chunks = chunkCount(n), ext = extentOf(type);
  char* p = static_cast<char*>(buf);
  for (std::size_t c = 0; c < chunks; ++c) {
    const int len = chunkSize(n, c, limit);
    MPI_Request r;
    MPI_Ibcast(len ? p + c * limit * ext : p, len, type, root, comm, &r);
    reqs.push_back(r);
  }
  return chunks;
}

void allreduce(void* buf, std::size_t n, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  const std::size_t limit = chunkLimit(), ext = extentOf(type);
  char* p = static_cast<char*>(buf);
  for (std::size_t at = 0; at < n; at += limit)
    MPI_Allreduce(MPI_IN_PLACE, p + at * ext, static_cast<int>(std::min(limit, n - at)), type, op, comm);
}

}  // namespace bigcount
}  // namespace Trident
