// Failure behaviour of the pieces that hold MPI state: the topology cache frees its communicators
// (on eviction and inside MPI_Finalize), a GiFetch destroyed mid-multiply leaves its communicator
// clean for the next multiply, and runOrAbort ends the job with a message when one rank fails
// alone instead of leaving the others waiting.
//
//   test_robust                      the checks (run at P = 4: two groups of two)
//   test_robust --abort=throw        rank P-1 throws std::bad_alloc inside runOrAbort while the
//                                    others wait in a barrier: the job must abort (run by
//                                    expect_abort.sh, which checks the message and the time)
//   test_robust --abort=gifetch      rank P-1 throws in the middle of a Gi fetch while the others
//                                    finish theirs: its GiFetch completes, then the job aborts
//   test_robust --abort=gifetch-stall  rank P-1 fails with sends in flight that its peers never
//                                    receive: its GiFetch cleanup ends the job after 10 s
//   --abort=gifetch-ready, --abort=gifetch-stall-ready: the same with ready gating (the peers'
//                                    tokens, which the stalled peers never test, are what is missing)
#include <mpi.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <new>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/TripletRows.hpp"
#include "trident/algorithms/Algorithms.hpp"
#include "trident/core/Abort.hpp"
#include "trident/core/Errors.hpp"
#include "trident/grid/Topology.hpp"
#include "trident/local/LocalSpGEMM.hpp"
#include "trident/partition/Layout.hpp"
#include "trident/partition/Redistribute.hpp"
#include "trident/transport/GiFetch.hpp"
#include "trident/transport/NnzTable.hpp"
#include "trident/transport/TileMetadata.hpp"

using namespace Trident;

