#pragma once
// Times one phase into a MultiplyStats slot and into the Teuchos::TimeMonitor timer of the same
// phase ("Trident: ..."), so both the stats object and TimeMonitor::summarize() report it.
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
