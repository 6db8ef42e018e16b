// Fuzz-style test of the Matrix Market reader: truncated files, random garbage, random byte
// mutations of valid files, huge declared sizes, bad counts and indices, non-finite values,
// duplicates, header variants, CRLF and comments. Every case must end, within seconds, with either
// the matrix the file describes or Trident::InvalidInput with the same message on every rank.
//
// What the file describes comes from an independent reference reader (Oracle below): a plain
// token-based reading of the rules the reader follows (Trident_MatrixMarket.hpp). It decides valid/invalid and the entries;
// the reader under test must agree on every case.
#include "Trident_MatrixMarket.hpp"
#include "common/TestUtils.hpp"

#include <mpi.h>

#include <Teuchos_DefaultMpiComm.hpp>
#include <Tpetra_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/resource.h>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "trident/core/Errors.hpp"

using namespace Trident;

namespace {

MPI_Comm gMpi = MPI_COMM_WORLD;
comm_ptr gComm;
int gRank = 0, gSize = 1;
int gPassed = 0, gFailed = 0;
std::string gTmp;
double gSlowest = 0;
std::string gSlowestCase;
// A case that takes longer than this fails (a hang is caught by ctest's timeout).
constexpr double kCaseSeconds = 5.0;

bool allRanks(bool ok) {
  int l = ok ? 1 : 0, g = 0;
  MPI_Allreduce(&l, &g, 1, MPI_INT, MPI_MIN, gMpi);
  return g == 1;
}

void check(bool ok, const std::string& what, bool quiet = false) {
  ok = allRanks(ok);
  if (ok) ++gPassed;
  else ++gFailed;
  if (gRank == 0 && (!ok || !quiet)) std::printf("[%s] %s\n", ok ? "PASS" : "FAIL", what.c_str());
  std::fflush(stdout);
}

// ---- the reference reader -----------------------------------------------------------------------

using Entries = std::map<std::pair<long long, long long>, double>;

struct Expect {
  bool valid = false;
  std::string why;  // when invalid (for the log only)
  long long rows = 0, cols = 0;
  Entries entries;  // 0-based (row, col) -> summed value
};

bool ws(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> t;
  size_t p = 0;
  while (p < line.size()) {
    while (p < line.size() && ws(line[p])) ++p;
    if (p >= line.size()) break;
    size_t q = p;
    while (q < line.size() && !ws(line[q])) ++q;
    t.push_back(line.substr(p, q - p));
    p = q;
  }
  return t;
}

std::string lowered(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool integerToken(const std::string& t, long long& v) {
  static const std::regex re("[+-]?[0-9]+");
  if (!std::regex_match(t, re)) return false;
  errno = 0;
  v = std::strtoll(t.c_str(), nullptr, 10);
  return errno == 0;
}

// A decimal number (the syntax C's strtod and C++'s from_chars share); finite after rounding.
bool realToken(const std::string& t, double& v) {
  static const std::regex re("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?");
  if (!std::regex_match(t, re)) return false;
  v = std::strtod(t.c_str(), nullptr);
  return std::isfinite(v);
}

bool blankOrComment(const std::string& line) {
  auto t = split(line);
  return t.empty() || t[0][0] == '%';
}

Expect oracle(const std::string& text) {
  Expect x;
  auto bad = [&](const std::string& why) {
    x.valid = false;
    x.why = why;
    x.entries.clear();
    return x;
  };
  std::vector<std::string> lines;
  {
    size_t p = 0;
    while (p < text.size()) {
      size_t q = text.find('\n', p);
      if (q == std::string::npos) q = text.size();
      lines.push_back(text.substr(p, q - p));
      p = q + 1;
    }
  }
  if (lines.empty()) return bad("empty");
  auto b = split(lines[0]);
  if (b.size() != 5 || lowered(b[0]) != "%%matrixmarket" || lowered(b[1]) != "matrix" ||
      lowered(b[2]) != "coordinate")
    return bad("banner");
  const std::string field = lowered(b[3]), sym = lowered(b[4]);
  if (field != "real" && field != "double" && field != "integer" && field != "pattern") return bad("field");
  if (sym != "general" && sym != "symmetric" && sym != "skew-symmetric") return bad("symmetry");
  size_t l = 1;
  while (l < lines.size() && blankOrComment(lines[l])) ++l;
  if (l >= lines.size()) return bad("no size line");
  auto sz = split(lines[l++]);
  long long n = 0, m = 0, nnz = 0;
  if (sz.size() != 3 || !integerToken(sz[0], n) || !integerToken(sz[1], m) || !integerToken(sz[2], nnz))
    return bad("size line");
  if (n < 0 || m < 0 || nnz < 0) return bad("negative size");
  if (sym != "general" && n != m) return bad("not square");
  x.rows = n;
  x.cols = m;
  long long k = 0;
  for (; l < lines.size() && k < nnz; ++l) {
    if (blankOrComment(lines[l])) continue;
    auto t = split(lines[l]);
    long long i = 0, j = 0;
    double v = 1.0;
    if (t.size() < 2 || !integerToken(t[0], i) || !integerToken(t[1], j)) return bad("indices");
    if (field == "pattern") {
      // further tokens are ignored
    } else if (t.size() != 3) {
      return bad("entry tokens");
    } else if (field == "integer") {
      long long iv = 0;
      if (!integerToken(t[2], iv)) return bad("integer value");
      v = static_cast<double>(iv);
    } else if (!realToken(t[2], v)) {
      return bad("real value");
    }
    if (i < 1 || i > n || j < 1 || j > m) return bad("index range");
    if (sym == "skew-symmetric" && i == j && v != 0.0) return bad("skew diagonal");
    x.entries[{i - 1, j - 1}] += v;
    if (sym != "general" && i != j) x.entries[{j - 1, i - 1}] += (sym == "skew-symmetric" ? -v : v);
    ++k;
  }
  if (k < nnz) return bad("too few entries");
  for (; l < lines.size(); ++l)
    if (!blankOrComment(lines[l])) return bad("too many entries");
  x.valid = true;
  return x;
}

// ---- running one case ---------------------------------------------------------------------------

// The matrix this rank owns, as (row, col) -> value.
Entries localEntries(const crs_matrix_type& A) {
  Entries out;
  auto rowMap = A.getRowMap();
  auto colMap = A.getColMap();
  auto local = A.getLocalMatrixHost();
  for (LO r = 0; r < static_cast<LO>(Compat::localNumRows(A)); ++r)
    for (size_t q = local.graph.row_map(r); q < local.graph.row_map(r + 1); ++q)
      out[{rowMap->getGlobalElement(r), colMap->getGlobalElement(local.graph.entries(q))}] = local.values(q);
  return out;
}

enum class Want { kOracle, kEither, kInvalid };

// Writes the text (rank 0), reads it on every rank, and checks the outcome. `path` overrides
// the file (missing files, directories).
bool runCase(const std::string& name, const std::string& text, Want want, bool quiet,
             const std::string& path = "") {
  const std::string file = path.empty() ? gTmp + "/case.mtx" : path;
  if (path.empty() && gRank == 0) {
    FILE* f = std::fopen(file.c_str(), "wb");
    if (f) {
      std::fwrite(text.data(), 1, text.size(), f);
      std::fclose(f);
    }
  }
  MPI_Barrier(gMpi);
  const Expect x = want == Want::kInvalid ? Expect{} : oracle(text);
  const auto t0 = std::chrono::steady_clock::now();
  Teuchos::RCP<crs_matrix_type> A;
  std::string err;
  bool invalidInput = false, otherError = false;
  try {
    A = io::readMatrixMarket(file, gComm);
  } catch (const InvalidInput& e) {
    invalidInput = true;
    err = e.what();
  } catch (const std::exception& e) {
    otherError = true;
    err = std::string("not InvalidInput: ") + e.what();
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  MPI_Allreduce(MPI_IN_PLACE, &secs, 1, MPI_DOUBLE, MPI_MAX, gMpi);
  if (secs > gSlowest) {
    gSlowest = secs;
    gSlowestCase = name;
  }
  bool ok = !otherError && secs < kCaseSeconds;
  std::string detail;
  const bool anyInvalid = !allRanks(!invalidInput);
  if (anyInvalid) {
    ok = ok && allRanks(invalidInput) && TridentTest::sameOnAllRanks(err, gMpi) && err.find("readMatrixMarket") != std::string::npos;
    if (want == Want::kOracle && x.valid) {
      ok = false;
      detail = "reader refused a valid file: " + err;
    }
  } else if (!otherError) {
    if (want == Want::kInvalid || (want == Want::kOracle && !x.valid)) {
      ok = false;
      detail = "reader accepted an invalid file (" + x.why + ")";
    } else {
      // Compare this rank's rows with the expected entries in the same rows.
      Entries mine = localEntries(*A), expect;
      auto rowMap = A->getRowMap();
      for (const auto& e : x.entries)
        if (rowMap->isNodeGlobalElement(e.first.first)) expect.insert(e);
      const bool dims = static_cast<long long>(A->getGlobalNumRows()) == x.rows &&
                        static_cast<long long>(A->getDomainMap()->getGlobalNumElements()) == x.cols &&
                        A->getGlobalNumEntries() == x.entries.size();
      if (!(mine == expect && dims)) {
        ok = false;
        detail = "matrix differs from the file's";
      }
    }
  }
  if (!allRanks(ok) && gRank == 0) {
    std::printf("  case '%s' (%.2f s): %s %s\n", name.c_str(), secs, detail.c_str(), err.c_str());
    std::string shown = text.substr(0, 300);
    for (auto& c : shown)
      if (!std::isprint(static_cast<unsigned char>(c)) && c != '\n') c = '?';
    std::printf("  --- file (first 300 bytes) ---\n%s\n  ---\n", shown.c_str());
  }
  if (!quiet && gRank == 0) std::printf("       %s -> %s (%.3f s)\n", name.c_str(), anyInvalid ? err.c_str() : "matrix", secs);
  check(ok, name, quiet);
  return allRanks(ok);
}

// ---- the cases ----------------------------------------------------------------------------------

const std::string kGeneral =
    "%%MatrixMarket matrix coordinate real general\n"
    "% a comment\n"
    "\n"
    "7 5 12\r\n"
    "1 1 2.5\n"
    "7 5 -1e-3\n"
    "  3\t2  +4\n"
    "% comment between entries\n"
    "3 2 1.25\n"        // duplicate: summed
    "2 3 0\n"           // explicit zero: kept
    "4 4 1E2\r\n"
    "5 1 -.5\n"
    "6 5 3.\n"
    "\n"
    "7 1 1e-400\n"      // underflows to zero: a value, not an error
    "1 5 123456789\n"
    "2 3 7\n"
    "4 4 -100\n"        // cancels the 1E2: an entry of value zero
    "% trailing comment\n";

const std::string kPatternSym =
    "%%MatrixMarket matrix coordinate pattern symmetric\n"
    "6 6 7\n"
    "1 1\n2 1\n3 2\n6 1\n5 5\n6 4\n4 3\n";

const std::string kIntegerSkew =
    "%%MatrixMarket matrix coordinate integer skew-symmetric\n"
    "%\n"
    "4 4 4\n"
    "2 1 3\n3 1 -2\n4 3 +5\n3 2 0\n";

void truncations(const std::string& base, const std::string& label, size_t step) {
  int bad = 0;
  for (size_t cut = 0; cut <= base.size(); cut += step)
    if (!runCase(label + " cut at " + std::to_string(cut), base.substr(0, cut), Want::kOracle, true)) ++bad;
  check(bad == 0, label + ": every truncation gives the file's matrix or InvalidInput");
}

void mutations(const std::string& base, const std::string& label, int count, unsigned seed) {
  std::mt19937 rng(seed);
  const std::string alphabet = "0123456789 \n\r\t%+-.eE,xnaifNAIF";
  int bad = 0;
  for (int c = 0; c < count; ++c) {
    std::string t = base;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !t.empty(); ++e) {
      const size_t pos = rng() % t.size();
      const char ch = (rng() % 2) ? alphabet[rng() % alphabet.size()] : static_cast<char>(rng() % 256);
      switch (rng() % 3) {
        case 0: t[pos] = ch; break;
        case 1: t.insert(t.begin() + static_cast<std::ptrdiff_t>(pos), ch); break;
        default: t.erase(pos, 1); break;
      }
    }
    if (!runCase(label + " mutation " + std::to_string(c), t, Want::kOracle, true)) ++bad;
  }
  check(bad == 0, label + ": " + std::to_string(count) + " random byte mutations agree with the reference reader");
}

void garbage(int count, unsigned seed) {
  std::mt19937 rng(seed);
  int bad = 0;
  for (int c = 0; c < count; ++c) {
    std::string t(rng() % 4096, '\0');
    for (auto& ch : t) ch = static_cast<char>(rng() % 256);
    // Half of them behind a valid banner, so the size line and entries get the garbage.
    if (c % 2) t = "%%MatrixMarket matrix coordinate real general\n" + t;
    if (!runCase("garbage " + std::to_string(c), t, Want::kOracle, true)) ++bad;
  }
  check(bad == 0, std::to_string(count) + " files of random bytes end with InvalidInput");
}

const std::string kBanner = "%%MatrixMarket matrix coordinate real general\n";

void specificCases() {
  struct Case {
    const char* name;
    std::string text;
    Want want;
  };
  const std::vector<Case> cases = {
      // Huge declared sizes: refused up front (or, on a machine with the memory, read).
      {"3e9 x 3e9, one entry", kBanner + "3000000000 3000000000 1\n3000000000 1 2.5\n", Want::kEither},
      {"2^62 rows", kBanner + "4611686018427387904 4 1\n1 1 1\n", Want::kInvalid},
      {"rows beyond 2^63", kBanner + "99999999999999999999 4 1\n1 1 1\n", Want::kInvalid},
      {"1 x 3e9, one entry (wide)", kBanner + "1 3000000000 1\n1 3000000000 2.5\n", Want::kEither},
      {"2e6 x 2e6, one entry", kBanner + "2000000 2000000 1\n2000000 1999999 -4\n", Want::kOracle},
      {"declares 1e18 entries, has 1", kBanner + "3 3 1000000000000000000\n1 1 1\n", Want::kOracle},
      // Counts.
      {"fewer entries than declared", kBanner + "3 3 3\n1 1 1\n2 2 1\n", Want::kOracle},
      {"more entries than declared", kBanner + "3 3 1\n1 1 1\n2 2 1\n", Want::kOracle},
      {"zero entries", kBanner + "3 4 0\n", Want::kOracle},
      {"0 x 0", kBanner + "0 0 0\n", Want::kOracle},
      {"negative entry count", kBanner + "3 3 -1\n", Want::kOracle},
      // Indices.
      {"row index 0", kBanner + "3 3 1\n0 1 1\n", Want::kOracle},
      {"negative column", kBanner + "3 3 1\n1 -2 1\n", Want::kOracle},
      {"row past the end", kBanner + "3 3 1\n4 1 1\n", Want::kOracle},
      {"index beyond 2^63", kBanner + "3 3 1\n99999999999999999999 1 1\n", Want::kOracle},
      {"fractional index", kBanner + "3 3 1\n1.0 1 1\n", Want::kOracle},
      {"hex index", kBanner + "3 3 1\n0x1 1 1\n", Want::kOracle},
      {"+-index", kBanner + "3 3 1\n+-1 1 1\n", Want::kOracle},
      // Values.
      {"NaN", kBanner + "3 3 1\n1 1 nan\n", Want::kOracle},
      {"Inf", kBanner + "3 3 1\n1 1 inf\n", Want::kOracle},
      {"-Infinity", kBanner + "3 3 1\n1 1 -Infinity\n", Want::kOracle},
      {"overflow 1e400", kBanner + "3 3 1\n1 1 1e400\n", Want::kOracle},
      {"hex float", kBanner + "3 3 1\n1 1 0x1p3\n", Want::kOracle},
      {"+-value", kBanner + "3 3 1\n1 1 +-2\n", Want::kOracle},
      {"value with a comma", kBanner + "3 3 1\n1 1 1,5\n", Want::kOracle},
      {"two values", kBanner + "3 3 1\n1 1 1 2\n", Want::kOracle},
      {"integer file, fractional value",
       "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", Want::kOracle},
      {"pattern file with values (ignored)",
       "%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1 7\n2 1 x\n", Want::kOracle},
      {"skew-symmetric diagonal",
       "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 3\n", Want::kOracle},
      // Duplicates are summed (also across the mirror of a symmetric file).
      {"duplicates", kBanner + "2 2 4\n1 2 1\n1 2 2\n1 2 4\n2 2 1\n", Want::kOracle},
      {"symmetric, both triangles",
       "%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n2 1 1\n1 2 2\n", Want::kOracle},
      // Headers.
      {"no banner", "3 3 1\n1 1 1\n", Want::kOracle},
      {"banner after a blank line", "\n" + kBanner + "3 3 1\n1 1 1\n", Want::kOracle},
      {"banner, extra word", "%%MatrixMarket matrix coordinate real general extra\n1 1 1\n1 1 1\n", Want::kOracle},
      {"banner, field missing", "%%MatrixMarket matrix coordinate general\n1 1 1\n1 1 1\n", Want::kOracle},
      {"banner, unknown field", "%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 1\n", Want::kOracle},
      {"banner, complex", "%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", Want::kOracle},
      {"banner, hermitian", "%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", Want::kOracle},
      {"banner, array", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", Want::kOracle},
      {"banner, vector object", "%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n", Want::kOracle},
      {"banner, upper case and CRLF", "%%MATRIXMARKET MATRIX COORDINATE REAL GENERAL\r\n2 2 1\r\n2 2 5\r\n",
       Want::kOracle},
      {"symmetric, rectangular", "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", Want::kOracle},
      {"size line with 2 numbers", kBanner + "3 3\n1 1 1\n", Want::kOracle},
      {"size line with 4 numbers", kBanner + "3 3 1 1\n1 1 1\n", Want::kOracle},
      {"only comments after the banner", kBanner + "% nothing\n%\n", Want::kOracle},
      {"empty file", "", Want::kOracle},
      {"CR only line ends", "%%MatrixMarket matrix coordinate real general\r2 2 1\r1 1 1\r", Want::kOracle},
      {"tabs, CRLF, no final newline", kBanner + "\t2\t2\t2\r\n1\t1\t1\r\n% c\r\n2 2 2", Want::kOracle},
      {"a 2 MiB line", kBanner + "2 2 1\n1 1 " + std::string(size_t(2) << 20, '1') + "\n", Want::kInvalid},
      {"9 MiB without a newline", kBanner + std::string(size_t(9) << 20, '7'), Want::kInvalid},
      {"NUL bytes", kBanner + std::string("3 3 1\n1 1 \0\n", 12), Want::kOracle},
  };
  for (const auto& c : cases) runCase(c.name, c.text, c.want, false);
  runCase("missing file", "", Want::kInvalid, false, gTmp + "/does/not/exist.mtx");
  runCase("a directory", "", Want::kInvalid, false, gTmp);
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  {
    gComm = Tpetra::getDefaultComm();
    gRank = gComm->getRank();
    gSize = gComm->getSize();
    char tmpl[] = "/tmp/trident_mmfuzz_XXXXXX";
    char buf[64] = {0};
    if (gRank == 0) {
      const char* d = mkdtemp(tmpl);
      std::snprintf(buf, sizeof buf, "%s", d ? d : "/tmp");
    }
    MPI_Bcast(buf, sizeof buf, MPI_CHAR, 0, gMpi);
    gTmp = buf;

    // Diagnostic: --probe=FILE reads one file and prints the time and this rank's peak memory.
    for (int a = 1; a < argc; ++a)
      if (std::strncmp(argv[a], "--probe=", 8) == 0) {
        const auto t0 = std::chrono::steady_clock::now();
        std::string what = "matrix";
        try {
          io::readMatrixMarket(argv[a] + 8, gComm);
        } catch (const std::exception& e) {
          what = e.what();
        }
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        std::printf("rank %d: %s, %.3f s, peak RSS %.1f MB\n", gRank, what.c_str(),
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), ru.ru_maxrss / 1024.0);
        gComm = Teuchos::null;
        return 0;
      }

    // The bases themselves are valid and read as the reference says.
    runCase("base: real general", kGeneral, Want::kOracle, false);
    runCase("base: pattern symmetric", kPatternSym, Want::kOracle, false);
    runCase("base: integer skew-symmetric", kIntegerSkew, Want::kOracle, false);
    check(oracle(kGeneral).valid && oracle(kGeneral).entries.size() == 9 && oracle(kPatternSym).entries.size() == 12 &&
              oracle(kIntegerSkew).entries.size() == 8,
          "the reference reader accepts the bases");

    specificCases();
    truncations(kGeneral, "real general", 2);
    truncations(kPatternSym, "pattern symmetric", 1);
    truncations(kIntegerSkew, "integer skew", 1);
    mutations(kGeneral, "real general", 300, 11);
    mutations(kPatternSym, "pattern symmetric", 150, 12);
    mutations(kIntegerSkew, "integer skew", 150, 13);
    garbage(40, 14);

    if (gRank == 0) std::printf("slowest case: '%s', %.3f s\n", gSlowestCase.c_str(), gSlowest);
    MPI_Barrier(gMpi);
    if (gRank == 0) {
      std::error_code ec;
      if (gTmp.rfind("/tmp/trident_mmfuzz_", 0) == 0) std::filesystem::remove_all(gTmp, ec);
      std::printf("test_mm_fuzz: %d passed, %d failed\n", gPassed, gFailed);
    }
    gComm = Teuchos::null;
  }
  return gFailed == 0 ? 0 : 1;
}
