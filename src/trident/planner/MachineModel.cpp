#include "trident/planner/MachineModel.hpp"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "trident/core/Errors.hpp"

namespace Trident {
namespace planner {

namespace {
using Field = double MachineModel::*;
const std::map<std::string, std::pair<Field, const char*>>& fields() {
  static const std::map<std::string, std::pair<Field, const char*>> f = {
      {"gi_bandwidth", {&MachineModel::gi_bandwidth, "bytes/s received per rank over Gi (between groups)"}},
      {"gi_latency", {&MachineModel::gi_latency, "s per message over Gi"}},
      {"li_bandwidth", {&MachineModel::li_bandwidth, "bytes/s over Li (inside a group)"}},
      {"li_latency", {&MachineModel::li_latency, "s per message over Li"}},
      {"trident_rate", {&MachineModel::trident_rate, "multiply-adds/s of Trident, whole multiply (kernel, sums, C)"}},
      {"summa_rate", {&MachineModel::summa_rate, "multiply-adds/s of SUMMA, whole multiply"}},
      {"tpetra_rate", {&MachineModel::tpetra_rate, "multiply-adds/s of Tpetra's own multiply"}},
      {"trident_entry_cost", {&MachineModel::trident_entry_cost, "s per entry of A and B moved into Trident's tiles"}},
      {"summa_entry_cost", {&MachineModel::summa_entry_cost, "s per entry of A and B moved into SUMMA's blocks"}},
      {"tpetra_entry_cost", {&MachineModel::tpetra_entry_cost, "s per entry of A and B held, Tpetra's multiply"}},
      {"trident_c_cost", {&MachineModel::trident_c_cost, "s per entry of C produced, Trident"}},
      {"trident_owner_c_cost",
       {&MachineModel::trident_owner_c_cost, "s per entry of C produced, Trident with owner slices"}},
      {"summa_c_cost", {&MachineModel::summa_c_cost, "s per entry of C produced, SUMMA"}},
      {"tpetra_c_cost", {&MachineModel::tpetra_c_cost, "s per entry of C produced, Tpetra's multiply"}},
      {"tpetra_import_cost", {&MachineModel::tpetra_import_cost, "s per byte Tpetra's multiply imports (set-up, packing)"}},
      {"oned_import_cost", {&MachineModel::oned_import_cost, "s per byte of remote rows Tpetra's algorithm run in place (\"1d\") fetches"}},
      {"tpetra_import_row_cost", {&MachineModel::tpetra_import_row_cost, "s per row of B Tpetra's multiply imports"}},
      {"summa_overhead", {&MachineModel::summa_overhead, "s per summa multiply, independent of size"}},
      {"tpetra_overhead", {&MachineModel::tpetra_overhead, "s per Tpetra multiply, independent of size"}},
      {"trident_overhead", {&MachineModel::trident_overhead, "s per trident multiply, independent of size"}},
      {"auto_count_overhead", {&MachineModel::auto_count_overhead, "s per product auto counts, fixed"}},
      {"auto_count_entry_cost", {&MachineModel::auto_count_entry_cost, "s per entry of A and B (busiest rank) auto counts"}},
      {"overhead_per_log2p", {&MachineModel::overhead_per_log2p, "s per log2(P), every algorithm"}}};
  return f;
}
}  // namespace

MachineModel MachineModel::load(const std::string& path) {
  std::ifstream in(path);
  requireAll(static_cast<bool>(in), "machine model: cannot read '" + path + "'");
  MachineModel m;
  std::string line;
  int no = 0;
  while (std::getline(in, line)) {
    ++no;
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const auto eq = line.find('=');
    std::string key = line.substr(0, eq);
    key.erase(0, key.find_first_not_of(" \t"));
    key.erase(key.find_last_not_of(" \t\r") + 1);
    if (key.empty() && eq == std::string::npos) continue;
    const std::string where = "machine model '" + path + "', line " + std::to_string(no) + ": ";
    requireAll(eq != std::string::npos, where + "expected 'key = value'");
    auto it = fields().find(key);
    requireAll(it != fields().end(), where + "unknown key '" + key + "'");
    std::istringstream v(line.substr(eq + 1));
    double x = 0;
    std::string rest;
    requireAll(static_cast<bool>(v >> x) && !(v >> rest) && std::isfinite(x) && x > 0,
               where + "'" + key + "' needs one positive number");
    m.*(it->second.first) = x;
  }
  return m;
}

void MachineModel::save(const std::string& path, const std::string& comment) const {
  std::ofstream out(path);
  requireAll(static_cast<bool>(out), "machine model: cannot write '" + path + "'");
  out << "# Trident machine model (trident-plan --model=" << path << "); edit freely.\n";
  if (!comment.empty()) out << "# " << comment << "\n";
  out.precision(6);
  for (const auto& f : fields()) out << f.first << " = " << this->*(f.second.first) << "   # " << f.second.second << "\n";
  requireAll(static_cast<bool>(out), "machine model: cannot write '" + path + "'");
}

MachineModel movingNothing(const MachineModel& m) {
  MachineModel r = m;
  r.trident_entry_cost = r.summa_entry_cost = 0.0;
  r.trident_c_cost = r.summa_c_cost = m.trident_owner_c_cost;
  return r;
}

MachineModel tpetraInPlace(const MachineModel& m) {
  MachineModel r = m;
  r.tpetra_c_cost = m.trident_owner_c_cost;
  r.tpetra_import_cost = m.oned_import_cost;
  return r;
}

double predictTime(Prediction& pr, const MachineModel& m) {
  const std::size_t P = pr.gi_recv.size();
  const bool tpetra = pr.algo == "tpetra", summa = pr.algo == "summa";
  const double rate = tpetra ? m.tpetra_rate : summa ? m.summa_rate : m.trident_rate;
  const double entry = tpetra ? m.tpetra_entry_cost : summa ? m.summa_entry_cost : m.trident_entry_cost;
  const double fixed = tpetra ? m.tpetra_overhead : summa ? m.summa_overhead : m.trident_overhead;
  // The exact planner does not count C's entries: the multiply-adds bound them from above.
  const double perC = tpetra ? m.tpetra_c_cost : summa ? m.summa_c_cost : m.trident_c_cost;
  double worst = 0;
  for (std::size_t p = 0; p < P; ++p) {
    // Redistribution: what this rank sends in, and about as much on the way out (C's entries).
    const double inGi = 2.0 * static_cast<double>(pr.in_gi_sent[p]), inLi = 2.0 * static_cast<double>(pr.in_li_sent[p]);
    const double t = (static_cast<double>(pr.gi_recv[p]) + inGi) / m.gi_bandwidth +
                     static_cast<double>(pr.gi_msgs[p]) * m.gi_latency +
                     (static_cast<double>(pr.li_recv[p]) + inLi) / m.li_bandwidth +
                     static_cast<double>(pr.li_msgs[p]) * m.li_latency + static_cast<double>(pr.flops[p]) * (1.0 / rate + perC);
    worst = std::max(worst, t);
  }
  const double logP = P > 1 ? std::log2(static_cast<double>(P)) : 0.0;
  double imported = 0;  // Tpetra's import set-up, by the busiest importer
  if (tpetra)
    for (std::size_t p = 0; p < P; ++p)
      imported = std::max(imported, static_cast<double>(pr.gi_recv[p] + pr.li_recv[p]) * m.tpetra_import_cost +
                                        static_cast<double>(pr.import_rows[p]) * m.tpetra_import_row_cost);
  pr.time_s = worst + imported + pr.entries_max * entry + fixed + logP * m.overhead_per_log2p;
  return pr.time_s;
}

}  // namespace planner
}  // namespace Trident
