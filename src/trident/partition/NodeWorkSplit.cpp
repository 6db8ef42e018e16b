#include "trident/partition/NodeWorkSplit.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace Trident {

namespace {

// Amounts are scaled by the group size λ, so that the average is the group's total T and no
// rounding can make two ranks disagree.
using Amount = unsigned __int128;

// The ranks over the average give their excess, in rank order, to the ranks under it, in rank
// order: two tapes of equal length (the excess and the shortfall) laid side by side; d gives g
// where their intervals overlap.
struct Tapes {
  Amount target = 0;                   // the average, scaled: T
  std::vector<Amount> start, length;   // each rank's interval on its tape (excess or deficit)
  std::vector<bool> donor;
  bool pairs(int d, int g) const {     // d gives g a positive amount
    if (!donor[static_cast<std::size_t>(d)] || donor[static_cast<std::size_t>(g)]) return false;
    const auto du = static_cast<std::size_t>(d), gu = static_cast<std::size_t>(g);
    return std::max(start[du], start[gu]) < std::min(start[du] + length[du], start[gu] + length[gu]);
  }
};

Tapes tapesOf(const std::vector<std::uint64_t>& totals) {
  Tapes t;
  const Amount lambda = totals.size();
  t.target = std::accumulate(totals.begin(), totals.end(), Amount{0});
  Amount excess = 0, deficit = 0;
  for (const std::uint64_t total : totals) {
    const Amount scaled = lambda * total;
    t.donor.push_back(scaled > t.target);
    t.start.push_back(t.donor.back() ? excess : deficit);
    t.length.push_back(t.donor.back() ? scaled - t.target : t.target - scaled);
    (t.donor.back() ? excess : deficit) += t.length.back();
  }
  return t;
}

// The rank that computes each of a donor's rows: itself up to the average (by the row's midpoint),
// then the ranks under the average in the order of its excess; rows without work stay with the
// row before them.
std::vector<int> rankOfRows(const Tapes& t, int me, const std::vector<std::uint64_t>& row_flops) {
  const Amount lambda = t.donor.size();
  std::vector<int> who(row_flops.size(), me);
  Amount x = 0;  // my rows' work before row r, scaled
  int last = me, g = 0;
  for (std::size_t r = 0; r < row_flops.size(); ++r) {
    const Amount f = lambda * row_flops[r];
    if (f > 0 && 2 * x + f >= 2 * t.target) {
      // position on the excess tape (doubled, as the midpoint is)
      const Amount m = 2 * t.start[static_cast<std::size_t>(me)] + (2 * x + f - 2 * t.target);
      while (g < static_cast<int>(lambda) &&
             (t.donor[static_cast<std::size_t>(g)] ||
              2 * (t.start[static_cast<std::size_t>(g)] + t.length[static_cast<std::size_t>(g)]) <= m))
        ++g;
      last = g < static_cast<int>(lambda) ? g : last;
    }
    who[r] = last;
    x += f;
  }
  return who;
}

}  // namespace

bool nodeWorkWorthSharing(const std::vector<std::uint64_t>& totals) {
  if (totals.size() < 2) return false;
  const double sum = std::accumulate(totals.begin(), totals.end(), 0.0);
  const double avg = sum / static_cast<double>(totals.size());
  const double most = static_cast<double>(*std::max_element(totals.begin(), totals.end()));
  // 2^17 multiply-adds are 0.1-0.3 ms of the kernel, several times a message's round trip over Li.
  return most > 1.15 * avg && most - avg > 131072.0;
}

NodeWorkSplit splitNodeWork(const std::vector<std::uint64_t>& totals, int me, const std::vector<std::uint64_t>& row_flops) {
  const int lambda = static_cast<int>(totals.size());
  if (me < 0 || me >= lambda) throw std::invalid_argument("splitNodeWork: rank outside the group");
  if (std::accumulate(row_flops.begin(), row_flops.end(), std::uint64_t{0}) != totals[static_cast<std::size_t>(me)])
    throw std::invalid_argument("splitNodeWork: the rows' multiply-adds do not add up to the rank's total");
  NodeWorkSplit s;
  s.own_end = static_cast<std::int64_t>(row_flops.size());
  if (!nodeWorkWorthSharing(totals)) return s;
  s.shared = true;
  const Tapes t = tapesOf(totals);
  for (int g = 0; g < lambda; ++g)
    if (t.pairs(g, me)) s.take_from.push_back(g);
  if (!t.donor[static_cast<std::size_t>(me)]) return s;
  const std::vector<int> who = rankOfRows(t, me, row_flops);
  s.own_end = std::find_if(who.begin(), who.end(), [me](int w) { return w != me; }) - who.begin();
  for (int g = 0; g < lambda; ++g) {
    if (!t.pairs(me, g)) continue;
    const auto b = std::find_if(who.begin() + s.own_end, who.end(), [g](int w) { return w >= g; }) - who.begin();
    const auto e = std::find_if(who.begin() + b, who.end(), [g](int w) { return w > g; }) - who.begin();
    s.give.push_back({g, b, e});
  }
  if (!s.give.empty() && s.give.back().end != static_cast<std::int64_t>(row_flops.size()))
    throw std::logic_error("splitNodeWork: a donor's runs do not cover its rows");
  return s;
}

}  // namespace Trident
