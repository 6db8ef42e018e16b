// trident-bench's command line: the options, their checks, and the drop-in's parameters they give.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include <Teuchos_CommandLineProcessor.hpp>

#include "Bench.hpp"
#include "TimerOutput.hpp"
#include "Trident_MatrixMatrix.hpp"

namespace TridentBench {

const char* const kDefaultMatrix = "rmat:15:8";
const char* const kAlgoNames[7] = {"tpetra", "summa", "trident", "auto", "auto-cold", "1d", "1d-own"};

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep))
    if (!cur.empty()) out.push_back(cur);
  return out;
}

void addOptions(Teuchos::CommandLineProcessor& clp, Options& o) {
  clp.setOption("matrix", &o.matrix,
                "Matrix Market file (real/integer/pattern, general/symmetric) or generator spec: rmat:SCALE:EDGEFACTOR, "
                "er:N:AVGDEG, lap2d:N, lap3d:N (7-point), stencil27:N, tetdual:N (dual graph of a tetrahedral mesh of "
                "6 N^3 cells). Empty: the built-in default.");
  clp.setOption("prolongator", &o.prolongator,
                "aggregation (greedy tentative prolongator, built in) | muelu (MueLu's smoothed-aggregation P; "
                "needs the MueLu adapter) for --op=AR and RAP");
  clp.setOption("op", &o.op, "AA (A*A) | AR (A*T, T = tentative prolongator of a greedy aggregation) | RAP (T^T*(A*T))");
  clp.setOption("algos", &o.algos, "comma-separated subset of tpetra,summa,trident,auto,auto-cold,1d,1d-own (run in this order; 1d: Tpetra's 1D algorithm with Trident's kernel in place, its work shared inside each group; 1d-own: the same with every rank computing its own rows (\"trident: share node work\" = \"never\"); with --check tpetra runs first; auto: the planner's choice, remembered between trials on the same operands; auto-cold: counted on every call)");
  clp.setOption("ranks-per-group", &o.ranks_per_group,
                "lambda, ranks per group (node); 0 = auto (the MPI_COMM_TYPE_SHARED groups; 2 in the built-in default job)");
  clp.setOption("permute", &o.permute, "none | random (trident: symmetric random permutation)");
  clp.setOption("grid", &o.grid, "auto | square | rows (Trident's coarse grid of groups; see \"trident: grid\")");
  clp.setOption("gi-pacing", &o.gi_pacing, "eager | ready (when Trident's tiles start over Gi; see \"trident: gi pacing\")");
  clp.setOption("slices", &o.slices, "auto | balanced | owners (how Trident cuts tiles into slices; see \"trident: slices\")");
  clp.setOption("blocks", &o.blocks, "auto | even | balanced (how Trident cuts A's rows into the groups' blocks; see \"trident: blocks\")");
  clp.setOption("share-node-work", &o.share_node_work,
                "auto | always | never (whether the 1d product shares its rows by work inside each group; see \"trident: share node work\")");
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
}

void addAlgorithmErrors(const Options& o, std::vector<std::string>& errors) {
  const std::vector<std::string>& algos = o.algo_list;
  if (algos.empty()) errors.push_back("--algos is empty");
  for (auto& a : algos)
    if (std::find(std::begin(kAlgoNames), std::end(kAlgoNames), a) == std::end(kAlgoNames))
      errors.push_back("--algos: unknown algorithm '" + a + "' (expected tpetra, summa, trident, auto, auto-cold, 1d, 1d-own)");
  for (size_t i = 0; i < algos.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (algos[i] == algos[j]) errors.push_back("--algos lists '" + algos[i] + "' twice");
}

// Every reason the options cannot run, in the order of the options' help.
std::vector<std::string> optionErrors(const Options& o, const TridentPerf::TimerOptions& timerOpts, int P) {
  std::vector<std::string> errors;
  if (o.op != "AA" && o.op != "AR" && o.op != "RAP") errors.push_back("--op must be AA, AR or RAP, not '" + o.op + "'");
  addAlgorithmErrors(o, errors);
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
  if (o.blocks != "auto" && o.blocks != "even" && o.blocks != "balanced")
    errors.push_back("--blocks must be auto, even or balanced, not '" + o.blocks + "'");
  if (o.permute != "none" && o.permute != "random")
    errors.push_back("--permute must be none or random, not '" + o.permute + "'");
  if (o.trials < 1) errors.push_back("--trials must be >= 1");
  try {
    TridentPerf::parseTimerFormat(timerOpts.format);
  } catch (const std::invalid_argument& e) {
    errors.push_back(e.what());
  }
  return errors;
}

}  // namespace

