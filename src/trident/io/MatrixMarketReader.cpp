// The coordinate parser: a chunked fread line reader and from_chars number parsing, so that files
// of billions of entries read at disk speed, with every malformed line refused by a message that
// names it.
#include "trident/io/MatrixMarketReader.hpp"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace Trident {
namespace mmio {

// Reads a file line by line in large chunks. Lines are [s, e) without the newline.
class LineReader {
 public:
  explicit LineReader(std::FILE* f) : f_(f), buf_(size_t(1) << 22) {}
  long long lineNo() const { return line_; }
  bool next(const char*& s, const char*& e) {
    for (;;) {
      if (beg_ < end_) {
        char* p = static_cast<char*>(std::memchr(buf_.data() + beg_, '\n', end_ - beg_));
        const size_t len = static_cast<size_t>((p ? p : buf_.data() + end_) - (buf_.data() + beg_));
        if (len > Reader::kMaxLine)
          throw ParseError("line " + std::to_string(line_ + 1) + " is longer than " +
                           std::to_string(Reader::kMaxLine) + " bytes (not a Matrix Market text file?)");
        if (p) return take(p, p + 1, s, e);
      }
      if (eof_) return beg_ < end_ && take(buf_.data() + end_, buf_.data() + end_, s, e);
      refill();
    }
  }

 private:
  bool take(char* lineEnd, char* nextBeg, const char*& s, const char*& e) {
    s = buf_.data() + beg_;
    e = lineEnd;
    beg_ = static_cast<size_t>(nextBeg - buf_.data());
    ++line_;
    return true;
  }
  // Moves the partial line to the front and reads more.
  void refill() {
    const size_t len = end_ - beg_;
    if (beg_ > 0 && len > 0) std::memmove(buf_.data(), buf_.data() + beg_, len);
    beg_ = 0;
    end_ = len;
    const size_t got = std::fread(buf_.data() + end_, 1, buf_.size() - end_, f_);
    if (got == 0) {
      if (std::ferror(f_)) throw ParseError("read error");
      eof_ = true;
    }
    end_ += got;
  }

