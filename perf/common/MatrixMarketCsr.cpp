#include "MatrixMarketCsr.hpp"

#include <algorithm>
#include <stdexcept>

#include "trident/io/MatrixMarketReader.hpp"

namespace peers {

Csr csrFromTriplets(long long rows, long long cols, const std::vector<long long>& r, const std::vector<long long>& c,
                    const std::vector<double>& v) {
  Csr A;
  A.rows = rows;
  A.cols = cols;
  std::vector<long long> ptr(static_cast<size_t>(rows) + 1, 0);
  for (long long i : r) ++ptr[static_cast<size_t>(i) + 1];
  for (long long i = 0; i < rows; ++i) ptr[i + 1] += ptr[i];
  std::vector<std::pair<long long, double>> ent(r.size());
  {
    std::vector<long long> next(ptr.begin(), ptr.end() - 1);
    for (size_t k = 0; k < r.size(); ++k) ent[static_cast<size_t>(next[r[k]]++)] = {c[k], v[k]};
  }
  A.ptr.assign(1, 0);
  A.ptr.reserve(static_cast<size_t>(rows) + 1);
  A.col.reserve(ent.size());
  A.val.reserve(ent.size());
  for (long long i = 0; i < rows; ++i) {
    auto b = ent.begin() + ptr[i], e = ent.begin() + ptr[i + 1];
    // Stable, so that duplicates are summed in file order, as the Tpetra adapter sums them.
    std::stable_sort(b, e, [](const auto& x, const auto& y) { return x.first < y.first; });
    for (auto it = b; it != e; ++it) {
      if (A.col.size() > static_cast<size_t>(A.ptr.back()) && A.col.back() == it->first)
        A.val.back() += it->second;
      else {
        A.col.push_back(it->first);
        A.val.push_back(it->second);
      }
    }
    A.ptr.push_back(static_cast<long long>(A.col.size()));
  }
  return A;
}

Csr readMatrixMarket(const std::string& path) {
  std::vector<long long> ri, ci;
  std::vector<double> vi;
  Trident::mmio::Header h;
  try {
    Trident::mmio::Reader rd(path);
    h = rd.header();
    // Reserved for what the file can hold, not for what its size line claims.
    long long cap = h.entries;
    if (rd.fileBytes() >= 0) cap = std::min(cap, rd.fileBytes() / 4 + 1);
    const size_t reserve = static_cast<size_t>(cap) * (h.symmetry == Trident::mmio::Symmetry::kGeneral ? 1 : 2);
    ri.reserve(reserve);
    ci.reserve(reserve);
    vi.reserve(reserve);
    rd.entries([&](long long i, long long j, double v) {
      ri.push_back(i);
      ci.push_back(j);
      vi.push_back(v);
    });
  } catch (const Trident::mmio::ParseError& e) {
    throw std::runtime_error(std::string(e.what()) + " (" + path + ")");
  }
  return csrFromTriplets(h.rows, h.cols, ri, ci, vi);
}

Csr transpose(const Csr& A) {
  Csr T;
  T.rows = A.cols;
  T.cols = A.rows;
  T.ptr.assign(static_cast<size_t>(A.cols) + 1, 0);
  for (long long c : A.col) ++T.ptr[static_cast<size_t>(c) + 1];
  for (long long i = 0; i < A.cols; ++i) T.ptr[i + 1] += T.ptr[i];
  T.col.resize(A.col.size());
  T.val.resize(A.val.size());
  std::vector<long long> next(T.ptr.begin(), T.ptr.end() - 1);
  // Rows of A in increasing order keep the columns of T sorted.
  for (long long i = 0; i < A.rows; ++i)
    for (long long k = A.ptr[i]; k < A.ptr[i + 1]; ++k) {
      const long long d = next[static_cast<size_t>(A.col[k])]++;
      T.col[d] = i;
      T.val[d] = A.val[k];
    }
  return T;
}

}  // namespace peers
