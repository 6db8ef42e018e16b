// Unit test of the 64-bit-count MPI layer (trident/core/BigCount.hpp): chunked
// point-to-point, alltoallv, allgatherv, gatherv, bcast and allreduce against data every rank can
// compute, with zero-length and uneven counts. Run it with TRIDENT_MPI_CHUNK_LIMIT=7 so that
// every transfer above 7 elements is split into chunks (the test checks the limit took effect
// when --expect-limit is given).
//   test_bigcount [--expect-limit=N]
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "common/TestUtils.hpp"
#include "trident/core/BigCount.hpp"

using namespace Trident;
using TridentTest::Tally;

namespace {

// The value of element t sent from rank src to rank dst: distinct per (src, dst, t).
double valueOf(int src, int dst, std::int64_t t) { return 1e6 * src + 1e3 * dst + static_cast<double>(t); }

// Uneven counts, zeros included: rank src sends count(src, dst) elements to dst.
std::int64_t countOf(int src, int dst, int round) {
  const std::int64_t c[] = {0, 1, 6, 7, 8, 13, 14, 15, 29, 0, 3};
  return c[(src * 5 + dst * 3 + round) % 11] * (src == dst ? 2 : 1);
}

void testAlltoallv(Tally& tally, int P, int me) {
  for (int round = 0; round < 11; ++round) {
    std::vector<std::int64_t> scount(P);
    std::vector<double> send;
    for (int d = 0; d < P; ++d) {
      scount[d] = countOf(me, d, round);
      for (std::int64_t t = 0; t < scount[d]; ++t) send.push_back(valueOf(me, d, t));
    }
    const std::vector<std::int64_t> rcount = bigcount::exchangeCounts(scount, MPI_COMM_WORLD);
    bool counts_ok = true;
    for (int q = 0; q < P; ++q) counts_ok = counts_ok && rcount[q] == countOf(q, me, round);
    tally.check(counts_ok, "exchangeCounts round " + std::to_string(round));
    std::vector<double> recv(static_cast<std::size_t>(std::accumulate(rcount.begin(), rcount.end(), std::int64_t{0})), -1);
    bigcount::alltoallv(send.data(), scount, recv.data(), rcount, MPI_DOUBLE, MPI_COMM_WORLD);
    bool ok = true;
    std::size_t at = 0;
    std::string why;
    for (int q = 0; q < P; ++q)
      for (std::int64_t t = 0; t < rcount[q]; ++t, ++at)
        if (recv[at] != valueOf(q, me, t)) {
          ok = false;
          why = "from rank " + std::to_string(q) + " element " + std::to_string(t) + ": " + std::to_string(recv[at]);
        }
    tally.check(ok, "alltoallv uneven/zero counts round " + std::to_string(round), why);
  }
}

// Ring: every rank sends to the next, with exact and with upper-bound receives.
void testPointToPoint(Tally& tally, int P, int me) {
  const int next = (me + 1) % P, prev = (me + P - 1) % P;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{8}, std::size_t{50}}) {
    std::vector<std::int64_t> out(n), in(n, -1);
    for (std::size_t t = 0; t < n; ++t) out[t] = static_cast<std::int64_t>(valueOf(me, next, static_cast<std::int64_t>(t)));
    std::vector<MPI_Request> reqs;
    bigcount::irecv(in.data(), n, MPI_INT64_T, prev, 5, MPI_COMM_WORLD, reqs);
    bigcount::isend(out.data(), n, MPI_INT64_T, next, 5, MPI_COMM_WORLD, reqs);
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    bool ok = reqs.size() == 2 * bigcount::chunkCount(n);
    for (std::size_t t = 0; t < n; ++t) ok = ok && in[t] == static_cast<std::int64_t>(valueOf(prev, me, static_cast<std::int64_t>(t)));
    tally.check(ok, "isend/irecv ring of " + std::to_string(n));

    // The receiver knows only a bound (n + 20); the sender sends n and as many messages as that bound takes.
    const std::size_t bound = n + 20;
    std::vector<std::int64_t> big(bound, -1);
    reqs.clear();
    const std::size_t nr = bigcount::irecv(big.data(), bound, MPI_INT64_T, prev, 6, MPI_COMM_WORLD, reqs);
    bigcount::isend(out.data(), n, MPI_INT64_T, next, 6, MPI_COMM_WORLD, reqs, bound);
    std::vector<MPI_Status> st(reqs.size());
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), st.data());
    const std::size_t got = bigcount::receivedCount(st.data(), nr, MPI_INT64_T);
    ok = got == n && nr == bigcount::chunkCount(bound);
    for (std::size_t t = 0; t < n; ++t) ok = ok && big[t] == static_cast<std::int64_t>(valueOf(prev, me, static_cast<std::int64_t>(t)));
    tally.check(ok, "isend/irecv with a bound, " + std::to_string(n) + " of " + std::to_string(bound),
                "received " + std::to_string(got));
  }
  // Blocking wrappers: rank 0 sends to the last rank.
  if (P > 1) {
    std::vector<int> v(23);
    std::iota(v.begin(), v.end(), 100);
    std::vector<int> w(23, 0);
    if (me == 0) bigcount::send(v.data(), v.size(), MPI_INT, P - 1, 9, MPI_COMM_WORLD);
    if (me == P - 1) bigcount::recv(w.data(), w.size(), MPI_INT, 0, 9, MPI_COMM_WORLD);
    tally.check(me != P - 1 || w == v, "blocking send/recv");
  }
}

