// Matrix Market I/O: a chunked fread + from_chars coordinate parser on rank 0, distribution of
// the rows over a uniform contiguous row map with raw MPI, and a gathering writer.
#include "Trident_UniformRows.hpp"
#include "Trident_MatrixMarket.hpp"

#include <mpi.h>

#include <Teuchos_DefaultMpiComm.hpp>
#include <Tpetra_Map.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

namespace Trident {
namespace io {
namespace {

// ---- communication helpers (raw MPI; a non-MPI comm must have one rank) ----------------------

MPI_Comm rawComm(const Teuchos::Comm<int>& comm) {
  if (auto* mc = dynamic_cast<const Teuchos::MpiComm<int>*>(&comm)) return *mc->getRawMpiComm();
  if (comm.getSize() == 1) return MPI_COMM_SELF;
  throw std::logic_error("Trident::io: communicator is neither a Teuchos::MpiComm nor of size 1");
}

constexpr size_t kMsgChunk = size_t(1) << 30;  // bytes per MPI message

void sendBytes(const void* data, size_t bytes, int dest, int tag, MPI_Comm comm) {
  const char* p = static_cast<const char*>(data);
  do {
    const size_t n = std::min(bytes, kMsgChunk);
    MPI_Send(p, static_cast<int>(n), MPI_BYTE, dest, tag, comm);
    p += n;
    bytes -= n;
  } while (bytes > 0);
}

void recvBytes(void* data, size_t bytes, int src, int tag, MPI_Comm comm) {
  char* p = static_cast<char*>(data);
  do {
    const size_t n = std::min(bytes, kMsgChunk);
    MPI_Recv(p, static_cast<int>(n), MPI_BYTE, src, tag, comm, MPI_STATUS_IGNORE);
    p += n;
    bytes -= n;
  } while (bytes > 0);
}

// Broadcasts an ok flag and an error message from rank 0; every rank throws the same message.
void agreeOrThrow(bool ok, const std::string& msg, int size, MPI_Comm comm) {
  long long hdr[2] = {ok ? 1 : 0, static_cast<long long>(msg.size())};
  if (size > 1) MPI_Bcast(hdr, 2, MPI_LONG_LONG, 0, comm);
  if (hdr[0]) return;
  std::string m(msg);
  m.resize(static_cast<size_t>(hdr[1]));
  if (size > 1 && hdr[1] > 0) MPI_Bcast(&m[0], static_cast<int>(hdr[1]), MPI_CHAR, 0, comm);
  throw std::runtime_error(m);
}

using Uniform = detail::UniformRows;

// ---- parsing --------------------------------------------------------------------------------

struct ParseError {
  std::string msg;
};

// Reads a file line by line in large chunks. Lines are [s, e) without the newline.
class LineReader {
 public:
  explicit LineReader(FILE* f) : f_(f), buf_(size_t(1) << 24) {}
  long long lineNo() const { return line_; }
  bool next(const char*& s, const char*& e) {
    for (;;) {
      if (beg_ < end_) {
        char* p = static_cast<char*>(std::memchr(buf_.data() + beg_, '\n', end_ - beg_));
        if (p) {
          s = buf_.data() + beg_;
          e = p;
          beg_ = static_cast<size_t>(p - buf_.data()) + 1;
          ++line_;
          return true;
        }
      }
      if (eof_) {
        if (beg_ < end_) {
          s = buf_.data() + beg_;
          e = buf_.data() + end_;
          beg_ = end_;
          ++line_;
          return true;
        }
        return false;
      }
      // Move the partial line to the front, grow if it fills the buffer, read more.
      const size_t len = end_ - beg_;
      if (beg_ > 0 && len > 0) std::memmove(buf_.data(), buf_.data() + beg_, len);
      beg_ = 0;
      end_ = len;
      if (end_ == buf_.size()) buf_.resize(buf_.size() * 2);
      const size_t got = std::fread(buf_.data() + end_, 1, buf_.size() - end_, f_);
      if (got == 0) {
        if (std::ferror(f_)) throw ParseError{"read error"};
        eof_ = true;
      }
      end_ += got;
    }
  }

