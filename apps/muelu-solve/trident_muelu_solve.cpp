// trident-muelu-solve: builds a MueLu smoothed-aggregation hierarchy whose Galerkin products
// (Ac = R*A*P on every level) run on Trident or on MueLu's stock RAPFactory, then solves A x = b
// (b = A*1) with Belos CG preconditioned by it.
//
//   mpirun -np 4 trident-muelu-solve --laplace=2d --n=400 --rap=trident --ranks-per-group=2
//   mpirun -np 4 trident-muelu-solve --matrix=bcsstk13.mtx --rap=tpetra
//
// Prints the levels, operator complexity, setup time split into RAP and the rest, the bytes the
// Trident products moved over Gi / Li, CG iterations and the final relative residual.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include <MueLu_Hierarchy.hpp>
#include <MueLu_TpetraOperator.hpp>
#include <MueLu_VerboseObject.hpp>
#include <Teuchos_TimeMonitor.hpp>
#include <Teuchos_oblackholestream.hpp>
#include <Teuchos_XMLParameterListHelpers.hpp>
#include <Tpetra_Core.hpp>

#include "Trident_CreatePreconditioner.hpp"
#include "Trident_Generators.hpp"
#include "Trident_MatrixMarket.hpp"
#include "Trident_MueLuProblems.hpp"
#include "Trident_MueLuRAPFactory.hpp"
#include "Trident_MueLuSolve.hpp"
#include "TimerOutput.hpp"

