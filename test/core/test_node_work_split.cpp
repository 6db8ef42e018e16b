// The split of a group's rows by work (NodeWorkSplit), for every rank of random groups at once:
// every row is computed exactly once, a donor's runs and a receiver's senders agree without a
// message, only the ranks over the average give, and afterwards no rank has more than the
// average plus one row's work. Also the cases at the edges: a balanced group (nothing moves),
// rows without work, a single row heavier than twice the average, ranks without rows.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "common/TestUtils.hpp"
#include "trident/partition/NodeWorkSplit.hpp"

using namespace Trident;
using TridentTest::Tally;

namespace {

using Rows = std::vector<std::vector<std::uint64_t>>;  // per group rank, its rows' multiply-adds

std::vector<std::uint64_t> totalsOf(const Rows& rows) {
  std::vector<std::uint64_t> t;
  for (const auto& r : rows) t.push_back(std::accumulate(r.begin(), r.end(), std::uint64_t{0}));
  return t;
}

// Checks the splits of every rank of one group; returns "" or what is wrong.
std::string checkGroup(const Rows& rows) {
  const int lambda = static_cast<int>(rows.size());
  const std::vector<std::uint64_t> totals = totalsOf(rows);
  std::vector<NodeWorkSplit> s;
  for (int g = 0; g < lambda; ++g) s.push_back(splitNodeWork(totals, g, rows[static_cast<std::size_t>(g)]));
  std::vector<std::uint64_t> work(static_cast<std::size_t>(lambda), 0);
  std::uint64_t heaviestRow = 0;
  for (int g = 0; g < lambda; ++g) {
    const auto& r = rows[static_cast<std::size_t>(g)];
    const NodeWorkSplit& x = s[static_cast<std::size_t>(g)];
    if (x.shared != s[0].shared) return "ranks disagree on sharing";
    for (const std::uint64_t f : r) heaviestRow = std::max(heaviestRow, f);
    std::int64_t next = x.own_end;
    work[static_cast<std::size_t>(g)] += std::accumulate(r.begin(), r.begin() + x.own_end, std::uint64_t{0});
    int lastRank = -1;
    for (const RowRun& run : x.give) {
      if (run.begin != next || run.end < run.begin) return "rank " + std::to_string(g) + "'s runs are not consecutive";
      if (run.rank <= lastRank || run.rank == g) return "rank " + std::to_string(g) + "'s runs go to ranks out of order";
      lastRank = run.rank;
      const auto& takers = s[static_cast<std::size_t>(run.rank)].take_from;
      if (std::find(takers.begin(), takers.end(), g) == takers.end())
        return "rank " + std::to_string(run.rank) + " does not expect rank " + std::to_string(g) + "'s run";
      work[static_cast<std::size_t>(run.rank)] +=
          std::accumulate(r.begin() + run.begin, r.begin() + run.end, std::uint64_t{0});
      next = run.end;
    }
    if (next != static_cast<std::int64_t>(r.size())) return "rank " + std::to_string(g) + "'s rows are not all computed";
    for (const int d : x.take_from) {
      const auto& runs = s[static_cast<std::size_t>(d)].give;
      if (std::none_of(runs.begin(), runs.end(), [g](const RowRun& run) { return run.rank == g; }))
        return "rank " + std::to_string(g) + " expects a run rank " + std::to_string(d) + " does not send";
      if (totals[static_cast<std::size_t>(d)] * lambda <= std::accumulate(totals.begin(), totals.end(), std::uint64_t{0}))
        return "rank " + std::to_string(d) + " gives while not over the average";
    }
  }
  if (!s[0].shared) return work == totals ? "" : "unshared, yet the work moved";
  const std::uint64_t sum = std::accumulate(totals.begin(), totals.end(), std::uint64_t{0});
  for (int g = 0; g < lambda; ++g)
    if (work[static_cast<std::size_t>(g)] * lambda > sum + heaviestRow * lambda)
      return "rank " + std::to_string(g) + " is left with " + std::to_string(work[static_cast<std::size_t>(g)]) +
             " of " + std::to_string(sum) + " (heaviest row " + std::to_string(heaviestRow) + ")";
  return "";
}

// Power-law rows: a few ranks hold most of the work, some rows none.
Rows randomGroup(int lambda, std::mt19937_64& gen) {
  std::uniform_int_distribution<int> nrows(0, 300);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Rows rows(static_cast<std::size_t>(lambda));
  for (auto& r : rows) {
    const double scale = std::pow(10.0, 6.0 * u(gen));
    r.resize(static_cast<std::size_t>(nrows(gen)));
    for (auto& f : r) f = u(gen) < 0.1 ? 0 : static_cast<std::uint64_t>(scale * std::pow(u(gen), 4.0));
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Tally tally;
  tally.verbose(false);
  std::mt19937_64 gen(7);
  int shared = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const Rows rows = randomGroup(2 + trial % 7, gen);
    const std::string why = checkGroup(rows);
    tally.check(why.empty(), "random group " + std::to_string(trial) + " (lambda " + std::to_string(rows.size()) + ")", why);
    shared += nodeWorkWorthSharing(totalsOf(rows)) ? 1 : 0;
  }
  tally.check(shared > 200, "most random groups share (the checks are not vacuous): " + std::to_string(shared));
  const std::uint64_t M = 1000000;
  // email-Enron's A*A at P = 4 in one group: 2.85, 0.68, 0.29, 0.19 times the average.
  const Rows enron{std::vector<std::uint64_t>(285, M / 100), std::vector<std::uint64_t>(68, M / 100),
                   std::vector<std::uint64_t>(29, M / 100), std::vector<std::uint64_t>(19, M / 100)};
  tally.check(checkGroup(enron).empty(), "a power-law group", checkGroup(enron));
  const NodeWorkSplit e0 = splitNodeWork(totalsOf(enron), 0, enron[0]);
  tally.check(e0.shared && e0.own_end == 100 && e0.give.size() == 3 && e0.give[0].end - e0.give[0].begin == 32,
              "the heaviest rank keeps the average and gives each other rank its shortfall");
  const NodeWorkSplit e1 = splitNodeWork(totalsOf(enron), 1, enron[1]);
  tally.check(e1.give.empty() && e1.own_end == 68 && e1.take_from == std::vector<int>{0}, "a light rank keeps its rows");
  const Rows even{std::vector<std::uint64_t>(10, M), std::vector<std::uint64_t>(11, M)};
  tally.check(!splitNodeWork(totalsOf(even), 0, even[0]).shared, "a group within 15 % of its average shares nothing");
  const Rows tiny{std::vector<std::uint64_t>(10, 10000), std::vector<std::uint64_t>()};
  tally.check(!splitNodeWork(totalsOf(tiny), 0, tiny[0]).shared, "too little work to be worth a message shares nothing");
  const Rows oneRow{{0, 10 * M, 0}, {M}, {}};
  tally.check(checkGroup(oneRow).empty(), "a row over twice the average", checkGroup(oneRow));
  const NodeWorkSplit o0 = splitNodeWork(totalsOf(oneRow), 0, oneRow[0]);
  tally.check(o0.own_end == 1 && o0.give.size() == 2 && o0.give[0].begin == 1,
              "a row over twice the average leaves its rank (the row without work before it stays)");
  const Rows empty{{}, {}, {}};
  tally.check(!splitNodeWork(totalsOf(empty), 1, {}).shared, "a group without work shares nothing");
  bool threw = false;
  try {
    splitNodeWork({5, 5}, 0, {1, 2});
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  tally.check(threw, "rows that do not add up to the rank's total are refused");
  const int rc = tally.finish();
  MPI_Finalize();
  return rc;
}
