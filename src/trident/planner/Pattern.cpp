#include "trident/planner/Pattern.hpp"

#include <algorithm>

namespace Trident {
namespace planner {

Pattern transpose(const Pattern& A) {
  Pattern T;
  T.nrows = A.ncols;
  T.ncols = A.nrows;
  T.rowptr.assign(static_cast<std::size_t>(T.nrows) + 1, 0);
  for (std::int64_t c : A.col) ++T.rowptr[c + 1];
  for (std::int64_t r = 0; r < T.nrows; ++r) T.rowptr[r + 1] += T.rowptr[r];
  T.col.resize(A.col.size());
  std::vector<std::int64_t> next(T.rowptr.begin(), T.rowptr.end() - 1);
  for (std::int64_t r = 0; r < A.nrows; ++r)  // rows in order: each row of T comes out sorted
    for (std::int64_t q = A.rowptr[r]; q < A.rowptr[r + 1]; ++q) T.col[next[A.col[q]]++] = r;
  return T;
}

Pattern multiplyPattern(const Pattern& A, const Pattern& B) {
  Pattern C;
  C.nrows = A.nrows;
  C.ncols = B.ncols;
  C.rowptr.assign(static_cast<std::size_t>(C.nrows) + 1, 0);
  std::vector<std::int64_t> mark(static_cast<std::size_t>(B.ncols), -1);
  for (std::int64_t r = 0; r < A.nrows; ++r) {
    const std::size_t first = C.col.size();
    for (std::int64_t q = A.rowptr[r]; q < A.rowptr[r + 1]; ++q) {
      const std::int64_t k = A.col[q];
      for (std::int64_t t = B.rowptr[k]; t < B.rowptr[k + 1]; ++t)
        if (mark[B.col[t]] != r) {
          mark[B.col[t]] = r;
          C.col.push_back(B.col[t]);
        }
    }
    std::sort(C.col.begin() + static_cast<std::ptrdiff_t>(first), C.col.end());
    C.rowptr[r + 1] = static_cast<std::int64_t>(C.col.size());
  }
  return C;
}

}  // namespace planner
}  // namespace Trident
