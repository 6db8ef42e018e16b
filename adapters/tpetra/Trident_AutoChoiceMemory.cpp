#include "Trident_AutoChoiceMemory.hpp"

#include <cstring>
#include <list>
#include <mutex>

#include "Trident_StoredZeros.hpp"

namespace Trident {
namespace MatrixMatrix {

namespace {

// A few choices per process: a code alternates between a handful of products (MueLu's levels,
// A*P and R*(AP)); older ones drop out.
constexpr std::size_t kRemembered = 8;

std::uint64_t mix(std::uint64_t x) {
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Bytes as 64-bit words in four independent lanes: one multiply chain would cost ~4 cycles a
// word, this about one.
std::uint64_t hashBytes(const void* data, std::size_t bytes, std::uint64_t seed) {
  const auto* p = static_cast<const unsigned char*>(data);
  std::uint64_t h[4] = {seed, seed ^ 0x9E3779B97F4A7C15ull, seed ^ 0xC2B2AE3D27D4EB4Full, seed ^ 0x165667B19E3779F9ull};
  std::size_t q = 0;
  for (; q + 32 <= bytes; q += 32)
    for (int l = 0; l < 4; ++l) {
      std::uint64_t w;
      std::memcpy(&w, p + q + 8 * l, 8);
      h[l] = (h[l] ^ w) * 0x100000001B3ull + 0x9E3779B97F4A7C15ull;
    }
  std::uint64_t tail = bytes;
  for (; q < bytes; ++q) tail = (tail << 8 | p[q]) * 0x100000001B3ull;
  return mix(h[0] ^ mix(h[1] ^ mix(h[2] ^ mix(h[3] ^ tail))));
}

std::uint64_t mapHash(const map_type& m, std::uint64_t seed) {
  const std::uint64_t n = Compat::localNumElements(m);
  // A contiguous map's GID list would be built on demand (an allocation): its first GID says it all.
  if (m.isContiguous()) return mix(seed ^ mix(n ^ mix(static_cast<std::uint64_t>(m.getMinGlobalIndex()))));
  const auto gids = Compat::localElementList(m);
  return hashBytes(gids.getRawPtr(), sizeof(GO) * gids.size(), mix(seed ^ n));
}

// Where the graph arrays are (the candidate's selector) and what they, the maps and A's stored
// zeros hold (the confirmation).
struct Identity {
  const void* rows = nullptr;
  const void* entries = nullptr;
  std::size_t num_rows = 0, num_entries = 0;
  bool operator==(const Identity& o) const {
    return rows == o.rows && entries == o.entries && num_rows == o.num_rows && num_entries == o.num_entries;
  }
};

Identity identityOf(const crs_matrix_type& M) {
  const auto local = M.getLocalMatrixHost();
  return {local.graph.row_map.data(), local.graph.entries.data(), local.graph.row_map.extent(0),
          local.graph.entries.extent(0)};
}

std::uint64_t contentsOf(const crs_matrix_type& M, bool zerosMatter, std::optional<std::size_t> zeros) {
  const auto local = M.getLocalMatrixHost();
  std::uint64_t h = hashBytes(local.graph.row_map.data(), sizeof(local.graph.row_map(0)) * local.graph.row_map.extent(0),
                              0x5EED0001ull);
  h = hashBytes(local.graph.entries.data(), sizeof(LO) * local.graph.entries.extent(0), h);
  h = mapHash(*M.getRowMap(), h);
  h = mapHash(*M.getColMap(), h);
  return zerosMatter ? mix(h ^ tpetra::storedZerosHash(M, zeros)) : h;
}

struct Entry {
  Identity a, b;
  bool transpose_a = false, transpose_b = false;
  std::uint64_t context = 0, contents = 0;
  RememberedChoice choice;
  bool sameKey(const Entry& o) const {
    return a == o.a && b == o.b && transpose_a == o.transpose_a && transpose_b == o.transpose_b && context == o.context;
  }
};

Entry keyOf(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB, std::uint64_t context) {
  Entry e;
  e.a = identityOf(A);
  e.b = identityOf(B);
  e.transpose_a = transposeA;
  e.transpose_b = transposeB;
  e.context = context;
  return e;
}

std::mutex memoryMutex;
std::list<Entry>& memory() {
  static std::list<Entry> m;
  return m;
}

std::uint64_t contentsOf(const crs_matrix_type& A, bool tA, const crs_matrix_type& B, std::optional<std::size_t> aZeros) {
  // op(A)'s stored zeros are skipped by the counts only when op(A) = A (a transpose is formed).
  return mix(contentsOf(A, !tA, aZeros) ^ mix(contentsOf(B, false, std::nullopt)));
}

}  // namespace

std::optional<RememberedChoice> findRememberedChoice(const crs_matrix_type& A, bool transposeA,
                                                     const crs_matrix_type& B, bool transposeB,
                                                     std::uint64_t context, std::optional<std::size_t> a_zeros) {
  const Entry key = keyOf(A, transposeA, B, transposeB, context);
  std::lock_guard<std::mutex> lock(memoryMutex);
  auto& m = memory();
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (!it->sameKey(key)) continue;
    if (it->contents != contentsOf(A, transposeA, B, a_zeros)) {
      m.erase(it);  // the arrays were reused for other operands
      return std::nullopt;
    }
    m.splice(m.begin(), m, it);
    return m.front().choice;
  }
  return std::nullopt;
}

void rememberChoice(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                    std::uint64_t context, std::optional<std::size_t> a_zeros, const RememberedChoice& choice) {
  Entry e = keyOf(A, transposeA, B, transposeB, context);
  e.contents = contentsOf(A, transposeA, B, a_zeros);
  e.choice = choice;
  std::lock_guard<std::mutex> lock(memoryMutex);
  auto& m = memory();
  for (auto it = m.begin(); it != m.end(); ++it)
    if (it->sameKey(e)) {
      m.erase(it);
      break;
    }
  m.push_front(std::move(e));
  if (m.size() > kRemembered) m.pop_back();
}

void forgetRememberedChoices() {
  std::lock_guard<std::mutex> lock(memoryMutex);
  memory().clear();
}

}  // namespace MatrixMatrix
}  // namespace Trident
