// The fused MCL expansion's row fetch (RowExchange): the hierarchical fetch (nodes of
// --ranks-per-node consecutive ranks; a row owned on another node crosses Gi once per node and is
// shared over Li) returns exactly the rows the flat fetch returns, and both exactly the owners'
// rows (a rank's own ones referenced where they are), for random row distributions and random
// needed sets (none, a few, all rows), in double and float; it moves fewer Gi bytes
// when a node's ranks need the same rows; uneven nodes fall back to the flat fetch.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "Trident_MCLRows.hpp"
#include "common/TestUtils.hpp"

using namespace Trident;
using TridentTest::Tally;

namespace {

// This rank's rows of an n x n random matrix: rows dealt out in random contiguous runs (the same
// on every rank: seeded alike), entries random per row (seeded by the row).
template <class M>
M myRows(long long n, int P, int me, std::vector<long long>& gids) {
  std::mt19937_64 deal(7);
  std::vector<int> owner(static_cast<std::size_t>(n));
  long long at = 0;
  for (int q = 0; q < P; ++q) {
    const long long take = q + 1 == P ? n - at : static_cast<long long>(deal() % static_cast<std::uint64_t>(2 * n / P + 1));
    for (long long t = 0; t < take && at < n; ++t) owner[static_cast<std::size_t>(at++)] = q;
  }
  gids.clear();
  for (long long g = 0; g < n; ++g)
    if (owner[static_cast<std::size_t>(g)] == me) gids.push_back(g);
  M A(static_cast<std::int64_t>(gids.size()), n);
  for (std::size_t i = 0; i < gids.size(); ++i) {
    std::mt19937_64 r(static_cast<std::uint64_t>(gids[i]) * 977 + 1);
    const int len = static_cast<int>(r() % 9);
    std::vector<int> cols;
    for (int t = 0; t < len; ++t) cols.push_back(static_cast<int>(r() % static_cast<std::uint64_t>(n)));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (int c : cols) {
      A.col.push_back(c);
      A.val.push_back(static_cast<typename decltype(A.val)::value_type>(0.25 + 1e-3 * c + gids[i]));
    }
    A.rowptr[i + 1] = static_cast<std::int64_t>(A.col.size());
  }
  return A;
}

// Row g of a fetch as (columns, values).
template <class V>
std::pair<std::vector<int>, std::vector<V>> rowOf(const mcl::FetchedRows<V>& f, long long g) {
  const auto& r = f.refs.row[static_cast<std::size_t>(g)];
  return {std::vector<int>(r.col, r.col + r.len), std::vector<V>(r.val, r.val + r.len)};
}

// Every row of a and b equal, and each row the needed one of the whole matrix (theirs: the rows
// every rank deals itself, as myRows makes them) or empty when not needed.
template <class V>
bool same(const mcl::FetchedRows<V>& a, const mcl::FetchedRows<V>& b, const std::vector<int>& needed,
          const std::vector<std::pair<std::vector<int>, std::vector<V>>>& whole) {
  if (a.refs.nrows() != static_cast<std::int64_t>(whole.size()) || b.refs.nrows() != a.refs.nrows()) return false;
  std::vector<char> isNeeded(whole.size(), 0);
  for (int g : needed) isNeeded[static_cast<std::size_t>(g)] = 1;
  for (std::size_t g = 0; g < whole.size(); ++g) {
    const auto ra = rowOf(a, static_cast<long long>(g));
    if (ra != rowOf(b, static_cast<long long>(g))) return false;
    if (isNeeded[g] ? ra != whole[g] : !ra.first.empty()) return false;
  }
  return true;
}

// The whole matrix's rows, as every rank deals them (myRows on every rank's share).
template <class M>
std::vector<std::pair<std::vector<int>, std::vector<typename decltype(M::val)::value_type>>> wholeRows(long long n,
                                                                                                      int P) {
  std::vector<std::pair<std::vector<int>, std::vector<typename decltype(M::val)::value_type>>> whole(
      static_cast<std::size_t>(n));
  for (int q = 0; q < P; ++q) {
    std::vector<long long> gids;
    const M A = myRows<M>(n, P, q, gids);
    for (std::size_t i = 0; i < gids.size(); ++i)
      whole[static_cast<std::size_t>(gids[i])] = {
          std::vector<int>(A.col.begin() + A.rowptr[i], A.col.begin() + A.rowptr[i + 1]),
          {A.val.begin() + A.rowptr[i], A.val.begin() + A.rowptr[i + 1]}};
  }
  return whole;
}

template <class M>
void run(Tally& tally, const char* type, int ranksPerNode) {
  int P = 1, me = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  const long long n = 500;
  std::vector<long long> gids;
  const M A = myRows<M>(n, P, me, gids);
  const auto whole = wholeRows<M>(n, P);
  mcl::RowExchange flat(gids, n, MPI_COMM_WORLD, 1);  // nodes of one rank: flat
  mcl::RowExchange hier(gids, n, MPI_COMM_WORLD, ranksPerNode);
  const bool expectHier = ranksPerNode > 1 && P % ranksPerNode == 0 && P > ranksPerNode;
  const std::string what = std::string(type) + ", nodes of " + std::to_string(ranksPerNode) + " ranks";
  tally.check(!flat.hierarchical() && hier.hierarchical() == expectHier,
              what + ": hierarchical exactly when there are several equal nodes of more than one rank");
  std::mt19937_64 pick(static_cast<std::uint64_t>(me) * 31 + 5);
  std::uint64_t giFlat = 0, giHier = 0;
  for (int trial = 0; trial < 6; ++trial) {
    std::vector<int> needed;
    // trial 0: nothing; 1-3: random subsets; 4-5: every row (the node's ranks all need the same).
    for (long long g = 0; g < n; ++g) {
      const bool take = trial == 0 ? false : trial >= 4 ? true : pick() % (trial == 1 ? 50 : 3) == 0;
      if (take) needed.push_back(static_cast<int>(g));
    }
    mcl::ExchangeBytes bf, bh;
    const auto a = flat.fetch(A, needed, bf);
    const auto b = hier.fetch(A, needed, bh);
    tally.check(same(a, b, needed, whole),
                what + ", trial " + std::to_string(trial) + ": the needed rows, the same as the flat fetch's");
    if (trial >= 4) {
      giFlat += bf.gi;
      giHier += bh.gi;
    }
  }
  if (expectHier) {
    // Every rank needs every row: the flat fetch brings each remote row once per rank, this one
    // once per node (plus the requests), so its Gi bytes are well under the flat fetch's (the
    // emulated nodes here: ranks of one node count each other as Li in both).
    unsigned long long f = giFlat, h = giHier;
    MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &h, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    tally.check(h * ranksPerNode <= f + f / 10, what + ": Gi bytes about 1/" + std::to_string(ranksPerNode) +
                                                   " of the flat fetch's when every rank needs every row",
                std::to_string(h) + " vs flat " + std::to_string(f));
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Tally tally;
  int P = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  for (int rpn : {2, 3, P}) {
    run<Csr>(tally, "double", rpn);
    run<CsrFloat>(tally, "float", rpn);
  }
  const int rc = tally.finish();
  MPI_Finalize();
  return rc;
}