  std::FILE* f_;
  std::vector<char> buf_;
  size_t beg_ = 0, end_ = 0;
  bool eof_ = false;
  long long line_ = 0;
};

namespace {

inline bool isWs(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
inline void skipWs(const char*& p, const char* e) {
  while (p < e && isWs(*p)) ++p;
}
inline bool blankOrComment(const char* p, const char* e) {
  skipWs(p, e);
  return p == e || *p == '%';
}

// One optional sign: from_chars takes '-' itself, so "+-1" must be refused here.
inline bool skipPlus(const char*& p, const char* e) {
  if (p < e && *p == '+') {
    ++p;
    if (p < e && *p == '-') return false;
  }
  return true;
}

bool parseLL(const char*& p, const char* e, long long& v) {
  skipWs(p, e);
  if (!skipPlus(p, e)) return false;
  auto res = std::from_chars(p, e, v);
  if (res.ec != std::errc() || (res.ptr < e && !isWs(*res.ptr))) return false;
  p = res.ptr;
  return true;
}

// A finite double. from_chars reports overflow and underflow alike as out of range: underflow
// (a legitimate tiny value) is re-read with strtod, which rounds it to a subnormal or zero.
enum class Num { kOk, kBad, kNonFinite };
Num parseDouble(const char*& p, const char* e, double& v) {
  skipWs(p, e);
  if (!skipPlus(p, e)) return Num::kBad;
  auto res = std::from_chars(p, e, v, std::chars_format::general);
  if (res.ec == std::errc::result_out_of_range) {
    const std::string tok(p, res.ptr);
    v = std::strtod(tok.c_str(), nullptr);
  } else if (res.ec != std::errc()) {
    return Num::kBad;
  }
  if (res.ptr < e && !isWs(*res.ptr)) return Num::kBad;
  p = res.ptr;
  return std::isfinite(v) ? Num::kOk : Num::kNonFinite;
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

// Quotes a piece of the input for an error message: printable, and short.
std::string quote(const std::string& s) {
  std::string out = "'";
  for (size_t t = 0; t < s.size() && t < 40; ++t)
    out += std::isprint(static_cast<unsigned char>(s[t])) ? s[t] : '?';
  if (s.size() > 40) out += "...";
  return out + "'";
}

}  // namespace

const char* fieldName(Field f) {
  return f == Field::kReal ? "real" : f == Field::kInteger ? "integer" : "pattern";
}
const char* symmetryName(Symmetry s) {
  return s == Symmetry::kGeneral ? "general" : s == Symmetry::kSymmetric ? "symmetric" : "skew-symmetric";
}

Reader::Reader(const std::string& path) : f_(std::fopen(path.c_str(), "rb")) {
  if (!f_) throw ParseError(std::string("cannot open file: ") + std::strerror(errno));
  struct stat st;
  if (fstat(fileno(f_), &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      std::fclose(f_);
      f_ = nullptr;
      throw ParseError("is a directory");
    }
    if (S_ISREG(st.st_mode)) fileBytes_ = static_cast<long long>(st.st_size);
  }
  rd_ = std::make_unique<LineReader>(f_);
}

Reader::~Reader() {
  if (f_) std::fclose(f_);
}

ParseError Reader::at(const std::string& msg) const {
  return ParseError("line " + std::to_string(rd_->lineNo()) + ": " + msg);
}

const Header& Reader::header() {
  if (!haveHeader_) {
    parseBanner();
    parseSizeLine();
    haveHeader_ = true;
  }
  return header_;
}

void Reader::parseBanner() {
  const char *s, *e;
  if (!rd_->next(s, e)) throw ParseError("empty file (no %%MatrixMarket header)");
  const auto t = tokens(s, e);
  if (t.empty() || lower(t[0]) != "%%matrixmarket") throw at("bad header: the first line must start with %%MatrixMarket");
  if (t.size() < 5) throw at("bad header: expected '%%MatrixMarket matrix coordinate <field> <symmetry>'");
  if (lower(t[1]) != "matrix") throw at("bad header: unsupported object " + quote(t[1]) + " (only 'matrix')");
  const std::string fmt = lower(t[2]);
  if (fmt == "array") throw at("unsupported format 'array' (dense); only 'coordinate' is supported");
  if (fmt != "coordinate") throw at("bad header: unknown format " + quote(t[2]));
  const std::string fld = lower(t[3]);
  if (fld == "real" || fld == "double") header_.field = Field::kReal;
  else if (fld == "integer") header_.field = Field::kInteger;
  else if (fld == "pattern") header_.field = Field::kPattern;
  else if (fld == "complex") throw at("unsupported field 'complex'; only real, integer and pattern are supported");
  else throw at("bad header: unknown field " + quote(t[3]));
  const std::string sym = lower(t[4]);
  if (sym == "general") header_.symmetry = Symmetry::kGeneral;
  else if (sym == "symmetric") header_.symmetry = Symmetry::kSymmetric;
  else if (sym == "skew-symmetric") header_.symmetry = Symmetry::kSkew;
  else if (sym == "hermitian") throw at("unsupported symmetry 'hermitian'");
  else throw at("bad header: unknown symmetry " + quote(t[4]));
  if (t.size() > 5) throw at("bad header: unexpected text after the symmetry: " + quote(t[5]));
}

void Reader::parseSizeLine() {
  const char *s, *e;
  for (;;) {
    if (!rd_->next(s, e)) throw ParseError("file ends before the size line");
    if (!blankOrComment(s, e)) break;
  }
  Header& h = header_;
  const char* p = s;
  if (!parseLL(p, e, h.rows) || !parseLL(p, e, h.cols) || !parseLL(p, e, h.entries))
    throw at("bad size line: expected three integers 'rows cols entries' (each below 2^63)");
  skipWs(p, e);
  if (p != e) throw at("bad size line: unexpected text after 'rows cols entries'");
  if (h.rows < 0 || h.cols < 0 || h.entries < 0) throw at("bad size line: negative size");
  if (h.symmetry != Symmetry::kGeneral && h.rows != h.cols)
    throw at(std::string("bad size line: a ") + symmetryName(h.symmetry) + " matrix must be square");
}

void Reader::parseValue(const char*& p, const char* e, double& v) const {
  v = 1.0;
  if (header_.field == Field::kInteger) {
    long long iv = 0;
    if (!parseLL(p, e, iv)) throw at("non-integer or missing value in an 'integer' file");
    v = static_cast<double>(iv);
  } else if (header_.field == Field::kReal) {
    switch (parseDouble(p, e, v)) {
      case Num::kOk: break;
      case Num::kBad: throw at("non-numeric or missing value");
      case Num::kNonFinite: throw at("value is not finite (NaN, Inf or beyond the range of a double)");
    }
  }
}

bool Reader::nextEntry(long long& i, long long& j, double& v) {
  const Header& h = header_;
  const char *s, *e;
  if (read_ == h.entries) {
    while (rd_->next(s, e))
      if (!blankOrComment(s, e)) throw at("more entries than the " + std::to_string(h.entries) + " declared in the size line");
    return false;
  }
  do {
    if (!rd_->next(s, e))
      throw ParseError("file ends after " + std::to_string(read_) + " of " + std::to_string(h.entries) +
                       " declared entries (truncated file?)");
  } while (blankOrComment(s, e));
  const char* p = s;
  if (!parseLL(p, e, i) || !parseLL(p, e, j)) throw at("non-numeric or missing row/column index");
  parseValue(p, e, v);
  skipWs(p, e);
  if (p != e && h.field != Field::kPattern) throw at("unexpected text after the entry");
  if (i < 1 || i > h.rows || j < 1 || j > h.cols)
    throw at("index (" + std::to_string(i) + ", " + std::to_string(j) + ") out of range for a " +
             std::to_string(h.rows) + " x " + std::to_string(h.cols) + " matrix (indices are 1-based)");
  if (h.symmetry == Symmetry::kSkew && i == j && v != 0.0) throw at("nonzero diagonal entry in a skew-symmetric matrix");
  --i;
  --j;
  ++read_;
  return true;
}

}  // namespace mmio
}  // namespace Trident