namespace {
const char* kUsage =
    "usage: trident-muelu-solve (--matrix=PATH.mtx | --laplace=2d|3d [--n=N]) [options]\n"
    "  --matrix=PATH.mtx        SPD matrix (Matrix Market coordinate)\n"
    "  --laplace=2d|3d --n=N    5-point (N^2 rows) / 7-point (N^3 rows) Laplacian (default N: 300 / 40)\n"
    "  --rap=trident|tpetra     Galerkin products with Trident (default) or MueLu's stock RAPFactory\n"
    "  --ranks-per-group=L      \"trident: ranks per group\" (lambda; default: ranks per node)\n"
    "  --algorithm=A            \"trident: algorithm\": auto (default: the planner's choice) | trident | summa | tpetra | 1d\n"
    "  --xml=FILE               MueLu parameters (XML) replacing the built-in ones\n"
    "  --max-levels=K           (default 10)   --coarse-max-size=M (default 1000)\n"
    "  --repartition            rebalance coarse levels (zoltan2 multijagged; --laplace only)\n"
    "  --tol=T (default 1e-8)   --max-iters=K (default 500)\n"
    "  --verbose                MueLu's own output (\"verbosity\" = \"medium\")\n"
    "  --explain                per coarse level, why \"auto\" chose what it ran for A*P and R*(AP) (rank 0)\n"
    "  --count-bytes            also count the bytes of the products Tpetra's Multiply does (\"trident: count\n"
    "                           bytes\"; one more import per product, so off by default)\n";

bool arg(const std::string& a, const char* key, std::string& val) {
  const std::string k = std::string("--") + key + "=";
  if (a.compare(0, k.size(), k) != 0) return false;
  val = a.substr(k.size());
  return true;
}

struct Options {
  std::string matrix, laplace, rap = "trident", algorithm, xml;
  long long n = 0;
  int lambda = 0, maxLevels = 10, coarseMax = 1000, maxIters = 500;
  double tol = 1e-8;
  bool repartition = false, verbose = false, countBytes = false, explain = false;
};

// Reads the command line into `o` and the timer options; returns the exit status when the
// program should stop here (help printed or bad arguments), -1 to go on.
int parseArgs(int argc, char** argv, int rank, Options& o, TridentPerf::TimerOptions& timerOpts) {
  std::string v;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    bool timerArg = false;
    try {
      timerArg = timerOpts.take(i, argc, argv);
    } catch (const std::invalid_argument& e) {
      if (rank == 0) std::fprintf(stderr, "trident-muelu-solve: %s\n%s", e.what(), kUsage);
      return 2;
    }
    if (timerArg) continue;
    if (arg(a, "matrix", v)) o.matrix = v;
    else if (arg(a, "laplace", v)) o.laplace = v;
    else if (arg(a, "n", v)) o.n = std::atoll(v.c_str());
    else if (arg(a, "rap", v)) o.rap = v;
    else if (arg(a, "ranks-per-group", v)) o.lambda = std::atoi(v.c_str());
    else if (arg(a, "algorithm", v)) o.algorithm = v;
    else if (arg(a, "xml", v)) o.xml = v;
    else if (arg(a, "max-levels", v)) o.maxLevels = std::atoi(v.c_str());
    else if (arg(a, "coarse-max-size", v)) o.coarseMax = std::atoi(v.c_str());
    else if (arg(a, "tol", v)) o.tol = std::atof(v.c_str());
    else if (arg(a, "max-iters", v)) o.maxIters = std::atoi(v.c_str());
    else if (a == "--repartition") o.repartition = true;
    else if (a == "--verbose") o.verbose = true;
    else if (a == "--count-bytes") o.countBytes = true;
    else if (a == "--explain") o.explain = true;
    else if (a == "--help" || a == "-h") {
      if (rank == 0) std::printf("%s%s", kUsage, TridentPerf::TimerOptions::help());
      return 0;
    } else {
      if (rank == 0) std::fprintf(stderr, "trident-muelu-solve: unknown argument %s\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  if ((o.matrix.empty() == o.laplace.empty()) || (o.rap != "trident" && o.rap != "tpetra") ||
      (!o.laplace.empty() && o.laplace != "2d" && o.laplace != "3d") || (o.repartition && o.laplace.empty())) {
    if (rank == 0) std::fprintf(stderr, "trident-muelu-solve: bad arguments\n%s", kUsage);
    return 2;
  }
  return -1;
}

Teuchos::RCP<Teuchos::TimeMonitor> stage(const char* name) {
  return Teuchos::rcp(new Teuchos::TimeMonitor(*Teuchos::TimeMonitor::getNewCounter(name)));
}

struct Problem {
  Teuchos::RCP<Trident::crs_matrix_type> A;
  Teuchos::RCP<Trident::muelu::coord_multivector_type> coords;  // only for --repartition
  std::string what, watchrName;  // for the first printed line, for the timer output's name
};

Problem loadProblem(const Options& o, const Trident::comm_ptr& comm) {
  Problem pb;
  auto tm = stage("trident-muelu-solve: problem");
  if (!o.matrix.empty()) {
    pb.A = Trident::io::readMatrixMarket(o.matrix, comm);
    pb.what = o.matrix;
    pb.watchrName = o.matrix.substr(o.matrix.find_last_of('/') == std::string::npos ? 0 : o.matrix.find_last_of('/') + 1);
    pb.watchrName = pb.watchrName.substr(0, pb.watchrName.rfind(".mtx"));
  } else {
    const int dim = o.laplace == "2d" ? 2 : 3;
    const long long n = o.n > 0 ? o.n : dim == 2 ? 300 : 40;
    pb.A = dim == 2 ? Trident::gen::laplace2d(n, comm) : Trident::muelu::laplacian(3, n, comm);
    if (o.repartition) pb.coords = Trident::muelu::gridCoordinates(*pb.A, dim, n);
    pb.what = o.laplace + " Laplacian, n=" + std::to_string(n);
    pb.watchrName = "laplace" + o.laplace + "_n" + std::to_string(n);
  }
  tm = Teuchos::null;
  if (pb.A->getGlobalNumRows() != pb.A->getGlobalNumCols())
    throw std::invalid_argument("the matrix must be square (and SPD)");
  return pb;
}

// The built-in smoothed-aggregation setup (or --xml's), with the Trident options on top.
Teuchos::ParameterList mueluParams(const Options& o, int P, const Problem& pb, TridentPerf::TimerFormat timerFormat,
                                   const Trident::comm_ptr& comm) {
  Teuchos::ParameterList params;
  if (!o.xml.empty()) {
    Teuchos::updateParametersFromXmlFileAndBroadcast(o.xml, Teuchos::Ptr<Teuchos::ParameterList>(&params), *comm);
  } else {
    params.set("verbosity", o.verbose ? "medium" : "none");
    params.set("multigrid algorithm", "sa");
    params.set("max levels", o.maxLevels);
    params.set("coarse: max size", o.coarseMax);
    params.set("smoother: type", "RELAXATION");
    params.sublist("smoother: params").set("relaxation: type", "Symmetric Gauss-Seidel");
    params.sublist("smoother: params").set("relaxation: sweeps", 1);
    // Debian's Trilinos 13.2 Amesos2 (KLU2, MueLu's default coarse solver) is wrong with > 1 rank
    if (P > 1) {
      params.set("coarse: type", "RELAXATION");
      params.sublist("coarse: params").set("relaxation: type", "Symmetric Gauss-Seidel");
      params.sublist("coarse: params").set("relaxation: sweeps", 4);
    }
    if (o.repartition) {
      params.set("repartition: enable", true);
      params.set("repartition: partitioner", "zoltan2");
      params.sublist("repartition: params").set("algorithm", "multijagged");
      params.set("repartition: start level", 1);
      params.set("repartition: min rows per proc", 2000);
      params.set("repartition: max imbalance", 1.2);
    }
  }
  const bool trident = o.rap == "trident";
  params.set("trident: use for rap", trident);
  if (trident && o.lambda > 0) params.set("trident: ranks per group", o.lambda);
  if (trident && !o.algorithm.empty()) params.set("trident: algorithm", o.algorithm);
  if (trident && o.countBytes) params.set("trident: count bytes", true);
  if (!pb.coords.is_null()) params.sublist("user data").set("Coordinates", pb.coords);
  // MueLu starts its own timers only at verbosity "medium" and up; for the timer output they are
  // turned on with MueLu's printing discarded (--verbose or an --xml file keep their own).
  if (timerFormat != TridentPerf::TimerFormat::None && o.xml.empty() && !o.verbose) {
    params.set("verbosity", "medium");
    MueLu::VerboseObject::SetMueLuOStream(Teuchos::getFancyOStream(Teuchos::rcp(new Teuchos::oblackholestream)));
  }
  return params;
}

using preconditioner_ptr = Teuchos::RCP<Trident::muelu::muelu_tpetra_operator_type>;

// The hierarchy's setup, between barriers so that `seconds` is the slowest rank's.
preconditioner_ptr setupPreconditioner(const Problem& pb, Teuchos::ParameterList& params,
                                       const Trident::comm_ptr& comm, double& seconds) {
  Trident::muelu::resetRAPStats();
  comm->barrier();
  auto tm = stage("trident-muelu-solve: setup");
  const double t0 = MPI_Wtime();
  auto M = Trident::muelu::CreateTpetraPreconditioner(
      Teuchos::rcp_implicit_cast<Tpetra::Operator<Trident::Scalar, Trident::LO, Trident::GO, Trident::Node>>(pb.A),
      params);
  comm->barrier();
  seconds = MPI_Wtime() - t0;
  tm = Teuchos::null;
  return M;
}

// Prints (rank 0) the levels and the setup time, split into RAP (slowest rank) and the rest,
// with the bytes the Trident products moved summed over all ranks.
void reportSetup(const Trident::muelu::muelu_tpetra_operator_type& M, double setup, const Options& o,
                 const Trident::comm_ptr& comm) {
  const int rank = comm->getRank();
  const auto& st = Trident::muelu::rapStats();
  double rapLocal = st.seconds, rapMax = 0;
  Teuchos::reduceAll<int, double>(*comm, Teuchos::REDUCE_MAX, rapLocal, Teuchos::outArg(rapMax));
  unsigned long long bytes[4] = {st.gi_bytes_sent, st.gi_bytes_recv, st.li_bytes_sent, st.li_bytes_recv}, sum[4];
  MPI_Allreduce(bytes, sum, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);

  std::ostringstream levels;
  Trident::muelu::describeHierarchy(*M.GetHierarchy(), levels);
  if (rank != 0) return;
  const bool trident = o.rap == "trident";
  std::printf("hierarchy: %d levels\n%s", M.GetHierarchy()->GetNumLevels(), levels.str().c_str());
  std::printf("setup: %.4f s total, RAP %.6f s (%s, %d coarse levels), rest %.4f s\n", setup, rapMax,
              trident ? "Trident" : "stock RAPFactory", static_cast<int>(st.levels.size()), setup - rapMax);
  for (const auto& l : st.levels)
    std::printf("  RAP level %d: %lld rows, %lld nnz, %.4f s (rank 0)%s\n", l.level, l.ac_rows, l.ac_nnz, l.seconds,
                l.method == "trident" ? (", A*P " + l.ap.algorithm + ", R*(AP) " + l.rap.algorithm).c_str() : "");
  // Per product: what ran, its wall time on rank 0 (checks, choice and multiply) and why; with
  // TRIDENT_AUTO_COUNT=1 the reason has every algorithm's counts (apps/plan/muelu-products.py).
  if (o.explain && trident)
    for (const auto& l : st.levels)
      for (const auto* s : {&l.ap, &l.rap})
        std::printf("  level %d %s: %s %.6f s; %s\n", l.level, s == &l.ap ? "A*P" : "R*(AP)", s->algorithm.c_str(),
                    s->times.total, s->auto_chosen ? s->auto_reason.c_str() : "(named, not chosen)");
  if (trident)
    std::printf("RAP bytes (all ranks): Gi recv %llu (sent %llu), Li recv %llu (sent %llu)%s\n", sum[1], sum[0],
                sum[3], sum[2], o.countBytes ? "" : " (products done by Tpetra's Multiply not counted: --count-bytes)");
}

// Solves A x = A*1 with CG; true when it converged.
bool solve(const Problem& pb, const preconditioner_ptr& M, const Options& o, int rank) {
  const auto& A = pb.A;
  auto x = Teuchos::rcp(new Trident::muelu::multivector_type(A->getDomainMap(), 1));
  auto ones = Teuchos::rcp(new Trident::muelu::multivector_type(A->getDomainMap(), 1));
  ones->putScalar(1.0);
  auto b = Teuchos::rcp(new Trident::muelu::multivector_type(A->getRangeMap(), 1));
  A->apply(*ones, *b);
  auto tm = stage("trident-muelu-solve: solve");
  auto res = Trident::muelu::solveCG(A, M, b, x, o.tol, o.maxIters);
  tm = Teuchos::null;
  if (rank == 0)
    std::printf("CG: %s, %d iterations, final relative residual %.3e, solve %.4f s\n",
                res.converged ? "converged" : "NOT converged", res.iterations, res.relative_residual, res.seconds);
  return res.converged;
}
}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard scope(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  const int rank = comm->getRank(), P = comm->getSize();
  Options o;
  // Default: no timer output, as before this option existed.
  TridentPerf::TimerOptions timerOpts("none");
  if (const int status = parseArgs(argc, argv, rank, o, timerOpts); status >= 0) return status;
  TridentPerf::TimerFormat timerFormat;
  try {
    timerFormat = TridentPerf::parseTimerFormat(timerOpts.format);
  } catch (const std::invalid_argument& e) {
    if (rank == 0) std::fprintf(stderr, "trident-muelu-solve: %s\n%s", e.what(), kUsage);
    return 2;
  }
  // From here on every TimeMonitor timer (MueLu's, Trident's, Tpetra's) nests in this one.
  TridentPerf::TimerOutput timers("trident-muelu-solve", timerOpts);

  try {
    const Problem pb = loadProblem(o, comm);
    Teuchos::ParameterList params = mueluParams(o, P, pb, timerFormat, comm);
    if (rank == 0)
      std::printf("trident-muelu-solve: %s, %lld rows, %lld nnz, P=%d, rap=%s%s\n", pb.what.c_str(),
                  static_cast<long long>(pb.A->getGlobalNumRows()), static_cast<long long>(pb.A->getGlobalNumEntries()),
                  P, o.rap.c_str(), o.lambda > 0 ? (", ranks per group " + std::to_string(o.lambda)).c_str() : "");

    double setup = 0;
    const preconditioner_ptr M = setupPreconditioner(pb, params, comm, setup);
    reportSetup(*M, setup, o, comm);
    const bool converged = solve(pb, M, o, rank);
    timers.report(comm, std::cout,
                  "trident-muelu-solve " + pb.watchrName + " P" + std::to_string(P) + " rap=" + o.rap);
    return converged ? 0 : 1;
  } catch (std::exception& e) {
    std::fprintf(stderr, "trident-muelu-solve [rank %d]: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 1;
}
