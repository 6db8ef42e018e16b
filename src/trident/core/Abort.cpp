#include "trident/core/Abort.hpp"

#include <cstdio>
#include <cstdlib>

namespace Trident {

void abortJob(MPI_Comm comm, const std::string& phase, const std::string& reason) noexcept {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  const bool mpi = initialized && !finalized;
  int rank = 0, size = 1, world = 0;
  if (mpi) {
    if (comm == MPI_COMM_NULL) comm = MPI_COMM_WORLD;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
  }
  // One write, so lines of ranks that fail together do not interleave.
  std::fprintf(stderr,
               "Trident: rank %d of %d (world rank %d) failed in %s: %s\n"
               "Trident: aborting the job: the other ranks would wait for this one forever.\n",
               rank, size, world, phase.c_str(), reason.c_str());
  std::fflush(stderr);
  if (mpi) MPI_Abort(comm, kAbortExitCode);
  std::abort();
}

}  // namespace Trident
