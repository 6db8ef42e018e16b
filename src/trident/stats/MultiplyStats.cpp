#include "trident/stats/MultiplyStats.hpp"

#include <map>

#include "trident/stats/PhaseTimer.hpp"

namespace Trident {

const char* toString(AutoPath path) {
  switch (path) {
    case AutoPath::NotAuto: return "not auto";
    case AutoPath::Remembered: return "remembered";
    case AutoPath::Bound: return "bound";
    case AutoPath::Estimate: return "estimate";
    case AutoPath::Unions: return "bound by unions";
    case AutoPath::Counted: return "counted";
  }
  return "?";
}

Teuchos::RCP<Teuchos::Time> phaseTimer(const std::string& name) {
  static std::map<std::string, Teuchos::RCP<Teuchos::Time>> timers;
  auto it = timers.find(name);
  if (it == timers.end()) it = timers.emplace(name, Teuchos::TimeMonitor::getNewCounter(name)).first;
  return it->second;
}

namespace {
// Every time and every counter, once: +=, the reductions and anything else that walks the stats
// use these lists, so a new field is added in one place.
constexpr double PhaseTimes::*kTimes[] = {&PhaseTimes::redistribute_in, &PhaseTimes::gi_wait,
                                          &PhaseTimes::li_allgather,    &PhaseTimes::local_multiply,
                                          &PhaseTimes::accumulate,      &PhaseTimes::imbalance_wait,
                                          &PhaseTimes::redistribute_out, &PhaseTimes::total};
constexpr std::uint64_t MultiplyStats::*kCounters[] = {
    &MultiplyStats::gi_bytes_sent,         &MultiplyStats::gi_bytes_recv,         &MultiplyStats::li_bytes_sent,
    &MultiplyStats::li_bytes_recv,         &MultiplyStats::redistribute_gi_bytes, &MultiplyStats::redistribute_li_bytes,
    &MultiplyStats::local_flops,           &MultiplyStats::nnz_c_local};
constexpr int kNumTimes = sizeof(kTimes) / sizeof(kTimes[0]);
constexpr int kNumCounters = sizeof(kCounters) / sizeof(kCounters[0]);
}  // namespace

void clearMeasurements(MultiplyStats& s) {
  for (auto f : kCounters) s.*f = 0;
  s.times = PhaseTimes();
  s.reused_plan = false;
}

PhaseTimes& operator+=(PhaseTimes& a, const PhaseTimes& b) {
  for (auto f : kTimes) a.*f += b.*f;
  return a;
}

MultiplyStats& operator+=(MultiplyStats& a, const MultiplyStats& b) {
  const std::uint64_t lastNnz = b.nnz_c_local;  // not a sum: the last product's
  for (auto f : kCounters) a.*f += b.*f;
  a.nnz_c_local = lastNnz;
  a.times += b.times;
  a.reused_plan = a.reused_plan && b.reused_plan;
  return a;
}

ReducedStats reduceStats(const MultiplyStats& local, MPI_Comm comm) {
  ReducedStats r;
  r.max = local;
  r.total = local;
  double t[kNumTimes], tmax[kNumTimes], tsum[kNumTimes];
  for (int q = 0; q < kNumTimes; ++q) t[q] = local.times.*kTimes[q];
  MPI_Allreduce(t, tmax, kNumTimes, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(t, tsum, kNumTimes, MPI_DOUBLE, MPI_SUM, comm);
  unsigned long long c[kNumCounters], cmax[kNumCounters], csum[kNumCounters];
  for (int q = 0; q < kNumCounters; ++q) c[q] = local.*kCounters[q];
  MPI_Allreduce(c, cmax, kNumCounters, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  MPI_Allreduce(c, csum, kNumCounters, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  for (int q = 0; q < kNumTimes; ++q) {
    r.max.times.*kTimes[q] = tmax[q];
    r.total.times.*kTimes[q] = tsum[q];
  }
  for (int q = 0; q < kNumCounters; ++q) {
    r.max.*kCounters[q] = cmax[q];
    r.total.*kCounters[q] = csum[q];
  }
  return r;
}

}  // namespace Trident
