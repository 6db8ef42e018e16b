#pragma once
// What a product's structure depends on, for the two things that reuse work across calls on the
// same operands: a kept MultiplyPlan (its layout, routes and C's pattern) and auto's remembered
// choices. Both ask the same question, "does M still have the pattern I saw?": the row and column
// maps' GIDs, the local graph and, where the kernels skip them (op(A) = A), which stored values
// are zero. They differ in what they may keep alive:
// - a plan holds the graph's arrays and the maps (Kokkos views and RCPs are shared: nothing is
//   copied). A fill-complete Tpetra matrix whose pattern changes gets new arrays, so the same
//   arrays mean the same structure; other arrays are compared entry by entry. Hashing the whole
//   pattern on every execute instead cost a third of the Tpetra multiply it guarded (MueLu's RAP,
//   perf: 3.80% of the run against 1.08%).
// - the choice memory keeps up to eight entries, some for temporaries (MueLu's A*P) that would
//   otherwise be freed, so it holds nothing: the arrays' addresses and lengths select a candidate
//   (O(1), so operands never seen cost nothing) and a hash of the graph, the maps' GIDs and the
//   zeros' positions confirms it; a freed array whose address is reused fails the hash.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "Trident_TpetraTypes.hpp"

namespace Trident {
namespace tpetra {

class PatternFingerprint {
 public:
  enum class Hold { Arrays, Nothing };
  PatternFingerprint() = default;
  // zeros_matter: the kernels skip M's stored zeros (op(A) = A), so their positions are part of
  // the pattern. zeros: M's stored zeros when the caller has counted them (saves a pass).
  PatternFingerprint(const crs_matrix_type& M, bool zeros_matter, std::optional<std::size_t> zeros, Hold hold);

  // O(1): M's graph arrays are at the addresses, and of the lengths, this was taken from.
  bool selects(const crs_matrix_type& M) const;
  // Exact, up to the hash where nothing is held: M has the pattern this was taken from.
  bool matches(const crs_matrix_type& M, std::optional<std::size_t> zeros = std::nullopt) const;
  // Both were taken, holding nothing, from the same arrays and structure: where `other` matched M
  // and this one selects M too, this one's structure matches M without hashing it again (A*A).
  bool sameStructureAs(const PatternFingerprint& other) const {
    return hold_ == Hold::Nothing && other.hold_ == Hold::Nothing && rows_at_ == other.rows_at_ &&
           entries_at_ == other.entries_at_ && num_rows_ == other.num_rows_ && num_entries_ == other.num_entries_ &&
           contents_ == other.contents_;
  }

 private:
  using graph_type = crs_matrix_type::local_matrix_host_type::StaticCrsGraphType;
  bool zeros_matter_ = false;
  Hold hold_ = Hold::Nothing;
  const void* rows_at_ = nullptr;
  const void* entries_at_ = nullptr;
  std::size_t num_rows_ = 0, num_entries_ = 0;
  std::uint64_t zeros_ = 0;     // where the stored zeros are (storedZerosHash), when they matter
  std::uint64_t contents_ = 0;  // Hold::Nothing: the graph's and maps' hash
  // Hold::Arrays:
  Teuchos::RCP<const map_type> row_map_, col_map_;
  typename graph_type::row_map_type rows_;
  typename graph_type::entries_type entries_;

  bool sameHeldStructure(const crs_matrix_type& M) const;
};

}  // namespace tpetra
}  // namespace Trident
