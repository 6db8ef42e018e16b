#include "Trident_PatternFingerprint.hpp"

#include <algorithm>

#include "Trident_MapSameness.hpp"
#include "Trident_StoredZeros.hpp"
#include "Trident_TpetraCompat.hpp"
#include <trident/core/Hash.hpp>

namespace Trident {
namespace tpetra {

namespace {

std::uint64_t mapHash(const map_type& m, std::uint64_t seed) {
  const std::uint64_t n = Compat::localNumElements(m);
  // A contiguous map's GID list would be built on demand (an allocation): its first GID says it all.
  if (m.isContiguous()) return mix64(seed ^ mix64(n ^ mix64(static_cast<std::uint64_t>(m.getMinGlobalIndex()))));
  const auto gids = Compat::localElementList(m);
  return hashBytes(gids.getRawPtr(), sizeof(GO) * gids.size(), mix64(seed ^ n));
}

std::uint64_t structureHash(const crs_matrix_type& M) {
  const auto local = M.getLocalMatrixHost();
  std::uint64_t h = hashBytes(local.graph.row_map.data(), sizeof(local.graph.row_map(0)) * local.graph.row_map.extent(0),
                              0x5EED0001ull);
  h = hashBytes(local.graph.entries.data(), sizeof(LO) * local.graph.entries.extent(0), h);
  h = mapHash(*M.getRowMap(), h);
  return mapHash(*M.getColMap(), h);
}

template <class V>
bool sameContents(const V& a, const V& b) {
  if (a.extent(0) != b.extent(0)) return false;
  return a.data() == b.data() || std::equal(a.data(), a.data() + a.extent(0), b.data());
}

bool sameMap(const Teuchos::RCP<const map_type>& m, const Teuchos::RCP<const map_type>& kept) {
  return m.get() == kept.get() || locallySame(*m, *kept);
}

}  // namespace

PatternFingerprint::PatternFingerprint(const crs_matrix_type& M, bool zeros_matter, std::optional<std::size_t> zeros,
                                       Hold hold)
    : zeros_matter_(zeros_matter), hold_(hold) {
  const auto local = M.getLocalMatrixHost();
  rows_at_ = local.graph.row_map.data();
  entries_at_ = local.graph.entries.data();
  num_rows_ = local.graph.row_map.extent(0);
  num_entries_ = local.graph.entries.extent(0);
  if (zeros_matter) zeros_ = storedZerosHash(M, zeros);
  if (hold == Hold::Nothing) {
    contents_ = structureHash(M);
    return;
  }
  row_map_ = M.getRowMap();
  col_map_ = M.getColMap();
  rows_ = local.graph.row_map;
  entries_ = local.graph.entries;
}

bool PatternFingerprint::selects(const crs_matrix_type& M) const {
  const auto local = M.getLocalMatrixHost();
  return local.graph.row_map.data() == rows_at_ && local.graph.entries.data() == entries_at_ &&
         local.graph.row_map.extent(0) == num_rows_ && local.graph.entries.extent(0) == num_entries_;
}

bool PatternFingerprint::sameHeldStructure(const crs_matrix_type& M) const {
  const auto local = M.getLocalMatrixHost();
  return sameMap(M.getRowMap(), row_map_) && sameMap(M.getColMap(), col_map_) &&
         sameContents(local.graph.row_map, rows_) && sameContents(local.graph.entries, entries_);
}

bool PatternFingerprint::matches(const crs_matrix_type& M, std::optional<std::size_t> zeros) const {
  const bool sameStructure = hold_ == Hold::Arrays ? sameHeldStructure(M) : structureHash(M) == contents_;
  return sameStructure && (!zeros_matter_ || storedZerosHash(M, zeros) == zeros_);
}

}  // namespace tpetra
}  // namespace Trident
