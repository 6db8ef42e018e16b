// Matrix Market I/O: the shared coordinate parser (trident/io) on rank 0, distribution of the rows
// over a uniform contiguous row map with raw MPI, and a gathering writer.
#include "Trident_UniformRows.hpp"
#include "Trident_MatrixMarket.hpp"
#include "trident/core/Errors.hpp"
#include "trident/io/MatrixMarketReader.hpp"

#include <mpi.h>

#include <Teuchos_DefaultMpiComm.hpp>
#include <Tpetra_Map.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>
#include "Trident_TpetraComm.hpp"

namespace Trident {
namespace io {
namespace {

// ---- communication helpers (raw MPI; a non-MPI comm must have one rank) ----------------------

using tpetra::rawComm;

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
// Reading errors are bad input (InvalidInput); writing errors are the file system's
// (std::runtime_error).
template <class Error>
void agreeOrThrow(bool ok, const std::string& msg, int size, MPI_Comm comm) {
  long long hdr[2] = {ok ? 1 : 0, static_cast<long long>(msg.size())};
  if (size > 1) MPI_Bcast(hdr, 2, MPI_LONG_LONG, 0, comm);
  if (hdr[0]) return;
  std::string m(msg);
  m.resize(static_cast<size_t>(hdr[1]));
  if (size > 1 && hdr[1] > 0) MPI_Bcast(&m[0], static_cast<int>(hdr[1]), MPI_CHAR, 0, comm);
  throw Error(m);
}

using Uniform = detail::UniformRows;

// ---- parsing (trident/io/MatrixMarketReader) ---------------------------------------------------

using mmio::Field;
using mmio::Header;
using mmio::ParseError;
using mmio::Symmetry;

// Entries as (row, col, value) triplets: a rank's share of the file when reading (0-based global
// indices), a rank's part of the matrix on its way to rank 0 when writing (1-based).
struct Bucket {
  std::vector<long long> rows, cols;
  std::vector<double> vals;
  void add(long long r, long long c, double v) {
    rows.push_back(r);
    cols.push_back(c);
    vals.push_back(v);
  }
};

// Rank 0 sorts the entries into their owners' buckets as they are parsed, so that the file's
// entries are held once.
void bucketEntries(mmio::Reader& rd, int P, std::vector<Bucket>& buckets) {
  const Header& h = rd.header();
  const Uniform dist(h.rows, P);
  buckets.assign(static_cast<size_t>(P), Bucket());
  if (P == 1) {
    // Reserve for what the file can hold, not for what the size line claims: a lying header must
    // not cost memory.
    long long cap = std::min<long long>(h.entries, 1LL << 24);
    if (rd.fileBytes() >= 0) cap = std::min(cap, rd.fileBytes() / 4 + 1);
    const size_t reserve = static_cast<size_t>(cap) * (h.symmetry == Symmetry::kGeneral ? 1 : 2);
    buckets[0].rows.reserve(reserve);
    buckets[0].cols.reserve(reserve);
    buckets[0].vals.reserve(reserve);
  }
  rd.entries([&](long long i, long long j, double v) { buckets[static_cast<size_t>(dist.owner(i))].add(i, j, v); });
}

// What a header's dimensions cost before any entry: Tpetra holds, per local row of a CrsMatrix,
// its row offsets (twice while filling), the entry count and the allocation count, plus this
// reader's own count; per local column of the domain map, fillComplete (column map and Import
// from the domain map) spends about 8 bytes. Measured at 3 ranks: 10^7 rows per rank peak at
// 0.26-0.33 GB per rank, 10^8 domain columns per rank at 0.79 GB (0.03 GB for an empty matrix).
// A header may declare any size; one whose empty rows and columns alone would not fit is refused
// before anything of that size is allocated.
constexpr double kBytesPerLocalRow = 48.0;
constexpr double kBytesPerLocalCol = 8.0;

// Collective. The declared sizes decide each rank's share of the uniform row and domain maps:
// they must fit a local index (int) and, at the rates above, half of this node's memory split
// among its ranks (the other half for the entries, the column map and everything else).
void checkDeclaredSize(const Header& h, int P, int rank, MPI_Comm comm, const std::string& prefix) {
  const long long maxLocal = std::numeric_limits<LO>::max();
  const Uniform rows(h.rows, P), cols(h.cols, P);
  for (int d = 0; d < 2; ++d) {
    const long long n = d == 0 ? h.rows : h.cols;
    const long long most = (d == 0 ? rows : cols).count(0);  // rank 0 has the largest share
    if (most > maxLocal)
      throw InvalidInput(prefix + "the size line declares " + std::to_string(n) + (d == 0 ? " rows" : " columns") +
                         ": at " + std::to_string(P) + " ranks a rank would own " + std::to_string(most) +
                         ", more than a local index (int) can count; use at least " +
                         std::to_string((n + maxLocal - 1) / maxLocal) + " ranks");
  }
  // Small shares need no check (and no communicator split); the condition is the same on every rank.
  const double most = kBytesPerLocalRow * static_cast<double>(rows.count(0)) +
                      kBytesPerLocalCol * static_cast<double>(cols.count(0));
  if (most < static_cast<double>(1LL << 28)) return;
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int onNode = 1;
  MPI_Comm_size(node, &onNode);
  MPI_Comm_free(&node);
  const double physical = static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGE_SIZE));
  const double need = kBytesPerLocalRow * static_cast<double>(rows.count(rank)) +
                      kBytesPerLocalCol * static_cast<double>(cols.count(rank));
  const double budget = 0.5 * physical / onNode;
  const bool tooBig = physical > 0 && need > budget;
  std::string why;
  if (tooBig) {
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "the size line declares %lld x %lld: at %d ranks this rank would own %lld rows and %lld domain "
                  "columns, whose structures alone take about %.1f GB, more than its share of this node's memory "
                  "(%.1f GB: half of %.1f GB over %d ranks); use more ranks or nodes",
                  h.rows, h.cols, P, rows.count(rank), cols.count(rank), need / 1e9, budget / 1e9, physical / 1e9,
                  onNode);
    why = prefix + buf;
  }
  throwIfAnyRank(comm, tooBig, why);
}