namespace {

int gRank = 0, gSize = 1, gPassed = 0, gFailed = 0;

void check(bool ok, const std::string& what) {
  int l = ok ? 1 : 0, g = 0;
  MPI_Allreduce(&l, &g, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  (g ? gPassed : gFailed)++;
  if (gRank == 0) std::printf("[%s] %s\n", g ? "PASS" : "FAIL", what.c_str());
  std::fflush(stdout);
}

// ---- communicators freed ------------------------------------------------------------------------

// Counts frees of the communicators it is attached to (MPI calls attribute delete callbacks when
// a communicator is freed).
int gFreed = 0;
int countFree(MPI_Comm, int, void*, void*) {
  ++gFreed;
  return MPI_SUCCESS;
}
int gKey = MPI_KEYVAL_INVALID;
void watch(const Topology& t) {
  for (MPI_Comm c : {t.world(), t.li_comm(), t.gi_comm()}) MPI_Comm_set_attr(c, gKey, nullptr);
}

// Communicators whose topologies are cached and watched; all are freed by MPI_Finalize at the
// latest (checked after it, in main).
int gWatchedAtFinalize = 0;

void testTopologyCache() {
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, countFree, &gKey, nullptr);
  // Three orderings of the world ranks, so that their topologies are distinct cache entries.
  MPI_Comm reversed, rotated;
  MPI_Comm_split(MPI_COMM_WORLD, 0, gSize - gRank, &reversed);
  MPI_Comm_split(MPI_COMM_WORLD, 0, (gRank + 1) % gSize, &rotated);
  {
    auto first = cachedTopology(MPI_COMM_WORLD, 1);
    watch(*first);
    check(cachedTopology(MPI_COMM_WORLD, 1) == first, "topology cache: the same (comm, lambda) is reused");
    // Seven more entries fill the cache (8), the eighth evicts the first.
    std::vector<std::shared_ptr<const Topology>> others;
    for (MPI_Comm c : {MPI_COMM_WORLD, reversed})
      for (int lambda : {2, gSize, 0, 1}) {
        if (c == MPI_COMM_WORLD && lambda == 1) continue;
        others.push_back(cachedTopology(c, lambda));
      }
    check(gFreed == 0, "topology cache: nothing freed while held");
    others.push_back(cachedTopology(rotated, 1));  // evicts `first` from the cache
    check(gFreed == 0, "topology cache: an evicted entry still held by a caller stays usable");
    int sum = 0;
    MPI_Allreduce(&gRank, &sum, 1, MPI_INT, MPI_SUM, first->gi_comm());
    check(sum >= 0, "topology cache: its communicators still work");
    // The eight entries now cached are freed by MPI_Finalize (checked in main).
    for (const auto& t : others) watch(*t);
    gWatchedAtFinalize = 3 * static_cast<int>(others.size());
  }  // `first` released: evicted and unheld, its three communicators are freed now
  check(gFreed == 3, "topology cache: an evicted entry frees its communicators (dup, li, gi) when released (" +
                         std::to_string(gFreed) + " of 3)");
  MPI_Comm_free(&reversed);
  MPI_Comm_free(&rotated);
}

// ---- GiFetch destroyed mid-flight ---------------------------------------------------------------

struct Problem {
  std::int64_t m = 0, k = 0, n = 0;
  Triplets A, B;  // this rank's rows (row % P == rank), positions = global indices
};

Problem makeProblem(std::int64_t m, std::int64_t k, std::int64_t n, int perRow, double bScale, unsigned seed) {
  Problem p;
  p.m = m;
  p.k = k;
  p.n = n;
  std::mt19937_64 rng(seed);
  for (std::int64_t r = 0; r < m; ++r)
    for (int e = 0; e < perRow; ++e) {
      const std::int64_t c = static_cast<std::int64_t>(rng() % static_cast<unsigned long long>(k));
      const double v = 1.0 + static_cast<double>(rng() % 1000) / 100.0;
      if (r % gSize == gRank) p.A.push(r, c, v);
    }
  for (std::int64_t r = 0; r < k; ++r)
    for (int e = 0; e < perRow; ++e) {
      const std::int64_t c = static_cast<std::int64_t>(rng() % static_cast<unsigned long long>(n));
      const double v = bScale * (1.0 + static_cast<double>(rng() % 1000) / 100.0);
      if (r % gSize == gRank) p.B.push(r, c, v);
    }
  return p;
}

struct Setup {
  Layout L;
  OwnedTiles tiles;
};

Setup distribute(const Problem& p, const Topology& topo) {
  std::vector<std::int64_t> ap, aw, bp, bw;
  TridentTest::rowsAndEntries(p.A, ap, aw);
  TridentTest::rowsAndEntries(p.B, bp, bw);
  Setup s;
  s.L = makeLayout(TileGrid::forUnits(topo.groups()), topo.ranks_per_group(), p.m, p.k, p.n, ap, aw, bp, bw,
                   topo.world());
  RankOf rankOf = [&topo](int unit, int kk) { return topo.world_rank_of(unit, kk); };
  s.tiles = distributeTiles(s.L, p.A, p.B, rankOf, topo.group(), topo.k(), topo.world(), nullptr);
  return s;
}

// Sum and sum of squares of all entries of A*B, from every rank's full copy of the problem.
void referenceSums(std::int64_t m, std::int64_t k, std::int64_t n, int perRow, double bScale, unsigned seed,
                   double& sum, double& sq, long long& nnz) {
  const int rank = gRank, size = gSize;
  gRank = 0;
  gSize = 1;  // makeProblem keeps every row
  Problem all = makeProblem(m, k, n, perRow, bScale, seed);
  gRank = rank;
  gSize = size;
  std::vector<int> ac(all.A.col.begin(), all.A.col.end()), bc(all.B.col.begin(), all.B.col.end());
  Csr a = csrFromTriplets(m, k, all.A.row, ac, all.A.val), b = csrFromTriplets(k, n, all.B.row, bc, all.B.val);
  Csr c = referenceMultiply(a, b);
  sum = sq = 0;
  for (double v : c.val) {
    sum += v;
    sq += v * v;
  }
  nnz = c.nnz();
}

bool close(double a, double b) { return std::abs(a - b) <= 1e-10 * std::max(std::abs(a), std::abs(b)); }

// Runs a Gi fetch of `s` and abandons it by an exception after round 0 on the ranks where
// `fail` is true; the others complete it.
// gated: with ready gating (GiFetch's class comment), so that the cleanup also completes the
// group's barrier and the tokens.
void abandonedFetch(const Setup& s, const Topology& topo, bool fail, bool wrapInAbort, bool gated = false) {
  auto body = [&] {
    NnzTable nnz = gatherNnzTable(s.L, s.tiles, topo.group(), topo.k(), topo.world());
    GiFetch gi(s.L, s.tiles, nnz, topo.group(), topo.k(), topo.gi_comm(), 1, nullptr,
               gated ? topo.li_comm() : MPI_COMM_NULL);
    gi.postSends();
    gi.postReceivesUpTo(1);
    for (int r = 0; r < s.L.grid.rounds; ++r) {
      const Csr *a = nullptr, *b = nullptr;
      gi.wait(r, &a, &b);
      if (fail) throw std::runtime_error("injected failure after round 0 of the Gi fetch");
      gi.release(r);
    }
    gi.finish();
  };
  if (wrapInAbort)
    runOrAbort(topo.world(), "test: Gi fetch", body);
  else
    body();
}

void testGiFetchAbandoned(bool gated) {
  const std::string how = gated ? " (ready gating)" : " (eager)";
  // P = 4, lambda = 2: two groups, a 2 x 1 grid, two rounds; A and B slices cross Gi. Slices of
  // ~100 KB go by rendezvous, not eagerly.
  auto topo = cachedTopology(MPI_COMM_WORLD, 2);
  const std::int64_t m = 3000, k = 3000, n = 3000;
  const int perRow = 8;
  Problem p1 = makeProblem(m, k, n, perRow, 1.0, 7);
  Setup s1 = distribute(p1, *topo);
  bool threw = false;
  try {
    abandonedFetch(s1, *topo, true, false, gated);
  } catch (const std::runtime_error&) {
    threw = true;
  }
  check(threw, "GiFetch: an exception after round 0 on every rank unwinds (the destructor completes the fetch)" + how);

  // The same communicators, a multiply of different values: any message of the abandoned fetch
  // left unmatched would be taken for one of its slices.
  Problem p2 = makeProblem(m, k, n, perRow, 3.0, 7);
  Setup s2 = distribute(p2, *topo);
  MultiplyStats stats;
  AlgorithmOptions opt;
  opt.local_kernel = "reference";
  opt.fetch_needed_rows = false;
  Csr C = tridentMultiply(s2.L, s2.tiles, *topo, opt, stats);
  double loc[2] = {0, 0}, glob[2];
  for (double v : C.val) {
    loc[0] += v;
    loc[1] += v * v;
  }
  long long nnzLoc = C.nnz(), nnzGlob = 0;
  MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&nnzLoc, &nnzGlob, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  double sum, sq;
  long long nnz;
  referenceSums(m, k, n, perRow, 3.0, 7, sum, sq, nnz);
  check(nnz == nnzGlob && close(sum, glob[0]) && close(sq, glob[1]),
        "GiFetch: the next multiply on the same communicators is exact (no stale message)" + how);
}

// ---- tile metadata against its reference ------------------------------------------------------

// gatherTileMetadata's size table (one round of direct messages over Gi, then an Allreduce over
// Li, with or without the needed rows riding along) must equal gatherNnzTable's, the plain
// reference (one Allreduce over the job), entry for entry: the loop posts its receives with these
// sizes and no handshake, so one wrong entry is a truncated or hanging transfer.
void testTileMetadataAgainstReference() {
  for (int lambda : {1, 2, 4}) {
    auto topo = cachedTopology(MPI_COMM_WORLD, lambda);
    // Rectangular (500 x 700 times 700 x 300) and sparse (3 entries a row).
    Problem p = makeProblem(500, 700, 300, 3, 1.0, 11 + static_cast<unsigned>(lambda));
    Setup s = distribute(p, *topo);
    const NnzTable ref = gatherNnzTable(s.L, s.tiles, topo->group(), topo->k(), topo->world());
    std::vector<int> unit_of_peer(s.L.grid.units());
    for (int q = 0; q < s.L.grid.units(); ++q) unit_of_peer[q] = q;
    for (bool needed : {false, true}) {
      const TileMetadata m =
          gatherTileMetadata(s.L, s.tiles, topo->k(), topo->gi_comm(), unit_of_peer, topo->li_comm(), needed);
      const bool same = m.nnz.a == ref.a && m.nnz.b == ref.b && m.nnz.b_rows == ref.b_rows &&
                        m.nnz.slices == ref.slices && m.nnz.rounds == ref.rounds && m.nnz.grid_cols == ref.grid_cols &&
                        (m.needed != nullptr) == needed;
      check(same, "tile metadata (lambda = " + std::to_string(lambda) + (needed ? ", needed rows" : ", whole tiles") +
                      "): the size table equals the reference Allreduce's");
    }
  }
}

// ---- runOrAbort ---------------------------------------------------------------------------------

void testRunOrAbortPassThrough() {
  const int v = runOrAbort(MPI_COMM_WORLD, "test: value", [] { return 42; });
  check(v == 42, "runOrAbort returns the phase's value");
  int& ref = runOrAbort(MPI_COMM_WORLD, "test: reference", [&]() -> int& { return gPassed; });
  check(&ref == &gPassed, "runOrAbort returns references as references");
  bool caught = false;
  std::string msg;
  try {
    runOrAbort(MPI_COMM_WORLD, "test: collective error",
               [] { throwIfAnyRank(MPI_COMM_WORLD, gRank == gSize - 1, "bad input on the last rank"); });
  } catch (const InvalidInput& e) {
    caught = true;
    msg = e.what();
  }
  check(caught && msg.find("bad input on the last rank") != std::string::npos,
        "runOrAbort lets InvalidInput (thrown on every rank) through");
}

// ---- CollectiveCheck: many checks, one collective ------------------------------------------------

void testCollectiveCheck() {
  {
    CollectiveCheck c;
    const std::size_t a = c.contribute(gRank), b = c.contribute(7);
    c.failIf(false, "never");
    c.run(MPI_COMM_WORLD);
    check(c.min(a) == 0 && c.max(a) == gSize - 1 && c.same(b) && !c.same(a) == (gSize > 1),
          "CollectiveCheck: min and max of contributed values over the ranks");
  }
  {
    // Sums ride in the same reduction: values interleaved with sums must come back unmixed.
    CollectiveCheck c;
    const std::size_t s0 = c.contributeSum(gRank + 1);
    const std::size_t a = c.contribute(10 * gRank);
    const std::size_t s1 = c.contributeSum(-3);
    const std::size_t b = c.contribute(-gRank);
    c.run(MPI_COMM_WORLD);
    const long long n = gSize;
    check(c.sum(s0) == n * (n + 1) / 2 && c.sum(s1) == -3 * n && c.min(a) == 0 && c.max(a) == 10 * (n - 1) &&
              c.min(b) == -(n - 1) && c.max(b) == 0,
          "CollectiveCheck: sums and min/max in one reduction");
  }
  {
    // A failure still reaches every rank when sums are contributed.
    std::string m;
    try {
      CollectiveCheck c;
      c.contributeSum(gRank);
      c.failIf(gRank == gSize - 1, "failure with sums");
      c.run(MPI_COMM_WORLD);
    } catch (const InvalidInput& e) {
      m = e.what();
    }
    check(m.find("failure with sums") != std::string::npos, "CollectiveCheck: a failure with sums throws on every rank");
  }
  std::string msg;
  try {
    CollectiveCheck c;
    c.contribute(gRank);
    c.failIf(gRank >= gSize - 2, "rank-local failure " + std::to_string(gRank));
    c.failIf(gRank >= gSize - 2, "second failure of the same rank (not reported)");
    c.run(MPI_COMM_WORLD);
  } catch (const InvalidInput& e) {
    msg = e.what();
  }
  const int first = std::max(0, gSize - 2);
  // Every rank must see the same message: that of the lowest failing rank, its first failure.
  check(msg.find("rank-local failure " + std::to_string(first)) != std::string::npos &&
            msg.find("second failure") == std::string::npos,
        "CollectiveCheck: every rank throws the lowest failing rank's first message (" + msg + ")");
}

int abortMode(const std::string& mode) {
  if (gRank == 0) std::printf("test_robust: abort mode '%s' on %d ranks: the job must abort\n", mode.c_str(), gSize);
  std::fflush(stdout);
  const bool failing = gRank == gSize - 1;
  if (mode == "throw") {
    runOrAbort(MPI_COMM_WORLD, "test: local multiply", [&] {
      if (failing) throw std::bad_alloc();
      MPI_Barrier(MPI_COMM_WORLD);  // waits for the failing rank forever without the guard
    });
  } else if (mode == "gifetch" || mode == "gifetch-ready") {
    auto topo = cachedTopology(MPI_COMM_WORLD, 2);
    Problem p = makeProblem(3000, 3000, 3000, 8, 1.0, 5);
    Setup s = distribute(p, *topo);
    abandonedFetch(s, *topo, failing, true, mode == "gifetch-ready");
    MPI_Barrier(MPI_COMM_WORLD);  // the healthy ranks wait here for the failing one
  } else if (mode == "gifetch-stall" || mode == "gifetch-stall-ready") {
    // The healthy ranks post their sends and then wait in a barrier without receiving: the failing
    // rank's cleanup cannot complete its sends and must end the job itself.
    auto topo = cachedTopology(MPI_COMM_WORLD, 2);
    Problem p = makeProblem(3000, 3000, 3000, 8, 1.0, 5);
    Setup s = distribute(p, *topo);
    NnzTable nnz = gatherNnzTable(s.L, s.tiles, topo->group(), topo->k(), topo->world());
    runOrAbort(MPI_COMM_WORLD, "test: Gi fetch", [&] {
      GiFetch gi(s.L, s.tiles, nnz, topo->group(), topo->k(), topo->gi_comm(), 1, nullptr,
                 mode == "gifetch-stall-ready" ? topo->li_comm() : MPI_COMM_NULL);
      gi.postSends();
      gi.postReceivesUpTo(1);
      if (failing) throw std::runtime_error("injected failure");
      MPI_Barrier(MPI_COMM_WORLD);
    });
  } else {
    if (gRank == 0) std::printf("unknown abort mode\n");
    return 2;
  }
  if (gRank == 0) std::printf("test_robust: the job did not abort\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &gRank);
  MPI_Comm_size(MPI_COMM_WORLD, &gSize);
  for (int a = 1; a < argc; ++a)
    if (std::strncmp(argv[a], "--abort=", 8) == 0) {
      const int rc = abortMode(argv[a] + 8);
      MPI_Finalize();
      return rc;
    }

  testRunOrAbortPassThrough();
  testCollectiveCheck();
  if (gSize != 4) {
    if (gRank == 0) std::printf("test_robust: run it on 4 ranks\n");
    MPI_Finalize();
    return 1;
  }
  testTopologyCache();
  // Before the tests that multiply: a size table that disagrees makes their loops hang.
  testTileMetadataAgainstReference();
  testGiFetchAbandoned(false);
  testGiFetchAbandoned(true);

  const int rank = gRank, failed = gFailed, passed = gPassed, freedBefore = gFreed;
  MPI_Finalize();
  // Inside MPI_Finalize the cache let go of every topology nobody held: all watched communicators
  // are freed by now.
  const int expected = 3 + gWatchedAtFinalize;
  const bool finalizeOk = gFreed == expected;
  if (rank == 0) {
    std::printf("[%s] MPI_Finalize freed the cached topologies' communicators (%d before, %d after, %d expected)\n",
                finalizeOk ? "PASS" : "FAIL", freedBefore, gFreed, expected);
    std::printf("test_robust: %d passed, %d failed\n", passed + (finalizeOk ? 1 : 0), failed + (finalizeOk ? 0 : 1));
  }
  return failed == 0 && finalizeOk ? 0 : 1;
}
