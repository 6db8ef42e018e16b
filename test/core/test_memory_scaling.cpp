// Memory per rank must not grow with the global dimension. Trident::MatrixMatrix::Multiply of a
// hypersparse A*A (gen::hypersparse: a fixed number of rows and entries per rank, spread over
// [0, n)) at n and at factor*n. gen::hypersparse's row map holds nnz-per-rank/4 rows per rank at
// any n, so Tpetra's own A and C do not grow with n either; what grows is the position space the
// rows and columns are spread over (the inner dimension, the width of C, the slices of B).
//
// What is measured, per rank and per option set: the peak resident set while Multiply runs (Linux's
// VmHWM, reset before through /proc/self/clear_refs) over the resident set just before,
// minus the same for building a copy of the result C with plain Tpetra calls (the floor: the
// memory of the output matrix itself and what Tpetra needs to build it). Trident's own memory is
// the difference, and it may grow by at most 1.5x plus slack when n grows factor-fold. The
// allocator is told to map every block of 256 KB or more on its own (mallopt), so freed arrays
// leave the resident set, and free heap pages are returned before each phase (malloc_trim), so
// earlier phases' memory neither blurs the high-water marks nor hides small allocations.
//
// What it catches, at the default sizes (n = 2^20 -> 10n, 4 ranks, slack 6 MB in the suite): any
// per-rank array of 4 bytes or more per position of a slice (n/lambda), a tile or the whole
// dimension that lives at the peak: one int32 per slice position grows by 9.5 MB, one int64 per
// slice position (row offsets of a slice of B before row compression) by 19 MB, one double per
// position of n by 76 MB. What it cannot catch: a single bit mask over n (1.3 MB at 10n); arrays
// sized by the ranks or groups; memory that grows with nnz (fixed here); pages reserved but never
// touched (RSS counts touched pages only); what Tpetra itself spends (the floor), and products for
// which Tpetra's Multiply is not defined (gen::hypersparse's row map is smaller than its range map,
// which TpetraExt::MatrixMatrix::Multiply rejects, so "tpetra" is not an option here).
//   test_memory_scaling [--n=N] [--factor=F] [--nnz-per-rank=Z] [--slack-mb=S] [--lambda=L]
//                       [--variants=plain,permute,rows,whole] [--algorithm=trident|summa]
#include <malloc.h>

#include <Teuchos_CommandLineProcessor.hpp>
#include <Tpetra_Core.hpp>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "Trident_Generators.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "common/TestUtils.hpp"

using namespace TridentTest;

namespace {

// A field of /proc/self/status in MB (VmRSS: resident now; VmHWM: peak since the last reset).
double statusMB(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  const std::size_t len = std::strlen(key);
  while (std::getline(in, line))
    if (line.compare(0, len, key) == 0 && line.size() > len && line[len] == ':')
      return std::stod(line.substr(len + 1)) / 1024.0;  // kB
  throw std::runtime_error(std::string("test_memory_scaling: no ") + key + " in /proc/self/status");
}

// Sets VmHWM to the current resident set (Linux >= 4.0).
void resetPeak() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  if (!out) throw std::runtime_error("test_memory_scaling: cannot reset the peak through /proc/self/clear_refs");
}

// Resident-set growth (peak over the start) while f runs.
template <class F>
double peakGrowthMB(F&& f) {
  malloc_trim(0);  // free heap pages (e.g. the reference product's) would hide small allocations
  resetPeak();
  const double before = statusMB("VmRSS");
  f();
  return statusMB("VmHWM") - before;
}

// A copy of C built the plain Tpetra way: exact row lengths, global indices, fillComplete.
Teuchos::RCP<crs_matrix_type> tpetraCopy(const crs_matrix_type& C) {
  const auto rowMap = C.getRowMap();
  const std::size_t nrows = Trident::Compat::localNumRows(C);
  Teuchos::Array<std::size_t> lengths(nrows);
  for (std::size_t r = 0; r < nrows; ++r) lengths[r] = C.getNumEntriesInLocalRow(static_cast<LO>(r));
  auto copy = Teuchos::rcp(new crs_matrix_type(rowMap, lengths()));
  std::vector<GO> cols;
  std::vector<double> vals;
  for (std::size_t r = 0; r < nrows; ++r) {
    typename crs_matrix_type::local_inds_host_view_type ind;
    typename crs_matrix_type::values_host_view_type val;
    C.getLocalRowView(static_cast<LO>(r), ind, val);
    cols.resize(ind.extent(0));
    vals.resize(ind.extent(0));
    for (std::size_t q = 0; q < cols.size(); ++q) {
      cols[q] = C.getColMap()->getGlobalElement(ind(q));
      vals[q] = val(q);
    }
    copy->insertGlobalValues(rowMap->getGlobalElement(static_cast<LO>(r)), Teuchos::ArrayView<const GO>(cols),
                             Teuchos::ArrayView<const double>(vals));
  }
  copy->fillComplete(C.getDomainMap(), C.getRangeMap());
  return copy;
}

int lambda = 0;
std::string variants = "plain,permute,rows,whole";
std::string algorithm = "trident";
const char* kNames[] = {"plain", "permute", "rows", "whole"};

