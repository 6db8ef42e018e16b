#pragma once
// Sums the per-round products A(i,s)*B(s,j) of a rank's block of C. Shared by Trident and SUMMA.
// First run: each round's product is formed by the local kernel, and the last round's multiply
// adds the earlier products into its accumulator (LocalSpGEMM::multiplyAdd), so the rounds are
// summed once, while the last product is formed (sorted rows). The round before the last is not
// even formed where its operands are smaller than its product: the last round's accumulator sums
// its terms (LocalSpGEMM::multiplyAddDeferred), with the same bits. A plan's first run then keeps the
// block's pattern in the kernel's handle (LocalSpGEMM::symbolic). With that pattern (same
// operands' patterns, new values), every round only adds its values into it
// (LocalSpGEMM::numeric): no symbolic work, no partial blocks, no accumulation pass. For a
// values-only assembly (state->values_only) the block then has rowptr and val but no col: the
// pattern's are the plan's; with a values target (state->values_into) not even val: the values
// are in C already.
#include <algorithm>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "trident/algorithms/Algorithms.hpp"
#include "trident/local/LocalSpGEMM.hpp"

namespace Trident {

class RoundAccumulator {
 public:
  RoundAccumulator(LocalSpGEMM& kernel, AlgorithmState* state, std::int64_t nrows, std::int64_t ncols, int rounds)
      : kernel_(kernel), state_(state), nrows_(nrows), ncols_(ncols), rounds_(rounds) {
    if (numeric()) {
      // Values only: the pattern stays in the state (not copied); the block handed back carries
      // rowptr and val, which is all the values-only assembly reads.
      C_.nrows = nrows;
      C_.ncols = ncols;
      const Csr& pattern = state_->handle->pattern;
      C_.rowptr = pattern.rowptr;
      if (!state_->values_only) C_.col = pattern.col;
      // The previous execute's value array, when the caller handed it back: its pages are
      // resident, so writing it costs no page fault per 4 kB (email-Enron at P = 1: 244 MB, most
      // of a re-execute's time outside the multiply when it was a fresh array).
      const AlgorithmState::ValuesTarget& into = state_->values_into;
      // Not zeroed: the first round writes every value (numeric's assign), finish() zeroes them
      // only where no round ran.
      if (into.values) {
        if (!state_->values_only || into.size != pattern.col.size())
          throw std::logic_error("Trident: a values target that does not match the kept block pattern");
      } else {
        C_.val.swap(state_->spare_values);
        C_.val.resize(pattern.col.size());
      }
    } else {
      partials_.reserve(rounds);
    }
  }

  bool numeric() const { return state_ && state_->handle && state_->handle->has_pattern; }

  // Returns the round's multiply-adds (the caller's stats count them; the deferral needs them too).
  std::uint64_t add(const Csr& a, const Csr& b) {
    if (has_sum_) throw std::logic_error("Trident: RoundAccumulator got more rounds than it was made for");
    const std::uint64_t flops = multiplyFlops(a, b);
    const int seen = static_cast<int>(partials_.size()) + (deferred_ ? 1 : 0);
    if (numeric()) {
      const AlgorithmState::ValuesTarget& into = state_->values_into;
      const bool first = numeric_rounds_++ == 0;
      if (into.values)
        kernel_.numeric(a, b, *state_->handle, into.values, into.cols, first);
      else
        kernel_.numeric(a, b, *state_->handle, C_.val.data(), nullptr, first);
    } else if (seen + 2 == rounds_ && kernel_.fusesDeferred() &&
               static_cast<std::uint64_t>(a.nnz() + b.nnz()) <= flops) {
      // The round before the last: its operands (the transports reuse their buffers, so copied)
      // are smaller than its product would be; the last round's accumulator sums it
      // (LocalSpGEMM::multiplyAddDeferred). One round's tiles more are held, as lookahead does.
      deferred_ = std::make_unique<std::pair<Csr, Csr>>(a, b);
    } else if (seen + 1 < rounds_) {
      partials_.push_back(kernel_.multiply(a, b));
    } else if (state_ && state_->sink && !state_->keep_pattern) {
      // The caller's final arrays take the entries (BlockSink): the block's rows are C's own.
      summed_ = deferred_ ? kernel_.multiplyAddDeferredInto(deferred_->first, deferred_->second, a, b,
                                                            std::move(partials_), *state_->sink)
                          : kernel_.multiplyAddInto(a, b, std::move(partials_), *state_->sink);
      finishSum();
    } else {  // the last round adds the earlier ones in its accumulator: C is written once
      summed_ = deferred_ ? kernel_.multiplyAddDeferred(deferred_->first, deferred_->second, a, b, std::move(partials_))
                          : kernel_.multiplyAdd(a, b, std::move(partials_));
      finishSum();
    }
    return flops;
  }

  Csr finish() {
    if (numeric()) {
      if (numeric_rounds_ == 0) {  // no round reached this block: all its values are 0
        const AlgorithmState::ValuesTarget& into = state_->values_into;
        if (into.values)
          std::fill(into.values, into.values + into.size, 0.0);
        else
          std::fill(C_.val.begin(), C_.val.end(), 0.0);
      }
      return std::move(C_);
    }
    // Fewer rounds than announced (not the algorithms' case): the deferred one is formed apart.
    if (deferred_) {
      partials_.push_back(kernel_.multiply(deferred_->first, deferred_->second));
      deferred_.reset();
    }
    Csr C = has_sum_ ? std::move(summed_) : sumBlocks(std::move(partials_), nrows_, ncols_, kernel_.sortsRows());
    if (state_ && state_->keep_pattern) {
      if (!state_->handle) state_->handle = kernel_.makeHandle();
      kernel_.symbolic(C, *state_->handle);
    }
    return C;
  }

 private:
  LocalSpGEMM& kernel_;
  AlgorithmState* state_;
  std::int64_t nrows_, ncols_;
  int rounds_;
  void finishSum() {
    partials_.clear();
    deferred_.reset();
    has_sum_ = true;
  }

  std::vector<Csr> partials_;
  std::unique_ptr<std::pair<Csr, Csr>> deferred_;  // the round before the last, not yet multiplied
  Csr summed_;  // the sum of all rounds, once the last one is in
  bool has_sum_ = false;
  int numeric_rounds_ = 0;  // numeric rounds run so far: the first assigns its values
  Csr C_;
};

}  // namespace Trident
