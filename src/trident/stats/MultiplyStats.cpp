#include "trident/stats/MultiplyStats.hpp"

#include <map>
#include <vector>

#include "trident/stats/PhaseTimer.hpp"

namespace Trident {

Teuchos::RCP<Teuchos::Time> phaseTimer(const std::string& name) {
  static std::map<std::string, Teuchos::RCP<Teuchos::Time>> timers;
  auto it = timers.find(name);
  if (it == timers.end()) it = timers.emplace(name, Teuchos::TimeMonitor::getNewCounter(name)).first;
  return it->second;
}

namespace {
std::vector<double> times(const PhaseTimes& t) {
  return {t.redistribute_in, t.gi_wait, t.li_allgather, t.local_multiply, t.accumulate, t.redistribute_out, t.total};
}
void setTimes(PhaseTimes& t, const double* v) {
  t.redistribute_in = v[0];
  t.gi_wait = v[1];
  t.li_allgather = v[2];
  t.local_multiply = v[3];
  t.accumulate = v[4];
  t.redistribute_out = v[5];
  t.total = v[6];
}
std::vector<unsigned long long> counters(const MultiplyStats& s) {
  return {s.gi_bytes_sent, s.gi_bytes_recv, s.li_bytes_sent, s.li_bytes_recv,
          s.redistribute_gi_bytes, s.redistribute_li_bytes, s.local_flops, s.nnz_c_local};
}
void setCounters(MultiplyStats& s, const unsigned long long* v) {
  s.gi_bytes_sent = v[0];
  s.gi_bytes_recv = v[1];
  s.li_bytes_sent = v[2];
  s.li_bytes_recv = v[3];
  s.redistribute_gi_bytes = v[4];
  s.redistribute_li_bytes = v[5];
  s.local_flops = v[6];
  s.nnz_c_local = v[7];
}
}  // namespace

PhaseTimes& operator+=(PhaseTimes& a, const PhaseTimes& b) {
  a.redistribute_in += b.redistribute_in;
  a.gi_wait += b.gi_wait;
  a.li_allgather += b.li_allgather;
  a.local_multiply += b.local_multiply;
  a.accumulate += b.accumulate;
  a.redistribute_out += b.redistribute_out;
  a.total += b.total;
  return a;
}

MultiplyStats& operator+=(MultiplyStats& a, const MultiplyStats& b) {
  a.gi_bytes_sent += b.gi_bytes_sent;
  a.gi_bytes_recv += b.gi_bytes_recv;
  a.li_bytes_sent += b.li_bytes_sent;
  a.li_bytes_recv += b.li_bytes_recv;
  a.redistribute_gi_bytes += b.redistribute_gi_bytes;
  a.redistribute_li_bytes += b.redistribute_li_bytes;
  a.local_flops += b.local_flops;
  a.nnz_c_local = b.nnz_c_local;
  a.times += b.times;
  return a;
}

ReducedStats reduceStats(const MultiplyStats& local, MPI_Comm comm) {
  ReducedStats r;
  r.max = local;
  r.total = local;
  std::vector<double> t = times(local.times), tmax(t.size()), tsum(t.size());
  MPI_Allreduce(t.data(), tmax.data(), static_cast<int>(t.size()), MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(t.data(), tsum.data(), static_cast<int>(t.size()), MPI_DOUBLE, MPI_SUM, comm);
  setTimes(r.max.times, tmax.data());
  setTimes(r.total.times, tsum.data());
  std::vector<unsigned long long> c = counters(local), cmax(c.size()), csum(c.size());
  MPI_Allreduce(c.data(), cmax.data(), static_cast<int>(c.size()), MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  MPI_Allreduce(c.data(), csum.data(), static_cast<int>(c.size()), MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
  setCounters(r.max, cmax.data());
  setCounters(r.total, csum.data());
  return r;
}

}  // namespace Trident
