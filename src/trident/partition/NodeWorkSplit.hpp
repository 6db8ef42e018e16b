#pragma once
// Work shared inside a group (a node) in the row-wise product. A rank whose rows weigh more
// multiply-adds than the group's average keeps its first rows up to the average and gives the rest,
// in order, to the ranks under the average (in rank order, each up to its shortfall); their rows of
// C come back to it over Li, so C never leaves its node and never crosses Gi. Power-law graphs in
// their own order put most of the work on a few ranks (email-Enron's A*A at P = 4: 2.85, 0.68, 0.29
// and 0.19 times the average), which a cut by rows cannot move without moving C between nodes.
// Only the excess moves: a prefix cut of the group's rows into equal runs would also move the light
// ranks' rows along the sequence, and their rows of C back.
//
// Every rank computes its part from the group's totals and its own rows' counts only, and every
// rank of the group reaches the same decision, so senders and receivers agree without asking.
#include <cstdint>
#include <vector>

namespace Trident {

// Rows [begin, end) of this rank's rows, computed by group rank `rank`.
struct RowRun {
  int rank = 0;
  std::int64_t begin = 0, end = 0;
};

struct NodeWorkSplit {
  bool shared = false;          // false: every rank computes its own rows (the group is balanced)
  std::int64_t own_end = 0;     // the rows this rank computes itself: [0, own_end)
  std::vector<RowRun> give;     // the rest, ascending; a run may be empty (its rank still gets a message)
  std::vector<int> take_from;   // the group ranks that send this rank a run (possibly empty), ascending
};

// True when sharing pays: the busiest rank is over 15% above the group's average and by more
// multiply-adds than the exchange's latency is worth. The same answer on every rank of the group.
bool nodeWorkWorthSharing(const std::vector<std::uint64_t>& totals);

// totals[g]: group rank g's multiply-adds; me: this rank's index in the group; row_flops: this
// rank's rows' multiply-adds (sum = totals[me]). A row goes where its midpoint falls; rows without
// work stay with the row before them, so a donor's own rows are a prefix and its runs follow it in
// ascending order. A rank under the average keeps all its rows.
NodeWorkSplit splitNodeWork(const std::vector<std::uint64_t>& totals, int me,
                            const std::vector<std::uint64_t>& row_flops);

}  // namespace Trident
