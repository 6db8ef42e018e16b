#pragma once
// Entries as (row, col, value) in position space: the form in which entries move between
// distributions (Redistribute.hpp).
#include <cstddef>
#include <cstdint>
#include <vector>

namespace Trident {

struct Triplets {
  std::vector<std::int64_t> row, col;
  std::vector<double> val;
  std::size_t size() const { return row.size(); }
  void reserve(std::size_t n) { row.reserve(n); col.reserve(n); val.reserve(n); }
  void push(std::int64_t r, std::int64_t c, double v) { row.push_back(r); col.push_back(c); val.push_back(v); }
};

}  // namespace Trident
