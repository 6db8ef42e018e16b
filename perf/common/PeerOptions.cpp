#include "PeerOptions.hpp"

#include <stdexcept>

#include "PeerReport.hpp"

namespace peers {

namespace {

void toInt(const std::string& key, const std::string& v, int& out, std::vector<std::string>& errors) {
  try {
    size_t pos = 0;
    out = std::stoi(v, &pos);
    if (pos != v.size()) throw std::invalid_argument(v);
  } catch (const std::exception&) {
    errors.push_back("--" + key + " needs an integer, not '" + v + "'");
  }
}

void checkValues(const PeerOptions& o, PeerOptionRules rules, std::vector<std::string>& errors) {
  if (o.matrix.empty()) errors.push_back("--matrix=PATH.mtx is required");
  else if (!generatorSpecError(o.matrix).empty()) errors.push_back(generatorSpecError(o.matrix));
  if (o.op != "AA" && o.op != "AtA" && o.op != "AB") errors.push_back("--op must be AA, AtA or AB, not '" + o.op + "'");
  if (o.op == "AB" && o.matrixB.empty()) errors.push_back("--op=AB needs --matrix-b=PATH.mtx");
  if (o.op != "AB" && !o.matrixB.empty()) errors.push_back("--matrix-b is only for --op=AB");
  if (o.trials < 1) errors.push_back("--trials must be >= 1");
  if (rules.threads && o.threads < 0) errors.push_back("--threads must be >= 1");
  if (o.ranks_per_group < 0) errors.push_back("--ranks-per-group must be >= 0");
}

}  // namespace

std::vector<std::string> parsePeerOptions(int argc, char** argv, PeerOptions& o, PeerOptionRules rules) {
  std::vector<std::string> errors;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool ours = a.rfind("--", 0) == 0;
    if (!ours && rules.single_dash_passed_on) continue;
    const auto eq = a.find('=');
    const std::string key = ours ? a.substr(2, eq == std::string::npos ? std::string::npos : eq - 2) : "";
    const std::string val = eq == std::string::npos ? std::string() : a.substr(eq + 1);
    const bool hasVal = eq != std::string::npos;
    if (key == "help") o.help = true;
    else if (key == "check" && !hasVal) o.check = true;
    else if (key == "matrix" && hasVal) o.matrix = val;
    else if (key == "matrix-b" && hasVal) o.matrixB = val;
    else if (key == "op" && hasVal) o.op = val;
    else if (key == "csv" && hasVal) o.csv = val;
    else if (key == "name" && hasVal) o.name = val;
    else if (key == "trials" && hasVal) toInt(key, val, o.trials, errors);
    else if (key == "threads" && hasVal && rules.threads) toInt(key, val, o.threads, errors);
    else if (key == "ranks-per-group" && hasVal) toInt(key, val, o.ranks_per_group, errors);
    else errors.push_back("option '" + a + "' not recognized (see --help)");
  }
  if (!o.help) checkValues(o, rules, errors);
  return errors;
}

}  // namespace peers
