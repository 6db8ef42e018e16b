#pragma once
// Markov clustering (MCL) on Trident, matching Debian's mcl (22-282) closely.
//
// The MCL matrix M is column-stochastic. Tpetra matrices are row-distributed, so the routine
// stores T = M^T: a column of M (one node's flow distribution) is a local row of T, and every
// per-column operation of mcl (pruning, selection, recovery, normalization, inflation, chaos)
// is a local row operation. Expansion M*M becomes T*T = (M*M)^T.
//
// algorithm "fused" (the default): every rank keeps whole rows of T as a plain CSR block from
// the first iteration to the last (Trident_MCLRows.hpp; Tpetra only on the way in), fetches the
// rows of T its rows need, and multiplies with prunedMultiply, which hands each finished product
// row to mcl's pruning and inflation: no un-pruned product is ever stored, as in mcl itself.
// "trident" | "summa" | "tpetra": each expansion is a Trident::MatrixMatrix::Multiply with that
// algorithm into a Tpetra matrix, pruned afterwards; only one un-pruned product exists at a time.
// When its estimated size (flops-based upper bound) exceeds the per-rank budget, the expansion
// runs in phases: phase k multiplies the k-th slice of every rank's local rows of T (= a set of
// columns of M, HipMCL's column phases) by T, prunes that slice and frees it before the next.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "Trident_TpetraTypes.hpp"
#include <trident/stats/MultiplyStats.hpp>

namespace Trident {
namespace mcl {

struct Options {
  // --- mcl's clustering parameters (same meaning as mcl's options) ---
  double inflation = 2.0;        // -I
  long prune_number = 10000;     // -P n; the cutoff is 0.99999/n (mcl); -p f sets n = int(1/f)
  long select_number = 1100;     // -S  (0: no selection)
  long recover_number = 1400;    // -R  (0: no recovery)
  double recover_pct = 0.90;     // -pct n / 100
  bool discard_loops = true;     // --discard-loops=y|n: drop input loops, then loop := column max
  double loop_scale = -1.0;      // -c f: multiply loop weights by f (< 0: not set)
  int max_iter = 10000;          // -L / --max-iter
  double chaos_limit = 1e-4;     // mcl's convergence bound on the chaos
  bool float_values = true;      // store values in single precision like mcl (see docs/mcl.md)

  // --- distribution and expansion ---
  // "fused" (default): whole rows per rank, expansion and pruning in one pass, the iterand kept as
  // a CSR block between iterations (Trident_MCLRows.hpp). "trident" | "summa" | "tpetra": each
  // expansion is a full Trident::MatrixMatrix::Multiply with that algorithm, pruned afterwards.
  std::string algorithm = "fused";
  int ranks_per_group = 0;            // lambda for trident, ranks per node for fused; 0 = the shared-memory nodes
  double memory_budget_mb = 0;        // per-rank budget for one un-pruned product (fused: for the
                                      // rows of T fetched per phase); 0 = no limit
  int force_phases = 0;               // > 0: use exactly this many phases (testing)

