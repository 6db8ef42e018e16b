#pragma once
// What "auto" chose for operands it has seen before. Counting (an import of B's row lengths and
// sketches, an estimate of C, an allreduce) is the expensive part of "auto": 1-3 ms per call on
// products of 5-30 ms on this project's machines, most of it message latency, which no cheaper
// local pass removes. A code that multiplies the same operands again (time steps that re-form
// A*B with new values, a solver's set-up run twice, a benchmark's trials) gets the same answer,
// since the choice depends only on the patterns, the maps, P, the parameters and the machine
// model: each rank remembers its last few counted choices and reuses one when every rank finds
// its operands unchanged ("trident: auto: remember choice", default true). Choices the bound or
// the estimate without counting made are remembered too (bound, estimate and choice cost 0.1-0.6
// ms a call, the look-up's hash microseconds); those of the estimate under a context of their
// own: a call with the estimate off counts instead of reusing one.
//
// Unchanged means the same patterns, maps and stored zeros, as tpetra::PatternFingerprint
// (Trident_PatternFingerprint.hpp) decides it for a kept MultiplyPlan too; the memory holds no
// arrays, so its fingerprints select by address and confirm by hash. A wrong match could only
// pick another of the exact algorithms, never change C.
#include <cstdint>
#include <optional>
#include <string>

#include "Trident_MultiplyOptions.hpp"
#include "Trident_TpetraTypes.hpp"
#include <trident/planner/AutoDecision.hpp>

namespace Trident {
namespace MatrixMatrix {

// What auto decided, as it decided it: algorithm, slices, prediction and reason.
using RememberedChoice = planner::AutoDecision;

// context: everything besides the operands that the choice depends on (P, the parameters that
// shape the groups and grid, the machine model's fingerprint), hashed by the caller.
// a_zeros: A's stored zeros when counted (they are skipped by the counts, so their positions matter).
// Local, no communication: the caller agrees on a hit across ranks.
std::optional<RememberedChoice> findRememberedChoice(const crs_matrix_type& A, bool transposeA,
                                                     const crs_matrix_type& B, bool transposeB,
                                                     std::uint64_t context, std::optional<std::size_t> a_zeros);
void rememberChoice(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                    std::uint64_t context, std::optional<std::size_t> a_zeros, const RememberedChoice& choice);
// Forgets every remembered choice of this process (tests; a caller that wants cold timings).
void forgetRememberedChoices();

}  // namespace MatrixMatrix
}  // namespace Trident
