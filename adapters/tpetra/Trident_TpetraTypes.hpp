#pragma once
// The Tpetra types Debian's Trilinos 13.2 and 16.1 instantiate (Serial Kokkos,
// <double, int, long long>). The adapter's compiled entry points are instantiated for exactly these.
// Trident_TpetraCompat.hpp bridges the API differences between Trilinos versions.
#include "Trident_TpetraCompat.hpp"
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_Map.hpp>
#include <Teuchos_RCP.hpp>
#include <Teuchos_Comm.hpp>

namespace Trident {
using Scalar = double;
using LO = int;
using GO = long long;
using Node = Tpetra::Map<>::node_type;
using map_type = Tpetra::Map<LO, GO, Node>;
using crs_matrix_type = Tpetra::CrsMatrix<Scalar, LO, GO, Node>;
using comm_ptr = Teuchos::RCP<const Teuchos::Comm<int>>;
}  // namespace Trident
