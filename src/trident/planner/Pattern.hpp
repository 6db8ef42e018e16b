#pragma once
// The sparsity pattern of a whole matrix, held by one process: what the planner reads. Rows and
// columns are 0-based global indices (Tpetra GIDs with index base 0); values are not needed,
// since no algorithm's byte volume depends on them. Stored zeros that the library skips (in
// op(A)) must be left out by whoever builds the pattern.
#include <cstdint>
#include <vector>

namespace Trident {
namespace planner {

struct Pattern {
  std::int64_t nrows = 0, ncols = 0;
  std::vector<std::int64_t> rowptr{0};
  std::vector<std::int64_t> col;
  // The rank that holds each row in the 1D distribution the multiply starts from; empty: Tpetra's
  // uniform contiguous map over the P ranks being planned for (Uniform1D).
  std::vector<int> owner;

  std::int64_t nnz() const { return rowptr.empty() ? 0 : rowptr.back(); }
  std::int64_t rowNnz(std::int64_t r) const { return rowptr[r + 1] - rowptr[r]; }
};

// Tpetra's uniform contiguous distribution of n indices over P ranks (Tpetra::Map(n, 0, comm)):
// the first n % P ranks get one index more. Matrices read by io::readMatrixMarket and built by
// the generators are distributed this way.
struct Uniform1D {
  std::int64_t n = 0;
  int P = 1;
  std::int64_t q = 0, r = 0;
  Uniform1D(std::int64_t n_, int P_) : n(n_), P(P_), q(n_ / P_), r(n_ % P_) {}
  std::int64_t start(int p) const { return p * q + (p < r ? p : r); }
  int owner(std::int64_t g) const {
    const std::int64_t big = r * (q + 1);
    if (g < big) return static_cast<int>(g / (q + 1));
    return static_cast<int>(r + (g - big) / q);
  }
};

// owner of row r of M when M's rows are spread over P ranks: M.owner[r], or uniform.
inline int rowOwner(const Pattern& M, const Uniform1D& uniform, std::int64_t r) {
  return M.owner.empty() ? uniform.owner(r) : M.owner[r];
}

// The transpose pattern (rows sorted by column within each row).
Pattern transpose(const Pattern& A);
// The pattern of A*B (symbolic product), for chained products (R*(A*P)).
Pattern multiplyPattern(const Pattern& A, const Pattern& B);

}  // namespace planner
}  // namespace Trident
