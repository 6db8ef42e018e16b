#pragma once
// A multiply split into what depends only on the sparsity patterns (the plan) and what depends on
// the values (execute), as KokkosKernels splits symbolic and numeric with a handle that carries
// the reuse state. The plan holds the layout and grid, the needed-rows bitmaps, the tile
// metadata, the pattern of this rank's block of C, C's column map and Import and where every
// value of C lands; executing it again with new values of A and B (same patterns) moves and
// computes values only and writes them into the same C in place.
//
//   Trident::MatrixMatrix::MultiplyPlan plan(A, false, B, false, params);
//   plan.execute(A, B, *C);          // first run: C is built (as Multiply builds it)
//   ... change the values of A and B, keep their patterns ...
//   plan.execute(A, B, *C);          // values only, C updated in place
//
// Multiply(A, tA, B, tB, C, ...) is MultiplyPlan(A, tA, B, tB, params).execute(A, B, C, ...).
// A plan is bound to the patterns (and maps) of A and B it was built from: executing it with a
// different pattern throws Trident::InvalidInput on every rank. The pattern of op(A) is its stored
// entries minus its stored zeros (Tpetra's Multiply skips those), so an entry of A that becomes
// 0.0 or stops being 0.0 changes the pattern too. A kept plan holds A's and B's maps and graph
// arrays (shared, not copied) to compare later operands with.
#include <memory>
#include <string>
#include <Teuchos_ParameterList.hpp>

#include "Trident_TpetraTypes.hpp"
#include <trident/stats/MultiplyStats.hpp>

namespace Trident {
namespace MatrixMatrix {

class MultiplyPlan {
 public:
  // Collective over A's communicator. Validates A, B and the parameters (as Multiply does) and
  // builds everything that does not depend on values. keep_for_reuse = false: the plan runs once
  // (what Multiply does): it records neither the patterns nor C's block pattern and placement,
  // and its execute reuses the conversion of the operands done here, so it must be given the
  // same A and B, unchanged.
  // first_C (optional): the matrix the first execute will write, checked here with the operands in
  // the same collective (so that execute need not check it again); it must not change meanwhile.
  // Likewise a first execute given the very A and B objects the plan was built from does not check
  // them again (no collective, no pattern comparison): they must not change in between.
  MultiplyPlan(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
               const Teuchos::RCP<Teuchos::ParameterList>& params = Teuchos::null, bool keep_for_reuse = true,
               const crs_matrix_type* first_C = nullptr);
  ~MultiplyPlan();
  MultiplyPlan(const MultiplyPlan&) = delete;
  MultiplyPlan& operator=(const MultiplyPlan&) = delete;

  // Collective. C = op(A) * op(B). C follows Multiply's rules (constructed on op(A)'s row map;
  // empty, or fill-complete with a pattern that holds the product). When C is the matrix an
  // earlier execute of this plan built, only values are computed and written in place.
  void execute(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C,
               bool call_FillComplete_on_result = true, const std::string& label = std::string());

  // Bytes per link and time per phase of the last execute; the first execute includes the
  // plan's set-up (in redistribute_in).
  const MultiplyStats& stats() const;
  // How many times execute ran; how many of them reused C in place.
  int executions() const;
  int reusedExecutions() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace MatrixMatrix
}  // namespace Trident
