#pragma once
// The rows a rank's triplets touch and their entry counts, in row order: the positions and
// weights makeLayout takes. Trilinos-free, for the tests that build layouts by hand.
#include <cstdint>
#include <map>
#include <vector>

#include <trident/partition/Redistribute.hpp>

namespace TridentTest {

inline void rowsAndEntries(const Trident::Triplets& T, std::vector<std::int64_t>& pos, std::vector<std::int64_t>& nnz) {
  std::map<std::int64_t, std::int64_t> c;
  for (auto r : T.row) ++c[r];
  for (const auto& e : c) {
    pos.push_back(e.first);
    nnz.push_back(e.second);
  }
}

}  // namespace TridentTest