// Row-sorted, duplicate-merged CSR of one rank's rows [start, start+nrows).
struct LocalRows {
  std::vector<size_t> counts;  // per local row
  std::vector<long long> cols;
  std::vector<double> vals;
};

LocalRows toLocalRows(Bucket& b, long long start, long long nrows) {
  LocalRows out;
  std::vector<size_t> ptr(static_cast<size_t>(nrows) + 1, 0);
  for (long long r : b.rows) ++ptr[static_cast<size_t>(r - start) + 1];
  for (long long r = 0; r < nrows; ++r) ptr[r + 1] += ptr[r];
  const size_t nnz = b.rows.size();
  std::vector<std::pair<long long, double>> ent(nnz);
  {
    std::vector<size_t> pos(ptr.begin(), ptr.end() - 1);
    for (size_t t = 0; t < nnz; ++t) ent[pos[static_cast<size_t>(b.rows[t] - start)]++] = {b.cols[t], b.vals[t]};
  }
  b = Bucket();  // free
  out.counts.assign(static_cast<size_t>(nrows), 0);
  out.cols.reserve(nnz);
  out.vals.reserve(nnz);
  for (long long r = 0; r < nrows; ++r) {
    auto first = ent.begin() + static_cast<std::ptrdiff_t>(ptr[r]), last = ent.begin() + static_cast<std::ptrdiff_t>(ptr[r + 1]);
    std::stable_sort(first, last, [](const auto& a, const auto& c) { return a.first < c.first; });
    size_t cnt = 0;
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

// Rank 0 sends every other rank its entries as triplets: O(entries) traffic and memory, never
// O(rows) on rank 0 (each rank builds its own row structure).
void sendBucket(const Bucket& b, int p, MPI_Comm comm) {
  long long n = static_cast<long long>(b.rows.size());
  MPI_Send(&n, 1, MPI_LONG_LONG, p, kTagCount, comm);
  if (n == 0) return;
  sendBytes(b.rows.data(), b.rows.size() * sizeof(long long), p, kTagRows, comm);
  sendBytes(b.cols.data(), b.cols.size() * sizeof(long long), p, kTagCols, comm);
  sendBytes(b.vals.data(), b.vals.size() * sizeof(double), p, kTagVals, comm);
}

Bucket recvBucket(int src, MPI_Comm comm) {
  long long n = 0;
  MPI_Recv(&n, 1, MPI_LONG_LONG, src, kTagCount, comm, MPI_STATUS_IGNORE);
  Bucket b;
  if (n == 0) return b;
  b.rows.resize(static_cast<size_t>(n));
  b.cols.resize(static_cast<size_t>(n));
  b.vals.resize(static_cast<size_t>(n));
  recvBytes(b.rows.data(), b.rows.size() * sizeof(long long), src, kTagRows, comm);
  recvBytes(b.cols.data(), b.cols.size() * sizeof(long long), src, kTagCols, comm);
  recvBytes(b.vals.data(), b.vals.size() * sizeof(double), src, kTagVals, comm);
  return b;
}

// ---- reading, step by step -------------------------------------------------------------------

// Rank 0 runs step; every failure there becomes the same InvalidInput on every rank.
template <class Step>
void onRank0(int rank, int P, MPI_Comm mc, const std::string& prefix, Step&& step) {
  bool ok = true;
  std::string msg;
  if (rank == 0) {
    try {
      step();
    } catch (const ParseError& e) {
      ok = false;
      msg = prefix + e.what();
    } catch (const std::bad_alloc&) {
      ok = false;
      msg = prefix + "out of memory while reading";
    } catch (const std::exception& e) {
      ok = false;
      msg = prefix + e.what();
    }
  }
  agreeOrThrow<InvalidInput>(ok, msg, P, mc);
}

// Rank 0's header, on every rank.
void broadcastHeader(Header& h, int P, MPI_Comm mc) {
  long long hv[5] = {h.rows, h.cols, h.entries, static_cast<long long>(h.field), static_cast<long long>(h.symmetry)};
  if (P > 1) MPI_Bcast(hv, 5, MPI_LONG_LONG, 0, mc);
  h.rows = hv[0];
  h.cols = hv[1];
  h.entries = hv[2];
  h.field = static_cast<Field>(hv[3]);
  h.symmetry = static_cast<Symmetry>(hv[4]);
}

void describe(const Header& h, MatrixMarketInfo& info) {
  info.rows = h.rows;
  info.cols = h.cols;
  info.entries = h.entries;
  info.field = mmio::fieldName(h.field);
  info.symmetry = mmio::symmetryName(h.symmetry);
}

// Rank 0 sends every other rank its bucket; each rank gets its own entries.
Bucket distributeEntries(std::vector<Bucket>& buckets, int rank, int P, MPI_Comm mc) {
  if (rank != 0) return recvBucket(0, mc);
  for (int p = 1; p < P; ++p) {
    sendBucket(buckets[static_cast<size_t>(p)], p, mc);
    buckets[static_cast<size_t>(p)] = Bucket();
  }
  Bucket mine = std::move(buckets[0]);
  buckets.clear();
  return mine;
}

// Collective. The size check bounds these allocations, but a rank on a smaller node can still
// run out: fail on every rank rather than leave the others in Tpetra's collectives.
LocalRows localRowsOnEveryRank(Bucket& raw, long long start, long long count, MPI_Comm mc,
                               const std::string& prefix) {
  LocalRows mine;
  bool failed = false;
  std::string why;
  try {
    mine = toLocalRows(raw, start, count);
  } catch (const std::bad_alloc&) {
    failed = true;
    why = prefix + "out of memory while building the local rows";
  }
  throwIfAnyRank(mc, failed, why);
  return mine;
}

// Collective. The routing assumes Tpetra's uniform layout; checked to be safe.
void checkUniformLayout(const map_type& rowMap, long long myStart, long long myCount, int P, MPI_Comm mc,
                        const std::string& prefix) {
  int bad = (static_cast<long long>(Compat::localNumElements(rowMap)) != myCount ||
             (myCount > 0 && rowMap.getMinGlobalIndex() != myStart))
                ? 1 : 0;
  int anyBad = bad;
  if (P > 1) MPI_Allreduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, mc);
  if (anyBad) throw std::logic_error(prefix + "unexpected Tpetra uniform map layout");
}

void insertLocalRows(crs_matrix_type& A, const LocalRows& mine, long long myStart, long long myCount) {
  size_t off = 0;
  for (long long r = 0; r < myCount; ++r) {
    const size_t cnt = mine.counts[static_cast<size_t>(r)];
    if (cnt > 0)
      A.insertGlobalValues(static_cast<GO>(myStart + r), static_cast<LO>(cnt), mine.vals.data() + off,
                           mine.cols.data() + off);
    off += cnt;
  }
}

// ---- writing, step by step -------------------------------------------------------------------

// This rank's entries as 1-based (row, col, value), each row by column.
Bucket localEntries(const crs_matrix_type& A) {
  auto rowMap = A.getRowMap();
  const bool filled = A.isFillComplete();
  const GO rowBase = filled ? A.getRangeMap()->getIndexBase() : rowMap->getIndexBase();
  const GO colBase = filled ? A.getDomainMap()->getIndexBase() : rowMap->getIndexBase();
  const size_t nLocalRows = Compat::localNumElements(*rowMap);
  Bucket mine;
  mine.rows.reserve(Compat::localNumEntries(A));
  mine.cols.reserve(Compat::localNumEntries(A));
  mine.vals.reserve(Compat::localNumEntries(A));
  const size_t maxLen = std::max<size_t>(Compat::localMaxNumRowEntries(A), 1);
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
    for (size_t t = 0; t < n; ++t) mine.add(g - rowBase + 1, row[t].first - colBase + 1, row[t].second);
  }
  return mine;
}

