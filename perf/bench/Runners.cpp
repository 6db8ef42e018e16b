// trident-bench's runs: one runner per algorithm of --algos, its warm-up and timed trials, and
// the Result made of them; and --plan-reuse's re-executed plans.
#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <random>
#include <utility>

#include <mpi.h>
#include <Teuchos_TimeMonitor.hpp>

#include "Bench.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "Trident_ProductCounts.hpp"

namespace TridentBench {

using Teuchos::RCP;
using Teuchos::rcp;
using Trident::crs_matrix_type;
using Trident::GO;
using Trident::LO;

namespace {

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

double peakRssMb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
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

// One algorithm: its parameters, timer and the per-trial values its Result is made of.
struct Runner {
  std::string algo;
  RCP<Teuchos::ParameterList> params;
  RCP<Teuchos::Time> timer;
  std::vector<double> wall, ph[7];
  std::vector<std::uint64_t> giMax, giTot, liMax, liTot, flops, flopsMax;
  Trident::ReducedStats last;
  RCP<crs_matrix_type> C, intermediate;
};

// The runs of one trident-bench invocation, and what they share: the --check reference and the
// rank groups of the driver's own byte counts.
class AlgorithmRuns {
 public:
  AlgorithmRuns(const Options& o, const Problem& pb, int rank, int P, std::ostream& out, std::ostream& err)
      : o_(o), pb_(pb), rank_(rank), P_(P), out_(out), err_(err) {}

  std::vector<Runner> makeRunners() const;
  void runTrial(Runner& rn, int t);
  void finish(Runner& rn);
  RunOutcome outcome;

 private:
  void recordTrial(Runner& rn, double wall);
  Result medianResult(const Runner& rn) const;
  void addDriverCounts(Result& r, const Runner& rn);
  void check(Result& r, const Runner& rn);