 private:
  FILE* f_;
  std::vector<char> buf_;
  size_t beg_ = 0, end_ = 0;
  bool eof_ = false;
  long long line_ = 0;
};

inline bool isWs(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
inline void skipWs(const char*& p, const char* e) {
  while (p < e && isWs(*p)) ++p;
}
inline bool blankOrComment(const char* p, const char* e) {
  skipWs(p, e);
  return p == e || *p == '%';
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

enum Field { kReal = 0, kInteger = 1, kPattern = 2 };
enum Sym { kGeneral = 0, kSymmetric = 1, kSkew = 2 };
const char* fieldName(long long f) { return f == kReal ? "real" : f == kInteger ? "integer" : "pattern"; }
const char* symName(long long s) {
  return s == kGeneral ? "general" : s == kSymmetric ? "symmetric" : "skew-symmetric";
}

// Entries destined for one rank (global row, global col, value).
struct Bucket {
  std::vector<long long> rows, cols;
  std::vector<double> vals;
  void add(long long r, long long c, double v) {
    rows.push_back(r);
    cols.push_back(c);
    vals.push_back(v);
  }
};

struct Header {
  long long rows = 0, cols = 0, entries = 0;
  int field = kReal, sym = kGeneral;
};

// Parses the whole file into per-rank buckets. Throws ParseError.
void parseFile(const std::string& path, int P, Header& h, std::vector<Bucket>& buckets) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw ParseError{std::string("cannot open file: ") + std::strerror(errno)};
  struct Closer {
    FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{f};
  LineReader rd(f);
  const char *s, *e;
  auto at = [&](const std::string& m) { return ParseError{"line " + std::to_string(rd.lineNo()) + ": " + m}; };

  // Banner.
  if (!rd.next(s, e)) throw ParseError{"empty file (no %%MatrixMarket header)"};
  {
    auto t = tokens(s, e);
    if (t.empty() || lower(t[0]) != "%%matrixmarket")
      throw at("bad header: the first line must start with %%MatrixMarket");
    if (t.size() < 5) throw at("bad header: expected '%%MatrixMarket matrix coordinate <field> <symmetry>'");
    if (lower(t[1]) != "matrix") throw at("bad header: unsupported object '" + t[1] + "' (only 'matrix')");
    const std::string fmt = lower(t[2]);
    if (fmt == "array") throw at("unsupported format 'array' (dense); only 'coordinate' is supported");
    if (fmt != "coordinate") throw at("bad header: unknown format '" + t[2] + "'");
    const std::string fld = lower(t[3]);
    if (fld == "real" || fld == "double") h.field = kReal;
    else if (fld == "integer") h.field = kInteger;
    else if (fld == "pattern") h.field = kPattern;
    else if (fld == "complex") throw at("unsupported field 'complex'; only real, integer and pattern are supported");
    else throw at("bad header: unknown field '" + t[3] + "'");
    const std::string sym = lower(t[4]);
    if (sym == "general") h.sym = kGeneral;
    else if (sym == "symmetric") h.sym = kSymmetric;
    else if (sym == "skew-symmetric") h.sym = kSkew;
    else if (sym == "hermitian") throw at("unsupported symmetry 'hermitian'");
    else throw at("bad header: unknown symmetry '" + t[4] + "'");
  }

  // Size line.
  for (;;) {
    if (!rd.next(s, e)) throw ParseError{"file ends before the size line"};
    if (!blankOrComment(s, e)) break;
  }
  {
    const char* p = s;
    if (!parseLL(p, e, h.rows) || !parseLL(p, e, h.cols) || !parseLL(p, e, h.entries))
      throw at("bad size line: expected three integers 'rows cols entries'");
    skipWs(p, e);
    if (p != e) throw at("bad size line: unexpected text after 'rows cols entries'");
    if (h.rows < 0 || h.cols < 0 || h.entries < 0) throw at("bad size line: negative size");
    if (h.sym != kGeneral && h.rows != h.cols)
      throw at(std::string("bad size line: a ") + symName(h.sym) + " matrix must be square");
  }

  // Entries.
  const Uniform dist(h.rows, P);
  buckets.assign(static_cast<size_t>(P), Bucket());
  if (P == 1) {
    const size_t reserve = static_cast<size_t>(std::min<long long>(h.entries, 1LL << 26)) *
                           (h.sym == kGeneral ? 1 : 2);
    buckets[0].rows.reserve(reserve);
    buckets[0].cols.reserve(reserve);
    buckets[0].vals.reserve(reserve);
  }
  long long k = 0;
  while (k < h.entries) {
    if (!rd.next(s, e))
      throw ParseError{"file ends after " + std::to_string(k) + " of " + std::to_string(h.entries) +
                       " declared entries (truncated file?)"};
    if (blankOrComment(s, e)) continue;
    const char* p = s;
    long long i, j;
    double v = 1.0;
    if (!parseLL(p, e, i) || !parseLL(p, e, j)) throw at("non-numeric or missing row/column index");
    if (h.field != kPattern) {
      if (!parseDouble(p, e, v)) throw at("non-numeric or missing value");
    }
    skipWs(p, e);
    if (p != e && h.field != kPattern) throw at("unexpected text after the entry");
    if (i < 1 || i > h.rows || j < 1 || j > h.cols)
      throw at("index (" + std::to_string(i) + ", " + std::to_string(j) + ") out of range for a " +
               std::to_string(h.rows) + " x " + std::to_string(h.cols) + " matrix");
    --i;
    --j;
    buckets[static_cast<size_t>(dist.owner(i))].add(i, j, v);
    if (h.sym != kGeneral && i != j)
      buckets[static_cast<size_t>(dist.owner(j))].add(j, i, h.sym == kSkew ? -v : v);
    ++k;
  }
  while (rd.next(s, e)) {
    if (!blankOrComment(s, e))
      throw at("more entries than the " + std::to_string(h.entries) + " declared in the size line");
  }
}

// Row-sorted, duplicate-merged CSR of one rank's rows [start, start+nrows).
struct LocalRows {
  std::vector<long long> counts;  // per local row
  std::vector<long long> cols;
  std::vector<double> vals;
};

LocalRows toLocalRows(Bucket& b, long long start, long long nrows) {
  LocalRows out;
  std::vector<long long> ptr(static_cast<size_t>(nrows) + 1, 0);
  for (long long r : b.rows) ++ptr[static_cast<size_t>(r - start) + 1];
  for (long long r = 0; r < nrows; ++r) ptr[r + 1] += ptr[r];
  const size_t nnz = b.rows.size();
  std::vector<std::pair<long long, double>> ent(nnz);
  {
    std::vector<long long> pos(ptr.begin(), ptr.end() - 1);
    for (size_t t = 0; t < nnz; ++t)
      ent[static_cast<size_t>(pos[static_cast<size_t>(b.rows[t] - start)]++)] = {b.cols[t], b.vals[t]};
  }
  b = Bucket();  // free
  out.counts.assign(static_cast<size_t>(nrows), 0);
  out.cols.reserve(nnz);
  out.vals.reserve(nnz);
  for (long long r = 0; r < nrows; ++r) {
    auto first = ent.begin() + ptr[r], last = ent.begin() + ptr[r + 1];
    std::stable_sort(first, last, [](const auto& a, const auto& c) { return a.first < c.first; });
    long long cnt = 0;
    for (auto it = first; it != last; ++it) {
      if (cnt > 0 && out.cols.back() == it->first) {
        out.vals.back() += it->second;
      } else {
        out.cols.push_back(it->first);
        out.vals.push_back(it->second);
        ++cnt;
      }
    }
    out.counts[static_cast<size_t>(r)] = cnt;
  }
  return out;
}

constexpr int kTagCount = 7101, kTagRows = 7102, kTagCols = 7103, kTagVals = 7104;

}  // namespace

Teuchos::RCP<crs_matrix_type> readMatrixMarket(const std::string& path, const comm_ptr& comm,
                                               MatrixMarketInfo* info) {
  const int rank = comm->getRank(), P = comm->getSize();
  const MPI_Comm mc = rawComm(*comm);
  const std::string prefix = "Trident::io::readMatrixMarket: " + path + ": ";

  Header h;
  std::vector<Bucket> buckets;
  bool ok = true;
  std::string msg;
  if (rank == 0) {
    try {
      parseFile(path, P, h, buckets);
    } catch (const ParseError& e) {
      ok = false;
      msg = prefix + e.msg;
    } catch (const std::bad_alloc&) {
      ok = false;
      msg = prefix + "out of memory while reading";
    } catch (const std::exception& e) {
      ok = false;
      msg = prefix + e.what();
    }
    if (!ok) buckets.clear();
  }
  agreeOrThrow(ok, msg, P, mc);

  long long hv[5] = {h.rows, h.cols, h.entries, h.field, h.sym};
  if (P > 1) MPI_Bcast(hv, 5, MPI_LONG_LONG, 0, mc);
  if (info) {
    info->rows = hv[0];
    info->cols = hv[1];
    info->entries = hv[2];
    info->field = fieldName(hv[3]);
    info->symmetry = symName(hv[4]);
  }
  const long long nrows = hv[0], ncols = hv[1];

  auto rowMap = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(nrows), GO(0), comm));
  auto domainMap = (ncols == nrows) ? rowMap
                                    : Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(ncols), GO(0), comm));
  const Uniform dist(nrows, P);
  const long long myStart = dist.start(rank), myCount = dist.count(rank);
  {
    // The routing above assumes Tpetra's uniform layout; check it (collectively) to be safe.
    int bad = (static_cast<long long>(rowMap->getNodeNumElements()) != myCount ||
               (myCount > 0 && rowMap->getMinGlobalIndex() != myStart))
                  ? 1 : 0;
    int anyBad = bad;
    if (P > 1) MPI_Allreduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, mc);
    if (anyBad) throw std::logic_error(prefix + "unexpected Tpetra uniform map layout");
  }

  LocalRows mine;
  if (rank == 0) {
    for (int p = 1; p < P; ++p) {
      LocalRows lr = toLocalRows(buckets[static_cast<size_t>(p)], dist.start(p), dist.count(p));
      long long nnz = static_cast<long long>(lr.cols.size());
      MPI_Send(&nnz, 1, MPI_LONG_LONG, p, kTagCount, mc);
      if (!lr.counts.empty()) sendBytes(lr.counts.data(), lr.counts.size() * sizeof(long long), p, kTagRows, mc);
      if (nnz > 0) {
        sendBytes(lr.cols.data(), lr.cols.size() * sizeof(long long), p, kTagCols, mc);
        sendBytes(lr.vals.data(), lr.vals.size() * sizeof(double), p, kTagVals, mc);
      }
    }
    mine = toLocalRows(buckets[0], myStart, myCount);
    buckets.clear();
  } else {
    long long nnz = 0;
    MPI_Recv(&nnz, 1, MPI_LONG_LONG, 0, kTagCount, mc, MPI_STATUS_IGNORE);
    mine.counts.resize(static_cast<size_t>(myCount));
    if (myCount > 0) recvBytes(mine.counts.data(), mine.counts.size() * sizeof(long long), 0, kTagRows, mc);
    mine.cols.resize(static_cast<size_t>(nnz));
    mine.vals.resize(static_cast<size_t>(nnz));
    if (nnz > 0) {
      recvBytes(mine.cols.data(), mine.cols.size() * sizeof(long long), 0, kTagCols, mc);
      recvBytes(mine.vals.data(), mine.vals.size() * sizeof(double), 0, kTagVals, mc);
    }
  }

  std::vector<size_t> alloc(mine.counts.begin(), mine.counts.end());
  auto A = Teuchos::rcp(new crs_matrix_type(rowMap, Teuchos::ArrayView<const size_t>(alloc.data(), alloc.size())));
  size_t off = 0;
  for (long long r = 0; r < myCount; ++r) {
    const size_t cnt = alloc[static_cast<size_t>(r)];
    if (cnt > 0)
      A->insertGlobalValues(static_cast<GO>(myStart + r), static_cast<LO>(cnt), mine.vals.data() + off,
                            mine.cols.data() + off);
    off += cnt;
  }
  mine = LocalRows();
  A->fillComplete(domainMap, rowMap);
  return A;
}

