#pragma once
// The "trident: ..." parameters of Multiply and MultiplyPlan as typed values: one list of valid
// keys (getValidParameters), one parser, every rank agreeing or every rank throwing.
#include <mpi.h>
#include <string>
#include <Teuchos_ParameterList.hpp>

namespace Trident {
namespace MatrixMatrix {

enum class Algorithm { Trident, Summa, Tpetra, Auto };
enum class GridChoice { Auto, Square, Rows };
enum class Fetch { Needed, Whole };
enum class SliceChoice { Auto, Balanced, Owners };

struct MultiplyOptions {
  // "auto": the least time the cheap distributed estimate predicts (Trident_AutoAlgorithm).
  Algorithm algorithm = Algorithm::Auto;
  int ranks_per_group = 0;  // 0: the MPI_COMM_TYPE_SHARED groups
  bool permute = false;
  int seed = 12345;
  std::string local_kernel = "gustavson";
  std::string device = "host";  // the backend (src/trident/backend): "host" or "cuda"
  int lookahead = 2;
  GridChoice grid = GridChoice::Auto;
  Fetch fetch = Fetch::Needed;
  // Balanced by default: the owners' cuts saved nothing measurable on one machine and the planner
  // ("trident: algorithm" = "auto", trident-plan) models balanced slices.
  SliceChoice slices = SliceChoice::Balanced;
  // Everything that is not "trident: ...", passed to Tpetra (fillComplete, Tpetra's Multiply).
  Teuchos::RCP<Teuchos::ParameterList> tpetra_params;

  // Collective over comm: an unknown key, a bad value or parameters that differ between ranks
  // throw InvalidInput on every rank.
  static MultiplyOptions parse(const Teuchos::RCP<Teuchos::ParameterList>& params, MPI_Comm comm);
};

std::string toString(Algorithm a);

// The parameters Multiply understands, with defaults and documentation.
Teuchos::RCP<const Teuchos::ParameterList> getValidParameters();

}  // namespace MatrixMatrix
}  // namespace Trident
