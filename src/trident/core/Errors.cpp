#include "trident/core/Errors.hpp"

#include <vector>

namespace Trident {

void throwIfAnyRank(MPI_Comm comm, bool failed, const std::string& message) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // The lowest failing rank broadcasts its message so every rank throws the same text.
  int mine = failed ? rank : size, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (first == size) return;
  int len = (rank == first) ? static_cast<int>(message.size()) : 0;
  MPI_Bcast(&len, 1, MPI_INT, first, comm);
  std::vector<char> text(static_cast<size_t>(len) + 1, '\0');
  if (rank == first) message.copy(text.data(), message.size());
  MPI_Bcast(text.data(), len, MPI_CHAR, first, comm);
  std::string what(text.data(), static_cast<size_t>(len));
  if (size > 1) what = "[rank " + std::to_string(first) + "] " + what;
  throw InvalidInput("Trident: " + what);
}

}  // namespace Trident
