#pragma once
// Times one phase into a MultiplyStats slot and into the Teuchos::TimeMonitor timer of the same
// phase ("Trident: ..."), so both the stats object and TimeMonitor::summarize() report it.
//
// The timer is a scoped member: it starts after and stops before any phase opened inside it, so
// when a Teuchos::StackedTimer is installed (the drivers' --timer-output, Trilinos's performance
// tests) the phases nest (Trident: total > redistribute in / Gi wait / Li allgather / local
// multiply / accumulate / redistribute out > ...). Sub-phases held in an RCP<TimeMonitor> must
// drop the old monitor before starting the next (`m = null; m = rcp(new ...)`): a monitor
// stopped while a later one still runs makes TimeMonitor drop the StackedTimer. The names are
// dashboard keys (docs/testing.md, "Timers"): keep them stable.
#include <mpi.h>
#include <Teuchos_TimeMonitor.hpp>
#include <string>

namespace Trident {

Teuchos::RCP<Teuchos::Time> phaseTimer(const std::string& name);  // cached per name

class PhaseTimer {
 public:
  PhaseTimer(double& slot, const std::string& name)
      : slot_(slot), monitor_(*phaseTimer(name)), start_(MPI_Wtime()) {}
  ~PhaseTimer() { slot_ += MPI_Wtime() - start_; }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  double& slot_;
  Teuchos::TimeMonitor monitor_;
  double start_;
};

}  // namespace Trident