void writeMatrixMarket(const std::string& path, const crs_matrix_type& A) {
  auto comm = A.getRowMap()->getComm();
  const int rank = comm->getRank(), P = comm->getSize();
  const MPI_Comm mc = rawComm(*comm);
  const std::string prefix = "Trident::io::writeMatrixMarket: " + path + ": ";

  // Local entries as 1-based (row, col, value).
  auto rowMap = A.getRowMap();
  const bool filled = A.isFillComplete();
  const GO rowBase = filled ? A.getRangeMap()->getIndexBase() : rowMap->getIndexBase();
  const GO colBase = filled ? A.getDomainMap()->getIndexBase() : rowMap->getIndexBase();
  const size_t nLocalRows = rowMap->getNodeNumElements();
  std::vector<long long> rows, cols;
  std::vector<double> vals;
  rows.reserve(A.getNodeNumEntries());
  cols.reserve(A.getNodeNumEntries());
  vals.reserve(A.getNodeNumEntries());
  {
    const size_t maxLen = std::max<size_t>(A.getNodeMaxNumRowEntries(), 1);
    typename crs_matrix_type::nonconst_global_inds_host_view_type ind("ind", maxLen);
    typename crs_matrix_type::nonconst_values_host_view_type val("val", maxLen);
    std::vector<std::pair<long long, double>> row;
    for (size_t lr = 0; lr < nLocalRows; ++lr) {
      const GO g = rowMap->getGlobalElement(static_cast<LO>(lr));
      size_t n = 0;
      A.getGlobalRowCopy(g, ind, val, n);
      row.resize(n);
      for (size_t t = 0; t < n; ++t) row[t] = {ind(t), val(t)};
      std::sort(row.begin(), row.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      for (size_t t = 0; t < n; ++t) {
        rows.push_back(g - rowBase + 1);
        cols.push_back(row[t].first - colBase + 1);
        vals.push_back(row[t].second);
      }
    }
  }
  // Global dimensions: the map sizes, widened if GIDs exceed them (non-contiguous maps).
  long long loc[3] = {0, 0, static_cast<long long>(vals.size())};
  for (size_t t = 0; t < rows.size(); ++t) {
    loc[0] = std::max(loc[0], rows[t]);
    loc[1] = std::max(loc[1], cols[t]);
  }
  long long glob[3] = {loc[0], loc[1], loc[2]};
  if (P > 1) {
    MPI_Allreduce(loc, glob, 2, MPI_LONG_LONG, MPI_MAX, mc);
    MPI_Allreduce(&loc[2], &glob[2], 1, MPI_LONG_LONG, MPI_SUM, mc);
  }
  const long long nrows = std::max<long long>(glob[0], static_cast<long long>(A.getGlobalNumRows()));
  const long long ncols = std::max<long long>(
      glob[1], filled ? static_cast<long long>(A.getDomainMap()->getGlobalNumElements()) : 0LL);

  FILE* f = nullptr;
  bool ok = true;
  std::string msg;
  if (rank == 0) {
    f = std::fopen(path.c_str(), "wb");
    if (!f) {
      ok = false;
      msg = prefix + "cannot open for writing: " + std::strerror(errno);
    }
  }
  agreeOrThrow(ok, msg, P, mc);

  if (rank == 0) {
    std::vector<char> out;
    out.reserve(size_t(1) << 22);
    auto flush = [&]() {
      if (!out.empty() && std::fwrite(out.data(), 1, out.size(), f) != out.size()) ok = false;
      out.clear();
    };
    char line[128];
    int len = std::snprintf(line, sizeof line, "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n",
                            nrows, ncols, glob[2]);
    out.insert(out.end(), line, line + len);
    auto emit = [&](const long long* r, const long long* c, const double* v, size_t n) {
      for (size_t t = 0; t < n; ++t) {
        const size_t pos = out.size();
        out.resize(pos + 96);  // two 20-digit integers, a 17-digit %g double, separators
        char* p = out.data() + pos;
        char* e = out.data() + out.size() - 1;
        p = std::to_chars(p, e, r[t]).ptr;
        *p++ = ' ';
        p = std::to_chars(p, e, c[t]).ptr;
        *p++ = ' ';
        p = std::to_chars(p, e, v[t], std::chars_format::general, 17).ptr;
        *p++ = '\n';
        out.resize(static_cast<size_t>(p - out.data()));
        if (out.size() > (size_t(1) << 22)) flush();
      }
    };
    emit(rows.data(), cols.data(), vals.data(), vals.size());
    for (int p = 1; p < P; ++p) {
      long long n = 0;
      MPI_Recv(&n, 1, MPI_LONG_LONG, p, kTagCount, mc, MPI_STATUS_IGNORE);
      std::vector<long long> r(static_cast<size_t>(n)), c(static_cast<size_t>(n));
      std::vector<double> v(static_cast<size_t>(n));
      if (n > 0) {
        recvBytes(r.data(), r.size() * sizeof(long long), p, kTagRows, mc);
        recvBytes(c.data(), c.size() * sizeof(long long), p, kTagCols, mc);
        recvBytes(v.data(), v.size() * sizeof(double), p, kTagVals, mc);
      }
      emit(r.data(), c.data(), v.data(), static_cast<size_t>(n));
    }
    flush();
    if (std::fclose(f) != 0) ok = false;
    if (!ok) msg = prefix + "write error";
  } else {
    long long n = static_cast<long long>(vals.size());
    MPI_Send(&n, 1, MPI_LONG_LONG, 0, kTagCount, mc);
    if (n > 0) {
      sendBytes(rows.data(), rows.size() * sizeof(long long), 0, kTagRows, mc);
      sendBytes(cols.data(), cols.size() * sizeof(long long), 0, kTagCols, mc);
      sendBytes(vals.data(), vals.size() * sizeof(double), 0, kTagVals, mc);
    }
  }
  agreeOrThrow(ok, msg, P, mc);
}

}  // namespace io
}  // namespace Trident
