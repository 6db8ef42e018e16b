#pragma once
// Failures that only some ranks hit. Bad input is found before any tile moves and thrown on every
// rank (Errors.hpp). What fails later — std::bad_alloc in one rank's local multiply, an error of
// the system or a bug — happens on one rank while the others wait for it inside MPI, forever.
// runOrAbort turns that into the end of the job, with a message that says which rank failed,
// in which phase and why.
#include <mpi.h>

#include <exception>
#include <string>
#include <utility>

#include "trident/core/Errors.hpp"

namespace Trident {

// Writes "Trident: rank R of P (world rank W) failed in PHASE: REASON ..." to stderr and calls
// MPI_Abort(comm, kAbortExitCode); std::abort() if MPI is not running.
[[noreturn]] void abortJob(MPI_Comm comm, const std::string& phase, const std::string& reason) noexcept;

constexpr int kAbortExitCode = 71;

// Runs fn() (a phase that is collective over comm) and returns its result. An exception that
// escapes it ends the whole job via abortJob, except InvalidInput, which by its contract is thrown
// by every rank alike (throwIfAnyRank, requireAll) and so passes through.
template <class F>
decltype(auto) runOrAbort(MPI_Comm comm, const char* phase, F&& fn) {
  try {
    return std::forward<F>(fn)();
  } catch (const InvalidInput&) {
    throw;
  } catch (const std::exception& e) {
    abortJob(comm, phase, e.what());
  } catch (...) {
    abortJob(comm, phase, "an exception not derived from std::exception");
  }
}

}  // namespace Trident
