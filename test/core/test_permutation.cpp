// The random relabeling (trident/partition/Permutation.hpp): a bijection of [0, n) for every n,
// inverse() undoes it, it depends only on (n, seed), it really shuffles, and it costs no memory
// per element (a 3e9-element one is built and evaluated instantly).
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/TestUtils.hpp"
#include "trident/partition/Permutation.hpp"

using Trident::Permutation;
using TridentTest::Tally;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Tally tally;
  tally.verbose(false);
  for (std::int64_t n : {1, 2, 3, 4, 5, 7, 8, 9, 100, 1000, 1023, 1024, 1025, 65537, 300007}) {
    for (std::uint64_t seed : {0ull, 12345ull}) {
      const Permutation p(n, seed);
      std::vector<char> hit(static_cast<std::size_t>(n), 0);
      bool ok = !p.identity(), inv = true;
      std::int64_t fixed = 0, displaced = 0;
      for (std::int64_t x = 0; x < n; ++x) {
        const std::int64_t y = p(x);
        if (y < 0 || y >= n || hit[y]) {
          ok = false;
          break;
        }
        hit[y] = 1;
        inv = inv && p.inverse(y) == x;
        fixed += y == x;
        displaced += (y > x ? y - x : x - y);
      }
      const std::string what = "n=" + std::to_string(n) + " seed=" + std::to_string(seed);
      tally.check(ok, what + ": a bijection of [0, n)");
      tally.check(inv, what + ": inverse undoes it");
      if (n >= 1000) {
        // A random permutation has about one fixed point and moves elements n/3 on average.
        tally.check(fixed < 20, what + ": few fixed points", std::to_string(fixed));
        const double mean = static_cast<double>(displaced) / static_cast<double>(n);
        tally.check(mean > 0.25 * n && mean < 0.42 * n, what + ": mean displacement near n/3", std::to_string(mean));
      }
    }
  }
  // Same (n, seed), same permutation; another seed, another one.
  const Permutation a(5000, 7), b(5000, 7), c(5000, 8);
  bool same = true, differ = false;
  for (std::int64_t x = 0; x < 5000; ++x) {
    same = same && a(x) == b(x);
    differ = differ || a(x) != c(x);
  }
  tally.check(same && differ, "deterministic from (n, seed)");
  tally.check(Permutation()(42) == 42 && Permutation().inverse(42) == 42 && Permutation().identity(), "default is identity");

  // Beyond 2^31 and 2^32: O(1) memory, values in range, inverse exact.
  for (std::int64_t n : {std::int64_t{3000000000}, std::int64_t{1} << 40, (std::int64_t{1} << 62) + 12345}) {
    const Permutation p(n, 99);
    bool ok = true;
    for (std::int64_t x : {std::int64_t{0}, std::int64_t{1}, n / 2, n - 2, n - 1}) {
      const std::int64_t y = p(x);
      ok = ok && y >= 0 && y < n && p.inverse(y) == x;
    }
    tally.check(ok, "n=" + std::to_string(n) + ": in range and invertible");
  }
  const int rc = tally.finish();
  MPI_Finalize();
  return rc;
}
