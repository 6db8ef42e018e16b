// TimerOutput (apps/common/TimerOutput.hpp) where the drivers are hard to steer: ranks that start
// different timers (one only on rank 0, one only on odd ranks), TimeMonitor::summarize called
// while the stacked timer is installed (as MueLu does at verbosity "medium"), and timers that
// overlap instead of nesting, which must make report() fail on every rank rather than write a
// wrong tree. Writes DIR/ranks.yaml and a Watchr XML in $WATCHR_PERF_DIR for check_timers.py.
#include <mpi.h>

#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <Teuchos_DefaultMpiComm.hpp>
#include <Teuchos_TimeMonitor.hpp>
#include <Teuchos_oblackholestream.hpp>

#include "TimerOutput.hpp"

namespace {

void work(const char* name) {
  Teuchos::TimeMonitor tm(*Teuchos::TimeMonitor::getNewCounter(name));
  volatile double x = 0;
  for (int i = 0; i < 100000; ++i) x = x + 1e-9 * i;
}

// The same timers as a run of a driver would start, with rank-dependent ones.
void scenario(int rank) {
  Teuchos::TimeMonitor outer(*Teuchos::TimeMonitor::getNewCounter("test: outer"));
  work("test: inner");
  if (rank == 0) work("test: rank 0 only");
  {
    Teuchos::TimeMonitor inner(*Teuchos::TimeMonitor::getNewCounter("test: inner"));
    if (rank % 2 == 1) work("test: odd ranks only");
  }
}

int failures = 0;
void expect(bool ok, const std::string& what) {
  if (!ok) {
    std::cerr << "test_timer_output: FAIL: " << what << std::endl;
    ++failures;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  {
    auto comm = Teuchos::rcp<const Teuchos::Comm<int>>(new Teuchos::MpiComm<int>(MPI_COMM_WORLD));
    const int rank = comm->getRank();
    const std::string dir = argc > 1 ? argv[1] : ".";
    Teuchos::oblackholestream hole;

    {
      TridentPerf::TimerOptions o("yaml");
      o.file = dir + "/ranks.yaml";
      TridentPerf::TimerOutput t("test_timer_output", o);
      scenario(rank);
      t.report(comm, std::cout, "unused");
    }
    {
      TridentPerf::TimerOptions o("watchr");
      TridentPerf::TimerOutput t("test_timer_output", o);
      scenario(rank);
      {  // a summary in the middle of the run, inside a running timer
        Teuchos::TimeMonitor tm(*Teuchos::TimeMonitor::getNewCounter("test: with summarize"));
        Teuchos::TimeMonitor::summarize(comm.ptr(), rank == 0 ? std::cout : static_cast<std::ostream&>(hole));
        work("test: after summarize");
      }
      const std::string xml = t.report(comm, std::cout, "test timer output ranks");
      expect(rank != 0 || !xml.empty(), "no Watchr XML path returned on rank 0");
      expect(rank == 0 || xml.empty(), "a Watchr XML path returned on a rank other than 0");
    }
    {  // overlapping timers: an RCP'd monitor replaced while the next one already runs
      TridentPerf::TimerOptions o("watchr");
      TridentPerf::TimerOutput t("test_timer_output", o);
      {
        auto a = Teuchos::rcp(new Teuchos::TimeMonitor(*Teuchos::TimeMonitor::getNewCounter("test: first")));
        auto b = Teuchos::rcp(new Teuchos::TimeMonitor(*Teuchos::TimeMonitor::getNewCounter("test: second")));
        a = Teuchos::null;  // "first" stops while "second", started inside it, still runs
      }
      bool threw = false;
      try {
        t.report(comm, hole, "overlap");
      } catch (const std::runtime_error& e) {
        threw = std::string(e.what()).find("overlapped") != std::string::npos;
      }
      expect(threw, "report() did not fail after overlapping timers");
    }
    {  // a bad format is refused when the output is set up, on every rank
      bool threw = false;
      try {
        TridentPerf::TimerOptions o("xml");
        TridentPerf::TimerOutput t("test_timer_output", o);
      } catch (const std::invalid_argument&) {
        threw = true;
      }
      expect(threw, "--timer-output=xml accepted");
    }
    int mine = failures, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    failures = all;
  }
  MPI_Finalize();
  if (failures == 0) std::cout << "test_timer_output: OK" << std::endl;
  return failures == 0 ? 0 : 1;
}
