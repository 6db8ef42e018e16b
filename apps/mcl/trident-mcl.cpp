// trident-mcl: Markov clustering of a Matrix Market graph with Trident's distributed SpGEMM.
// Options follow mcl's where the meaning is the same; see docs/mcl.md, "Parameter mapping
// to mcl".
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <mpi.h>
#include <Teuchos_TimeMonitor.hpp>
#include <Tpetra_Core.hpp>

#include "Trident_MCL.hpp"
#include "Trident_MatrixMarket.hpp"
#include "TimerOutput.hpp"

namespace {

const char* usage =
    "usage: trident-mcl <graph.mtx> [options]\n"
    "  -I <num>              inflation (default 2.0)\n"
    "  -o <file>             output file, '-' for stdout (default out.<graph>.I<inflation>)\n"
    "  -p <num> | -P <int>   pruning cutoff, or its inverse (default -P 10000)\n"
    "  -S <int>              selection number (default 1100)\n"
    "  -R <int>              recovery number (default 1400)\n"
    "  -pct <int>            recovery percentage (default 90)\n"
    "  -scheme <1..7>        mcl's preset pruning schemes (default 6)\n"
    "  -c <num>              multiply loop weights by <num>\n"
    "  --discard-loops=y|n   drop input loops and set loops to the column maximum (default y)\n"
    "  -L <int> | --max-iter <int>   at most this many iterations (default 10000)\n"
    "  --chaos-limit <num>   convergence bound on the chaos (default 0.0001)\n"
    "  --algo fused|trident|summa|tpetra   expansion (default fused: multiply and prune in one pass)\n"
    "  --ranks-per-group <int>       Trident's lambda, and the ranks per node of the fused expansion's\n"
    "                                hierarchical fetch (default: ranks per shared-memory node)\n"
    "  --memory-budget <MB>  per-rank budget for one un-pruned product; larger products are\n"
    "                        expanded in column phases (default: no limit)\n"
    "  --phases <int>        force this many expansion phases\n"
    "  --double              keep values in double precision (mcl uses single)\n"
    "  -q                    no per-iteration progress\n";

bool takeValue(int& a, int argc, char** argv, const std::string& name, std::string& value) {
  std::string arg = argv[a];
  if (arg == name) {
    if (a + 1 >= argc) throw std::invalid_argument("option " + name + " needs a value");
    value = argv[++a];
    return true;
  }
  if (arg.rfind(name + "=", 0) == 0) {
    value = arg.substr(name.size() + 1);
    return true;
  }
  return false;
}

double toDouble(const std::string& s, const std::string& opt) {
  std::size_t pos = 0;
  double v = std::stod(s, &pos);
  if (pos != s.size()) throw std::invalid_argument("bad value '" + s + "' for " + opt);
  return v;
}
long toLong(const std::string& s, const std::string& opt) {
  std::size_t pos = 0;
  long v = std::stol(s, &pos);
  if (pos != s.size()) throw std::invalid_argument("bad value '" + s + "' for " + opt);
  return v;
}

// mcl's clustering options (-I, pruning, selection, recovery, loops, iterations). Returns whether
// argv[a] was one of them (a then points at its last word).
bool takeMclOption(int& a, int argc, char** argv, Trident::mcl::Options& opt) {
  std::string v;
  if (takeValue(a, argc, argv, "-I", v)) {
    opt.inflation = static_cast<float>(toDouble(v, "-I"));  // mcl parses -I into a float
  } else if (takeValue(a, argc, argv, "-p", v)) {
    // As mcl: the value is parsed into a float and n = (int)(1/f), so -p 0.002 gives n = 499.
    const float f = static_cast<float>(toDouble(v, "-p"));
    if (f < 0 || f > 0.1f) throw std::invalid_argument("-p must be in [0, 0.1]");
    opt.prune_number = f > 0 ? static_cast<long>(1.0 / f) : 0;
  } else if (takeValue(a, argc, argv, "-P", v)) {
    opt.prune_number = toLong(v, "-P");
  } else if (takeValue(a, argc, argv, "-S", v)) {
    opt.select_number = toLong(v, "-S");
  } else if (takeValue(a, argc, argv, "-R", v)) {
    opt.recover_number = toLong(v, "-R");
  } else if (takeValue(a, argc, argv, "-pct", v)) {
    long p = toLong(v, "-pct");
    if (p < 0 || p >= 100) throw std::invalid_argument("-pct must be in [0, 100)");
    opt.recover_pct = p / 100.0;
  } else if (takeValue(a, argc, argv, "-scheme", v)) {
    Trident::mcl::applyScheme(opt, static_cast<int>(toLong(v, "-scheme")));
  } else if (takeValue(a, argc, argv, "-c", v)) {
    opt.loop_scale = std::abs(static_cast<float>(toDouble(v, "-c")));  // a float in mcl too
  } else if (takeValue(a, argc, argv, "--discard-loops", v)) {
    if (v.empty()) throw std::invalid_argument("--discard-loops expects y or n");
    opt.discard_loops = (v[0] == 'y' || v[0] == 'Y' || v[0] == '1');
  } else if (takeValue(a, argc, argv, "-L", v) || takeValue(a, argc, argv, "--max-iter", v)) {
    opt.max_iter = static_cast<int>(toLong(v, "--max-iter"));
  } else if (takeValue(a, argc, argv, "--chaos-limit", v)) {
    opt.chaos_limit = toDouble(v, "--chaos-limit");
  } else {
    return false;
  }
  return true;
}

// Trident's options: how the expansion runs (algorithm, grouping, memory, precision).
bool takeExpansionOption(int& a, int argc, char** argv, Trident::mcl::Options& opt) {
  std::string v;
  if (takeValue(a, argc, argv, "--algo", v)) {
    opt.algorithm = v;
  } else if (takeValue(a, argc, argv, "--ranks-per-group", v)) {
    opt.ranks_per_group = static_cast<int>(toLong(v, "--ranks-per-group"));
  } else if (takeValue(a, argc, argv, "--memory-budget", v)) {
    opt.memory_budget_mb = toDouble(v, "--memory-budget");
  } else if (takeValue(a, argc, argv, "--phases", v)) {
    opt.force_phases = static_cast<int>(toLong(v, "--phases"));
  } else if (std::string(argv[a]) == "--double") {
    opt.float_values = false;
  } else {
    return false;
  }
  return true;
}

struct CommandLine {
  Trident::mcl::Options opt;
  std::string input, output;
  bool quiet = false;
  bool help = false;  // -h: print the usage and do nothing else
};

// The graph file's name without its directory.
std::string baseName(const std::string& path) {
  return path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
}

// mcl's default output name: out.<graph>.I<inflation with one decimal, no dot>.
std::string defaultOutput(const std::string& input, double inflation) {
  char suf[32];
  std::snprintf(suf, sizeof suf, "I%.1f", inflation);
  std::string s(suf);
  s.erase(std::remove(s.begin(), s.end(), '.'), s.end());
  return "out." + baseName(input) + "." + s;
}

CommandLine parseCommandLine(int argc, char** argv, TridentPerf::TimerOptions& timerOpts) {
  CommandLine cl;
  for (int a = 1; a < argc; ++a) {
    std::string arg = argv[a], v;
    if (arg == "-h" || arg == "--help") {
      cl.help = true;
      return cl;
    } else if (timerOpts.take(a, argc, argv)) {
    } else if (takeMclOption(a, argc, argv, cl.opt) || takeExpansionOption(a, argc, argv, cl.opt)) {
    } else if (takeValue(a, argc, argv, "-o", v)) {
      cl.output = v;
    } else if (arg == "-q") {
      cl.quiet = true;
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      throw std::invalid_argument("unknown option " + arg + "\n" + usage);
    } else if (cl.input.empty()) {
      cl.input = arg;
    } else {
      throw std::invalid_argument("more than one input file given\n" + std::string(usage));
    }
  }
  if (cl.input.empty()) throw std::invalid_argument(std::string("no input file\n") + usage);
  if (cl.output.empty()) cl.output = defaultOutput(cl.input, cl.opt.inflation);
  if (!cl.quiet) cl.opt.progress = &std::cerr;
  return cl;
}

// Rank 0 writes the clusters in mcl's label format to the output file, or stdout for "-".
void writeOutput(const CommandLine& cl, const Trident::mcl::Result& res, double tread) {
  if (cl.output == "-") {
    Trident::mcl::writeClusters(std::cout, res.clusters);
  } else {
    std::ofstream os(cl.output);
    Trident::mcl::writeClusters(os, res.clusters);
    if (!os) throw std::runtime_error("cannot write " + cl.output);
  }
  if (!cl.quiet)
    std::cerr << "trident-mcl: read " << tread << " s; " << res.clusters.size() << " clusters written to "
              << cl.output << "\n";
}

Teuchos::RCP<Teuchos::TimeMonitor> stage(const char* name) {
  return Teuchos::rcp(new Teuchos::TimeMonitor(*Teuchos::TimeMonitor::getNewCounter(name)));
}

// Reads the graph, clusters it and writes the clusters, each stage under its timer, then reports
// the timers.
void run(const CommandLine& cl, const TridentPerf::TimerOptions& timerOpts,
         const Teuchos::RCP<const Teuchos::Comm<int>>& comm) {
  const int rank = comm->getRank();
  // From here on every TimeMonitor timer (the expansions' Trident phases) nests in this one.
  TridentPerf::TimerOutput timers("trident-mcl", timerOpts);
  double t0 = MPI_Wtime();
  auto tm = stage("trident-mcl: read");
  Teuchos::RCP<const Trident::crs_matrix_type> A = Trident::io::readMatrixMarket(cl.input, comm);
  tm = Teuchos::null;
  double tread = MPI_Wtime() - t0;
  tm = stage("trident-mcl: cluster");
  auto res = Trident::mcl::cluster(std::move(A), cl.opt);
  tm = Teuchos::null;
  tm = stage("trident-mcl: write");
  if (rank == 0) writeOutput(cl, res, tread);
  tm = Teuchos::null;
  const std::string base = baseName(cl.input);
  // The clusters may be on stdout (-o -): the timers go to stderr then.
  timers.report(comm, cl.output == "-" ? std::cerr : std::cout,
                "trident-mcl " + base.substr(0, base.rfind(".mtx")) + " P" + std::to_string(comm->getSize()) + " " +
                    cl.opt.algorithm);
}

}  // namespace

int main(int argc, char** argv) {
#ifdef __GLIBC__
  // Blocks of 128 kB and more straight from mmap, for the whole run: glibc would otherwise raise
  // this threshold each time such a block is freed (the reader's buffers, the first iterations'
  // rows), and later ones would come from the heap, whose freed pages stay resident. MCL's memory
  // is a few large arrays that come and go every iteration; they should cost only while they live.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
  Tpetra::ScopeGuard scope(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  const int rank = comm->getRank();
  int status = 0;
  try {
    // Default: no timer output, as before this option existed (stdout may carry the clusters).
    TridentPerf::TimerOptions timerOpts("none");
    const CommandLine cl = parseCommandLine(argc, argv, timerOpts);
    if (cl.help) {
      if (rank == 0) std::cout << usage << TridentPerf::TimerOptions::help();
      return 0;
    }
    run(cl, timerOpts, comm);
  } catch (const std::exception& e) {
    if (rank == 0) std::cerr << "trident-mcl: " << e.what() << "\n";
    status = 1;
  }
  return status;
}
