// trident-bench: Tpetra 1D, 2D Sparse SUMMA and Trident side by side, through the drop-in
// Trident::MatrixMatrix::Multiply ("trident: algorithm" = "tpetra" | "summa" | "trident").
//
//   mpirun -np 4 trident-bench                                 built-in default job (~1 min, 2 cores)
//   mpirun -np 4 trident-bench --matrix=../shared/matrices/cora.mtx --op=RAP --check --csv=out.csv
//
// Operations (all products are computed without transposes):
//   AA   C = A * A
//   AR   C = A * T, T the n x nagg tentative prolongator of a greedy aggregation of A's graph
//        (one 1.0 per row); T is the tall-skinny "restriction operator" of the A*R benchmark.
//   RAP  C = R * (A * P) with P = T and R = T^T (explicit Tpetra transpose); two multiplies,
//        their times, bytes and flops summed.
// Times are the median over --trials of the maximum over ranks (one untimed warm-up first).
// Bytes are the MultiplyStats *_bytes_recv counters (max over ranks and total).
// Timers: one Teuchos::StackedTimer for the run (apps/common/TimerOutput.hpp), so the library's
// phases nest under the algorithm that ran them; --timer-output=table (default:
// TimeMonitor::summarize), yaml, or watchr (the nested tree, and one Watchr XML in $WATCHR_PERF_DIR).
// The parts (options, problem, runs, --check, report) are in perf/bench/.
#include <iostream>
#include <string>
#include <vector>

#include <mpi.h>
#include <Teuchos_oblackholestream.hpp>
#include <Tpetra_Core.hpp>

#include "TimerOutput.hpp"
#include "bench/Bench.hpp"

namespace {

using namespace TridentBench;

int run(int argc, char* argv[]) {
  auto comm = Tpetra::getDefaultComm();
  const int rank = comm->getRank(), P = comm->getSize();
  Teuchos::oblackholestream blackhole;
  std::ostream& out = rank == 0 ? std::cout : blackhole;
  std::ostream& err = rank == 0 ? std::cerr : blackhole;

  Options o;
  TridentPerf::TimerOptions timerOpts("table");
  switch (parseCommandLine(argc, argv, rank, P, err, o, timerOpts)) {
    case ParseResult::HelpPrinted: return 0;
    case ParseResult::Failed: return 1;
    case ParseResult::Run: break;
  }
  // From here on every TimeMonitor timer nests in this run's StackedTimer.
  TridentPerf::TimerOutput timers("trident-bench", timerOpts);
  const bool defaultJob = applyDefaultJob(o, P);
  const std::string name = matrixName(o.matrix);
  if (!validateAlgorithmParams(o, err)) return 1;

  Problem pb;
  if (!buildProblem(o, comm, name, err, pb)) return 1;
  const long long nnzA = globalNnz(*pb.A);
  printProblem(out, o, pb, name, nnzA, defaultJob, P);

  const RunOutcome runs = runAlgorithms(o, pb, rank, P, out, err);
  printReport(out, runs.results, P);
  if (o.plan_reuse && o.op == "AA") runPlanReuse(o, pb, runs.results, out);
  const bool csvFailed = writeCsv(o, name, rank, P, nnzA, runs.results);

  // Watchr's data series: one per operation, input and rank count (the algorithms are timers inside).
  try {
    timers.report(comm, std::cout, "trident-bench " + o.op + " " + name + " P" + std::to_string(P));
  } catch (const std::runtime_error& e) {  // thrown on every rank
    err << e.what() << std::endl;
    return 1;
  }

  if (runs.mismatches > 0) {
    err << "trident-bench: --check FAILED" << std::endl;
    return 1;
  }
  if (o.check) out << "trident-bench: --check passed" << std::endl;
  return csvFailed ? 1 : 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  int rc = 0;
  {
    // Kokkos::initialize would print its own long help for --help/-h: it sees argv without them.
    std::vector<char*> kargv, help;
    for (int i = 0; i < argc; ++i) {
      const std::string a = argv[i];
      (i > 0 && (a == "--help" || a == "-h") ? help : kargv).push_back(argv[i]);
    }
    int kargc = static_cast<int>(kargv.size());
    kargv.push_back(nullptr);
    char** kargvp = kargv.data();
    Tpetra::ScopeGuard guard(&kargc, &kargvp);  // removes --kokkos-* arguments
    std::vector<char*> args(kargvp, kargvp + kargc);
    args.insert(args.end(), help.begin(), help.end());
    args.push_back(nullptr);
    try {
      rc = run(static_cast<int>(args.size()) - 1, args.data());
    } catch (const std::exception& e) {
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      std::cerr << "trident-bench: rank " << rank << ": " << e.what() << std::endl;
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  return rc;
}