ParseResult parseCommandLine(int argc, char* argv[], int rank, int P, std::ostream& err, Options& o,
                             TridentPerf::TimerOptions& timerOpts) {
  Teuchos::CommandLineProcessor clp(false, true);
  static const std::string doc =
      "Side-by-side distributed SpGEMM benchmark: Tpetra 1D, 2D Sparse SUMMA and Trident through the drop-in "
      "Trident::MatrixMatrix::Multiply. Prints a table on rank 0 and optionally appends rows to a CSV.\n"
      "With no --matrix it runs the built-in default job (" +
      std::string(kDefaultMatrix) + ", --op=AA, all algorithms, --ranks-per-group=2 when P is even and >= 4 and\n"
      "--ranks-per-group is not given: one machine is one MPI_COMM_TYPE_SHARED group).\n";
  clp.setDocString(doc.c_str());
  addOptions(clp, o);
  timerOpts.addTo(clp);
  const auto parsed = clp.parse(argc, argv, rank == 0 ? &std::cerr : nullptr);
  if (parsed == Teuchos::CommandLineProcessor::PARSE_HELP_PRINTED) return ParseResult::HelpPrinted;
  if (parsed != Teuchos::CommandLineProcessor::PARSE_SUCCESSFUL) {
    err << "trident-bench: bad command line (see --help)" << std::endl;
    return ParseResult::Failed;
  }
  o.algo_list = split(o.algos, ',');
  const std::vector<std::string> errors = optionErrors(o, timerOpts, P);
  if (!errors.empty()) {
    for (auto& e : errors) err << "trident-bench: " << e << std::endl;
    return ParseResult::Failed;
  }
  return ParseResult::Run;
}

bool applyDefaultJob(Options& o, int P) {
  if (!o.matrix.empty()) return false;
  o.matrix = kDefaultMatrix;
  // On one machine MPI_COMM_TYPE_SHARED puts every rank in one group (no Gi link at all):
  // the default job emulates groups of 2 unless told otherwise.
  if (o.ranks_per_group == 0 && P >= 4 && P % 2 == 0) o.ranks_per_group = 2;
  return true;
}

Teuchos::RCP<Teuchos::ParameterList> algorithmParams(const Options& o, const std::string& label) {
  const bool cold = label == "auto-cold", own = label == "1d-own";
  const std::string algo = cold ? "auto" : own ? "1d" : label;
  auto pl = Teuchos::rcp(new Teuchos::ParameterList("trident-bench"));
  pl->set("trident: algorithm", algo);
  if (cold) pl->set("trident: auto: remember choice", false);
  if (own) pl->set("trident: share node work", std::string("never"));
  else if (algo == "1d" || algo == "auto") pl->set("trident: share node work", o.share_node_work);
  if (o.ranks_per_group > 0) pl->set("trident: ranks per group", o.ranks_per_group);
  pl->set("trident: permute", o.permute);
  if (algo == "trident" || algo == "auto") pl->set("trident: grid", o.grid);
  if (algo == "trident" || algo == "auto") pl->set("trident: slices", o.slices);
  if (algo == "trident" || algo == "auto") pl->set("trident: blocks", o.blocks);
  if (algo == "trident" || algo == "auto") pl->set("trident: gi pacing", o.gi_pacing);
  if (algo != "tpetra") pl->set("trident: local kernel", o.local_kernel);
  pl->set("trident: permute seed", o.seed);
  return pl;
}

bool validateAlgorithmParams(const Options& o, std::ostream& err) {
  try {
    auto valid = Trident::MatrixMatrix::getValidParameters();
    for (auto& a : o.algo_list) algorithmParams(o, a)->validateParameters(*valid, 0);
  } catch (const std::exception& e) {
    err << "trident-bench: invalid parameters: " << e.what() << std::endl;
    return false;
  }
  return true;
}

}  // namespace TridentBench
