#pragma once
// Where MueLu's own RAPFactory::Build behaves differently between the Trilinos versions Trident
// builds against, so that TridentRAPFactory::Build does what the stock factory of the running
// version does. These are behaviours, not names, so no type trait can see them: they are read off
// the version. Checked against 13.2 and 16.1; the releases in between get 13.2's behaviour.
// (API renames are bridged by adapters/tpetra/Trident_TpetraCompat.hpp.)
#include <Trilinos_version.h>

namespace Trident::MueLuCompat {
inline constexpr bool kAtLeast16 = TRILINOS_MAJOR_MINOR_VERSION >= 160000;

/// MueLu 16: a null prolongator (no aggregates on this level) gives a null coarse matrix, and the
/// Hierarchy drops the level. 13.2 has no such case (its products dereference P).
inline constexpr bool kNullProlongatorEndsHierarchy = kAtLeast16;

/// MueLu 16 hands the entries of "matrixmatrix: kernel params" to the products as their parameter
/// list; 13.2 hands them as a sublist of that name.
inline constexpr bool kKernelParamsAtTop = kAtLeast16;
}  // namespace Trident::MueLuCompat
