#pragma once
// What every peer driver reports the way trident-bench does, so that peers.sh can merge their
// rows with trident-bench's: the matrix name, the median time, peak RSS, the multiply-add count
// and one CSV row in trident-bench's schema.
#include <string>
#include <vector>

#include "MatrixMarketCsr.hpp"

namespace peers {

// trident-bench's matrixName: the file name without directory and .mtx, commas made safe for CSV.
std::string matrixName(const std::string& spec);

// A spec with ':' and no '/' that is not a file is a trident-bench generator spec; the message
// says how to dump it to a file (empty when spec is fine).
std::string generatorSpecError(const std::string& spec);

double median(std::vector<double> v);

// This process's peak resident set, MB.
double peakRssMb();

// Multiply-adds of C = op(A)*B: sum over stored a_ik of nnz(B(k,:)) (trident-bench's "flops").
unsigned long long flopsOf(const Csr& A, const Csr& B, bool transposeA);

struct CsvRow {
  std::string algo, matrix, op;
  int P = 1, ranksPerGroup = 0;
  double time_s = 0, peakRssMb = 0;
  long long nnzA = 0, nnzC = 0;
  unsigned long long flops = 0;
  std::string check;
};

// Appends the row to path (with trident-bench's header when the file is new or empty); phases and
// link bytes, which the peers do not measure, are 0. False when the file cannot be written.
bool appendCsv(const std::string& path, const CsvRow& r);

}  // namespace peers
