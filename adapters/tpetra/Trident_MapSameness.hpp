#pragma once
// Tpetra's Map::isSameAs is collective whenever the two maps are different objects (MueLu hands
// the drop-in A's domain map and P's row map as distinct, equal maps), so each call costs an
// allreduce. The plan asks the local half here and reduces all its questions in one
// CollectiveCheck (trident/core/Errors.hpp); the answers then travel as plain booleans.
#include <optional>

#include "Trident_TpetraTypes.hpp"

namespace Trident {
namespace tpetra {

// This rank's half of a.isSameAs(b): the global sizes and this rank's global IDs, in order.
inline bool locallySame(const map_type& a, const map_type& b) {
  return &a == &b || (a.getGlobalNumElements() == b.getGlobalNumElements() && a.locallySameAs(b));
}

// This rank's half of "A's own Import (domain map -> column map) brings B's rows onto A's
// columns": A has an Import and B's rows are distributed as A's domain.
inline bool aImportServesLocally(const crs_matrix_type& A, const crs_matrix_type& B) {
  const auto imp = A.getGraph()->getImporter();
  return !imp.is_null() && locallySame(*imp->getSourceMap(), *B.getRowMap());
}

// The collective answer: given (reduced over the ranks by the caller), or asked now (collective).
inline bool aImportServes(const crs_matrix_type& A, const crs_matrix_type& B, std::optional<bool> known) {
  if (known) return *known;
  const auto imp = A.getGraph()->getImporter();
  return !imp.is_null() && imp->getSourceMap()->isSameAs(*B.getRowMap());
}

}  // namespace tpetra
}  // namespace Trident
