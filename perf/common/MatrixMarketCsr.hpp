#pragma once
// A Matrix Market coordinate file as one CSR in one process, for the peers in perf/ (PETSc,
// GraphBLAS). They must multiply exactly the matrix trident-bench multiplies, so the file is read
// by Trident's own parser (trident/io/MatrixMarketReader, which the Tpetra adapter's reader uses
// too): real, integer or pattern (entries 1.0); general, symmetric or skew-symmetric (the other
// triangle added, negated for skew); duplicates summed; explicitly stored zeros kept. Nothing here
// links Trilinos or MPI, so that a peer's time and memory are its own.
#include <string>
#include <vector>

namespace peers {

struct Csr {
  long long rows = 0, cols = 0;
  std::vector<long long> ptr{0};  // rows + 1 offsets
  std::vector<long long> col;     // global column indices, sorted within a row, no duplicates
  std::vector<double> val;
  long long nnz() const { return ptr.back(); }
};

// Throws std::runtime_error with the parser's message and the path ("line N: ... (PATH)") for
// every file the Tpetra adapter's reader refuses.
Csr readMatrixMarket(const std::string& path);

// Rows sorted and duplicates summed, from unordered 0-based triplets.
Csr csrFromTriplets(long long rows, long long cols, const std::vector<long long>& r, const std::vector<long long>& c,
                    const std::vector<double>& v);

Csr transpose(const Csr& A);

}  // namespace peers