struct Measured {
  double own[4] = {0, 0, 0, 0}, total[4] = {0, 0, 0, 0}, floor[4] = {0, 0, 0, 0};
  long long cnnz = 0;
};

bool selected(int variant) {
  return ("," + variants + ",").find(std::string(",") + kNames[variant] + ",") != std::string::npos;
}

// Multiplies A*A for the option sets that allocate differently: plain, the random relabeling,
// the G x 1 grid, whole-slice fetches; for each, Trident's own peak memory, and C checked against
// the serial reference product (the row-compressed paths run only on such hypersparse products).
Measured multiplyAll(long long n, long long nnz, const Trident::comm_ptr& comm, Tally* tally) {
  auto A = Trident::gen::hypersparse(n, nnz, comm);
  Entries ref;
  if (tally) {
    const Entries a = gather(*A);
    ref = referenceProduct(a, false, a, false);
  }
  Measured out;
  for (int variant = 0; variant < 4; ++variant) {
    if (!selected(variant)) continue;
    auto params = Teuchos::rcp(new Teuchos::ParameterList);
    params->set("trident: ranks per group", lambda);
    params->set("trident: algorithm", algorithm);
    if (variant == 1) params->set("trident: permute", std::string("random"));
    if (variant == 2) params->set("trident: grid", std::string("rows"));
    if (variant == 3) params->set("trident: fetch", std::string("whole"));
    Teuchos::RCP<crs_matrix_type> C;
    MPI_Barrier(MPI_COMM_WORLD);
    const double total = peakGrowthMB([&] {
      C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
      Trident::MatrixMatrix::Multiply(*A, false, *A, false, *C, true, "", params);
    });
    MPI_Barrier(MPI_COMM_WORLD);
    Teuchos::RCP<crs_matrix_type> copy;
    const double floor = peakGrowthMB([&] { copy = tpetraCopy(*C); });
    out.total[variant] = total;
    out.floor[variant] = floor;
    out.own[variant] = total - floor;
    out.cnnz = static_cast<long long>(C->getGlobalNumEntries());
    if (tally) {
      std::string why;
      const bool same = sameMatrix(gather(*C), ref, why);
      tally->check(same, algorithm + " " + kNames[variant] + ": C = the reference product at n = " + std::to_string(n),
                   why);
    }
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  // Blocks of 256 KB and more get their own mapping, returned to the system when freed (a fixed
  // threshold also turns off glibc's raising it after large frees).
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  Teuchos::CommandLineProcessor clp(false, true);
  long long n = 1 << 20, nnz = 20000;
  int factor = 10;
  double slack = 8;
  clp.setOption("n", &n, "global dimension of the small case");
  clp.setOption("factor", &factor, "the large case is factor * n");
  clp.setOption("nnz-per-rank", &nnz, "entries of A per rank (both cases)");
  clp.setOption("slack-mb", &slack, "allowed growth beyond 1.5x, MB");
  clp.setOption("lambda", &lambda, "trident: ranks per group (0 = auto)");
  clp.setOption("variants", &variants, "comma-separated subset of plain,permute,rows,whole");
  clp.setOption("algorithm", &algorithm, "trident | summa (\"trident: algorithm\")");
  if (clp.parse(argc, argv) != Teuchos::CommandLineProcessor::PARSE_SUCCESSFUL) return 2;

  Tally tally;
  multiplyAll(1024LL * comm->getSize(), 256, comm, nullptr);  // warm-up: libraries, caches, communicators
  const Measured small = multiplyAll(n, nnz, comm, &tally);
  const Measured large = multiplyAll(n * factor, nnz, comm, &tally);

  const int P = comm->getSize();
  for (int variant = 0; variant < 4; ++variant) {
    if (!selected(variant)) continue;
    const double allowed = 1.5 * small.own[variant] + slack;
    const bool ok = large.own[variant] <= allowed;
    std::vector<double> all(6 * P);
    const double mine[6] = {small.total[variant], small.floor[variant], small.own[variant],
                            large.total[variant], large.floor[variant], large.own[variant]};
    MPI_Gather(mine, 6, MPI_DOUBLE, all.data(), 6, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (comm->getRank() == 0) {
      std::printf("%s %s: n = %lld and %lld, %lld entries of A per rank, nnz(C) = %lld and %lld\n", algorithm.c_str(),
                  kNames[variant], n, n * factor, nnz, small.cnnz, large.cnnz);
      std::printf("  peak growth per rank (MB): multiply - Tpetra copy of C = Trident's own, at n | at %d n\n", factor);
      for (int q = 0; q < P; ++q) {
        const double* v = &all[6 * q];
        std::printf("  rank %d: %6.1f - %5.1f = %6.1f | %6.1f - %5.1f = %6.1f\n", q, v[0], v[1], v[2], v[3], v[4],
                    v[5]);
      }
    }
    tally.check(ok, algorithm + " " + kNames[variant] + ": Trident's own peak memory stays flat when n grows " +
                        std::to_string(factor) + "x at fixed nnz per rank",
                "own peak " + std::to_string(large.own[variant]) + " MB at " + std::to_string(factor) +
                    " n > allowed " + std::to_string(allowed) + " MB (" + std::to_string(small.own[variant]) +
                    " MB at n)");
  }
  return tally.finish();
}
