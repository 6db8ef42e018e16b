// Tests of Matrix Market I/O and the generators. Run on 1 and 3 ranks: every check is collective
// (a check passes only if it passes on every rank), and results computed on the world comm are
// compared against the same computation on MPI_COMM_SELF, which must not depend on the rank count.
#include "Trident_Generators.hpp"
#include "Trident_MatrixMarket.hpp"
#include "common/TestUtils.hpp"
#include "trident/core/Errors.hpp"

#include <mpi.h>

#include <Teuchos_DefaultMpiComm.hpp>
#include <Tpetra_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace Trident;

namespace {

MPI_Comm raw(const comm_ptr& c) {
  return *Teuchos::rcp_dynamic_cast<const Teuchos::MpiComm<int>>(c, true)->getRawMpiComm();
}

comm_ptr gWorld;
int gRank = 0, gSize = 1;
int gPassed = 0, gFailed = 0;

// Collective check: passes if ok on every rank.
void check(bool ok, const std::string& what) {
  int l = ok ? 1 : 0, g = 0;
  MPI_Allreduce(&l, &g, 1, MPI_INT, MPI_MIN, raw(gWorld));
  if (g) ++gPassed;
  else ++gFailed;
  if (gRank == 0) std::printf("[%s] %s\n", g ? "PASS" : "FAIL", what.c_str());
  std::fflush(stdout);
}

// Runs a collective test body; an exception on any rank fails it.
void guarded(const std::string& what, const std::function<void()>& body) {
  std::string err;
  try {
    body();
  } catch (const std::exception& e) {
    err = e.what();
  }
  int l = err.empty() ? 0 : 1, g = 0;
  MPI_Allreduce(&l, &g, 1, MPI_INT, MPI_MAX, raw(gWorld));
  if (g) {
    if (!err.empty()) std::printf("rank %d: exception in '%s': %s\n", gRank, what.c_str(), err.c_str());
    check(false, what + " (threw)");
  }
}

std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct Entry {
  GO r, c;
  double v;
};

std::vector<Entry> localEntries(const crs_matrix_type& A) {
  std::vector<Entry> out;
  auto rowMap = A.getRowMap();
  const size_t maxLen = std::max<size_t>(Compat::localMaxNumRowEntries(A), 1);
  crs_matrix_type::nonconst_global_inds_host_view_type ind("ind", maxLen);
  crs_matrix_type::nonconst_values_host_view_type val("val", maxLen);
  for (size_t lr = 0; lr < Compat::localNumElements(*rowMap); ++lr) {
    const GO g = rowMap->getGlobalElement(static_cast<LO>(lr));
    size_t n = 0;
    A.getGlobalRowCopy(g, ind, val, n);
    for (size_t t = 0; t < n; ++t) out.push_back({g, ind(t), val(t)});
  }
  return out;
}

// Order-independent, exact checksum of the global matrix (entries' row, col and value bits).
std::uint64_t checksum(const crs_matrix_type& A) {
  std::uint64_t s = 0;
  for (const auto& e : localEntries(A)) {
    std::uint64_t bits;
    std::memcpy(&bits, &e.v, sizeof bits);
    s += mix64(mix64(mix64(static_cast<std::uint64_t>(e.r)) ^ static_cast<std::uint64_t>(e.c)) ^ bits);
  }
  std::uint64_t g = 0;
  MPI_Allreduce(&s, &g, 1, MPI_UINT64_T, MPI_SUM, raw(A.getRowMap()->getComm()));
  return g;
}

// All entries of a (small) matrix, on every rank.
std::map<std::pair<GO, GO>, double> gatherAll(const crs_matrix_type& A) {
  auto mine = localEntries(A);
  const MPI_Comm c = raw(A.getRowMap()->getComm());
  int P = 0;
  MPI_Comm_size(c, &P);
  int n = static_cast<int>(mine.size() * sizeof(Entry));
  std::vector<int> counts(P), disp(P);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, c);
  int total = 0;
  for (int p = 0; p < P; ++p) {
    disp[p] = total;
    total += counts[p];
  }
  std::vector<Entry> all(static_cast<size_t>(total) / sizeof(Entry));
  MPI_Allgatherv(mine.data(), n, MPI_BYTE, all.data(), counts.data(), disp.data(), MPI_BYTE, c);
  std::map<std::pair<GO, GO>, double> m;
  for (const auto& e : all) m[{e.r, e.c}] += e.v;
  return m;
}

