#pragma once
// The MPI communicator under a Teuchos communicator: the one place that unwraps it.
#include <mpi.h>
#include <stdexcept>
#include <Teuchos_Comm.hpp>
#include <Teuchos_DefaultMpiComm.hpp>

namespace Trident {
namespace tpetra {

// A Teuchos::MpiComm gives its raw communicator; a serial communicator (size 1) is MPI_COMM_SELF.
// Anything else has no MPI communicator to run Trident's collectives on: std::logic_error.
inline MPI_Comm rawComm(const Teuchos::Comm<int>& comm) {
  if (auto* mc = dynamic_cast<const Teuchos::MpiComm<int>*>(&comm)) return *mc->getRawMpiComm();
  if (comm.getSize() == 1) return MPI_COMM_SELF;
  throw std::logic_error("Trident: the communicator is neither a Teuchos::MpiComm nor of size 1");
}
inline MPI_Comm rawComm(const Teuchos::RCP<const Teuchos::Comm<int>>& comm) { return rawComm(*comm); }

}  // namespace tpetra
}  // namespace Trident
