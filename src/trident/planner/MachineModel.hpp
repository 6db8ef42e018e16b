#pragma once
// A small machine model turning the planner's per-rank counts into a predicted time:
//
//   time(rank) = Gi bytes / gi_bandwidth + Gi messages * gi_latency
//              + Li bytes / li_bandwidth + Li messages * li_latency
//              + multiply-adds / (kernel rate of the algorithm)
//              + redistribution bytes (in, and out estimated as equal to in) over the same links
//   time(algorithm) = max over ranks + overhead of the algorithm (set-up that does not scale
//                     with the matrix: maps, communicators, layout; fixed + per log2(P))
//
// Defaults describe one multi-core machine like the project's (shared memory for both links);
// `trident-plan --calibrate` measures them and writes the text file read by load(): one
// "key = value" per line, '#' starts a comment, unknown keys are an error.
#include <string>

#include "trident/planner/Planner.hpp"

namespace Trident {
namespace planner {

struct MachineModel {
  double gi_bandwidth = 2.0e9;     // bytes/s received per rank over Gi
  double gi_latency = 5.0e-6;      // s per message over Gi
  double li_bandwidth = 2.0e9;     // bytes/s over Li
  double li_latency = 2.0e-6;      // s per message over Li
  double trident_rate = 1.0e8;     // multiply-adds/s of Trident's and SUMMA's local kernel (gustavson)
  double tpetra_rate = 1.0e8;      // multiply-adds/s of Tpetra's own local multiply
  double tpetra_overhead = 1.0e-3;     // s per Tpetra Multiply, fixed
  double trident_overhead = 3.0e-3;    // s per Trident/SUMMA multiply, fixed (layout, plan, assembly)
  double overhead_per_log2p = 5.0e-4;  // s per log2(P) for every algorithm (collectives)

  // Throws InvalidInput naming the line for a file that cannot be read or parsed.
  static MachineModel load(const std::string& path);
  void save(const std::string& path, const std::string& comment = "") const;
};

// Sets pr.time_s (for P ranks) and returns it.
double predictTime(Prediction& pr, const MachineModel& model);

}  // namespace planner
}  // namespace Trident
