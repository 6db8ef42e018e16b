#pragma once
// The peer drivers' command line: the same inputs and outputs as trident-bench (--matrix, --op,
// --matrix-b, --trials, --check, --csv, --name, --ranks-per-group), parsed alike so that
// perf/peers.sh can call every driver the same way.
#include <string>
#include <vector>

namespace peers {

struct PeerOptions {
  std::string matrix, matrixB, op = "AA", csv, name;
  int trials = 3, ranks_per_group = 0;
  int threads = 0;  // a driver with threads of its own (PeerOptionRules::threads)
  bool check = false, help = false;
};

struct PeerOptionRules {
  bool threads = false;                // --threads=N is an option of this driver
  bool single_dash_passed_on = false;  // "-x" belongs to the library (PETSc's options), not to us
};

// Parses "--key=value" / "--flag" and checks the values; returns the errors (none: usable).
std::vector<std::string> parsePeerOptions(int argc, char** argv, PeerOptions& o, PeerOptionRules rules);

}  // namespace peers
