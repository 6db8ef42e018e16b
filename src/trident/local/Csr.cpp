#include "trident/local/Csr.hpp"

#include <algorithm>
#include <numeric>

namespace Trident {

void Csr::allocate(std::int64_t rows, std::int64_t cols, std::int64_t nz) {
  nrows = rows;
  ncols = cols;
  rowptr.assign(rows + 1, 0);
  col.resize(nz);
  val.resize(nz);
}

void Csr::sortRows() {
  std::vector<std::int64_t> perm;
  std::vector<int> c;
  std::vector<double> v;
  for (std::int64_t r = 0; r < nrows; ++r) {
    const std::int64_t b = rowptr[r], e = rowptr[r + 1];
    if (std::is_sorted(col.begin() + b, col.begin() + e)) continue;
    perm.resize(e - b);
    std::iota(perm.begin(), perm.end(), b);
    std::sort(perm.begin(), perm.end(), [&](std::int64_t x, std::int64_t y) { return col[x] < col[y]; });
    c.resize(e - b);
    v.resize(e - b);
    for (std::int64_t t = 0; t < e - b; ++t) {
      c[t] = col[perm[t]];
      v[t] = val[perm[t]];
    }
    std::copy(c.begin(), c.end(), col.begin() + b);
    std::copy(v.begin(), v.end(), val.begin() + b);
  }
}

Csr csrFromTriplets(std::int64_t nrows, std::int64_t ncols, const std::vector<std::int64_t>& rows,
                    const std::vector<int>& cols, const std::vector<double>& vals, bool sort_rows) {
  Csr m(nrows, ncols);
  const std::size_t nz = rows.size();
  for (std::size_t t = 0; t < nz; ++t) ++m.rowptr[rows[t] + 1];
  for (std::int64_t r = 0; r < nrows; ++r) m.rowptr[r + 1] += m.rowptr[r];
  m.col.resize(nz);
  m.val.resize(nz);
  std::vector<std::int64_t> next(m.rowptr.begin(), m.rowptr.end() - 1);
  for (std::size_t t = 0; t < nz; ++t) {
    const std::int64_t at = next[rows[t]]++;
    m.col[at] = cols[t];
    m.val[at] = vals[t];
  }
  if (sort_rows) m.sortRows();
  return m;
}

Csr columnsToRows(const Csr& A, const std::vector<int>& rows) {
  Csr out(A.nrows, static_cast<std::int64_t>(rows.size()));
  out.col.reserve(A.col.size());
  out.val.reserve(A.val.size());
  for (std::int64_t r = 0; r < A.nrows; ++r) {
    for (std::int64_t p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p) {
      const auto at = std::lower_bound(rows.begin(), rows.end(), A.col[p]);
      if (at == rows.end() || *at != A.col[p]) continue;
      out.col.push_back(static_cast<int>(at - rows.begin()));
      out.val.push_back(A.val[p]);
    }
    out.rowptr[r + 1] = static_cast<std::int64_t>(out.col.size());
  }
  return out;
}

Csr stackRows(const std::vector<const Csr*>& parts) {
  Csr out;
  std::int64_t rows = 0, nz = 0;
  for (const Csr* p : parts) {
    rows += p->nrows;
    nz += p->nnz();
    out.ncols = p->ncols;
  }
  out.nrows = rows;
  out.rowptr.assign(1, 0);
  out.rowptr.reserve(rows + 1);
  out.col.reserve(nz);
  out.val.reserve(nz);
  for (const Csr* p : parts) {
    const std::int64_t base = out.col.size();
    for (std::int64_t r = 1; r <= p->nrows; ++r) out.rowptr.push_back(base + p->rowptr[r]);
    out.col.insert(out.col.end(), p->col.begin(), p->col.end());
    out.val.insert(out.val.end(), p->val.begin(), p->val.end());
  }
  return out;
}

}  // namespace Trident
