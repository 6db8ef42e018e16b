// Memory per rank must not grow with the global dimension: Trident::MatrixMatrix::Multiply of a
// hypersparse A*A (fixed entries per rank, gen::hypersparse) at n and at factor*n, and the peak
// resident set of every rank (getrusage) may grow by at most 1.5x (over the start-up baseline)
// plus a few MB. Arrays sized by n on every rank (a stored permutation of n, column slots of n)
// break it; arrays sized by the local rows, the tile and the needed rows do not.
//   test_memory_scaling [--n=N] [--factor=F] [--nnz-per-rank=Z] [--slack-mb=S] [--lambda=L]
//                       [--variants=plain,permute,rows,whole]
#include <sys/resource.h>

#include <Teuchos_CommandLineProcessor.hpp>
#include <Tpetra_Core.hpp>

#include <cstdio>
#include <string>
#include <vector>

#include "Trident_Generators.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "common/TestUtils.hpp"

using namespace TridentTest;

namespace {

double peakMB() {
  struct rusage u {};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // Linux: kilobytes
}

int lambda = 0;
std::string variants = "plain,permute,rows,whole";
std::string algorithm = "trident";

// Multiplies A*A for the option sets that allocate differently: plain, the random relabeling,
// the G x 1 grid, whole-slice fetches.
long long multiplyAll(long long n, long long nnz, const Trident::comm_ptr& comm) {
  auto A = Trident::gen::hypersparse(n, nnz, comm);
  long long cnnz = 0;
  const char* names[] = {"plain", "permute", "rows", "whole"};
  for (int variant = 0; variant < 4; ++variant) {
    if (("," + variants + ",").find(std::string(",") + names[variant] + ",") == std::string::npos) continue;
    auto params = Teuchos::rcp(new Teuchos::ParameterList);
    params->set("trident: ranks per group", lambda);
    params->set("trident: algorithm", algorithm);
    if (variant == 1) params->set("trident: permute", std::string("random"));
    if (variant == 2) params->set("trident: grid", std::string("rows"));
    if (variant == 3) params->set("trident: fetch", std::string("whole"));
    auto C = Teuchos::rcp(new Trident::crs_matrix_type(A->getRowMap(), 0));
    Trident::MatrixMatrix::Multiply(*A, false, *A, false, *C, true, "", params);
    cnnz = static_cast<long long>(C->getGlobalNumEntries());
  }
  return cnnz;
}

}  // namespace

int main(int argc, char** argv) {
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
  clp.setOption("algorithm", &algorithm, "trident | summa | tpetra (\"trident: algorithm\")");
  if (clp.parse(argc, argv) != Teuchos::CommandLineProcessor::PARSE_SUCCESSFUL) return 2;

  Tally tally;
  {  // warm-up at a tiny size: libraries, caches, communicators are in the baseline
    multiplyAll(1024LL * comm->getSize(), 256, comm);
  }
  const double r0 = peakMB();
  const long long c1 = multiplyAll(n, nnz, comm);
  const double r1 = peakMB();
  const long long c2 = multiplyAll(n * factor, nnz, comm);
  const double r2 = peakMB();

  const double allowed = r0 + 1.5 * (r1 - r0) + slack;
  const bool ok = r2 <= allowed;
  std::vector<double> all(3 * comm->getSize());
  const double mine[3] = {r0, r1, r2};
  MPI_Gather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (comm->getRank() == 0) {
    std::printf("n = %lld and %lld, %lld entries of A per rank, nnz(C) = %lld and %lld\n", n, n * factor, nnz, c1, c2);
    std::printf("peak RSS per rank (MB): baseline / after n / after %d n\n", factor);
    for (int q = 0; q < comm->getSize(); ++q)
      std::printf("  rank %d: %8.1f %8.1f %8.1f  (growth %.1f MB -> %.1f MB)\n", q, all[3 * q], all[3 * q + 1],
                  all[3 * q + 2], all[3 * q + 1] - all[3 * q], all[3 * q + 2] - all[3 * q]);
  }
  tally.check(ok, "peak RSS stays flat when n grows " + std::to_string(factor) + "x at fixed nnz per rank",
              "peak " + std::to_string(r2) + " MB > allowed " + std::to_string(allowed) + " MB (baseline " +
                  std::to_string(r0) + ", after n " + std::to_string(r1) + ")");
  return tally.finish();
}