// The size line. Collective. Dimensions are the map sizes, widened if GIDs exceed them
// (non-contiguous maps).
Header sizeLine(const crs_matrix_type& A, const Bucket& mine, int P, MPI_Comm mc) {
  long long loc[3] = {0, 0, static_cast<long long>(mine.vals.size())};
  for (size_t t = 0; t < mine.rows.size(); ++t) {
    loc[0] = std::max(loc[0], mine.rows[t]);
    loc[1] = std::max(loc[1], mine.cols[t]);
  }
  long long glob[3] = {loc[0], loc[1], loc[2]};
  if (P > 1) {
    MPI_Allreduce(loc, glob, 2, MPI_LONG_LONG, MPI_MAX, mc);
    MPI_Allreduce(&loc[2], &glob[2], 1, MPI_LONG_LONG, MPI_SUM, mc);
  }
  Header h;
  h.rows = std::max<long long>(glob[0], static_cast<long long>(A.getGlobalNumRows()));
  h.cols = std::max<long long>(
      glob[1], A.isFillComplete() ? static_cast<long long>(A.getDomainMap()->getGlobalNumElements()) : 0LL);
  h.entries = glob[2];
  return h;
}

// Collective: rank 0 opens the file (null elsewhere); a failure throws on every rank.
FILE* openOnRank0(const std::string& path, int rank, int P, MPI_Comm mc, const std::string& prefix) {
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
  agreeOrThrow<std::runtime_error>(ok, msg, P, mc);
  return f;
}