  const Options& o_;
  const Problem& pb_;
  const int rank_, P_;
  std::ostream& out_;
  std::ostream& err_;
  RCP<crs_matrix_type> refC_, scaleC_;
  std::vector<int> groups_;
};

std::vector<Runner> AlgorithmRuns::makeRunners() const {
  std::vector<std::string> runList = o_.algo_list;
  if (o_.check) {  // the reference runs first; reported only when listed
    runList.erase(std::remove(runList.begin(), runList.end(), std::string("tpetra")), runList.end());
    runList.insert(runList.begin(), "tpetra");
  }
  std::vector<Runner> runners;
  for (const std::string& algo : runList) {
    Runner rn;
    rn.algo = algo;
    rn.params = algorithmParams(o_, algo);
    rn.timer = Teuchos::TimeMonitor::getNewCounter("trident-bench: " + algo + " " + o_.op);
    runners.push_back(std::move(rn));
  }
  return runners;
}

// Trial t of one algorithm (t = 0: the untimed warm-up).
void AlgorithmRuns::runTrial(Runner& rn, int t) {
  const std::string& algo = rn.algo;
  rn.C = Teuchos::null;
  rn.intermediate = Teuchos::null;
  Trident::MultiplyStats st;
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  try {
    Teuchos::TimeMonitor tm(*rn.timer);
    rn.C = runOp(pb_, o_.op, rn.params, st, &rn.intermediate);
  } catch (const std::exception& e) {
    std::cerr << "trident-bench: rank " << rank_ << ": " << algo << " multiply failed: " << e.what() << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  // The library's own wall time of the multiply(ies): for "tpetra" it leaves out the byte
  // accounting the drop-in does after Tpetra's Multiply returns.
  const double mine = st.times.total > 0 ? st.times.total : MPI_Wtime() - t0;
  const double w = allMax(mine);
  if (w > 2.0)
    out_ << "  [" << algo << "] " << (t == 0 ? std::string("warm-up") : "trial " + std::to_string(t) + "/" +
                                                                            std::to_string(o_.trials))
         << ": " << std::fixed << std::setprecision(2) << w << " s" << std::defaultfloat << std::endl;
  rn.last = Trident::reduceStats(st, MPI_COMM_WORLD);
  if (t == 0) return;  // warm-up
  recordTrial(rn, w);
}

void AlgorithmRuns::recordTrial(Runner& rn, double wall) {
  rn.wall.push_back(wall);
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
}

Result AlgorithmRuns::medianResult(const Runner& rn) const {
  const Trident::ReducedStats& last = rn.last;
  Result r;
  r.algo = rn.algo;
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
  r.nnz_c = globalNnz(*rn.C);
  r.ranks_per_group = last.max.ranks_per_group > 0 ? last.max.ranks_per_group : o_.ranks_per_group;
  r.grid_rows = last.max.grid_rows;
  r.grid_cols = last.max.grid_cols;
  r.rounds = last.max.rounds;
  r.owner_slices = last.max.owner_slices;
  r.blocks_by_work = last.max.blocks_by_work;
  return r;
}

// Fallbacks where the library reports nothing (the same decision on every rank: reduced values).
void AlgorithmRuns::addDriverCounts(Result& r, const Runner& rn) {
  const bool needFlops = r.flops == 0;
  const bool needBytes = rn.algo == "tpetra" && P_ > 1 && r.gi_total == 0 && r.li_total == 0;
  if (!needFlops && !needBytes) return;
  if (groups_.empty()) groups_ = groupsOf(o_.ranks_per_group > 0 ? o_.ranks_per_group : 0);
  ProductInfo pi = o_.op == "AA" ? productInfo(*pb_.A, *pb_.A, groups_) : productInfo(*pb_.A, *pb_.T.P, groups_);
  if (o_.op == "RAP") {
    ProductInfo p2 = productInfo(*pb_.T.R, *rn.intermediate, groups_);
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

// tpetra's C becomes the reference (with its scale); every other C is compared with it.
void AlgorithmRuns::check(Result& r, const Runner& rn) {
  Teuchos::TimeMonitor tm(*Teuchos::TimeMonitor::getNewCounter("trident-bench: check"));
  if (rn.algo == "tpetra") {
    refC_ = rn.C;
    scaleC_ = absProduct(pb_, o_.op);
    r.check = "ref";
    return;
  }
  const long long bad = compareWithReference(*refC_, *scaleC_, *rn.C, rn.algo);
  r.check = bad == 0 ? "pass" : "FAIL";
  outcome.mismatches += bad;
  if (bad) err_ << "trident-bench: --check: " << rn.algo << " differs from tpetra in " << bad << " rows" << std::endl;
}

// An algorithm's Result from its trials (collective: reductions, the --check comparison).
void AlgorithmRuns::finish(Runner& rn) {
  const std::string& algo = rn.algo;
  Result r = medianResult(rn);
  addDriverCounts(r, rn);
  if (o_.check) check(r, rn);
  r.peak_rss_mb = allMax(peakRssMb());
  if (algo == "auto" || algo == "auto-cold")
    out_ << "  [" << algo << "] chose " << rn.last.max.algorithm << ", predicted " << rn.last.max.predicted_time
         << " s, measured " << r.time_s << " s\n  [" << algo << "] " << rn.last.max.auto_reason << std::endl;
  if (std::find(o_.algo_list.begin(), o_.algo_list.end(), algo) != o_.algo_list.end()) outcome.results.push_back(r);
  if (!o_.check || algo != "tpetra") {  // the reference stays for the others' checks
    rn.C = Teuchos::null;
    rn.intermediate = Teuchos::null;
  }
}

// Trial by trial, every algorithm in turn: a load that drifts during the run (other jobs on a
// shared machine) falls on all of them alike, so their ratios are fairer than block by block.
// Each trial runs the algorithms in a different order, the same on every rank (a shuffle
// seeded by the trial; with --check, tpetra's reference first in every trial): what a
// neighbour leaves behind (a large C freed into the heap that the next one then reuses
// without page faults, a long product just ended) falls on a different one each trial. In
// the fixed order, auto on rajat01 ran 1.4x slower than trident's identical plan (alone, or
// in either order of two, 1.0x); rotating the order keeps neighbours, and did not help.
void runInterleaved(AlgorithmRuns& runs, std::vector<Runner>& runners, const Options& o) {
  const std::size_t n = runners.size();
  std::vector<std::size_t> order(n);
  for (int t = 0; t <= o.trials; ++t) {
    for (std::size_t k = 0; k < n; ++k) order[k] = k;
    if (!o.check && t > 0) {
      std::mt19937 shuffle(static_cast<unsigned>(t));
      std::shuffle(order.begin(), order.end(), shuffle);
    }
    for (std::size_t k : order) runs.runTrial(runners[k], t);
  }
  for (Runner& rn : runners) runs.finish(rn);
}

// Algorithm by algorithm, each finished (and its C released) before the next starts: its RSS
// column is then the peak up to its own run.
void runOneAfterAnother(AlgorithmRuns& runs, std::vector<Runner>& runners, const Options& o) {
  for (Runner& rn : runners) {
    for (int t = 0; t <= o.trials; ++t) runs.runTrial(rn, t);
    runs.finish(rn);
  }
}

// New values, same pattern: A scaled entry by entry (no value becomes zero).
RCP<crs_matrix_type> withNewValues(const crs_matrix_type& A) {
  auto A2 = rcp(new crs_matrix_type(A, Teuchos::Copy));
  A2->resumeFill();
  {
    auto local = A2->getLocalMatrixHost();
    for (std::size_t q = 0; q < local.values.extent(0); ++q) local.values(q) *= 1.0 + 0.5 * static_cast<double>(q % 2);
  }
  A2->fillComplete(A.getDomainMap(), A.getRangeMap());
  return A2;
}

// One algorithm's kept plan, executed --trials times with A's values alternating.
void timePlanReuse(const Options& o, const Problem& pb, const crs_matrix_type& A2, const Result& r,
                   std::ostream& out) {
  Teuchos::TimeMonitor tmReuse(*Teuchos::TimeMonitor::getNewCounter("trident-bench: " + r.algo + " plan reuse"));
  auto params = algorithmParams(o, r.algo);
  Trident::MatrixMatrix::MultiplyPlan plan(*pb.A, false, *pb.A, false, params);
  auto C = rcp(new crs_matrix_type(pb.A->getRowMap(), 0));
  plan.execute(*pb.A, *pb.A, *C);
  std::vector<double> wall;
  Trident::ReducedStats rs;
  for (int t = 0; t < o.trials; ++t) {
    const crs_matrix_type& X = t % 2 == 0 ? A2 : *pb.A;
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

}  // namespace

RunOutcome runAlgorithms(const Options& o, const Problem& pb, int rank, int P, std::ostream& out,
                         std::ostream& err) {
  AlgorithmRuns runs(o, pb, rank, P, out, err);
  std::vector<Runner> runners = runs.makeRunners();
  if (o.interleave)
    runInterleaved(runs, runners, o);
  else
    runOneAfterAnother(runs, runners, o);
  return std::move(runs.outcome);
}

void runPlanReuse(const Options& o, const Problem& pb, const std::vector<Result>& results, std::ostream& out) {
  auto A2 = withNewValues(*pb.A);
  out << "Plan reuse (C = A*A with new values of A, C updated in place; median of " << o.trials
      << " executes of a kept plan vs the fresh Multiply above):\n";
  for (auto& r : results) timePlanReuse(o, pb, *A2, r, out);
  out << std::endl;
}

}  // namespace TridentBench
