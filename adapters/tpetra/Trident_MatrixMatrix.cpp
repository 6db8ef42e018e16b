// The drop-in Trident::MatrixMatrix::Multiply: a MultiplyPlan used once.
#include "Trident_MatrixMatrix.hpp"

#include "Trident_MultiplyPlan.hpp"

namespace Trident {
namespace MatrixMatrix {

namespace {
MultiplyStats g_last_stats;
}

const MultiplyStats& lastStats() { return g_last_stats; }

template <>
void Multiply<double, LO, GO, Node>(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B,
                                    bool transposeB, crs_matrix_type& C, bool call_FillComplete_on_result,
                                    const std::string& label, const Teuchos::RCP<Teuchos::ParameterList>& params) {
  g_last_stats = MultiplyStats();
  MultiplyPlan plan(A, transposeA, B, transposeB, params, /*keep_for_reuse=*/false, &C);
  plan.execute(A, B, C, call_FillComplete_on_result, label);
  g_last_stats = plan.stats();
}

}  // namespace MatrixMatrix
}  // namespace Trident
