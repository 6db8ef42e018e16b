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
// Timers: one Teuchos::StackedTimer for the run (perf/TimerOutput.hpp), so the library's phases
// nest under the algorithm that ran them; --timer-output=table (default: TimeMonitor::summarize),
// yaml, or watchr (the nested tree, and one Watchr XML in $WATCHR_PERF_DIR).
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <random>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <mpi.h>
#include <Teuchos_CommandLineProcessor.hpp>
#include <Teuchos_DefaultMpiComm.hpp>
#include <Teuchos_ParameterList.hpp>
#include <Teuchos_TimeMonitor.hpp>
#include <Teuchos_oblackholestream.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_Vector.hpp>

#include "Trident_Generators.hpp"
#include "Trident_MatrixMarket.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "Trident_ProductCounts.hpp"
#include "Trident_TpetraTypes.hpp"
#include "TimerOutput.hpp"
#include "aggregation.hpp"
#ifdef TRIDENT_BENCH_HAVE_MUELU
#include <Trident_CreatePreconditioner.hpp>
#include <Tpetra_RowMatrixTransposer.hpp>
#endif

namespace {

using Trident::crs_matrix_type;
using Trident::GO;
using Trident::LO;
using Trident::map_type;
using Teuchos::RCP;
using Teuchos::rcp;

// The README's main job: what `mpirun -np 4 trident-bench` runs with no --matrix.
const char* const kDefaultMatrix = "rmat:15:8";
// "auto-cold": "auto" counting on every call ("trident: auto: remember choice" = false), so the
// table shows both what a first call and what a repeated call on the same operands costs.
const char* const kAlgoNames[] = {"tpetra", "summa", "trident", "auto", "auto-cold"};

struct Options {
  std::string matrix;
  std::string op = "AA";
  std::string prolongator = "aggregation";
  std::string algos = "tpetra,summa,trident";
  int ranks_per_group = 0;
  std::string permute = "none";
  std::string grid = "auto";
  std::string slices = "auto";  // "trident: slices" (the drop-in's default)
  std::string gi_pacing = "eager";
  std::string local_kernel = "gustavson";
  int trials = 3;
  bool interleave = false;  // trial by trial across algorithms instead of algorithm by algorithm
  bool plan_reuse = false;
  bool check = false;
  std::string csv;
  std::string dump;
  int seed = 1;
};

// Per-algorithm result, everything already reduced over ranks.
struct Result {
  std::string algo;
  double time_s = 0;
  // in, gi, li, local (= multiply + accumulate), out, total, wait (for the slowest rank after the loop)
  double phase[7] = {0, 0, 0, 0, 0, 0, 0};
  std::uint64_t gi_max = 0, gi_total = 0, li_max = 0, li_total = 0;
  std::uint64_t redist_gi_total = 0, redist_li_total = 0;  // 1D rows <-> tiles, sent, summed over ranks
  std::uint64_t flops = 0;
  std::uint64_t flops_max = 0;  // the busiest rank's multiply-adds
  long long nnz_c = 0;
  int ranks_per_group = 0;
  int grid_rows = 0, grid_cols = 0, rounds = 0;
  double peak_rss_mb = 0;
  std::string check = "off";
  bool bytes_fallback = false, flops_fallback = false;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::uint64_t medianU(const std::vector<std::uint64_t>& v) {
  std::vector<double> d(v.begin(), v.end());
  return static_cast<std::uint64_t>(std::llround(median(d)));
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

std::string matrixName(const std::string& spec) {
  std::string name = spec;
  const auto slash = name.find_last_of('/');
  if (slash != std::string::npos) name = name.substr(slash + 1);
  if (name.size() > 4 && name.compare(name.size() - 4, 4, ".mtx") == 0) name.resize(name.size() - 4);
  std::replace(name.begin(), name.end(), ',', '_');
  return name;
}

double peakRssMb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

// Global entry count without Tpetra's global constants (Multiply's fillComplete skips them).
long long globalNnz(const crs_matrix_type& M) {
  long long mine = static_cast<long long>(Trident::Compat::localNumEntries(M)), all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return all;
}

double allMax(double v) {
  double r = v;
  MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return r;
}


// ---------------------------------------------------------------------------------------------
// What Tpetra's own multiply does, computed from the matrices (used only where the library's
// stats report zero): flops = sum over local a_ik of nnz(B(k,:)); bytes = the rows of B that
// Tpetra imports for A's column map (remote rows), 8 B per row plus 20 B per entry
// (global column, value, owning PID), as the drop-in counts them; split into Gi/Li by source and destination
// group. Collective.
struct ProductInfo {
  std::uint64_t flops = 0, gi_recv = 0, li_recv = 0;
};

ProductInfo productInfo(const crs_matrix_type& A, const crs_matrix_type& B, const std::vector<int>& groupOf) {
  ProductInfo info;
  auto bRows = B.getRowMap();
  const auto rl = Trident::tpetra::rowLengthsAtColumns(A, B);
  for (std::int64_t w : Trident::tpetra::multiplyAddsPerRow(A, rl.len, false)) info.flops += static_cast<std::uint64_t>(w);
  auto colMap = A.getColMap();
  // Remote rows of B and their owners.
  std::vector<GO> remote;
  std::vector<LO> remoteLid;
  for (size_t lc = 0; lc < Trident::Compat::localNumElements(*colMap); ++lc) {
    const GO g = colMap->getGlobalElement(static_cast<LO>(lc));
    if (!bRows->isNodeGlobalElement(g)) {
      remote.push_back(g);
      remoteLid.push_back(static_cast<LO>(lc));
    }
  }
  std::vector<int> owner(remote.size(), -1);
  bRows->getRemoteIndexList(Teuchos::ArrayView<const GO>(remote), Teuchos::ArrayView<int>(owner));
  const int me = A.getComm()->getRank();
  for (size_t i = 0; i < remote.size(); ++i) {
    if (owner[i] < 0) continue;
    const std::uint64_t nnz = static_cast<std::uint64_t>(rl.len[remoteLid[i]]);
    const std::uint64_t bytes = 8 + 20 * nnz;  // as the drop-in counts Tpetra's packing
    if (groupOf[owner[i]] == groupOf[me])
      info.li_recv += bytes;
    else
      info.gi_recv += bytes;
  }
  return info;
}

// Group id of every rank: rank / lambda, or (lambda = 0) the nodes MPI_COMM_TYPE_SHARED finds.
std::vector<int> groupsOf(int lambda) {
  int rank, P;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int mine = lambda > 0 ? rank / lambda : 0;
  if (lambda <= 0) {
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    int leader = rank;
    MPI_Allreduce(&rank, &leader, 1, MPI_INT, MPI_MIN, shared);
    MPI_Comm_free(&shared);
    mine = leader;
  }
  std::vector<int> all(P);
  MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD);
  return all;
}

// ---------------------------------------------------------------------------------------------
// --check: C must have the structure of Ref (same global column indices in every row) and the
// same values to 1e-12 relative, relative to the magnitude of the terms summed: |c - ref| <=
// 1e-12 * (|A||B|)_ij (Scale = the same product of the absolute values, computed by Tpetra), so
// that entries that cancel (zero row sums of stiffness matrices) are judged by the rounding their
// summation order can cause. Collective; returns the number of mismatching rows over all ranks.
long long compareWithReference(const crs_matrix_type& Ref, const crs_matrix_type& Scale, const crs_matrix_type& C,
                               const std::string& algo) {
  RCP<const crs_matrix_type> Cv = Teuchos::rcpFromRef(C);
  if (!C.getRowMap()->isSameAs(*Ref.getRowMap())) {
    Tpetra::Import<LO, GO, Trident::Node> imp(C.getRowMap(), Ref.getRowMap());
    Cv = Tpetra::importAndFillCompleteCrsMatrix<crs_matrix_type>(Teuchos::rcpFromRef(C), imp, Ref.getDomainMap(),
                                                                 Ref.getRangeMap());
  }
  long long bad = 0;
  std::ostringstream first;
  const int rank = Ref.getComm()->getRank();
  if (C.getGlobalNumRows() != Ref.getGlobalNumRows() || C.getGlobalNumCols() != Ref.getGlobalNumCols()) {
    bad = 1;
    first << "dimensions " << C.getGlobalNumRows() << "x" << C.getGlobalNumCols() << " vs tpetra's "
          << Ref.getGlobalNumRows() << "x" << Ref.getGlobalNumCols();
  }
  auto rowMap = Ref.getRowMap();
  std::vector<std::pair<GO, double>> a, b, sc;
  auto rowEntries = [](const crs_matrix_type& M, LO lr, std::vector<std::pair<GO, double>>& out) {
    typename crs_matrix_type::local_inds_host_view_type inds;
    typename crs_matrix_type::values_host_view_type vals;
    M.getLocalRowView(lr, inds, vals);
    out.clear();
    auto cm = M.getColMap();
    for (size_t k = 0; k < inds.extent(0); ++k) out.emplace_back(cm->getGlobalElement(inds(k)), vals(k));
    std::sort(out.begin(), out.end());
  };
  for (size_t lr = 0; lr < Trident::Compat::localNumElements(*rowMap); ++lr) {
    const GO g = rowMap->getGlobalElement(static_cast<LO>(lr));
    rowEntries(Ref, static_cast<LO>(lr), a);
    rowEntries(*Cv, Cv->getRowMap()->getLocalElement(g), b);
    rowEntries(Scale, Scale.getRowMap()->getLocalElement(g), sc);
    const bool haveScale = sc.size() == a.size();
    bool rowBad = a.size() != b.size();
    for (size_t k = 0; !rowBad && k < a.size(); ++k) {
      const double x = a[k].second, y = b[k].second;
      const double mag = haveScale && sc[k].first == a[k].first ? std::abs(sc[k].second)
                                                                : std::max(std::abs(x), std::abs(y));
      const double tol = 1e-12 * mag;
      if (a[k].first != b[k].first || !(std::abs(x - y) <= tol)) {
        rowBad = true;
        if (bad == 0)
          first << "row " << g << ", entry " << k << ": (" << b[k].first << ", " << std::setprecision(17) << y
                << ") vs tpetra's (" << a[k].first << ", " << x << ")";
      }
    }
    if (rowBad) {
      if (bad == 0 && first.str().empty())
        first << "row " << g << ": " << b.size() << " entries vs tpetra's " << a.size();
      ++bad;
    }
  }
  if (bad > 0) {  // one write per rank, so that ranks' lines do not interleave
    std::ostringstream msg;
    msg << "trident-bench: --check: " << algo << " differs from tpetra on rank " << rank << " in " << bad
        << " rows; first: " << first.str() << "\n";
    std::cerr << msg.str() << std::flush;
  }
  long long total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

// ---------------------------------------------------------------------------------------------
struct Problem {
  RCP<crs_matrix_type> A;
  TridentBench::Transfer T;  // AR, RAP
};

// One multiply (or the RAP pair) with one algorithm. Returns the result; stats summed.
RCP<crs_matrix_type> runOp(const Problem& pb, const std::string& op, const RCP<Teuchos::ParameterList>& params,
                           Trident::MultiplyStats& stats, RCP<crs_matrix_type>* intermediate) {
  const crs_matrix_type& A = *pb.A;
  if (op == "AA") {
    auto C = rcp(new crs_matrix_type(A.getRowMap(), 0));
    Trident::MatrixMatrix::Multiply(A, false, A, false, *C, true, "trident-bench", params);
    stats = Trident::MatrixMatrix::lastStats();
    return C;
  }
  auto AP = rcp(new crs_matrix_type(A.getRowMap(), 0));
  Trident::MatrixMatrix::Multiply(A, false, *pb.T.P, false, *AP, true, "trident-bench", params);
  stats = Trident::MatrixMatrix::lastStats();
  if (op == "AR") return AP;
  auto RAP = rcp(new crs_matrix_type(pb.T.R->getRowMap(), 0));
  Trident::MatrixMatrix::Multiply(*pb.T.R, false, *AP, false, *RAP, true, "trident-bench", params);
  stats += Trident::MatrixMatrix::lastStats();
  if (intermediate) *intermediate = AP;
  return RAP;
}

// |A| with A's structure (for --check's scale).
RCP<crs_matrix_type> absOf(const crs_matrix_type& A) {
  auto M = rcp(new crs_matrix_type(A, Teuchos::Copy));
  M->resumeFill();
  std::vector<double> v;
  for (size_t lr = 0; lr < Trident::Compat::localNumRows(*M); ++lr) {
    typename crs_matrix_type::local_inds_host_view_type inds;
    typename crs_matrix_type::values_host_view_type vals;
    A.getLocalRowView(static_cast<LO>(lr), inds, vals);
    v.resize(inds.extent(0));
    std::vector<LO> ix(inds.extent(0));
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = std::abs(vals(k));
      ix[k] = inds(k);
    }
    M->replaceLocalValues(static_cast<LO>(lr), Teuchos::ArrayView<const LO>(ix), Teuchos::ArrayView<const double>(v));
  }
  M->fillComplete(A.getDomainMap(), A.getRangeMap());
  return M;
}

// The op on |A| (P, R are nonnegative) with Tpetra's own multiply: the scale of --check.
RCP<crs_matrix_type> absProduct(const Problem& pb, const std::string& op) {
  auto Aabs = absOf(*pb.A);
  auto C = rcp(new crs_matrix_type(Aabs->getRowMap(), 0));
  if (op == "AA") {
    Tpetra::MatrixMatrix::Multiply(*Aabs, false, *Aabs, false, *C);
    return C;
  }
  Tpetra::MatrixMatrix::Multiply(*Aabs, false, *pb.T.P, false, *C);
  if (op == "AR") return C;
  auto RAP = rcp(new crs_matrix_type(pb.T.R->getRowMap(), 0));
  Tpetra::MatrixMatrix::Multiply(*pb.T.R, false, *C, false, *RAP);
  return RAP;
}

std::string fmtBytes(double b) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(b >= 1e9 ? 2 : (b >= 1e6 ? 2 : 1));
  if (b >= 1e9)
    o << b / 1e9 << "G";
  else if (b >= 1e6)
    o << b / 1e6 << "M";
  else if (b >= 1e3)
    o << b / 1e3 << "k";
  else
    o << std::setprecision(0) << b;
  return o.str();
}

std::string fmtRatio(double num, double den) {
  if (!(den > 0)) return "n/a";
  std::ostringstream o;
  o << std::fixed << std::setprecision(3) << num / den;
  return o.str();
}

int run(int argc, char* argv[]) {
  auto comm = Tpetra::getDefaultComm();
  const int rank = comm->getRank(), P = comm->getSize();
  Teuchos::oblackholestream blackhole;
  std::ostream& out = rank == 0 ? std::cout : blackhole;
  std::ostream& err = rank == 0 ? std::cerr : blackhole;

  // ---- options -------------------------------------------------------------------------------
  Options o;
  Teuchos::CommandLineProcessor clp(false, true);
  static const std::string doc =
      "Side-by-side distributed SpGEMM benchmark: Tpetra 1D, 2D Sparse SUMMA and Trident through the drop-in "
      "Trident::MatrixMatrix::Multiply. Prints a table on rank 0 and optionally appends rows to a CSV.\n"
      "With no --matrix it runs the built-in default job (" +
      std::string(kDefaultMatrix) + ", --op=AA, all algorithms, --ranks-per-group=2 when P is even and >= 4 and\n"
      "--ranks-per-group is not given: one machine is one MPI_COMM_TYPE_SHARED group).\n";
  clp.setDocString(doc.c_str());
  clp.setOption("matrix", &o.matrix,
                "Matrix Market file (real/integer/pattern, general/symmetric) or generator spec: rmat:SCALE:EDGEFACTOR, "
                "er:N:AVGDEG, lap2d:N. Empty: the built-in default.");
  clp.setOption("prolongator", &o.prolongator,
                "aggregation (greedy tentative prolongator, built in) | muelu (MueLu's smoothed-aggregation P; "
                "needs the MueLu adapter) for --op=AR and RAP");
  clp.setOption("op", &o.op, "AA (A*A) | AR (A*T, T = tentative prolongator of a greedy aggregation) | RAP (T^T*(A*T))");
  clp.setOption("algos", &o.algos, "comma-separated subset of tpetra,summa,trident,auto,auto-cold (run in this order; with --check tpetra runs first; auto: the planner's choice, remembered between trials on the same operands; auto-cold: counted on every call)");
  clp.setOption("ranks-per-group", &o.ranks_per_group,
                "lambda, ranks per group (node); 0 = auto (the MPI_COMM_TYPE_SHARED groups; 2 in the built-in default job)");
  clp.setOption("permute", &o.permute, "none | random (trident: symmetric random permutation)");
  clp.setOption("grid", &o.grid, "auto | square | rows (Trident's coarse grid of groups; see \"trident: grid\")");
  clp.setOption("gi-pacing", &o.gi_pacing, "eager | ready (when Trident's tiles start over Gi; see \"trident: gi pacing\")");
  clp.setOption("slices", &o.slices, "auto | balanced | owners (how Trident cuts tiles into slices; see \"trident: slices\")");
  clp.setOption("trials", &o.trials, "timed trials per algorithm (plus one untimed warm-up)");
  clp.setOption("interleave", "no-interleave", &o.interleave,
                "run trial t of every algorithm before trial t+1 of any, in an order shuffled per trial (fairer "
                "ratios under a drifting load and whatever a neighbour leaves behind; the RSS column is then the "
                "peak over all algorithms)");
  clp.setOption("check", "no-check", &o.check,
                "compare every algorithm's C with tpetra's (structure, values to 1e-12 relative); exit 1 on mismatch");
  clp.setOption("local-kernel", &o.local_kernel, "gustavson | kokkoskernels | reference (\"trident: local kernel\")");
  clp.setOption("plan-reuse", "no-plan-reuse", &o.plan_reuse,
                "also time re-executing a kept Trident::MatrixMatrix::MultiplyPlan with new values of A (same pattern), "
                "C updated in place, against a fresh Multiply (--op=AA; tpetra: Tpetra's Multiply into its filled C)");
  clp.setOption("csv", &o.csv, "append one row per algorithm to this CSV (header written if the file is new)");
  clp.setOption("seed", &o.seed, "seed of the generators and of --permute=random");
  clp.setOption("dump", &o.dump,
                "write A, once built, to this Matrix Market file (coordinate real general, values to 17 digits): "
                "the same input for other programs, e.g. perf/petsc/petsc-matmult on a generated matrix");
  TridentPerf::TimerOptions timerOpts("table");
  timerOpts.addTo(clp);
  const auto parsed = clp.parse(argc, argv, rank == 0 ? &std::cerr : nullptr);
  if (parsed == Teuchos::CommandLineProcessor::PARSE_HELP_PRINTED) return 0;
  if (parsed != Teuchos::CommandLineProcessor::PARSE_SUCCESSFUL) {
    err << "trident-bench: bad command line (see --help)" << std::endl;
    return 1;
  }
  std::vector<std::string> errors;
  if (o.op != "AA" && o.op != "AR" && o.op != "RAP") errors.push_back("--op must be AA, AR or RAP, not '" + o.op + "'");
  std::vector<std::string> algos = split(o.algos, ',');
  if (algos.empty()) errors.push_back("--algos is empty");
  for (auto& a : algos)
    if (std::find(std::begin(kAlgoNames), std::end(kAlgoNames), a) == std::end(kAlgoNames))
      errors.push_back("--algos: unknown algorithm '" + a + "' (expected tpetra, summa, trident, auto, auto-cold)");
  for (size_t i = 0; i < algos.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (algos[i] == algos[j]) errors.push_back("--algos lists '" + algos[i] + "' twice");
  if (o.ranks_per_group < 0 || o.ranks_per_group > P)
    errors.push_back("--ranks-per-group must be 0 (auto) or between 1 and P = " + std::to_string(P));
  else if (o.ranks_per_group > 0 && P % o.ranks_per_group != 0)
    errors.push_back("--ranks-per-group=" + std::to_string(o.ranks_per_group) + " must divide P = " + std::to_string(P));
  if (o.prolongator != "aggregation" && o.prolongator != "muelu")
    errors.push_back("--prolongator must be aggregation or muelu, not '" + o.prolongator + "'");
#ifndef TRIDENT_BENCH_HAVE_MUELU
  if (o.prolongator == "muelu") errors.push_back("--prolongator=muelu: this build has no MueLu adapter");
#endif
  if (o.grid != "auto" && o.grid != "square" && o.grid != "rows")
    errors.push_back("--grid must be auto, square or rows, not '" + o.grid + "'");
  if (o.gi_pacing != "ready" && o.gi_pacing != "eager")
    errors.push_back("--gi-pacing must be eager or ready, not '" + o.gi_pacing + "'");
  if (o.slices != "auto" && o.slices != "balanced" && o.slices != "owners")
    errors.push_back("--slices must be auto, balanced or owners, not '" + o.slices + "'");
  if (o.permute != "none" && o.permute != "random")
    errors.push_back("--permute must be none or random, not '" + o.permute + "'");
  if (o.trials < 1) errors.push_back("--trials must be >= 1");
  try {
    TridentPerf::parseTimerFormat(timerOpts.format);
  } catch (const std::invalid_argument& e) {
    errors.push_back(e.what());
  }
  if (!errors.empty()) {
    for (auto& e : errors) err << "trident-bench: " << e << std::endl;
    return 1;
  }
  // From here on every TimeMonitor timer nests in this run's StackedTimer.
  TridentPerf::TimerOutput timers("trident-bench", timerOpts);
  const bool defaultJob = o.matrix.empty();
  if (defaultJob) {
    o.matrix = kDefaultMatrix;
    // On one machine MPI_COMM_TYPE_SHARED puts every rank in one group (no Gi link at all):
    // the default job emulates groups of 2 unless told otherwise.
    if (o.ranks_per_group == 0 && P >= 4 && P % 2 == 0) o.ranks_per_group = 2;
  }
  const std::string name = matrixName(o.matrix);

  auto baseParams = [&](const std::string& label) {
    const bool cold = label == "auto-cold";
    const std::string algo = cold ? "auto" : label;
    auto pl = rcp(new Teuchos::ParameterList("trident-bench"));
    pl->set("trident: algorithm", algo);
    if (cold) pl->set("trident: auto: remember choice", false);
    if (o.ranks_per_group > 0) pl->set("trident: ranks per group", o.ranks_per_group);
    pl->set("trident: permute", o.permute);
    if (algo == "trident" || algo == "auto") pl->set("trident: grid", o.grid);
    if (algo == "trident" || algo == "auto") pl->set("trident: slices", o.slices);
    if (algo == "trident" || algo == "auto") pl->set("trident: gi pacing", o.gi_pacing);
    if (algo != "tpetra") pl->set("trident: local kernel", o.local_kernel);
    pl->set("trident: permute seed", o.seed);
    return pl;
  };
  // Reject what the drop-in would reject, before any work (same answer on every rank).
  try {
    auto valid = Trident::MatrixMatrix::getValidParameters();
    for (auto& a : algos) baseParams(a)->validateParameters(*valid, 0);
  } catch (const std::exception& e) {
    err << "trident-bench: invalid parameters: " << e.what() << std::endl;
    return 1;
  }

  // ---- problem ---------------------------------------------------------------------------------
  Problem pb;
  {
    Teuchos::TimeMonitor tm(*Teuchos::TimeMonitor::getNewCounter("trident-bench: build matrix"));
    std::string msg;
    try {
      pb.A = Trident::gen::fromSpec(o.matrix, comm, static_cast<std::uint64_t>(o.seed));
    } catch (const std::exception& e) {
      msg = e.what();
    }
    int failed = msg.empty() ? 0 : 1, anyFailed = 0;
    MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (anyFailed) {
      // Every rank gets the message of the lowest failing rank.
      int who = failed ? rank : P, lowest = P;
      MPI_Allreduce(&who, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      int len = static_cast<int>(msg.size());
      MPI_Bcast(&len, 1, MPI_INT, lowest, MPI_COMM_WORLD);
      msg.resize(len);
      MPI_Bcast(&msg[0], len, MPI_CHAR, lowest, MPI_COMM_WORLD);
      err << "trident-bench: cannot build --matrix=" << o.matrix << ": " << msg << std::endl;
      return 1;
    }
  }
  if (!o.dump.empty()) {
    try {
      Trident::io::writeMatrixMarket(o.dump, *pb.A);
    } catch (const std::exception& e) {  // the writer throws the same message on every rank
      err << "trident-bench: --dump=" << o.dump << ": " << e.what() << std::endl;
      return 1;
    }
  }
  if (o.op != "AA") {
    Teuchos::TimeMonitor tm(*Teuchos::TimeMonitor::getNewCounter("trident-bench: aggregation"));
    if (pb.A->getGlobalNumRows() != pb.A->getGlobalNumCols() || !pb.A->getDomainMap()->isSameAs(*pb.A->getRowMap())) {
      err << "trident-bench: --op=" << o.op << " needs a square matrix (" << name << " is " << pb.A->getGlobalNumRows()
          << " x " << pb.A->getGlobalNumCols() << ")" << std::endl;
      return 1;
    }
#ifdef TRIDENT_BENCH_HAVE_MUELU
    if (o.prolongator == "muelu") {
      pb.T.P = Trident::muelu::smoothedAggregationProlongator(pb.A);
      Tpetra::RowMatrixTransposer<double, Trident::LO, Trident::GO, Trident::Node> transposer(pb.T.P);
      pb.T.R = transposer.createTranspose();
      pb.T.num_aggregates = static_cast<long long>(pb.T.P->getGlobalNumCols());
      pb.T.largest_aggregate = 0;
    } else
#endif
      pb.T = TridentBench::buildTransfer(*pb.A);
  }
  const long long nnzA = globalNnz(*pb.A);

  out << "trident-bench: matrix " << name << (defaultJob ? " (built-in default job)" : "") << ": "
      << pb.A->getGlobalNumRows() << " x " << pb.A->getGlobalNumCols() << ", nnz " << nnzA << "\n"
      << "  op " << o.op;
  if (o.op != "AA" && o.prolongator == "muelu")
    out << (o.op == "AR" ? " (C = A*P" : " (C = R*(A*P), R = P^T") << ", P: MueLu smoothed aggregation, "
        << pb.T.num_aggregates << " aggregates)";
  else if (o.op == "AR")
    out << " (C = A*T, T: " << pb.T.num_aggregates << " aggregates, largest " << pb.T.largest_aggregate << ")";
  else if (o.op == "RAP")
    out << " (C = R*(A*P), P = T, R = T^T; " << pb.T.num_aggregates << " aggregates, largest " << pb.T.largest_aggregate
        << ")";
  out << ", P = " << P << " ranks, ranks per group "
      << (o.ranks_per_group > 0 ? std::to_string(o.ranks_per_group) : std::string("auto (MPI_COMM_TYPE_SHARED)"))
      << ", permute " << o.permute << ", grid " << o.grid << ", " << o.trials << " trials + 1 warm-up" << (o.check ? ", --check" : "") << "\n"
      << std::endl;

  // ---- runs ------------------------------------------------------------------------------------
  std::vector<std::string> runList = algos;
  if (o.check) {  // the reference runs first; reported only when listed
    runList.erase(std::remove(runList.begin(), runList.end(), std::string("tpetra")), runList.end());
    runList.insert(runList.begin(), "tpetra");
  }
  std::vector<Result> results;
  RCP<crs_matrix_type> refC, scaleC;
  long long totalMismatches = 0;
  std::vector<int> groups;

  // One runner per algorithm: its parameters, timer and the per-trial values its Result is made of.
  struct Runner {
    std::string algo;
    RCP<Teuchos::ParameterList> params;
    RCP<Teuchos::Time> timer;
    std::vector<double> wall, ph[7];
    std::vector<std::uint64_t> giMax, giTot, liMax, liTot, flops, flopsMax;
    Trident::ReducedStats last;
    RCP<crs_matrix_type> C, intermediate;
  };
  std::vector<Runner> runners;
  for (const std::string& algo : runList) {
    Runner rn;
    rn.algo = algo;
    rn.params = baseParams(algo);
    rn.timer = Teuchos::TimeMonitor::getNewCounter("trident-bench: " + algo + " " + o.op);
    runners.push_back(std::move(rn));
  }
  // Trial t of one algorithm (t = 0: the untimed warm-up).
  auto runTrial = [&](Runner& rn, int t) {
    const std::string& algo = rn.algo;
    rn.C = Teuchos::null;
    rn.intermediate = Teuchos::null;
    Trident::MultiplyStats st;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    try {
      Teuchos::TimeMonitor tm(*rn.timer);
      rn.C = runOp(pb, o.op, rn.params, st, &rn.intermediate);
    } catch (const std::exception& e) {
      std::cerr << "trident-bench: rank " << rank << ": " << algo << " multiply failed: " << e.what() << std::endl;
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    // The library's own wall time of the multiply(ies): for "tpetra" it leaves out the byte
    // accounting the drop-in does after Tpetra's Multiply returns.
    const double mine = st.times.total > 0 ? st.times.total : MPI_Wtime() - t0;
    const double w = allMax(mine);
    if (w > 2.0)
      out << "  [" << algo << "] " << (t == 0 ? std::string("warm-up") : "trial " + std::to_string(t) + "/" +
                                                                             std::to_string(o.trials))
          << ": " << std::fixed << std::setprecision(2) << w << " s" << std::defaultfloat << std::endl;
    rn.last = Trident::reduceStats(st, MPI_COMM_WORLD);
    if (t == 0) return;  // warm-up
    rn.wall.push_back(w);
    const auto& m = rn.last.max.times;
    rn.ph[0].push_back(m.redistribute_in);
    rn.ph[1].push_back(m.gi_wait);
    rn.ph[2].push_back(m.li_allgather);
    // "local": the local SpGEMM kernels plus accumulating the partial products; each term is a
    // max over ranks (reduceStats), so the sum bounds the max of the sum from above.
    rn.ph[3].push_back(m.local_multiply + m.accumulate);
    rn.ph[4].push_back(m.redistribute_out);
    rn.ph[5].push_back(m.total);
    rn.ph[6].push_back(m.imbalance_wait);
    rn.giMax.push_back(rn.last.max.gi_bytes_recv);
    rn.giTot.push_back(rn.last.total.gi_bytes_recv);
    rn.liMax.push_back(rn.last.max.li_bytes_recv);
    rn.liTot.push_back(rn.last.total.li_bytes_recv);
    rn.flops.push_back(rn.last.total.local_flops);
    rn.flopsMax.push_back(rn.last.max.local_flops);
  };
  // An algorithm's Result from its trials (collective: reductions, the --check comparison).
  auto finish = [&](Runner& rn) {
    const std::string& algo = rn.algo;
    const bool reportIt = std::find(algos.begin(), algos.end(), algo) != algos.end();
    const Trident::ReducedStats& last = rn.last;
    RCP<crs_matrix_type>& C = rn.C;
    RCP<crs_matrix_type>& intermediate = rn.intermediate;

    Result r;
    r.algo = algo;
    r.time_s = median(rn.wall);
    for (int k = 0; k < 7; ++k) r.phase[k] = median(rn.ph[k]);
    r.gi_max = medianU(rn.giMax);
    r.gi_total = medianU(rn.giTot);
    r.redist_gi_total = last.total.redistribute_gi_bytes;
    r.redist_li_total = last.total.redistribute_li_bytes;
    r.li_max = medianU(rn.liMax);
    r.li_total = medianU(rn.liTot);
    r.flops = medianU(rn.flops);
    r.flops_max = medianU(rn.flopsMax);
    r.nnz_c = globalNnz(*C);
    r.ranks_per_group = last.max.ranks_per_group > 0 ? last.max.ranks_per_group : o.ranks_per_group;
    r.grid_rows = last.max.grid_rows;
    r.grid_cols = last.max.grid_cols;
    r.rounds = last.max.rounds;

    // Fallbacks where the library reports nothing (the same decision on every rank: reduced values).
    const bool needFlops = r.flops == 0;
    const bool needBytes = algo == "tpetra" && P > 1 && r.gi_total == 0 && r.li_total == 0;
    if (needFlops || needBytes) {
      if (groups.empty()) groups = groupsOf(o.ranks_per_group > 0 ? o.ranks_per_group : 0);
      ProductInfo pi = o.op == "AA" ? productInfo(*pb.A, *pb.A, groups) : productInfo(*pb.A, *pb.T.P, groups);
      if (o.op == "RAP") {
        ProductInfo p2 = productInfo(*pb.T.R, *intermediate, groups);
        pi.flops += p2.flops;
        pi.gi_recv += p2.gi_recv;
        pi.li_recv += p2.li_recv;
      }
      std::uint64_t loc[3] = {pi.flops, pi.gi_recv, pi.li_recv}, sum[3], mx[3];
      MPI_Allreduce(loc, sum, 3, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
      MPI_Allreduce(loc, mx, 3, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
      if (needFlops) {
        r.flops = sum[0];
        r.flops_fallback = true;
      }
      if (needBytes) {
        r.gi_max = mx[1];
        r.gi_total = sum[1];
        r.li_max = mx[2];
        r.li_total = sum[2];
        r.bytes_fallback = true;
      }
    }

    if (o.check) {
      Teuchos::TimeMonitor tm(*Teuchos::TimeMonitor::getNewCounter("trident-bench: check"));
      if (algo == "tpetra") {
        refC = C;
        scaleC = absProduct(pb, o.op);
        r.check = "ref";
      } else {
        const long long bad = compareWithReference(*refC, *scaleC, *C, algo);
        r.check = bad == 0 ? "pass" : "FAIL";
        totalMismatches += bad;
        if (bad) err << "trident-bench: --check: " << algo << " differs from tpetra in " << bad << " rows" << std::endl;
      }
    }
    r.peak_rss_mb = allMax(peakRssMb());
    if (algo == "auto" || algo == "auto-cold")
      out << "  [" << algo << "] chose " << last.max.algorithm << ", predicted " << last.max.predicted_time << " s, measured "
          << r.time_s << " s\n  [" << algo << "] " << last.max.auto_reason << std::endl;
    if (reportIt) results.push_back(r);
    if (!o.check || algo != "tpetra") {  // the reference stays for the others' checks
      C = Teuchos::null;
      intermediate = Teuchos::null;
    }
  };
  if (o.interleave) {
    // Trial by trial, every algorithm in turn: a load that drifts during the run (other jobs on a
    // shared machine) falls on all of them alike, so their ratios are fairer than block by block.
    // Each trial runs the algorithms in a different order, the same on every rank (a shuffle
    // seeded by the trial; with --check, tpetra's reference first in every trial): what a
    // neighbour leaves behind (a large C freed into the heap that the next one then reuses
    // without page faults, a long product just ended) falls on a different one each trial. In
    // the fixed order, auto on rajat01 ran 1.4x slower than trident's identical plan (alone, or
    // in either order of two, 1.0x); rotating the order keeps neighbours, and did not help.
    const std::size_t n = runners.size();
    std::vector<std::size_t> order(n);
    for (int t = 0; t <= o.trials; ++t) {
      for (std::size_t k = 0; k < n; ++k) order[k] = k;
      if (!o.check && t > 0) {
        std::mt19937 shuffle(static_cast<unsigned>(t));
        std::shuffle(order.begin(), order.end(), shuffle);
      }
      for (std::size_t k : order) runTrial(runners[k], t);
    }
    for (Runner& rn : runners) finish(rn);
  } else {
    // Algorithm by algorithm, each finished (and its C released) before the next starts: its RSS
    // column is then the peak up to its own run.
    for (Runner& rn : runners) {
      for (int t = 0; t <= o.trials; ++t) runTrial(rn, t);
      finish(rn);
    }
  }

  // ---- report ----------------------------------------------------------------------------------
  const Result* byAlgo[3] = {nullptr, nullptr, nullptr};
  for (auto& r : results)
    for (int k = 0; k < 3; ++k)
      if (r.algo == kAlgoNames[k]) byAlgo[k] = &r;
  if (byAlgo[1])
    out << "SUMMA placement: " << byAlgo[1]->grid_rows << " x " << byAlgo[1]->grid_cols
        << " grid; ranks take grid positions in MPI_COMM_WORLD order, row-major (rank r -> row r / "
        << byAlgo[1]->grid_cols << ", column r % " << byAlgo[1]->grid_cols << ")\n";
  if (byAlgo[2])
    out << "Trident: " << byAlgo[2]->ranks_per_group << " ranks per group, coarse grid " << byAlgo[2]->grid_rows << " x "
        << byAlgo[2]->grid_cols << ", " << byAlgo[2]->rounds << " rounds\n";
  out << "Times: median over trials of the max over ranks [s]; local = local multiply + accumulate; wait = for "
         "the slowest rank after the loop (its imbalance), before the out phase. "
         "Bytes received (Gi: between groups, Li: inside a group). RSS: process peak so far, max over ranks.\n\n";
  {
    std::ostringstream t;
    t << std::left << std::setw(10) << "algo" << std::right << std::setw(9) << "time_s" << std::setw(8) << "in"
      << std::setw(8) << "gi" << std::setw(8) << "li" << std::setw(8) << "local" << std::setw(8) << "wait"
      << std::setw(8) << "out"
      << std::setw(10) << "Gi max" << std::setw(10) << "Gi total" << std::setw(10) << "Li max" << std::setw(10)
      << "Li total" << std::setw(11) << "nnz(C)" << std::setw(10) << "flops" << std::setw(8) << "RSS MB"
      << std::setw(7) << "check" << "\n";
    for (auto& r : results) {
      t << std::left << std::setw(10) << r.algo << std::right << std::fixed << std::setprecision(4) << std::setw(9)
        << r.time_s << std::setprecision(3);
      for (int k : {0, 1, 2, 3, 6, 4}) t << std::setw(8) << r.phase[k];
      t << std::setw(10) << (fmtBytes(r.gi_max) + (r.bytes_fallback ? "*" : "")) << std::setw(10)
        << fmtBytes(r.gi_total) << std::setw(10) << fmtBytes(r.li_max) << std::setw(10) << fmtBytes(r.li_total)
        << std::setw(11) << r.nnz_c << std::setw(10) << (fmtBytes(r.flops) + (r.flops_fallback ? "*" : ""))
        << std::setw(8) << std::setprecision(0) << r.peak_rss_mb << std::setw(7) << r.check << "\n";
    }
    out << t.str();
    bool anyFallback = false;
    for (auto& r : results) anyFallback = anyFallback || r.bytes_fallback || r.flops_fallback;
    if (anyFallback)
      out << "  * computed by the driver from the matrices (the library's stats reported 0): Tpetra's import of "
             "remote B rows / multiply-adds\n";
  }
  if (P > 1) {
    // Work balance: the local kernels' time follows the busiest rank's multiply-adds.
    bool any = false;
    for (auto& r : results) any = any || (r.flops_max > 0 && !r.flops_fallback);
    if (any) {
      out << "Multiply-adds on the busiest rank / the average (load balance of the local kernels):";
      for (auto& r : results)
        if (r.flops_max > 0 && !r.flops_fallback && r.flops > 0)
          out << "  " << r.algo << " " << std::fixed << std::setprecision(2)
              << static_cast<double>(r.flops_max) * P / static_cast<double>(r.flops) << std::defaultfloat << ";";
      out << "\n";
    }
  }
  {
    bool any = false;
    for (auto& r : results) any = any || r.redist_gi_total + r.redist_li_total > 0;
    if (any) {
      out << "Redistribution 1D rows <-> tiles (in + out, not in the columns above), bytes sent in total:";
      for (auto& r : results)
        if (r.algo != "tpetra")
          out << "  " << r.algo << " Gi " << fmtBytes(r.redist_gi_total) << ", Li " << fmtBytes(r.redist_li_total) << ";";
      out << "\n";
    }
  }
  if (byAlgo[2] && byAlgo[1])
    out << "\nTrident / SUMMA: Gi bytes total " << fmtRatio(byAlgo[2]->gi_total, byAlgo[1]->gi_total) << ", Gi bytes max "
        << fmtRatio(byAlgo[2]->gi_max, byAlgo[1]->gi_max) << ", time " << fmtRatio(byAlgo[2]->time_s, byAlgo[1]->time_s);
  if (byAlgo[2] && byAlgo[0])
    out << "\nTrident / Tpetra: Gi bytes total " << fmtRatio(byAlgo[2]->gi_total, byAlgo[0]->gi_total) << ", time "
        << fmtRatio(byAlgo[2]->time_s, byAlgo[0]->time_s);
  if (byAlgo[1] && byAlgo[0])
    out << "\nSUMMA / Tpetra: time " << fmtRatio(byAlgo[1]->time_s, byAlgo[0]->time_s);
  out << "\n" << std::endl;

  // ---- plan reuse ------------------------------------------------------------------------------
  if (o.plan_reuse && o.op == "AA") {
    // New values, same pattern: A scaled entry by entry (no value becomes zero).
    auto A2 = rcp(new crs_matrix_type(*pb.A, Teuchos::Copy));
    A2->resumeFill();
    {
      auto local = A2->getLocalMatrixHost();
      for (std::size_t q = 0; q < local.values.extent(0); ++q) local.values(q) *= 1.0 + 0.5 * static_cast<double>(q % 2);
    }
    A2->fillComplete(pb.A->getDomainMap(), pb.A->getRangeMap());
    out << "Plan reuse (C = A*A with new values of A, C updated in place; median of " << o.trials
        << " executes of a kept plan vs the fresh Multiply above):\n";
    for (auto& r : results) {
      Teuchos::TimeMonitor tmReuse(*Teuchos::TimeMonitor::getNewCounter("trident-bench: " + r.algo + " plan reuse"));
      auto params = baseParams(r.algo);
      Trident::MatrixMatrix::MultiplyPlan plan(*pb.A, false, *pb.A, false, params);
      auto C = rcp(new crs_matrix_type(pb.A->getRowMap(), 0));
      plan.execute(*pb.A, *pb.A, *C);
      std::vector<double> wall;
      Trident::ReducedStats rs;
      for (int t = 0; t < o.trials; ++t) {
        const crs_matrix_type& X = t % 2 == 0 ? *A2 : *pb.A;
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        plan.execute(X, X, *C);
        wall.push_back(allMax(MPI_Wtime() - t0));
        rs = Trident::reduceStats(plan.stats(), MPI_COMM_WORLD);
      }
      const double tm = median(wall);
      const auto& m = rs.max.times;
      out << "  " << std::left << std::setw(10) << r.algo << std::right << std::fixed << std::setprecision(3)
          << " execute " << tm << " s (in " << m.redistribute_in << ", gi " << m.gi_wait << ", li " << m.li_allgather
          << ", local " << m.local_multiply + m.accumulate << ", wait " << m.imbalance_wait << ", out "
          << m.redistribute_out << "), fresh " << r.time_s << " s, ratio " << std::setprecision(2)
          << (r.time_s > 0 ? tm / r.time_s : 0.0)
          << ", C reused in place " << plan.reusedExecutions() << "/" << plan.executions() - 1 << std::defaultfloat
          << "\n";
    }
    out << std::endl;
  }

  // ---- CSV (rank 0 appends) --------------------------------------------------------------------
  int csvFailed = 0;
  if (!o.csv.empty() && rank == 0) {
    struct stat sb;
    const bool fresh = stat(o.csv.c_str(), &sb) != 0 || sb.st_size == 0;
    std::ofstream f(o.csv, std::ios::app);
    if (!f) {
      std::cerr << "trident-bench: cannot open --csv=" << o.csv << " for appending" << std::endl;
      csvFailed = 1;
    } else {
      if (fresh)
        f << "algo,matrix,op,P,ranks_per_group,permute,time_s,time_in_s,time_gi_s,time_li_s,time_local_s,time_out_s,"
             "gi_bytes_max,gi_bytes_total,li_bytes_max,li_bytes_total,nnz_a,nnz_c,flops,peak_rss_mb,check,time_wait_s\n";
      f << std::setprecision(6);
      for (auto& r : results) {
        f << r.algo << "," << name << "," << o.op << "," << P << "," << r.ranks_per_group << "," << o.permute << ","
          << r.time_s;
        for (int k = 0; k < 5; ++k) f << "," << r.phase[k];
        f << "," << r.gi_max << "," << r.gi_total << "," << r.li_max << "," << r.li_total << "," << nnzA << ","
          << r.nnz_c << "," << r.flops << "," << std::fixed << std::setprecision(1) << r.peak_rss_mb
          << std::defaultfloat << std::setprecision(6) << "," << r.check << "," << r.phase[6] << "\n";
      }
      if (!f) csvFailed = 1;
    }
  }
  MPI_Bcast(&csvFailed, 1, MPI_INT, 0, MPI_COMM_WORLD);

  // Watchr's data series: one per operation, input and rank count (the algorithms are timers inside).
  try {
    timers.report(comm, std::cout, "trident-bench " + o.op + " " + name + " P" + std::to_string(P));
  } catch (const std::runtime_error& e) {  // thrown on every rank
    err << e.what() << std::endl;
    return 1;
  }

  if (totalMismatches > 0) {
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
