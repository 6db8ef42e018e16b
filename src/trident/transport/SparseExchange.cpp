#include <trident/transport/SparseExchange.hpp>

#include <sched.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

namespace Trident {

std::vector<SparseMessage> sparseExchange(const std::vector<SparseMessage>& out, const std::vector<int>& tags,
                                          MPI_Comm comm) {
  int me = 0;
  MPI_Comm_rank(comm, &me);
  std::vector<MPI_Request> sends(out.size(), MPI_REQUEST_NULL);
  for (std::size_t m = 0; m < out.size(); ++m) {
    const SparseMessage& msg = out[m];
    if (msg.rank == me) throw std::logic_error("Trident: sparseExchange: a message to oneself");
    if (msg.words.size() > static_cast<std::size_t>(INT_MAX))
      throw std::logic_error("Trident: sparseExchange: a message of " + std::to_string(msg.words.size()) + " words");
    if (std::find(tags.begin(), tags.end(), msg.tag) == tags.end())
      throw std::logic_error("Trident: sparseExchange: a message with an undeclared tag");
    // Synchronous: complete only once matched by a receive, which is what makes the barrier a
    // proof that nothing is left in flight.
    MPI_Issend(msg.words.data(), static_cast<int>(msg.words.size()), MPI_UINT32_T, msg.rank, msg.tag, comm,
               &sends[m]);
  }
  std::vector<SparseMessage> in;
  MPI_Request barrier = MPI_REQUEST_NULL;
  bool inBarrier = false;
  for (;;) {
    bool got = false;
    for (int tag : tags) {
      int flag = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &flag, &st);
      if (!flag) continue;
      int count = 0;
      MPI_Get_count(&st, MPI_UINT32_T, &count);
      SparseMessage msg;
      msg.rank = st.MPI_SOURCE;
      msg.tag = tag;
      msg.words.resize(static_cast<std::size_t>(count));
      MPI_Recv(msg.words.data(), count, MPI_UINT32_T, st.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE);
      in.push_back(std::move(msg));
      got = true;
    }
    int done = 0;
    if (!inBarrier) {
      MPI_Testall(static_cast<int>(sends.size()), sends.data(), &done, MPI_STATUSES_IGNORE);
      if (done) {
        MPI_Ibarrier(comm, &barrier);
        inBarrier = true;
      }
    } else {
      MPI_Test(&barrier, &done, MPI_STATUS_IGNORE);
      if (done) break;
    }
    // Polling, not blocking: give the core to a rank that still computes (ranks may outnumber
    // cores, as in the emulated clusters and the tests).
    if (!got) sched_yield();
  }
  std::sort(in.begin(), in.end(),
            [](const SparseMessage& a, const SparseMessage& b) { return a.rank != b.rank ? a.rank < b.rank : a.tag < b.tag; });
  return in;
}

}  // namespace Trident
