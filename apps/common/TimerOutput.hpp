#pragma once
// How the drivers (trident-bench, trident-muelu-solve, trident-mcl) report their timers, the way
// Trilinos's performance tests do: one Teuchos::StackedTimer per run, installed as TimeMonitor's
// stacked timer, so that every TimeMonitor timer (Trident's phases, Tpetra's, MueLu's) nests
// under the one that was running when it started; at the end a flat TimeMonitor table, the
// TimeMonitor YAML with the stacked tree added, or the stacked tree plus one Watchr XML file
// ($WATCHR_PERF_DIR).
#include <iosfwd>
#include <string>

#include <Teuchos_Comm.hpp>
#include <Teuchos_RCP.hpp>
#include <Teuchos_StackedTimer.hpp>

namespace Teuchos {
class CommandLineProcessor;
}

namespace TridentPerf {

enum class TimerFormat { None, Table, Yaml, Watchr };

// "none" | "table" | "yaml" | "watchr"; anything else throws std::invalid_argument naming them.
TimerFormat parseTimerFormat(const std::string& s);
const char* toString(TimerFormat f);

// The three options every driver takes (--timer-output, --timer-file, --watchr-name).
struct TimerOptions {
  std::string format;       // as given; parsed by TimerOutput
  std::string file;         // table / yaml: written here by rank 0 instead of the driver's stream
  std::string watchr_name;  // the Watchr test name; empty: the driver's default

  explicit TimerOptions(std::string default_format) : format(std::move(default_format)) {}
  // For Teuchos::CommandLineProcessor drivers (the strings must outlive parse()).
  void addTo(Teuchos::CommandLineProcessor& clp);
  // For hand-written parsers: consumes "--timer-output=X" etc. (and "--timer-output X" when a
  // next argument exists); returns false when argv[a] is not one of them.
  bool take(int& a, int argc, char** argv);
  static const char* help();  // usage lines for hand-written parsers
};

// The git revision the driver was built from ("" when unknown), "-dirty" appended when the
// working tree had changes.
const char* buildGitSha();

// A StackedTimer that can also write its tree as YAML (13.2 writes text and Watchr XML only).
class NestedTimer : public Teuchos::StackedTimer {
 public:
  explicit NestedTimer(const std::string& name) : Teuchos::StackedTimer(name.c_str()) {}
  // Collective; rank 0 writes a top-level "Stacked timers:" key: a list of
  // {name, mean, min, max, calls, ranks, children} where mean/min/max are over the ranks that
  // ran the timer (ranks: how many), calls the mean count over them, children the same list.
  void reportYaml(std::ostream& os, const Teuchos::RCP<const Teuchos::Comm<int>>& comm);

 private:
  void yamlLevel(std::ostream& os, const std::string& prefix, int level, int indent);
};

class TimerOutput {
 public:
  // Installs a new StackedTimer named `program` (its root starts now) as TimeMonitor's stacked
  // timer. Throws std::invalid_argument for a bad format, so construct it on every rank.
  TimerOutput(const std::string& program, const TimerOptions& opts);
  ~TimerOutput();  // uninstalls, so later TimeMonitors do not touch a stopped timer
  TimerOutput(const TimerOutput&) = delete;
  TimerOutput& operator=(const TimerOutput&) = delete;

  TimerFormat format() const { return format_; }
  Teuchos::RCP<Teuchos::StackedTimer> stacked() const { return timer_; }

  // Collective; call once, with no TimeMonitor of the driver still open. Stops the root and
  // writes the chosen format on rank 0 (to `out` or --timer-file); `watchr_default` names the
  // Watchr test when --watchr-name was not given. Returns the XML path written ("" otherwise).
  // Throws std::runtime_error on every rank when the output cannot be written, or when
  // TimeMonitor dropped the stacked timer (timers that overlapped instead of nesting).
  std::string report(const Teuchos::RCP<const Teuchos::Comm<int>>& comm, std::ostream& out,
                     const std::string& watchr_default);

 private:
  std::string program_;
  TimerFormat format_;
  std::string file_, watchr_name_;
  Teuchos::RCP<NestedTimer> timer_;
  Teuchos::RCP<Teuchos::StackedTimer> previous_;
  bool reported_ = false;
};

}  // namespace TridentPerf
