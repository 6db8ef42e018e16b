#pragma once
// A Matrix Market coordinate file as one CSR on one process. The PETSc peer must multiply exactly
// the matrix trident-bench multiplies, so this follows Trident's reader
// (adapters/tpetra/Trident_MatrixMarket.hpp) entry for entry: real, integer or pattern (entries
// 1.0); general, symmetric or skew-symmetric (the other triangle added, negated for skew);
// duplicates summed; explicitly stored zeros kept. It does not link Trilinos, so that the peer's
// time and memory are PETSc's alone.
#include <string>
#include <vector>

namespace petsc_peer {

struct Csr {
  long long rows = 0, cols = 0;
  std::vector<long long> ptr{0};  // rows + 1 offsets
  std::vector<long long> col;     // global column indices, sorted within a row, no duplicates
  std::vector<double> val;
  long long nnz() const { return ptr.back(); }
};

// Throws std::runtime_error ("line N: ..." where it applies) on a missing file, a bad header,
// complex/hermitian/array data, out-of-range indices, or a wrong entry count.
Csr readMatrixMarket(const std::string& path);

// Rows sorted and duplicates summed, from unordered triplets.
Csr csrFromTriplets(long long rows, long long cols, const std::vector<long long>& r, const std::vector<long long>& c,
                    const std::vector<double>& v);

Csr transpose(const Csr& A);

}  // namespace petsc_peer