// Rank 0's output: text formatted into a buffer that is written out whenever it passes 4 MiB.
class TextWriter {
 public:
  explicit TextWriter(FILE* f) : f_(f) { out_.reserve(kFlushAt); }
  void header(const Header& h) {
    char line[128];
    const int len = std::snprintf(line, sizeof line,
                                  "%%%%MatrixMarket matrix coordinate real general\n%lld %lld %lld\n", h.rows,
                                  h.cols, h.entries);
    out_.insert(out_.end(), line, line + len);
  }
  void entries(const Bucket& b) {
    for (size_t t = 0; t < b.vals.size(); ++t) {
      const size_t pos = out_.size();
      out_.resize(pos + 96);  // two 20-digit integers, a 17-digit %g double, separators
      char* p = out_.data() + pos;
      char* e = out_.data() + out_.size() - 1;
      p = std::to_chars(p, e, b.rows[t]).ptr;
      *p++ = ' ';
      p = std::to_chars(p, e, b.cols[t]).ptr;
      *p++ = ' ';
      p = std::to_chars(p, e, b.vals[t], std::chars_format::general, 17).ptr;
      *p++ = '\n';
      out_.resize(static_cast<size_t>(p - out_.data()));
      if (out_.size() > kFlushAt) flush();
    }
  }
  // Writes what is left and closes the file; false if any write failed.
  bool close() {
    flush();
    if (std::fclose(f_) != 0) ok_ = false;
    return ok_;
  }

