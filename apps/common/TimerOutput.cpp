#include "TimerOutput.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include <Teuchos_CommHelpers.hpp>
#include <Teuchos_CommandLineProcessor.hpp>
#include <Teuchos_ParameterList.hpp>
#include <Teuchos_TimeMonitor.hpp>
#include <Teuchos_oblackholestream.hpp>

#include "TridentGitSha.h"  // generated at build time (apps/common/GitSha.cmake)

namespace TridentPerf {

TimerFormat parseTimerFormat(const std::string& s) {
  if (s == "none") return TimerFormat::None;
  if (s == "table") return TimerFormat::Table;
  if (s == "yaml") return TimerFormat::Yaml;
  if (s == "watchr") return TimerFormat::Watchr;
  throw std::invalid_argument("--timer-output must be table, yaml, watchr or none, not '" + s + "'");
}

const char* toString(TimerFormat f) {
  switch (f) {
    case TimerFormat::None: return "none";
    case TimerFormat::Table: return "table";
    case TimerFormat::Yaml: return "yaml";
    case TimerFormat::Watchr: return "watchr";
  }
  return "?";
}

void TimerOptions::addTo(Teuchos::CommandLineProcessor& clp) {
  clp.setOption("timer-output", &format,
                "table (TimeMonitor::summarize) | yaml (TimeMonitor::summarizeToYaml) | watchr (the nested "
                "StackedTimer tree, and one Watchr XML file in $WATCHR_PERF_DIR) | none");
  clp.setOption("timer-file", &file, "write the table or YAML to this file (rank 0) instead of standard output");
  clp.setOption("watchr-name", &watchr_name,
                "Watchr test name (the XML's top-level timer and file name); default: derived from the run");
}

bool TimerOptions::take(int& a, int argc, char** argv) {
  const std::string arg = argv[a];
  const std::pair<const char*, std::string*> keys[] = {
      {"--timer-output", &format}, {"--timer-file", &file}, {"--watchr-name", &watchr_name}};
  for (const auto& key : keys) {
    const std::string k = key.first;
    if (arg.compare(0, k.size() + 1, k + "=") == 0) {
      *key.second = arg.substr(k.size() + 1);
      return true;
    }
    if (arg == k) {
      if (a + 1 >= argc) throw std::invalid_argument("option " + k + " needs a value");
      *key.second = argv[++a];
      return true;
    }
  }
  return false;
}

const char* TimerOptions::help() {
  return "  --timer-output=table|yaml|watchr|none   timers: TimeMonitor table, TimeMonitor YAML, or the nested\n"
         "                        StackedTimer tree plus one Watchr XML in $WATCHR_PERF_DIR\n"
         "  --timer-file=FILE     write the table / YAML to FILE (rank 0)\n"
         "  --watchr-name=NAME    Watchr test name (default: derived from the run)\n";
}

const char* buildGitSha() { return TRIDENT_GIT_SHA; }

namespace {

void yamlString(std::ostream& os, const std::string& s) {
  os << '"';
  for (char c : s) {
    if (c == '"' || c == '\\') os << '\\';
    os << c;
  }
  os << '"';
}

// A number YAML 1.1 readers (PyYAML) take for one: they read "1e-05", without a '.', as a string.
std::string yamlNumber(double v) {
  char buf[32];
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    std::snprintf(buf, sizeof buf, "%.0f", v);
  else
    std::snprintf(buf, sizeof buf, "%.6e", v);
  return buf;
}

}  // namespace

void NestedTimer::reportYaml(std::ostream& os, const Teuchos::RCP<const Teuchos::Comm<int>>& comm) {
  OutputOptions o;
  o.output_minmax = true;
  // What aggregateMpiData does in later Teuchos: every rank's paths (union), summed on rank 0.
  flatten();
  merge(comm);
  collectRemoteData(comm, o);
  if (comm->getRank() != 0) return;
  os << "Stacked timers:\n";
  yamlLevel(os, "", 0, 2);
  os.flush();
}

void NestedTimer::yamlLevel(std::ostream& os, const std::string& prefix, int level, int indent) {
  const std::string pad(indent, ' ');
  for (int i = 0; i < flat_names_.size(); ++i) {
    const std::string& full = flat_names_[i];
    if (std::count(full.begin(), full.end(), '@') != level) continue;
    const auto at = full.rfind('@');
    if ((at == std::string::npos ? std::string() : full.substr(0, at)) != prefix) continue;
    const double ranks = active_[i] > 0 ? active_[i] : 1;
    os << pad << "- name: ";
    yamlString(os, at == std::string::npos ? full : full.substr(at + 1));
    os << "\n" << pad << "  mean: " << yamlNumber(sum_[i] / ranks) << "\n"
       << pad << "  min: " << yamlNumber(min_[i]) << "\n"
       << pad << "  max: " << yamlNumber(max_[i]) << "\n"
       << pad << "  calls: " << yamlNumber(static_cast<double>(count_[i]) / ranks) << "\n"
       << pad << "  ranks: " << active_[i] << "\n";
    std::ostringstream children;
    yamlLevel(children, full, level + 1, indent + 4);
    if (!children.str().empty()) os << pad << "  children:\n" << children.str();
  }
}

TimerOutput::TimerOutput(const std::string& program, const TimerOptions& opts)
    : program_(program),
      format_(parseTimerFormat(opts.format)),
      file_(opts.file),
      watchr_name_(opts.watchr_name),
      timer_(Teuchos::rcp(new NestedTimer(program))),
      previous_(Teuchos::TimeMonitor::getStackedTimer()) {
  Teuchos::TimeMonitor::setStackedTimer(timer_);
  // Debian's Tpetra 13.2 is built without its MMM timers (HAVE_TPETRA_MMM_TIMINGS); its own
  // timers are those of its profiling regions (fill complete, Import set-up, transfers), which
  // are TimeMonitor timers only when TPETRA_USE_TEUCHOS_TIMERS is on. Tpetra reads the variable
  // once, at its first region, so it is set here, before the driver builds any Tpetra object,
  // for the outputs that show the nesting, unless the caller set it (OFF keeps them out).
  if (format_ == TimerFormat::Yaml || format_ == TimerFormat::Watchr) setenv("TPETRA_USE_TEUCHOS_TIMERS", "ON", 0);
}

TimerOutput::~TimerOutput() {
  if (Teuchos::TimeMonitor::getStackedTimer().get() == timer_.get()) Teuchos::TimeMonitor::setStackedTimer(previous_);
}

namespace {

// Every rank learns whether any rank failed; rank 0's message names what failed.
void throwIfAny(const Teuchos::Comm<int>& comm, bool failed, const std::string& what) {
  int mine = failed ? 1 : 0, any = 0;
  Teuchos::reduceAll<int, int>(comm, Teuchos::REDUCE_MAX, mine, Teuchos::outArg(any));
  if (any) throw std::runtime_error(what);
}

}  // namespace

std::string TimerOutput::report(const Teuchos::RCP<const Teuchos::Comm<int>>& comm, std::ostream& out,
                                const std::string& watchr_default) {
  if (reported_) throw std::logic_error("TimerOutput::report called twice");
  reported_ = true;
  const int rank = comm->getRank();
  // TimeMonitor replaces a stacked timer it cannot nest into (a timer stopped while one started
  // after it still runs) by null and prints a warning: the tree would be wrong, so say so.
  throwIfAny(*comm, Teuchos::TimeMonitor::getStackedTimer().get() != timer_.get(),
             program_ + ": timers overlapped instead of nesting, so TimeMonitor dropped the StackedTimer; "
                        "no nested timer output");
  timer_->stopBaseTimer();
  Teuchos::TimeMonitor::setStackedTimer(previous_);

  Teuchos::oblackholestream blackhole;
  std::ofstream file;
  bool toFile = !file_.empty() && (format_ == TimerFormat::Table || format_ == TimerFormat::Yaml);
  if (toFile && rank == 0) file.open(file_);
  throwIfAny(*comm, toFile && rank == 0 && !file, program_ + ": cannot open --timer-file=" + file_);
  std::ostream& os = rank != 0 ? static_cast<std::ostream&>(blackhole) : toFile ? file : out;

  std::string xml;
  switch (format_) {
    case TimerFormat::None:
      break;
    case TimerFormat::Table:
      Teuchos::TimeMonitor::summarize(comm.ptr(), os);
      break;
    case TimerFormat::Yaml: {
      auto pl = Teuchos::rcp(new Teuchos::ParameterList);
      pl->set("Report format", "YAML");
      pl->set("YAML style", "spacious");
      // Teuchos's flat report lists the timers every rank ran (13.2 merges the names by
      // intersection there); the tree after it has every timer, where it ran.
      Teuchos::TimeMonitor::report(comm.ptr(), os, pl);
      timer_->reportYaml(os, comm);
      break;
    }
    case TimerFormat::Watchr: {
      Teuchos::StackedTimer::OutputOptions o;
      o.output_fraction = true;
      o.output_minmax = true;
      o.print_warnings = false;
      os << "StackedTimer (" << program_ << "): mean over ranks [s], min/max over ranks, fraction of the parent\n";
      timer_->report(os, comm, o);
      const char* dir = std::getenv("WATCHR_PERF_DIR");
      if (dir == nullptr || *dir == '\0') {
        os << program_ << ": WATCHR_PERF_DIR is not set: no Watchr XML written" << std::endl;
        break;
      }
      // Trilinos's scripts export TRILINOS_GIT_SHA; when they did not, the revision built from.
      // Watchr keeps its first 10 characters: a build with uncommitted changes is marked by a
      // '+' in the tenth.
      const char* sha = std::getenv("TRILINOS_GIT_SHA");
      const std::string built = buildGitSha();
      if ((sha == nullptr || *sha == '\0') && !built.empty()) {
        const bool dirty = built.size() > 6 && built.compare(built.size() - 6, 6, "-dirty") == 0;
        setenv("TRILINOS_GIT_SHA", dirty ? (built.substr(0, 9) + "+").c_str() : built.c_str(), 1);
      }
      std::error_code ec;
      if (rank == 0) std::filesystem::create_directories(dir, ec);
      throwIfAny(*comm, static_cast<bool>(ec),
                 program_ + ": cannot create WATCHR_PERF_DIR=" + dir + (ec ? ": " + ec.message() : std::string()));
      const std::string name = watchr_name_.empty() ? watchr_default : watchr_name_;
      xml = timer_->reportWatchrXML(name, comm);
      // reportWatchrXML does not say when its ofstream failed: check the file is there.
      const bool bad = rank == 0 && (xml.empty() || !std::filesystem::exists(xml, ec) ||
                                     std::filesystem::file_size(xml, ec) == 0);
      throwIfAny(*comm, bad, program_ + ": Watchr XML not written in WATCHR_PERF_DIR=" + dir);
      os << program_ << ": Watchr XML written: " << xml << std::endl;
      break;
    }
  }
  if (toFile && rank == 0) file.close();
  throwIfAny(*comm, toFile && rank == 0 && !file, program_ + ": cannot write --timer-file=" + file_);
  return xml;
}

}  // namespace TridentPerf
