#pragma once
// --check of the peers (PETSc, GraphBLAS): C = A*B recomputed on one process by a plain
// Gustavson loop (no peer library, no Trilinos), and the peer's C compared with it under
// trident-bench's own criterion: the same structure (every stored entry of A and B contributes,
// as in the peers' symbolic products) and |c - ref| <= 1e-12 * (|A||B|)_ij, so that entries that
// cancel are judged by the rounding their summation order can cause.
#include <string>
#include "MatrixMarketCsr.hpp"

namespace peers {

struct Reference {
  Csr C;
  std::vector<double> scale;  // (|A||B|)_ij, aligned with C.val
};

Reference referenceProduct(const Csr& A, const Csr& B);

// Number of rows of C that differ from ref; the first difference is described in *first.
long long compareWithReference(const Reference& ref, const Csr& C, std::string* first);

}  // namespace peers