void testGathers(Tally& tally, int P, int me) {
  for (int round = 0; round < 4; ++round) {
    std::vector<std::int64_t> counts(P);
    for (int q = 0; q < P; ++q) counts[q] = countOf(q, q + 1, round);
    std::vector<double> mine(static_cast<std::size_t>(counts[me]));
    for (std::int64_t t = 0; t < counts[me]; ++t) mine[t] = valueOf(me, 0, t);
    const std::int64_t total = std::accumulate(counts.begin(), counts.end(), std::int64_t{0});
    std::vector<double> all(static_cast<std::size_t>(total), -1);
    bigcount::allgatherv(mine.data(), all.data(), counts, MPI_DOUBLE, MPI_COMM_WORLD);
    bool ok = true;
    std::size_t at = 0;
    for (int q = 0; q < P; ++q)
      for (std::int64_t t = 0; t < counts[q]; ++t) ok = ok && all[at++] == valueOf(q, 0, t);
    tally.check(ok, "allgatherv round " + std::to_string(round));

    const int root = round % P;
    const std::vector<std::int64_t> gc = bigcount::gatherCounts(counts[me], root, MPI_COMM_WORLD);
    ok = me == root ? gc == counts : gc.empty();
    std::vector<double> g(me == root ? static_cast<std::size_t>(total) : 0, -1);
    bigcount::gatherv(mine.data(), counts[me], g.data(), gc, MPI_DOUBLE, root, MPI_COMM_WORLD);
    if (me == root) ok = ok && g == all;
    tally.check(ok, "gatherCounts/gatherv to rank " + std::to_string(root));
  }
  std::vector<std::int64_t> b(41, 0);
  if (me == P - 1) std::iota(b.begin(), b.end(), 7);
  bigcount::bcast(b.data(), b.size(), MPI_INT64_T, P - 1, MPI_COMM_WORLD);
  tally.check(b[0] == 7 && b[40] == 47, "bcast");

  for (std::size_t n : {std::size_t{0}, std::size_t{7}, std::size_t{22}}) {
    std::vector<double> v(n, 0.0);
    if (me == 1 % P)
      for (std::size_t t = 0; t < n; ++t) v[t] = valueOf(1, 2, static_cast<std::int64_t>(t));
    std::vector<MPI_Request> reqs;
    const std::size_t nr = bigcount::ibcast(v.data(), n, MPI_DOUBLE, 1 % P, MPI_COMM_WORLD, reqs);
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    bool ok = nr == bigcount::chunkCount(n);
    for (std::size_t t = 0; t < n; ++t) ok = ok && v[t] == valueOf(1, 2, static_cast<std::int64_t>(t));
    tally.check(ok, "ibcast of " + std::to_string(n));
  }

  std::vector<std::int64_t> r(30);
  for (int t = 0; t < 30; ++t) r[t] = me + t;
  bigcount::allreduce(r.data(), r.size(), MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  bool ok = true;
  for (int t = 0; t < 30; ++t) ok = ok && r[t] == static_cast<std::int64_t>(P) * (P - 1) / 2 + static_cast<std::int64_t>(P) * t;
  tally.check(ok, "allreduce");
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int P = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  Tally tally;
  tally.verbose(false);
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg.rfind("--expect-limit=", 0) == 0) {
      const std::size_t want = std::stoull(arg.substr(15));
      tally.check(bigcount::chunkLimit() == want, "chunk limit is " + arg.substr(15),
                  "chunkLimit() = " + std::to_string(bigcount::chunkLimit()));
      tally.check(bigcount::chunkCount(0) == 1 && bigcount::chunkCount(want) == 1 &&
                      bigcount::chunkCount(want + 1) == 2 && bigcount::chunkCount(3 * want) == 3,
                  "chunkCount");
    }
  }
  testAlltoallv(tally, P, me);
  testPointToPoint(tally, P, me);
  testGathers(tally, P, me);
  const int rc = tally.finish();
  MPI_Finalize();
  return rc;
}
