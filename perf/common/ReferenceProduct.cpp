#include "ReferenceProduct.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace peers {

Reference referenceProduct(const Csr& A, const Csr& B) {
  if (A.cols != B.rows)
    throw std::invalid_argument("reference product: inner dimensions " + std::to_string(A.cols) + " and " +
                                std::to_string(B.rows) + " differ");
  Reference R;
  R.C.rows = A.rows;
  R.C.cols = B.cols;
  std::vector<double> acc(static_cast<size_t>(B.cols), 0.0), accAbs(static_cast<size_t>(B.cols), 0.0);
  std::vector<long long> mark(static_cast<size_t>(B.cols), -1), cols;
  for (long long i = 0; i < A.rows; ++i) {
    cols.clear();
    for (long long ka = A.ptr[i]; ka < A.ptr[i + 1]; ++ka) {
      const long long k = A.col[ka];
      const double a = A.val[ka];
      for (long long kb = B.ptr[k]; kb < B.ptr[k + 1]; ++kb) {
        const long long j = B.col[kb];
        if (mark[j] != i) {
          mark[j] = i;
          acc[j] = 0.0;
          accAbs[j] = 0.0;
          cols.push_back(j);
        }
        acc[j] += a * B.val[kb];
        accAbs[j] += std::abs(a) * std::abs(B.val[kb]);
      }
    }
    std::sort(cols.begin(), cols.end());
    for (long long j : cols) {
      R.C.col.push_back(j);
      R.C.val.push_back(acc[j]);
      R.scale.push_back(accAbs[j]);
    }
    R.C.ptr.push_back(static_cast<long long>(R.C.col.size()));
  }
  return R;
}

long long compareWithReference(const Reference& ref, const Csr& C, std::string* first) {
  std::ostringstream msg;
  if (C.rows != ref.C.rows || C.cols != ref.C.cols) {
    msg << "dimensions " << C.rows << " x " << C.cols << " vs the reference's " << ref.C.rows << " x " << ref.C.cols;
    if (first) *first = msg.str();
    return std::max<long long>(1, C.rows);
  }
  long long bad = 0;
  for (long long i = 0; i < C.rows; ++i) {
    const long long b0 = C.ptr[i], n = C.ptr[i + 1] - b0, r0 = ref.C.ptr[i], nr = ref.C.ptr[i + 1] - r0;
    bool rowBad = n != nr;
    if (rowBad && bad == 0) msg << "row " << i << ": " << n << " entries vs the reference's " << nr;
    for (long long k = 0; !rowBad && k < n; ++k) {
      const double x = C.val[b0 + k], y = ref.C.val[r0 + k];
      if (C.col[b0 + k] != ref.C.col[r0 + k] || !(std::abs(x - y) <= 1e-12 * ref.scale[r0 + k])) {
        rowBad = true;
        if (bad == 0)
          msg << "row " << i << ", entry " << k << ": (" << C.col[b0 + k] << ", " << std::setprecision(17) << x
              << ") vs the reference's (" << ref.C.col[r0 + k] << ", " << y << ")";
      }
    }
    if (rowBad) ++bad;
  }
  if (first) *first = msg.str();
  return bad;
}

}  // namespace peers