  // --- reporting ---
  std::ostream* progress = nullptr;   // per-iteration lines (rank 0 only); null = silent
};

// One expansion/prune/inflation round, as reported on rank 0 (all ranks hold the same values).
struct IterationInfo {
  int iteration = 0;
  long long nnz_before = 0;        // nnz of the iterand that was squared
  long long nnz_expanded = 0;      // nnz of the un-pruned product (summed over phases)
  long long nnz_pruned = 0;        // nnz after pruning/selection/recovery
  double chaos = 0;                // mcl's chaos (max over columns)
  int phases = 1;                  // expansion phases used
  double time_expand = 0;          // wall time of the multiplies (max over ranks, summed over phases)
  double time_prune = 0;           // prune + inflate + rebuild (max over ranks)
  PhaseTimes expand_phases;        // multiply phase times, max over ranks, summed over phases
  std::uint64_t gi_bytes = 0;      // Gi bytes received, total over ranks and phases
  std::uint64_t li_bytes = 0;      // Li bytes received, total over ranks and phases
  std::uint64_t flops = 0;         // fused: multiply-adds of the expansion, total over ranks
  double flop_imbalance = 1;       // fused: max over ranks of the multiply-adds / their average
  double time_fetch = 0;           // fused: fetching the needed rows of T (max over ranks)
  double time_multiply = 0;        // fused: the kernel without the pruning it calls (max over ranks)
  double peak_rss_mb = 0;          // peak resident set so far, max over ranks (getrusage)
};

struct Result {
  // Clusters as mcl writes them: each sorted ascending (0-based global indices); largest cluster
  // first, equal sizes in lexicographic order. The same on every rank.
  std::vector<std::vector<long long>> clusters;
  long long n = 0;
  int iterations = 0;
  bool converged = false;
  long long overlap = 0;           // nodes found in more than one cluster (resolved: first cluster)
  long long missing = 0;           // nodes in no cluster (collected into one extra cluster)
  double time_total = 0;           // whole routine, including setup and interpretation
  double time_expand = 0;          // sum of IterationInfo::time_expand
  double peak_rss_mb = 0;          // peak resident set of the whole run, max over ranks (getrusage)
  std::vector<IterationInfo> history;
};

// Clusters the graph with adjacency matrix A (square, fill-complete; entry (i,j) = weight of the
// edge from node j to node i, i.e. column j of A is node j's neighbour list, as mcl's native
// format). Collective over A's communicator; the result is the same for any number of ranks.
Result cluster(const crs_matrix_type& A, const Options& options);
// The same, taking the caller's reference to A (pass std::move of it): A is released as soon as
// T0 is formed, and the heap's freed pages go back to the system, so the iterations' memory does
// not sit on top of the input's and the reader's (on a small graph that is most of the peak).
Result cluster(Teuchos::RCP<const crs_matrix_type>&& A, const Options& options);

// Sets select/recover/prune/pct from mcl's preset -scheme k (1..7; mcl's default is 6).
void applyScheme(Options& options, int scheme);

// Writes clusters in mcl's label format: one line per cluster, tab-separated labels
// (index + base), in the given order.
void writeClusters(std::ostream& os, const std::vector<std::vector<long long>>& clusters, long long base = 1);

// Reads a clustering written as lines of whitespace-separated labels; subtracts base.
std::vector<std::vector<long long>> readClusters(std::istream& is, long long base = 1);

// Reads mcl's native clustering output (the "(mclmatrix begin ... )" file written by
// `mcl graph.mci -o out`); labels are mcl's 0-based indices.
std::vector<std::vector<long long>> readMclNativeClusters(std::istream& is);

// Puts a clustering into mcl's output order (each cluster ascending; size descending, then
// lexicographic) so clusterings can be compared with ==.
void canonicalize(std::vector<std::vector<long long>>& clusters);

// Adjusted Rand index of two partitions of {0..n-1}. Nodes missing from a clustering are
// treated as singletons; a node listed twice counts in its first cluster.
double adjustedRandIndex(const std::vector<std::vector<long long>>& a,
                         const std::vector<std::vector<long long>>& b, long long n);

// Writes the graph as mcl's native interchange matrix (column j lists the rows of column j of
// A); collective, rank 0 writes. Used by the tests to run the reference mcl on the same input.
void writeMclNative(const std::string& path, const crs_matrix_type& A);

namespace detail {
// mcl's per-column pruning (mclExpandVector1), applied to one product column given as values
// (indices are carried along). Exposed for the unit tests. Returns the chaos contribution
// (maxval - center) * n_kept and leaves the kept, re-normalized entries in idx/val.
double pruneColumn(std::vector<long long>& idx, std::vector<double>& val, long long self,
                   const Options& opt, double* mass_kept = nullptr);
// The same pruning of a product row as the fused expansion runs it, straight from the kernel: each
// value first rounded where mcl stores it and exact zeros dropped, in the pass that measures the
// row (eight entries at a time where the CPU has AVX-512). Exposed for the unit tests, which check
// it bit for bit against pruneColumn on the rounded row.
double pruneProductRow(std::vector<int>& idx, std::vector<double>& val, int self, const Options& opt,
                       double* mass_kept = nullptr);
}  // namespace detail

}  // namespace mcl
}  // namespace Trident
