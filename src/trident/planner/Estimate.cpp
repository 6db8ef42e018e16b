#include "trident/planner/Estimate.hpp"

#include <algorithm>
#include <cmath>

#include "trident/grid/TileGrid.hpp"
#include "trident/planner/MachineModel.hpp"

namespace Trident {
namespace planner {

namespace {
constexpr int kFields = 13;

void toArray(const LocalCounts& c, double* v) {
  const double f[kFields] = {c.a_rows,          c.a_entries,       c.b_entries,       c.flops,         c.max_row_flops,
                             c.tpetra_gi_bytes, c.tpetra_li_bytes, c.tpetra_gi_msgs, c.tpetra_li_msgs, c.c_entries, c.layout_unknown,
                             c.tpetra_import_rows, c.work};
  std::copy(f, f + kFields, v);
}
LocalCounts fromArray(const double* v) {
  LocalCounts c;
  c.a_rows = v[0];
  c.a_entries = v[1];
  c.b_entries = v[2];
  c.flops = v[3];
  c.max_row_flops = v[4];
  c.tpetra_gi_bytes = v[5];
  c.tpetra_li_bytes = v[6];
  c.tpetra_gi_msgs = v[7];
  c.tpetra_li_msgs = v[8];
  c.c_entries = v[9];
  c.layout_unknown = v[10];
  c.tpetra_import_rows = v[11];
  c.work = v[12];
  return c;
}

// Sums the first half of an element and takes the max of the second: one reduction for both. An
// element is the whole buffer (a contiguous datatype, count 1): MPI may apply a user operation to
// any part of a buffer of several elements (Open MPI 5's han collectives do), which would move
// the half.
void sumThenMax(void* in, void* inout, int* len, MPI_Datatype* type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  const int n = bytes / static_cast<int>(sizeof(double)), half = n / 2;
  for (int e = 0; e < *len; ++e) {
    const double* a = static_cast<const double*>(in) + static_cast<std::size_t>(e) * n;
    double* b = static_cast<double*>(inout) + static_cast<std::size_t>(e) * n;
    for (int t = 0; t < half; ++t) b[t] += a[t];
    for (int t = half; t < n; ++t) b[t] = std::max(a[t], b[t]);
  }
}
}  // namespace

GlobalCounts reduceCounts(const LocalCounts& mine, int lambda, MPI_Comm comm) {
  double v[2 * kFields];
  toArray(mine, v);
  toArray(mine, v + kFields);
  MPI_Op op;
  MPI_Op_create(&sumThenMax, 1, &op);
  MPI_Datatype whole;
  MPI_Type_contiguous(2 * kFields, MPI_DOUBLE, &whole);
  MPI_Type_commit(&whole);
  MPI_Allreduce(MPI_IN_PLACE, v, 1, whole, op, comm);
  MPI_Type_free(&whole);
  MPI_Op_free(&op);
  GlobalCounts g;
  MPI_Comm_size(comm, &g.P);
  g.lambda = lambda;
  g.sum = fromArray(v);
  g.max = fromArray(v + kFields);
  return g;
}

double estimateTime(Estimate& e, int P, const MachineModel& m) {
  const bool tpetra = e.algo == "tpetra", summa = e.algo == "summa";
  const double rate = tpetra ? m.tpetra_rate : summa ? m.summa_rate : m.trident_rate;
  const double entry = tpetra ? m.tpetra_entry_cost : summa ? m.summa_entry_cost : m.trident_entry_cost;
  const double fixed = tpetra ? m.tpetra_overhead : summa ? m.summa_overhead : m.trident_overhead;
  const double perC = tpetra ? m.tpetra_c_cost
                     : summa ? m.summa_c_cost
                     : e.owner_slices ? m.trident_owner_c_cost
                                      : m.trident_c_cost;
  const double logP = P > 1 ? std::log2(static_cast<double>(P)) : 0.0;
  e.t_fixed = fixed + logP * m.overhead_per_log2p;
  e.t_kernel = e.flops_max / rate + e.c_max * perC;
  e.t_entries = e.entries_max * entry;
  // One machine: both links are shared memory; the message count is charged at Gi's latency.
  e.t_links = e.gi_bytes_max / m.gi_bandwidth + e.li_bytes_max / m.li_bandwidth + e.msgs_max * m.gi_latency;
  // Tpetra's import set-up (remote rows found, packed, unpacked, the column map built) grows with
  // what it imports, far beyond the link's cost on one machine: per row (look-ups, one CSR row
  // each) and per byte (packing). Bytes alone overcharge few long rows (coarse multigrid levels).
  e.t_import = tpetra ? (e.gi_bytes_max + e.li_bytes_max) * m.tpetra_import_cost + e.import_rows_max * m.tpetra_import_row_cost : 0.0;
  e.time_s = e.t_fixed + e.t_kernel + e.t_entries + e.t_links + e.t_import;
  return e.time_s;
}

double busiestShare(double busiest, double sum, int P, double ranks_per_core) {
  return std::max(busiest / std::max(ranks_per_core, 1.0), sum / std::max(P, 1));
}

std::vector<Estimate> estimateAll(const GlobalCounts& g, const MachineModel& model) {
  const int P = g.P, lambda = g.lambda, G = P / std::max(lambda, 1);
  const double nnzA = g.sum.a_entries, nnzB = g.sum.b_entries, F = g.sum.flops;
  std::vector<Estimate> out(3);

  Estimate& tp = out[0];
  tp.algo = "tpetra";
  const double oneDFlops = busiestShare(g.max.flops, g.sum.flops, P, g.ranks_per_core);
  const double oneDC = busiestShare(g.max.c_entries, g.sum.c_entries, P, g.ranks_per_core);
  tp.flops_max = oneDFlops;
  tp.c_max = oneDC;
  tp.entries_max = g.max.a_entries + g.max.b_entries;  // an upper bound: max of each
  tp.gi_bytes_max = g.max.tpetra_gi_bytes;
  tp.li_bytes_max = g.max.tpetra_li_bytes;
  tp.msgs_max = g.max.tpetra_gi_msgs + g.max.tpetra_li_msgs;
  tp.import_rows_max = g.max.tpetra_import_rows;

  // Balanced 2D work: the heaviest row of A cannot be split.
  const double balanced = std::max(F / P, g.max.max_row_flops);
  const double moved = (nnzA + nnzB) / P;
  // C follows the work: its rows are balanced with the multiply-adds.
  const double cBalanced = g.sum.c_entries / P;

  Estimate& su = out[1];
  su.algo = "summa";
  const TileGrid sg = TileGrid::forUnits(P);
  su.flops_max = balanced;
  su.c_max = cBalanced;
  su.entries_max = moved;
  // Each rank receives the A tiles of its grid row and the B tiles of its grid column but its own.
  const double tileA = nnzA / P * 12.0 + g.sum.a_rows / sg.rows * 8.0;
  const double tileB = nnzB / P * 12.0 + g.sum.a_rows / sg.rows * 8.0;
  const double suBytes = (sg.cols - 1) * tileA + (sg.rows - 1) * tileB;
  const double liShare = P > 1 ? static_cast<double>(lambda - 1) / (P - 1) : 0.0;
  su.gi_bytes_max = suBytes * (1.0 - liShare);
  su.li_bytes_max = suBytes * liShare;
  su.msgs_max = (sg.cols - 1) + (sg.rows - 1);

  Estimate& tr = out[2];
  tr.algo = "trident";
  tr.flops_max = balanced;
  tr.c_max = cBalanced;
  tr.entries_max = moved;
  if (g.owner_slices_possible && g.max.work <= kOwnerSliceImbalance * g.sum.work / P) {
    // Owner slices: each rank multiplies its own 1D rows and its kernel writes C's final arrays.
    // Its entries are still made into tiles (measured: the in phase 0.7x the balanced one's).
    tr.owner_slices = true;
    tr.flops_max = oneDFlops;
    tr.c_max = oneDC;
  }
  const double perEntry = 12.0 / 20.0;
  const double imported = (g.sum.tpetra_gi_bytes + g.sum.tpetra_li_bytes) * perEntry / P;
  tr.gi_bytes_max = G > 1 ? imported * (G - 1) / G : 0.0;
  tr.li_bytes_max = imported;
  tr.msgs_max = 2.0 * (G - 1) + 2.0 * (lambda - 1);

  for (auto& e : out) estimateTime(e, P, model);
  return out;
}

}  // namespace planner
}  // namespace Trident
