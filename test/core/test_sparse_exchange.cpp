// Unit test of the nonblocking-consensus exchange (trident/transport/SparseExchange.hpp): every
// rank sends to a pattern of partners it alone knows (none, some, all; empty messages; two tags
// to one partner) over many rounds back to back, and must receive exactly what was sent to it,
// ordered by source then tag, with nothing left over for the next round (a message of round r
// matched in round r+1 would show up as a wrong payload).
//   test_sparse_exchange
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/TestUtils.hpp"
#include "trident/transport/SparseExchange.hpp"

using namespace Trident;
using TridentTest::Tally;

namespace {
constexpr int kTagA = 901, kTagB = 902;

// Whether src sends to dst with tag in round r, and how many words: a pattern no receiver can
// predict without computing it, with zeros (no message) and empty messages.
int wordsOf(int src, int dst, int tag, int round) {
  if (src == dst) return -1;
  const int h = (src * 7 + dst * 13 + tag * 3 + round * 5) % 11;
  if (h < 4) return -1;  // no message
  return (h - 4) * (round % 3 + 1) * (tag == kTagB ? 50 : 1);  // 0 .. 6 * 3 * 50 words
}

std::uint32_t wordOf(int src, int dst, int tag, int round, int t) {
  return static_cast<std::uint32_t>(src) * 1000003u + static_cast<std::uint32_t>(dst) * 7919u +
         static_cast<std::uint32_t>(tag) * 31u + static_cast<std::uint32_t>(round) * 101u + static_cast<std::uint32_t>(t);
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int P = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  Tally tally;
  tally.verbose(false);
  for (int round = 0; round < 40; ++round) {
    std::vector<SparseMessage> out;
    for (int d = 0; d < P; ++d)
      for (int tag : {kTagA, kTagB}) {
        const int n = wordsOf(me, d, tag, round);
        if (n < 0) continue;
        SparseMessage m;
        m.rank = d;
        m.tag = tag;
        for (int t = 0; t < n; ++t) m.words.push_back(wordOf(me, d, tag, round, t));
        out.push_back(std::move(m));
      }
    const std::vector<SparseMessage> in = sparseExchange(out, {kTagA, kTagB}, MPI_COMM_WORLD);
    std::vector<SparseMessage> expected;
    for (int s = 0; s < P; ++s)
      for (int tag : {kTagA, kTagB}) {
        const int n = wordsOf(s, me, tag, round);
        if (n < 0) continue;
        SparseMessage m;
        m.rank = s;
        m.tag = tag;
        for (int t = 0; t < n; ++t) m.words.push_back(wordOf(s, me, tag, round, t));
        expected.push_back(std::move(m));
      }
    bool same = in.size() == expected.size();
    for (std::size_t q = 0; same && q < in.size(); ++q)
      same = in[q].rank == expected[q].rank && in[q].tag == expected[q].tag && in[q].words == expected[q].words;
    tally.check(same, "round " + std::to_string(round) + ": rank " + std::to_string(me) + " received what was sent to it",
                std::to_string(in.size()) + " messages, expected " + std::to_string(expected.size()));
  }
  // A message to oneself is a caller's bug, refused before anything is sent (on this rank only:
  // every rank makes the same mistake here, so no rank is left waiting).
  bool threw = false;
  try {
    SparseMessage self;
    self.rank = me;
    self.tag = kTagA;
    sparseExchange({self}, {kTagA}, MPI_COMM_WORLD);
  } catch (const std::logic_error&) {
    threw = true;
  }
  tally.check(threw, "a message to oneself is refused");
  const int rc = tally.finish();
  MPI_Finalize();
  return rc;
}
