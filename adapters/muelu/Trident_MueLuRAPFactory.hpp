#pragma once
// MueLu coarse-operator factories that compute the Galerkin product Ac = R*A*P with Trident.
//
// TridentRAPFactory is a drop-in replacement for MueLu::RAPFactory (it derives from it, so
// RepartitionHeuristicFactory / RebalanceAcFactory / Zoltan2Interface and everything else that
// dynamic_casts to RAPFactory keeps working). Its Build() is MueLu 13.2's RAPFactory::Build with
// the two matrix-matrix products done by Trident::MatrixMatrix::Multiply:
//     AP = A*P,  then  Ac = R*(AP)   (explicit R)   or   Ac = P^T*(AP)   ("transpose: use implicit")
// Everything else is RAPFactory's: strided maps / block size (CreateView("stridedMaps")), the
// transfer factories added with AddTransferFactory (coordinates, block numbers, aggregate export),
// "rap: fix zero diagonals*", "rap: relative diagonal floor", CheckMainDiagonal/RepairMainDiagonal,
// "matrixmatrix: kernel params", parameter validation (an unknown parameter throws
// Teuchos::Exceptions::InvalidParameterName). "rap: triple product" is accepted and computed as the
// same two Trident products (values equal to rounding). The reuse data ("AP/RAP reuse data", kept by
// MueLu for "reuse: type" = "RP" or "tP") carries each product's MultiplyPlan: a setup that reuses the
// hierarchy (MueLu::ReuseTpetraPreconditioner) re-executes the plans, values only, into the same
// matrices in place; if a pattern changed, new plans are built.
//
// Extra parameters (forwarded to Trident::MatrixMatrix::Multiply, validated by it):
//   "trident: algorithm", "trident: ranks per group", "trident: permute", ... (see
//   Trident_MatrixMatrix.hpp / Trident::MatrixMatrix::getValidParameters()).
//
// TimedRAPFactory is the stock MueLu::RAPFactory (Build = RAPFactory::Build) that only records its
// wall time in rapStats(), so the stock and Trident setups can be timed the same way.
#include <cstdint>
#include <string>
#include <vector>

#include <MueLu_RAPFactory_decl.hpp>
#include <MueLu_Level_fwd.hpp>
#include <Teuchos_ParameterList.hpp>

#include "Trident_TpetraTypes.hpp"
#include <trident/stats/MultiplyStats.hpp>

namespace Trident {
namespace muelu {

using rap_factory_base = MueLu::RAPFactory<Scalar, LO, GO, Node>;
struct RAPLevelRecord;

class TridentRAPFactory : public rap_factory_base {
 public:
  TridentRAPFactory() = default;
  ~TridentRAPFactory() override = default;

  // RAPFactory's valid parameters + Trident::MatrixMatrix::getValidParameters().
  Teuchos::RCP<const Teuchos::ParameterList> GetValidParameterList() const override;
  void DeclareInput(MueLu::Level& fineLevel, MueLu::Level& coarseLevel) const override;
  void Build(MueLu::Level& fineLevel, MueLu::Level& coarseLevel) const override;
  std::string description() const override { return "TridentRAPFactory"; }

 private:
  // Qualified: inside the class, the short names are RAPFactory's own (private) typedefs.
  using xpetra_matrix = Xpetra::Matrix<Trident::Scalar, Trident::LO, Trident::GO, Trident::Node>;
  using xpetra_matrix_ptr = Teuchos::RCP<xpetra_matrix>;

  // The steps of Build, named after what RAPFactory::Build does at that point.
  bool computeAc(MueLu::Level& fineLevel, MueLu::Level& coarseLevel, RAPLevelRecord& rec) const;
  bool fetchOperators(MueLu::Level& fineLevel, MueLu::Level& coarseLevel, xpetra_matrix_ptr& A,
                      xpetra_matrix_ptr& P) const;
  xpetra_matrix_ptr fetchRestriction(MueLu::Level& coarseLevel) const;
  void fitRanksPerGroup(Teuchos::ParameterList& tparams, const xpetra_matrix& A, const MueLu::Level& coarseLevel) const;
  void finishAc(xpetra_matrix_ptr& Ac, const Teuchos::ParameterList& pL, MueLu::Level& coarseLevel,
                RAPLevelRecord& rec) const;
  void runTransferFactories(MueLu::Level& coarseLevel) const;

  mutable bool declared_ = false;
};

class TimedRAPFactory : public rap_factory_base {
 public:
  void Build(MueLu::Level& fineLevel, MueLu::Level& coarseLevel) const override;
  std::string description() const override { return "RAPFactory(timed)"; }
};

// Transfer factories registered on a RAPFactory (MueLu 13.2 keeps them private, without a getter).
std::vector<Teuchos::RCP<const MueLu::FactoryBase>> transferFactories(const rap_factory_base& rap);

// ---- What the RAP factories did on this rank (reset with resetRAPStats) ---------------------------
struct RAPLevelRecord {
  int level = 0;                  // coarse level id
  std::string method;             // "trident" or "stock"
  double seconds = 0;             // wall time of the factory's Build on this rank
  long long ac_rows = 0, ac_nnz = 0;
  MultiplyStats ap, rap;          // Trident stats of A*P and R*(AP) (empty for "stock")
  bool reused = false;            // both products re-executed kept plans (MueLu reuse), values only
};
struct RAPStats {
  std::vector<RAPLevelRecord> levels;
  double seconds = 0;             // sum of the Build times on this rank
  int trident_builds = 0, stock_builds = 0;
  int reused_builds = 0;          // Trident builds that re-executed kept plans
  // Bytes this rank moved inside the Trident multiplies, summed over all of them.
  std::uint64_t gi_bytes_sent = 0, gi_bytes_recv = 0, li_bytes_sent = 0, li_bytes_recv = 0;
};
const RAPStats& rapStats();
void resetRAPStats();

}  // namespace muelu
}  // namespace Trident
