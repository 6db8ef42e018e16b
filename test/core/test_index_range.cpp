// Tiles index their columns (and the kernels their rows) with 32 bits: a layout whose tile is
// wider than 2^31 - 1 columns, or whose slice has more rows, must be rejected with
// Trident::InvalidInput naming the sizes and the fix, never silently truncated. With the G x 1
// grid a tile of B is as wide as the whole matrix.
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/TestUtils.hpp"
#include "trident/core/Errors.hpp"
#include "trident/partition/Redistribute.hpp"

using namespace Trident;
using TridentTest::Tally;

namespace {

// "" when the layout passes, else the message.
std::string check(const TileGrid& g, int slices, std::int64_t m, std::int64_t k, std::int64_t n) {
  const std::vector<std::int64_t> none;
  const Layout L = makeLayout(g, slices, m, k, n, none, none, none, none, MPI_COMM_WORLD);
  try {
    checkLocalIndexRange(L);
  } catch (const InvalidInput& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Tally tally;
  const std::int64_t big = 3000000000;  // > 2^31 - 1
  {
    const std::string e = check(TileGrid::rowsOnly(4), 1, 1000, 1000, big);
    tally.check(has(e, "a tile of B is 3000000000 columns wide") && has(e, "square"),
                "G x 1 grid, B 3e9 wide: rejected, names the width and the fix", e);
  }
  {
    // 2 x 2 grid: tiles of 1.5e9 columns and slices of 1.5e9 rows fit.
    const std::string e = check(TileGrid::forUnits(4), 1, big, big, big);
    tally.check(e.empty(), "2 x 2 grid, 3e9 x 3e9: every tile fits", e);
  }
  {
    const std::string e = check(TileGrid::forUnits(1), 1, 10, 10, big);
    tally.check(has(e, "a tile of B is 3000000000 columns wide"), "one group, 3e9 columns: rejected", e);
  }
  {
    const std::string e = check(TileGrid::forUnits(1), 1, big, 10, 10);
    tally.check(has(e, "a slice of A has 3000000000 rows"), "one group, 3e9 rows of A in one slice: rejected", e);
  }
  const int rc = tally.finish();
  MPI_Finalize();
  return rc;
}
