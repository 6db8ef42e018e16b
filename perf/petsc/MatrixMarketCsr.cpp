#include "MatrixMarketCsr.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace petsc_peer {
namespace {

bool isWs(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

void skipWs(const char*& p, const char* e) {
  while (p < e && isWs(*p)) ++p;
}

bool parseLL(const char*& p, const char* e, long long& v) {
  skipWs(p, e);
  if (p < e && *p == '+') ++p;
  auto res = std::from_chars(p, e, v);
  if (res.ec != std::errc() || (res.ptr < e && !isWs(*res.ptr))) return false;
  p = res.ptr;
  return true;
}

bool parseDouble(const char*& p, const char* e, double& v) {
  skipWs(p, e);
  if (p < e && *p == '+') ++p;
  auto res = std::from_chars(p, e, v, std::chars_format::general);
  if (res.ec != std::errc() || (res.ptr < e && !isWs(*res.ptr))) return false;
  p = res.ptr;
  return true;
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> tokens(const char* p, const char* e) {
  std::vector<std::string> t;
  for (;;) {
    skipWs(p, e);
    if (p >= e) break;
    const char* q = p;
    while (q < e && !isWs(*q)) ++q;
    t.emplace_back(p, q);
    p = q;
  }
  return t;
}

std::vector<char> slurp(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  std::vector<char> buf;
  char chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, f)) > 0) buf.insert(buf.end(), chunk, chunk + got);
  const bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) throw std::runtime_error("read error on " + path);
  return buf;
}

}  // namespace

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
    std::sort(b, e, [](const auto& x, const auto& y) { return x.first < y.first; });
    for (auto it = b; it != e; ++it) {
      if (A.col.size() > static_cast<size_t>(A.ptr.back()) && A.col.back() == it->first)
        A.val.back() += it->second;  // duplicates are summed, as Trident's reader does
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
  const std::vector<char> buf = slurp(path);
  const char* cur = buf.data();
  const char* const end = buf.data() + buf.size();
  long long lineNo = 0;
  const char *s = nullptr, *e = nullptr;
  auto nextLine = [&]() {
    if (cur >= end) return false;
    s = cur;
    const void* nl = std::memchr(cur, '\n', static_cast<size_t>(end - cur));
    e = nl ? static_cast<const char*>(nl) : end;
    cur = nl ? e + 1 : end;
    ++lineNo;
    return true;
  };
  auto blankOrComment = [&]() {
    const char* p = s;
    skipWs(p, e);
    return p == e || *p == '%';
  };
  auto fail = [&](const std::string& m) {
    return std::runtime_error(path + ": line " + std::to_string(lineNo) + ": " + m);
  };

  if (!nextLine()) throw std::runtime_error(path + ": empty file (no %%MatrixMarket header)");
  bool pattern = false;
  int sym = 0;  // 0 general, 1 symmetric, 2 skew-symmetric
  {
    auto t = tokens(s, e);
    if (t.empty() || lower(t[0]) != "%%matrixmarket") throw fail("the first line must start with %%MatrixMarket");
    if (t.size() < 5) throw fail("expected '%%MatrixMarket matrix coordinate <field> <symmetry>'");
    if (lower(t[1]) != "matrix") throw fail("unsupported object '" + t[1] + "' (only 'matrix')");
    if (lower(t[2]) != "coordinate") throw fail("unsupported format '" + t[2] + "' (only 'coordinate')");
    const std::string fld = lower(t[3]);
    if (fld == "pattern")
      pattern = true;
    else if (fld != "real" && fld != "double" && fld != "integer")
      throw fail("unsupported field '" + t[3] + "' (real, integer or pattern)");
    const std::string sy = lower(t[4]);
    if (sy == "symmetric")
      sym = 1;
    else if (sy == "skew-symmetric")
      sym = 2;
    else if (sy != "general")
      throw fail("unsupported symmetry '" + t[4] + "' (general, symmetric or skew-symmetric)");
  }
  do {
    if (!nextLine()) throw std::runtime_error(path + ": file ends before the size line");
  } while (blankOrComment());
  long long rows, cols, entries;
  {
    const char* p = s;
    if (!parseLL(p, e, rows) || !parseLL(p, e, cols) || !parseLL(p, e, entries))
      throw fail("bad size line: expected three integers 'rows cols entries'");
    skipWs(p, e);
    if (p != e) throw fail("bad size line: unexpected text after 'rows cols entries'");
    if (rows < 0 || cols < 0 || entries < 0) throw fail("bad size line: negative size");
    if (sym != 0 && rows != cols) throw fail("bad size line: a symmetric matrix must be square");
  }
  std::vector<long long> ri, ci;
  std::vector<double> vi;
  const size_t reserve = static_cast<size_t>(entries) * (sym ? 2 : 1);
  ri.reserve(reserve);
  ci.reserve(reserve);
  vi.reserve(reserve);
  long long k = 0;
  while (k < entries) {
    if (!nextLine())
      throw std::runtime_error(path + ": file ends after " + std::to_string(k) + " of " + std::to_string(entries) +
                               " declared entries (truncated file?)");
    if (blankOrComment()) continue;
    const char* p = s;
    long long i, j;
    double v = 1.0;
    if (!parseLL(p, e, i) || !parseLL(p, e, j)) throw fail("non-numeric or missing row/column index");
    if (!pattern && !parseDouble(p, e, v)) throw fail("non-numeric or missing value");
    skipWs(p, e);
    if (p != e && !pattern) throw fail("unexpected text after the entry");
    if (i < 1 || i > rows || j < 1 || j > cols)
      throw fail("index (" + std::to_string(i) + ", " + std::to_string(j) + ") out of range for a " +
                 std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
    ri.push_back(i - 1);
    ci.push_back(j - 1);
    vi.push_back(v);
    if (sym != 0 && i != j) {
      ri.push_back(j - 1);
      ci.push_back(i - 1);
      vi.push_back(sym == 2 ? -v : v);
    }
    ++k;
  }
  while (nextLine())
    if (!blankOrComment()) throw fail("more entries than the " + std::to_string(entries) + " declared in the size line");
  return csrFromTriplets(rows, cols, ri, ci, vi);
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

}  // namespace petsc_peer
