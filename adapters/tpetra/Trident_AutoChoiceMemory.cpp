#include "Trident_AutoChoiceMemory.hpp"

#include <list>
#include <mutex>

#include "Trident_PatternFingerprint.hpp"

namespace Trident {
namespace MatrixMatrix {

namespace {

// A few choices per process: a code alternates between a handful of products (MueLu's levels,
// A*P and R*(AP)); older ones drop out.
constexpr std::size_t kRemembered = 8;

struct Entry {
  tpetra::PatternFingerprint a, b;
  bool transpose_a = false, transpose_b = false;
  std::uint64_t context = 0;
  RememberedChoice choice;
  bool selectedBy(const crs_matrix_type& A, bool tA, const crs_matrix_type& B, bool tB, std::uint64_t c) const {
    return transpose_a == tA && transpose_b == tB && context == c && a.selects(A) && b.selects(B);
  }
};

std::mutex memoryMutex;
std::list<Entry>& memory() {
  static std::list<Entry> m;
  return m;
}

}  // namespace

std::optional<RememberedChoice> findRememberedChoice(const crs_matrix_type& A, bool transposeA,
                                                     const crs_matrix_type& B, bool transposeB,
                                                     std::uint64_t context, std::optional<std::size_t> a_zeros) {
  std::lock_guard<std::mutex> lock(memoryMutex);
  auto& m = memory();
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (!it->selectedBy(A, transposeA, B, transposeB, context)) continue;
    // A*A: where B's fingerprint is A's structure, A's hash confirms both (B's zeros do not matter).
    const bool bIsA = &A == &B && it->b.sameStructureAs(it->a);
    if (!it->a.matches(A, a_zeros) || (!bIsA && !it->b.matches(B))) {
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
  using tpetra::PatternFingerprint;
  // op(A)'s stored zeros are skipped by the counts only when op(A) = A (a transpose is formed).
  Entry e{PatternFingerprint(A, !transposeA, a_zeros, PatternFingerprint::Hold::Nothing),
          PatternFingerprint(B, false, std::nullopt, PatternFingerprint::Hold::Nothing),
          transposeA, transposeB, context, choice};
  std::lock_guard<std::mutex> lock(memoryMutex);
  auto& m = memory();
  for (auto it = m.begin(); it != m.end(); ++it)
    if (it->selectedBy(A, transposeA, B, transposeB, context)) {
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
