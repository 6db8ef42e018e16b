#pragma once
// The one Matrix Market coordinate parser: the Tpetra adapter's reader (which distributes the
// entries from rank 0) and the peers' serial readers in perf/ (which must not link Trilinos, so
// that a peer's time and memory are its own) both read through it, so every driver multiplies the
// same matrix and refuses the same files with the same messages. Plain C++17, no MPI.
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>

namespace Trident {
namespace mmio {

enum class Field { kReal = 0, kInteger = 1, kPattern = 2 };
enum class Symmetry { kGeneral = 0, kSymmetric = 1, kSkew = 2 };
const char* fieldName(Field f);        // "real" | "integer" | "pattern"
const char* symmetryName(Symmetry s);  // "general" | "symmetric" | "skew-symmetric"

struct Header {
  long long rows = 0, cols = 0;
  long long entries = 0;  // stored in the file, before symmetric expansion
  Field field = Field::kReal;
  Symmetry symmetry = Symmetry::kGeneral;
};

// What is wrong with the file, without its path ("line N: ..." where a line is to blame); the
// callers put their own prefix in front.
struct ParseError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class LineReader;

// Reads one file in two steps: header() first, so that a caller can check the declared size
// before anything of that size is allocated, then entries(). Both throw ParseError for every
// problem with the file: unreadable, bad banner / field / symmetry / size line, indices out of
// range (1-based in the file), non-numeric, NaN or infinite values, non-integer values in an
// `integer` file, fewer or more entries than declared, a line over kMaxLine bytes, a nonzero
// diagonal in a skew-symmetric file. Semantics: pattern entries are 1.0, duplicates are left to
// the caller (to be summed), explicit zeros are kept.
class Reader {
 public:
  // The Matrix Market specification limits lines to 1024 characters; anything near this bound is
  // not a Matrix Market file (e.g. binary data without newlines), and buffering it would only
  // grow memory.
  static constexpr size_t kMaxLine = size_t(1) << 20;

  explicit Reader(const std::string& path);
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Parses the banner and the size line (once; later calls return the same header).
  const Header& header();
  // The file's size in bytes, or -1 where it is not a regular file. Callers reserve for what the
  // file can hold ("1 1\n", 4 bytes, is the shortest entry), never for what a size line claims.
  long long fileBytes() const { return fileBytes_; }

  // Calls visit(row, col, value) with 0-based indices for every stored entry and, in a symmetric
  // or skew-symmetric file, for the mirrored off-diagonal entry (negated for skew) right after
  // it; then checks that only blank or comment lines follow the declared entries.
  template <class Visit>
  void entries(Visit&& visit) {
    header();
    long long i, j;
    double v;
    while (nextEntry(i, j, v)) {
      visit(i, j, v);
      if (header_.symmetry != Symmetry::kGeneral && i != j) visit(j, i, header_.symmetry == Symmetry::kSkew ? -v : v);
    }
  }

 private:
  bool nextEntry(long long& i, long long& j, double& v);  // false after the last declared entry
  void parseBanner();
  void parseSizeLine();
  void parseValue(const char*& p, const char* e, double& v) const;
  ParseError at(const std::string& msg) const;

  std::FILE* f_ = nullptr;
  long long fileBytes_ = -1;
  std::unique_ptr<LineReader> rd_;
  Header header_;
  bool haveHeader_ = false;
  long long read_ = 0;  // entries read so far
};

}  // namespace mmio
}  // namespace Trident