 private:
  static constexpr size_t kFlushAt = size_t(1) << 22;
  void flush() {
    if (!out_.empty() && std::fwrite(out_.data(), 1, out_.size(), f_) != out_.size()) ok_ = false;
    out_.clear();
  }
  FILE* f_;
  std::vector<char> out_;
  bool ok_ = true;
};

}  // namespace

Teuchos::RCP<crs_matrix_type> readMatrixMarket(const std::string& path, const comm_ptr& comm,
                                               MatrixMarketInfo* info) {
  const int rank = comm->getRank(), P = comm->getSize();
  const MPI_Comm mc = rawComm(*comm);
  const std::string prefix = "Trident::io::readMatrixMarket: " + path + ": ";

  std::unique_ptr<mmio::Reader> reader;
  Header h;
  onRank0(rank, P, mc, prefix, [&] {
    reader = std::make_unique<mmio::Reader>(path);
    h = reader->header();
  });
  broadcastHeader(h, P, mc);
  checkDeclaredSize(h, P, rank, mc, prefix);

  std::vector<Bucket> buckets;
  onRank0(rank, P, mc, prefix, [&] {
    bucketEntries(*reader, P, buckets);
    reader.reset();
  });
  reader.reset();
  if (info) describe(h, *info);
  const long long nrows = h.rows, ncols = h.cols;
  const Uniform dist(nrows, P);
  const long long myStart = dist.start(rank), myCount = dist.count(rank);

  Bucket mineRaw = distributeEntries(buckets, rank, P, mc);
  LocalRows mine = localRowsOnEveryRank(mineRaw, myStart, myCount, mc, prefix);

  auto rowMap = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(nrows), GO(0), comm));
  auto domainMap = (ncols == nrows) ? rowMap
                                    : Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(ncols), GO(0), comm));
  checkUniformLayout(*rowMap, myStart, myCount, P, mc, prefix);

  auto A = Teuchos::rcp(
      new crs_matrix_type(rowMap, Teuchos::ArrayView<const size_t>(mine.counts.data(), mine.counts.size())));
  insertLocalRows(*A, mine, myStart, myCount);
  mine = LocalRows();
  A->fillComplete(domainMap, rowMap);
  return A;
}

void writeMatrixMarket(const std::string& path, const crs_matrix_type& A) {
  auto comm = A.getRowMap()->getComm();
  const int rank = comm->getRank(), P = comm->getSize();
  const MPI_Comm mc = rawComm(*comm);
  const std::string prefix = "Trident::io::writeMatrixMarket: " + path + ": ";

  const Bucket mine = localEntries(A);
  const Header size = sizeLine(A, mine, P, mc);
  FILE* f = openOnRank0(path, rank, P, mc, prefix);
  bool ok = true;
  std::string msg;
  if (rank == 0) {
    // Gathered rank by rank, so rank 0 holds one other rank's entries at a time.
    TextWriter out(f);
    out.header(size);
    out.entries(mine);
    for (int p = 1; p < P; ++p) out.entries(recvBucket(p, mc));
    ok = out.close();
    if (!ok) msg = prefix + "write error";
  } else {
    sendBucket(mine, 0, mc);
  }
  agreeOrThrow<std::runtime_error>(ok, msg, P, mc);
}

}  // namespace io
}  // namespace Trident