std::string gTmp;

void writeFile(const std::string& name, const std::string& text) {
  if (gRank == 0) {
    FILE* f = std::fopen((gTmp + "/" + name).c_str(), "wb");
    if (f) {
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
    }
  }
  MPI_Barrier(raw(gWorld));
}

// ---- tests -----------------------------------------------------------------------------------

struct FileCase {
  const char* name;
  long long n, stored, full;
  const char* field;
  const char* sym;
};

void testSharedMatrices(const std::string& dir, const comm_ptr& self) {
  const FileCase cases[] = {
      {"cora.mtx", 2708, 5278, 10556, "pattern", "symmetric"},
      {"hep-th.mtx", 8361, 15751, 31502, "real", "symmetric"},
      {"adder_dcop_05.mtx", 1813, 11097, 11097, "real", "general"},
      {"ca-CondMat_cc1.mtx", 21363, 91342, 182628, "pattern", "symmetric"},
      {"bcsstk13.mtx", 2003, 42943, 83883, "real", "symmetric"},
      {"rajat01.mtx", 6833, 43250, 43250, "pattern", "general"},
      {"Pd.mtx", 8081, 13036, 13036, "real", "general"},
  };
  for (const auto& fc : cases) {
    const std::string path = dir + "/" + fc.name;
    guarded(std::string("read ") + fc.name, [&] {
      io::MatrixMarketInfo info;
      auto A = io::readMatrixMarket(path, gWorld, &info);
      check(info.rows == fc.n && info.cols == fc.n && info.entries == fc.stored && info.field == fc.field &&
                info.symmetry == fc.sym,
            std::string(fc.name) + ": MatrixMarketInfo matches the header");
      check(static_cast<long long>(A->getGlobalNumRows()) == fc.n &&
                static_cast<long long>(A->getGlobalNumCols()) == fc.n &&
                static_cast<long long>(A->getGlobalNumEntries()) == fc.full && A->isFillComplete() &&
                A->getDomainMap()->isSameAs(*A->getRangeMap()),
            std::string(fc.name) + ": dimensions and nnz (" + std::to_string(fc.full) + " after expansion)");
      const std::uint64_t cw = checksum(*A);
      auto B = io::readMatrixMarket(path, self);  // every rank reads the whole file alone
      check(cw == checksum(*B), std::string(fc.name) + ": same matrix on " + std::to_string(gSize) + " ranks and 1 rank");
      if (fc.n <= 10000 && std::string(fc.sym) == "symmetric") {
        auto m = gatherAll(*A);
        bool sym = true;
        for (const auto& kv : m) {
          auto it = m.find({kv.first.second, kv.first.first});
          if (it == m.end() || it->second != kv.second) sym = false;
        }
        check(sym, std::string(fc.name) + ": symmetric expansion gives A == A^T");
      }
      if (fc.n <= 9000) {
        const std::string out = gTmp + "/rt_" + fc.name;
        io::writeMatrixMarket(out, *A);
        io::MatrixMarketInfo i2;
        auto C = io::readMatrixMarket(out, gWorld, &i2);
        check(checksum(*C) == cw && i2.entries == fc.full && i2.field == "real" && i2.symmetry == "general" &&
                  C->getGlobalNumRows() == A->getGlobalNumRows(),
              std::string(fc.name) + ": write + read roundtrip is exact");
      }
    });
  }
}

