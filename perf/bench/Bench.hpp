#pragma once
// trident-bench's parts (perf/trident-bench.cpp runs them in order): the command line
// (Options.cpp), the product to compute (Problem.cpp), the algorithms' timed trials (Runners.cpp),
// --check (Check.cpp) and the table and CSV (Report.cpp).
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include <Teuchos_ParameterList.hpp>
#include <Teuchos_RCP.hpp>

#include "Trident_TpetraTypes.hpp"
#include "aggregation.hpp"

namespace TridentPerf {
struct TimerOptions;
}

namespace TridentBench {

// The README's main job: what `mpirun -np 4 trident-bench` runs with no --matrix.
extern const char* const kDefaultMatrix;
// "auto-cold": "auto" counting on every call ("trident: auto: remember choice" = false), so the
// table shows both what a first call and what a repeated call on the same operands costs.
extern const char* const kAlgoNames[7];

// ---- Options.cpp -------------------------------------------------------------------------------
struct Options {
  std::string matrix;
  std::string op = "AA";
  std::string prolongator = "aggregation";
  std::string algos = "tpetra,summa,trident";
  std::vector<std::string> algo_list;  // --algos split at the commas, in their order
  int ranks_per_group = 0;
  std::string permute = "none";
  std::string grid = "auto";
  std::string slices = "auto";  // "trident: slices" (the drop-in's default)
  std::string blocks = "auto";  // "trident: blocks" (the drop-in's default)
  std::string gi_pacing = "eager";
  std::string share_node_work = "auto";  // "trident: share node work" (the drop-in's default)
  std::string local_kernel = "gustavson";
  int trials = 3;
  bool interleave = false;  // trial by trial across algorithms instead of algorithm by algorithm
  bool plan_reuse = false;
  bool check = false;
  std::string csv;
  std::string dump;
  int seed = 1;
};

enum class ParseResult { Run, HelpPrinted, Failed };

// Parses and checks the command line (the same answer on every rank); on Failed the reasons have
// been written to `err`.
ParseResult parseCommandLine(int argc, char* argv[], int rank, int P, std::ostream& err, Options& o,
                             TridentPerf::TimerOptions& timerOpts);
// With no --matrix: the built-in default job. Returns whether it is the default job.
bool applyDefaultJob(Options& o, int P);
// The drop-in's parameters for one algorithm of --algos ("auto-cold" is "auto" not remembering).
Teuchos::RCP<Teuchos::ParameterList> algorithmParams(const Options& o, const std::string& label);
// Rejects what the drop-in would reject, before any work; false (and a message) when it would.
bool validateAlgorithmParams(const Options& o, std::ostream& err);

// ---- Problem.cpp -------------------------------------------------------------------------------
struct Problem {
  Teuchos::RCP<Trident::crs_matrix_type> A;
  Transfer T;  // AR, RAP
};

// The file name without folder and ".mtx", commas replaced (a CSV field).
std::string matrixName(const std::string& spec);
// Builds A, writes --dump, builds the transfer operators of AR / RAP. Collective; false (and a
// message on `err`) on every rank when any step fails.
bool buildProblem(const Options& o, const Teuchos::RCP<const Teuchos::Comm<int>>& comm, const std::string& name,
                  std::ostream& err, Problem& pb);
// The lines that describe the product before the runs.
void printProblem(std::ostream& out, const Options& o, const Problem& pb, const std::string& name, long long nnzA,
                  bool defaultJob, int P);
// Global entry count without Tpetra's global constants (Multiply's fillComplete skips them).
long long globalNnz(const Trident::crs_matrix_type& M);

// ---- Runners.cpp -------------------------------------------------------------------------------
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
  bool owner_slices = false, blocks_by_work = false;  // trident: how its rows were cut
  double peak_rss_mb = 0;
  std::string check = "off";
  bool bytes_fallback = false, flops_fallback = false;
};

struct RunOutcome {
  std::vector<Result> results;  // the algorithms of --algos, in the order they ran
  long long mismatches = 0;     // --check: rows that differ from tpetra's, over all algorithms
};

// Every algorithm's warm-up and trials, and its Result. Collective.
RunOutcome runAlgorithms(const Options& o, const Problem& pb, int rank, int P, std::ostream& out,
                         std::ostream& err);
// --plan-reuse: a kept MultiplyPlan re-executed with new values of A, against the fresh times.
void runPlanReuse(const Options& o, const Problem& pb, const std::vector<Result>& results, std::ostream& out);

// ---- Check.cpp ---------------------------------------------------------------------------------
// C against Ref (structure, values to 1e-12 relative to Scale = |A||B|). Collective; returns the
// number of mismatching rows over all ranks.
long long compareWithReference(const Trident::crs_matrix_type& Ref, const Trident::crs_matrix_type& Scale,
                               const Trident::crs_matrix_type& C, const std::string& algo);
// The op on |A| (P, R are nonnegative) with Tpetra's own multiply: the scale of --check.
Teuchos::RCP<Trident::crs_matrix_type> absProduct(const Problem& pb, const std::string& op);

// ---- Report.cpp --------------------------------------------------------------------------------
// The table on rank 0's `out`, with the lines about placement, balance and ratios around it.
void printReport(std::ostream& out, const std::vector<Result>& results, int P);
// Rank 0 appends one row per result to --csv (the header when the file is new). Collective;
// returns whether writing failed (the same answer on every rank).
bool writeCsv(const Options& o, const std::string& name, int rank, int P, long long nnzA,
              const std::vector<Result>& results);

}  // namespace TridentBench
