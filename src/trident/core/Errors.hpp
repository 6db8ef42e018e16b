#pragma once
// Collective error reporting: a bad input found on one rank must become the same exception on
// every rank (never a hang where the other ranks wait in a collective, never a wrong result).
#include <mpi.h>
#include <stdexcept>
#include <string>

namespace Trident {

// Thrown for bad input (maps, sizes, parameters, grid that does not fit P).
class InvalidInput : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Collective over comm. If any rank passes failed=true, every rank throws InvalidInput with the
// message of the lowest failing rank (prefixed by that rank's number).
void throwIfAnyRank(MPI_Comm comm, bool failed, const std::string& message);

// Same, for conditions every rank evaluates identically: no communication needed.
inline void requireAll(bool ok, const std::string& message) {
  if (!ok) throw InvalidInput(message);
}

}  // namespace Trident
