#pragma once
// One-call MueLu setup with Trident doing every level's Galerkin product, mirroring
// MueLu::CreateTpetraPreconditioner / MueLu::CreateXpetraPreconditioner.
//
// Parameters: any MueLu list (easy "multigrid algorithm"/"smoother: type"/... syntax, or the
// "Factories"/"Hierarchy" syntax) plus
//   "trident: use for rap"   bool, default true: replace every MueLu::RAPFactory of the hierarchy
//                            (including the one inside RebalanceAcFactory when repartitioning) by
//                            TridentRAPFactory. false: stock RAPFactory (only timed, see rapStats()).
//   "trident: ..."           every other "trident: " key is passed to Trident::MatrixMatrix::Multiply
//                            ("trident: algorithm", "trident: ranks per group", ...). Unknown
//                            "trident: " keys throw std::invalid_argument.
// These keys are removed before MueLu sees the list. The Factories syntax also accepts the factory
// name "TridentRAPFactory" (see makeFactoryFactory()).
//
// A must be square and fill-complete; otherwise std::invalid_argument.
// Coarse solver note: Debian's Trilinos 13.2 Amesos2 (KLU2, Tacho; KLU2 is MueLu's default coarse
// solver) is wrong with more than one rank: use "coarse: type" = "RELAXATION" in parallel.
#include <string>

#include <MueLu_FactoryFactory_fwd.hpp>
#include <MueLu_Hierarchy_fwd.hpp>
#include <Teuchos_ParameterList.hpp>
#include <Tpetra_Operator.hpp>
#include <Xpetra_Matrix_fwd.hpp>

#include "Trident_TpetraTypes.hpp"

// Declared here rather than through MueLu_TpetraOperator_fwd.hpp: that header also turns on the
// short name TpetraOperator in every MueLu class parsed after it, and MueLu 16's class templates
// (SmootherBase, Hierarchy, ...) then fail to compile with GCC 14 and later.
namespace MueLu {
template <class Scalar, class LocalOrdinal, class GlobalOrdinal, class Node>
class TpetraOperator;
}

namespace Trident {
namespace muelu {

using xpetra_matrix_type = Xpetra::Matrix<Scalar, LO, GO, Node>;
using hierarchy_type = MueLu::Hierarchy<Scalar, LO, GO, Node>;
using tpetra_operator_type = Tpetra::Operator<Scalar, LO, GO, Node>;
using muelu_tpetra_operator_type = MueLu::TpetraOperator<Scalar, LO, GO, Node>;
using factory_factory_type = MueLu::FactoryFactory<Scalar, LO, GO, Node>;

// Same as MueLu::CreateTpetraPreconditioner(A, params) ("user data" sublist with Coordinates /
// Nullspace as Tpetra or Xpetra multivectors is honoured), with the Trident parameters above.
Teuchos::RCP<muelu_tpetra_operator_type> CreateTpetraPreconditioner(
    const Teuchos::RCP<tpetra_operator_type>& A, Teuchos::ParameterList& params);
// Parameters read from an XML file (read on rank 0 and broadcast).
Teuchos::RCP<muelu_tpetra_operator_type> CreateTpetraPreconditioner(
    const Teuchos::RCP<tpetra_operator_type>& A, const std::string& xmlFileName);

// Same as MueLu::CreateXpetraPreconditioner(A, params): returns the set-up hierarchy.
Teuchos::RCP<hierarchy_type> CreateXpetraPreconditioner(const Teuchos::RCP<xpetra_matrix_type>& A,
                                                         const Teuchos::ParameterList& params);

// A MueLu::FactoryFactory that also knows "TridentRAPFactory" (same sub-parameters as
// "RAPFactory", incl. the "TransferFactories" sublist, plus "trident: ..." keys; unknown keys
// throw). Pass it to MueLu::ParameterListInterpreter(paramList, comm, factFact) to use Trident
// from an XML "Factories" list in your own setup code; the helpers above already do.
Teuchos::RCP<factory_factory_type> makeFactoryFactory();

// MueLu's smoothed-aggregation prolongator P (fine rows x coarse columns) for A, as a Tpetra
// matrix: one MueLu level of "multigrid algorithm" = "sa" with the given MueLu parameters (e.g.
// "aggregation: drop tol", "sa: damping factor", "number of equations"). A must be square.
Teuchos::RCP<crs_matrix_type> smoothedAggregationProlongator(
    const Teuchos::RCP<const crs_matrix_type>& A,
    const Teuchos::ParameterList& params = Teuchos::ParameterList());

// Prints one line per level (rows, nnz, ranks holding rows) and the operator complexity.
void describeHierarchy(hierarchy_type& H, std::ostream& os);

}  // namespace muelu
}  // namespace Trident