void testSmallFiles() {
  guarded("small files", [&] {
    writeFile("sym.mtx",
              "%%MatrixMarket matrix coordinate real symmetric\n% comment\n\n  3 3 4\n1 1 2.0\n2 1 -1.5\n\n"
              "% mid comment\n3 2 1e-3\n3 1 +4\n");
    auto A = io::readMatrixMarket(gTmp + "/sym.mtx", gWorld);
    auto m = gatherAll(*A);
    std::map<std::pair<GO, GO>, double> want = {{{0, 0}, 2.0}, {{1, 0}, -1.5}, {{0, 1}, -1.5}, {{2, 1}, 1e-3},
                                                {{1, 2}, 1e-3}, {{2, 0}, 4.0},  {{0, 2}, 4.0}};
    check(m == want, "symmetric file with comments/blank lines: mirrored off-diagonal entries");

    writeFile("skew.mtx", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 5\n3 2 -2\n");
    m = gatherAll(*io::readMatrixMarket(gTmp + "/skew.mtx", gWorld));
    want = {{{1, 0}, 5.0}, {{0, 1}, -5.0}, {{2, 1}, -2.0}, {{1, 2}, 2.0}};
    check(m == want, "skew-symmetric file: mirrored with negation");

    writeFile("dup.mtx",
              "%%MatrixMarket MATRIX Coordinate Integer General\r\n2 4 4\r\n1 4 3\r\n1 4 4\r\n2 1 -1\r\n1 1 0");
    io::MatrixMarketInfo info;
    auto D = io::readMatrixMarket(gTmp + "/dup.mtx", gWorld, &info);
    m = gatherAll(*D);
    want = {{{0, 3}, 7.0}, {{1, 0}, -1.0}, {{0, 0}, 0.0}};
    check(m == want && D->getGlobalNumRows() == 2 && D->getGlobalNumCols() == 4 && info.field == "integer" &&
              D->getDomainMap()->getGlobalNumElements() == 4,
          "integer rectangular file, CRLF, no final newline: duplicates summed, explicit zero kept");

    writeFile("pat.mtx", "%%MatrixMarket matrix coordinate pattern general\n4 2 3\n1 1\n4 2\n2 2\n");
    m = gatherAll(*io::readMatrixMarket(gTmp + "/pat.mtx", gWorld));
    want = {{{0, 0}, 1.0}, {{3, 1}, 1.0}, {{1, 1}, 1.0}};
    check(m == want, "pattern file: entries become 1.0");

    writeFile("empty.mtx", "%%MatrixMarket matrix coordinate real general\n5 5 0\n");
    auto E = io::readMatrixMarket(gTmp + "/empty.mtx", gWorld);
    check(E->getGlobalNumRows() == 5 && E->getGlobalNumEntries() == 0, "matrix with no entries");
  });
}

void testCorruptFiles() {
  struct Bad {
    const char* name;
    const char* text;
  };
  const Bad bad[] = {
      {"empty", ""},
      {"banner", "%%MatrixMarketX matrix coordinate real general\n2 2 1\n1 1 1\n"},
      {"nobanner", "2 2 1\n1 1 1\n"},
      {"short_banner", "%%MatrixMarket matrix coordinate real\n2 2 1\n1 1 1\n"},
      {"array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"},
      {"complex", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1 0\n"},
      {"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n1 1 1\n"},
      {"size_two", "%%MatrixMarket matrix coordinate real general\n3 3\n1 1 1\n"},
      {"size_alpha", "%%MatrixMarket matrix coordinate real general\n3 x 1\n1 1 1\n"},
      {"no_size", "%%MatrixMarket matrix coordinate real general\n% only a comment\n"},
      {"sym_rect", "%%MatrixMarket matrix coordinate real symmetric\n3 2 1\n1 1 1\n"},
      {"row_range", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n4 1 1\n"},
      {"col_range", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n1 4 1\n"},
      {"zero_index", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 1\n0 2\n"},
      {"truncated", "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 1\n2 2 1\n3 3 1\n"},
      {"truncated_mid", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 "},
      {"nonnumeric_val", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2 abc\n"},
      {"nonnumeric_idx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\nx 2 1\n"},
      {"missing_val", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2\n"},
      {"too_many", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 1 1\n2 2 1\n"},
  };
  std::vector<std::pair<std::string, std::string>> cases;
  cases.push_back({"missing file", gTmp + "/does_not_exist.mtx"});
  for (const auto& b : bad) {
    writeFile(std::string("bad_") + b.name + ".mtx", b.text);
    cases.push_back({b.name, gTmp + "/bad_" + b.name + ".mtx"});
  }
  for (const auto& c : cases) {
    std::string msg;
    bool threw = false, wrongType = false;
    try {
      io::readMatrixMarket(c.second, gWorld);
    } catch (const Trident::InvalidInput& e) {
      threw = true;
      msg = e.what();
    } catch (...) {
      wrongType = true;
    }
    if (gRank == 0 && threw) std::printf("       %s -> %s\n", c.first.c_str(), msg.c_str());
    check(threw && !wrongType && !msg.empty() && TridentTest::sameOnAllRanks(msg, raw(gWorld)),
          "corrupt file '" + c.first + "' throws Trident::InvalidInput with the same message on every rank");
  }
  // The communicator is still usable (no stray messages) after all those errors.
  guarded("read after errors", [&] {
    writeFile("ok.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 2\n");
    auto A = io::readMatrixMarket(gTmp + "/ok.mtx", gWorld);
    check(A->getGlobalNumEntries() == 2, "a good read after the errors works");
  });
  // Writing to an impossible path throws everywhere.
  guarded("write error", [&] {
    auto A = gen::laplace2d(3, gWorld);
    bool threw = false;
    std::string msg;
    try {
      io::writeMatrixMarket(gTmp + "/no/such/dir/x.mtx", *A);
    } catch (const std::runtime_error& e) {
      threw = true;
      msg = e.what();
    }
    check(threw && TridentTest::sameOnAllRanks(msg, raw(gWorld)), "writeMatrixMarket to a bad path throws on every rank");
  });
}

// lap3d:N / stencil27:N: n^3 rows; entry counts from the stencil (per axis n positions, of which
// n - 1 have a + neighbour); the diagonal 6 or 26, every other entry -1 at a stencil offset.
void checkStencil3d(const crs_matrix_type& A, const std::string& s) {
  const bool p27 = s[0] == 's';
  const long long n = std::atoll(std::strchr(s.c_str(), ':') + 1);
  const long long line = 3 * n - 2;  // entries of the 1D 3-point stencil on n points
  const long long want = p27 ? line * line * line : n * n * n + 6 * n * n * (n - 1);
  check(static_cast<long long>(A.getGlobalNumRows()) == n * n * n &&
            static_cast<long long>(A.getGlobalNumEntries()) == want,
        s + ": n^3 rows and the stencil's entry count");
  bool ok = true;
  for (const auto& kv : gatherAll(A)) {
    const GO i = kv.first.first, j = kv.first.second;
    const long long d[3] = {j / (n * n) - i / (n * n), j / n % n - i / n % n, j % n - i % n};
    const int off = (d[0] != 0) + (d[1] != 0) + (d[2] != 0);
    const bool near = std::llabs(d[0]) <= 1 && std::llabs(d[1]) <= 1 && std::llabs(d[2]) <= 1;
    if (!near || (!p27 && off > 1) || kv.second != (off == 0 ? (p27 ? 26.0 : 6.0) : -1.0)) ok = false;
  }
  check(ok, s + ": stencil offsets and values");
}

// tetdual:N: 6 n^3 rows, symmetric, values 1, no diagonal, at most 4 a row, and the face count of
// Kuhn's triangulation: 6 faces inside each cube, 2 triangles on each of the 3 n^2 (n - 1) inner squares.
void checkTetDual(const crs_matrix_type& A, const std::string& s) {
  const long long n = std::atoll(s.c_str() + 8);
  const long long faces = 6 * n * n * n + 6 * n * n * (n - 1);  // each shared face once
  check(static_cast<long long>(A.getGlobalNumRows()) == 6 * n * n * n &&
            static_cast<long long>(A.getGlobalNumEntries()) == 2 * faces,
        s + ": 6 n^3 rows, two entries per inner face");
  const auto m = gatherAll(A);
  std::map<GO, int> degree;
  bool ok = true;
  for (const auto& kv : m) {
    if (kv.first.first == kv.first.second || kv.second != 1.0 || !m.count({kv.first.second, kv.first.first})) ok = false;
    if (++degree[kv.first.first] > 4) ok = false;
  }
  check(ok, s + ": symmetric, no diagonal, values 1, at most 4 a row");
}

void testGenerators(const comm_ptr& self) {
  const char* specs[] = {"rmat:8:8", "rmat:10:4", "er:1000:6.5", "er:300:40", "lap2d:17", "lap2d:1",
                         "lap3d:6", "stencil27:5", "tetdual:4", "tetdual:1"};
  for (const char* spec : specs) {
    guarded(spec, [&] {
      auto A = gen::fromSpec(spec, gWorld);
      auto B = gen::fromSpec(spec, self);
      const bool same = checksum(*A) == checksum(*B) && A->getGlobalNumEntries() == B->getGlobalNumEntries();
      check(same, std::string(spec) + ": same matrix on " + std::to_string(gSize) + " ranks and on 1 rank (nnz " +
                      std::to_string(A->getGlobalNumEntries()) + ")");
      const std::string s(spec);
      const long long rows = static_cast<long long>(A->getGlobalNumRows());
      const long long nnz = static_cast<long long>(A->getGlobalNumEntries());
      if (s.rfind("rmat", 0) == 0) {
        const int scale = std::atoi(s.c_str() + 5);
        const int ef = std::atoi(std::strchr(s.c_str() + 5, ':') + 1);
        const long long N = 1LL << scale;
        check(rows == N && static_cast<long long>(A->getGlobalNumCols()) == N && nnz > 0 && nnz <= 2LL * ef * N,
              s + ": 2^scale rows, at most 2*edgefactor*2^scale entries");
        auto m = gatherAll(*A);
        bool ok = true;
        long long maxdeg = 0;
        std::map<GO, long long> deg;
        for (const auto& kv : m) {
          if (kv.first.first == kv.first.second || kv.second != 1.0 || !m.count({kv.first.second, kv.first.first}))
            ok = false;
          maxdeg = std::max(maxdeg, ++deg[kv.first.first]);
        }
        check(ok, s + ": symmetric, no self loops, values 1");
        check(maxdeg > 4 * nnz / N, s + ": skewed degrees (max " + std::to_string(maxdeg) + ")");
      } else if (s.rfind("er", 0) == 0) {
        const long long n = std::atoll(s.c_str() + 3);
        const double d = std::atof(std::strchr(s.c_str() + 3, ':') + 1);
        check(rows == n && nnz > 0.8 * d * n && nnz < 1.1 * d * n, s + ": n rows, about avgdeg entries per row");
        auto m = gatherAll(*A);
        bool ok = true;
        for (const auto& kv : m)
          if (!(kv.second > 0 && kv.second <= 1)) ok = false;
        check(ok, s + ": values in (0,1]");
        auto C = gen::erdosRenyi(n, d, gWorld, 2);
        check(checksum(*C) != checksum(*A), s + ": another seed gives another matrix");
      } else if (s.rfind("lap3d", 0) == 0 || s.rfind("stencil27", 0) == 0) {
        checkStencil3d(*A, s);
      } else if (s.rfind("tetdual", 0) == 0) {
        checkTetDual(*A, s);
      } else {
        const long long n = std::atoll(s.c_str() + 6);
        check(rows == n * n && nnz == 5 * n * n - 4 * n, s + ": n^2 rows, 5n^2-4n entries");
        auto m = gatherAll(*A);
        bool ok = true;
        for (const auto& kv : m) {
          const GO i = kv.first.first, j = kv.first.second;
          if (i == j ? kv.second != 4.0 : (kv.second != -1.0 || !(std::llabs(i - j) == 1 || std::llabs(i - j) == n)))
            ok = false;
        }
        check(ok, s + ": stencil values 4 / -1");
      }
    });
  }
  const char* badSpecs[] = {"rmat:8", "rmat:x:8", "rmat:8:8:1", "er:10", "er:10:abc", "lap2d:-3", "lap2d:",
                            "foo",    "",         "rmat:99:1",  "mtx",   "er:10:5x",  "lap3d:0", "stencil27:",
                            "tetdual:2:2", "tetdual:1000001"};
  for (const char* spec : badSpecs) {
    bool threw = false, other = false;
    std::string msg;
    try {
      gen::fromSpec(spec, gWorld);
    } catch (const std::invalid_argument& e) {
      threw = true;
      msg = e.what();
    } catch (...) {
      other = true;
    }
    check(threw && !other && TridentTest::sameOnAllRanks(msg, raw(gWorld)), std::string("fromSpec('") + spec + "') throws std::invalid_argument");
  }
  guarded("fromSpec mtx", [&] {
    const char* dir = std::getenv("TRIDENT_MATRIX_DIR");
    const std::string p = std::string(dir ? dir : TRIDENT_TEST_MATRIX_DIR) + "/cora.mtx";
    check(checksum(*gen::fromSpec(p, gWorld)) == checksum(*io::readMatrixMarket(p, gWorld)),
          "fromSpec(path.mtx) reads the file");
  });
}

void testRandom(const comm_ptr& self) {
  guarded("random options", [&] {
    gen::RandomOptions opt;
    opt.avg_per_row = 5;
    opt.empty_row_fraction = 0.2;
    opt.empty_col_fraction = 0.25;
    opt.skew = 0.3;
    opt.explicit_zeros = true;
    opt.seed = 7;
    const long long m = 400, n = 300;
    auto A = gen::random(m, n, opt, gWorld);
    auto B = gen::random(m, n, opt, self);
    check(checksum(*A) == checksum(*B), "random(m,n): same matrix on " + std::to_string(gSize) + " ranks and 1 rank");
    check(static_cast<long long>(A->getGlobalNumRows()) == m && static_cast<long long>(A->getGlobalNumCols()) == n &&
              A->getDomainMap()->getGlobalNumElements() == static_cast<size_t>(n),
          "random(m,n): dimensions");
    auto e = gatherAll(*A);
    std::map<GO, long long> rowLen;
    std::set<GO> usedCols;
    long long zeros = 0;
    for (const auto& kv : e) {
      ++rowLen[kv.first.first];
      usedCols.insert(kv.first.second);
      if (kv.second == 0.0) ++zeros;
    }
    long long maxLen = 0;
    for (const auto& kv : rowLen) maxLen = std::max(maxLen, kv.second);
    const long long emptyRows = m - static_cast<long long>(rowLen.size());
    const long long emptyCols = n - static_cast<long long>(usedCols.size());
    check(emptyRows >= m / 10 && emptyRows <= m / 3, "random: empty rows (" + std::to_string(emptyRows) + ")");
    check(emptyCols >= n / 8 && emptyCols <= n / 2, "random: empty columns (" + std::to_string(emptyCols) + ")");
    check(maxLen >= n / 5, "random: skewed long row (" + std::to_string(maxLen) + " entries)");
    check(zeros > 0, "random: explicit zeros (" + std::to_string(zeros) + ")");
    // Roundtrip of a rectangular matrix with explicit zeros.
    io::writeMatrixMarket(gTmp + "/rand.mtx", *A);
    auto C = io::readMatrixMarket(gTmp + "/rand.mtx", gWorld);
    check(checksum(*C) == checksum(*A) && C->getGlobalNumCols() == A->getGlobalNumCols(),
          "random: rectangular write + read roundtrip keeps explicit zeros");

    gen::RandomOptions plain;
    auto P0 = gen::random(m, n, plain, gWorld);
    auto ep = gatherAll(*P0);
    bool anyZero = false;
    for (const auto& kv : ep)
      if (kv.second == 0.0) anyZero = true;
    check(!anyZero && P0->getGlobalNumEntries() > 3 * m && P0->getGlobalNumEntries() < 5 * m,
          "random default options: ~4 per row, no zeros");
  });

  guarded("random on given maps", [&] {
    gen::RandomOptions opt;
    opt.avg_per_row = 6;
    opt.empty_col_fraction = 0.1;
    opt.skew = 0.2;
    opt.seed = 11;
    const long long nr = 200, nc = 150;
    // World maps: non-contiguous GIDs, rank 0 owns no rows (when there are several ranks).
    std::vector<GO> rows, cols;
    for (long long i = 0; i < nr; ++i) {
      const int owner = gSize > 1 ? 1 + static_cast<int>(i % (gSize - 1)) : 0;
      if (owner == gRank) rows.push_back(7 * i + 3);
    }
    for (long long j = 0; j < nc; ++j)
      if (j % gSize == gRank) cols.push_back(5 * j + 1);
    const auto inv = Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid();
    auto rowMap = Teuchos::rcp(new map_type(inv, Teuchos::ArrayView<const GO>(rows), GO(0), gWorld));
    auto colMap = Teuchos::rcp(new map_type(inv, Teuchos::ArrayView<const GO>(cols), GO(0), gWorld));
    auto A = gen::random(rowMap, colMap, rowMap, opt);
    // Self maps: all GIDs, in reverse order.
    std::vector<GO> rowsAll, colsAll;
    for (long long i = nr - 1; i >= 0; --i) rowsAll.push_back(7 * i + 3);
    for (long long j = nc - 1; j >= 0; --j) colsAll.push_back(5 * j + 1);
    auto rowMapS = Teuchos::rcp(new map_type(inv, Teuchos::ArrayView<const GO>(rowsAll), GO(0), self));
    auto colMapS = Teuchos::rcp(new map_type(inv, Teuchos::ArrayView<const GO>(colsAll), GO(0), self));
    auto B = gen::random(rowMapS, colMapS, rowMapS, opt);
    check(checksum(*A) == checksum(*B) && A->getGlobalNumEntries() > 0,
          "random(maps): non-contiguous maps, empty rank 0: same matrix as on 1 rank with another GID order");
    auto e = gatherAll(*A);
    bool ok = true;
    for (const auto& kv : e)
      if ((kv.first.first - 3) % 7 != 0 || (kv.first.second - 1) % 5 != 0 || kv.first.second > 5 * (nc - 1) + 1)
        ok = false;
    check(ok && A->getDomainMap()->isSameAs(*colMap), "random(maps): column GIDs come from the domain map");

    // Contiguous domain with a non-zero base.
    auto rm = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(nr), GO(0), gWorld));
    auto dm = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(nc), GO(100), gWorld));
    auto rmS = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(nr), GO(0), self));
    auto dmS = Teuchos::rcp(new map_type(static_cast<Tpetra::global_size_t>(nc), GO(100), self));
    auto C = gen::random(rm, dm, rm, opt);
    auto D = gen::random(rmS, dmS, rmS, opt);
    bool inRange = true;
    for (const auto& kv : gatherAll(*C))
      if (kv.first.second < 100 || kv.first.second >= 100 + nc) inRange = false;
    check(checksum(*C) == checksum(*D) && inRange, "random(maps): contiguous domain map with index base 100");
  });
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  {
    gWorld = Tpetra::getDefaultComm();
    gRank = gWorld->getRank();
    gSize = gWorld->getSize();
    comm_ptr self = Teuchos::rcp(new Teuchos::MpiComm<int>(MPI_COMM_SELF));

    char tmpl[] = "/tmp/trident_io_XXXXXX";
    char buf[64] = {0};
    if (gRank == 0) {
      const char* d = mkdtemp(tmpl);
      std::snprintf(buf, sizeof buf, "%s", d ? d : "/tmp");
    }
    MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, raw(gWorld));
    gTmp = buf;

    const char* dirEnv = std::getenv("TRIDENT_MATRIX_DIR");
    const std::string dir = dirEnv ? dirEnv : TRIDENT_TEST_MATRIX_DIR;
    if (gRank == 0) std::printf("test_io: %d ranks, matrices from %s, temp dir %s\n", gSize, dir.c_str(), gTmp.c_str());

    testSmallFiles();
    testCorruptFiles();
    testSharedMatrices(dir, self);
    testGenerators(self);
    testRandom(self);

    MPI_Barrier(raw(gWorld));
    if (gRank == 0) {
      std::error_code ec;
      if (gTmp.rfind("/tmp/trident_io_", 0) == 0) std::filesystem::remove_all(gTmp, ec);
      std::printf("test_io: %d passed, %d failed\n", gPassed, gFailed);
    }
    gWorld = Teuchos::null;
  }
  return gFailed == 0 ? 0 : 1;
}
