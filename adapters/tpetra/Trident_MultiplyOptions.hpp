#pragma once
// The "trident: ..." parameters of Multiply and MultiplyPlan as typed values: one list of valid
// keys (getValidParameters), one parser, every rank agreeing or every rank throwing.
#include <mpi.h>

#include <cstddef>
#include <string>
#include <Teuchos_ParameterList.hpp>

#include <trident/core/Errors.hpp>

namespace Trident {
namespace MatrixMatrix {

enum class Algorithm { Trident, Summa, Tpetra, OneD, Auto };
enum class GridChoice { Auto, Square, Rows };
enum class Fetch { Needed, Whole };
enum class SliceChoice { Auto, Balanced, Owners };
enum class BlockChoice { Auto, Even, Balanced };
enum class GiPacing { Eager, Ready };
enum class ShareChoice { Auto, Always, Never };

// The defaults here are getValidParameters()'s (test_options checks that they agree); parse()
// takes them from there.
struct MultiplyOptions {
  // "auto": the least time the cheap distributed estimate predicts (Trident_AutoAlgorithm).
  Algorithm algorithm = Algorithm::Auto;
  int ranks_per_group = 0;  // 0: the MPI_COMM_TYPE_SHARED groups
  bool permute = false;
  int seed = 12345;
  std::string local_kernel = "gustavson";
  std::string device = "host";  // the backend (src/trident/backend): "host" or "cuda"
  int lookahead = 2;
  // Ready: Trident's Gi tiles wait until the receiving group has finished its in phase (GiFetch).
  GiPacing gi_pacing = GiPacing::Eager;
  GridChoice grid = GridChoice::Auto;
  Fetch fetch = Fetch::Needed;
  // Owner slices where they cost little imbalance (see ownerCuts in Trident_MultiplyPlan.cpp).
  SliceChoice slices = SliceChoice::Auto;
  // A's row blocks cut by work where the groups are uneven and Gi is fast enough
  // (planner/BlockBalance.hpp); not with owner slices.
  BlockChoice blocks = BlockChoice::Auto;
  // The "1d" product shares a group's rows by work inside the group where one rank has over 15 %
  // more than the average (Trident_NodeWorkSharing); auto: where no node runs more ranks than it
  // has cores.
  ShareChoice share_node_work = ShareChoice::Auto;
  // Count Tpetra's import bytes and multiply-adds when Tpetra's Multiply runs (one more import).
  bool count_bytes = true;
  // "auto" reuses the choice it counted for the same operands in an earlier call
  // (Trident_AutoChoiceMemory.hpp).
  bool remember_auto_choice = true;
  // "auto" may decide from the estimate without counting (Trident_AutoAlgorithm.hpp).
  bool estimate_auto_choice = true;
  // Everything that is not "trident: ...", passed to Tpetra (fillComplete, Tpetra's Multiply).
  Teuchos::RCP<Teuchos::ParameterList> tpetra_params;

  // Collective over comm: an unknown key, a bad value or parameters that differ between ranks
  // throw InvalidInput on every rank.
  static MultiplyOptions parse(const Teuchos::RCP<Teuchos::ParameterList>& params, MPI_Comm comm);
  // The same in two halves, so that the caller's other checks share the one collective: parse
  // records a bad key or value as this rank's failure in check and contributes the values every
  // rank must hold alike; after check.run(comm), requireAgreement throws on every rank if they differ.
  static MultiplyOptions parse(const Teuchos::RCP<Teuchos::ParameterList>& params, CollectiveCheck& check);
  void requireAgreement(const CollectiveCheck& check) const;

 private:
  void readValues(const Teuchos::ParameterList& given, const Teuchos::ParameterList& valid);
  std::size_t first_slot_ = 0, slots_ = 0;  // this parse's values in the CollectiveCheck
};

std::string toString(Algorithm a);

// The parameters Multiply understands, with defaults and documentation.
Teuchos::RCP<const Teuchos::ParameterList> getValidParameters();

}  // namespace MatrixMatrix
}  // namespace Trident
