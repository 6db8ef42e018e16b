// The MueLu adapter: TridentRAPFactory, the FactoryFactory that knows it, and the one-call helpers.
// All MueLu-heavy code lives in this one translation unit (a MueLu TU costs ~1 GB and a minute).
#include "Trident_MueLuRAPFactory.hpp"
#include "Trident_CreatePreconditioner.hpp"

#include <mpi.h>

#include <map>
#include <numeric>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <typeinfo>

#include <Teuchos_XMLParameterListHelpers.hpp>
#include <Xpetra_CrsMatrixWrap.hpp>
#include <Xpetra_MatrixUtils.hpp>
#include <Xpetra_TpetraCrsMatrix.hpp>

#include <MueLu_CreateXpetraPreconditioner.hpp>
#include <MueLu_FactoryFactory.hpp>
// BuildRAPFactory<TridentRAPFactory> is instantiated here: MueLu 16 defines that member template in
// the _def header (13.2's _def is empty: its _decl holds the definitions).
#include <MueLu_FactoryFactory_def.hpp>
#include <MueLu_FactoryManager.hpp>
#include <MueLu_HierarchyUtils.hpp>
#include <MueLu_Level.hpp>
#include <MueLu_Monitor.hpp>
#include <MueLu_ParameterListInterpreter.hpp>
#include <MueLu_PerfUtils.hpp>
#include <MueLu_RAPFactory.hpp>
#include <MueLu_TpetraOperator.hpp>
#include <MueLu_Utilities.hpp>

#include "Trident_MatrixMatrix.hpp"
#include "Trident_MueLuCompat.hpp"
#include <trident/core/Errors.hpp>

namespace Trident {
namespace muelu {

using Teuchos::ParameterList;
using Teuchos::RCP;
using Teuchos::rcp;
using Teuchos::rcp_const_cast;
using Teuchos::rcp_dynamic_cast;
using XMat = Xpetra::Matrix<Scalar, LO, GO, Node>;
using XHelpers = Xpetra::Helpers<Scalar, LO, GO, Node>;
using XMatrixUtils = Xpetra::MatrixUtils<Scalar, LO, GO, Node>;
using FacBase = MueLu::FactoryBase;
using FacMap = std::map<std::string, RCP<const FacBase>>;
using FacManagerMap = std::map<std::string, RCP<MueLu::FactoryManagerBase>>;
using FacManager = MueLu::FactoryManager<Scalar, LO, GO, Node>;

// ---------------------------------------------------------------------------------------------
// RAPFactory keeps its transfer factories in a private vector without a getter; the factories
// added through a RAPFactory pointer (ParameterListInterpreter does that for coordinates, block
// numbers and aggregate export) must still be run by TridentRAPFactory::Build. Reach the member
// with the standard explicit-instantiation access rule ([temp.spec]/6: access checking does not
// apply to names in explicit instantiations).
namespace {
struct TransferFactsTag {
  using type = std::vector<RCP<const FacBase>> rap_factory_base::*;
  friend type memberPtr(TransferFactsTag);
};
template <class Tag, typename Tag::type M>
struct MemberAccess {
  friend typename Tag::type memberPtr(Tag) { return M; }
};
template struct MemberAccess<TransferFactsTag, &rap_factory_base::transferFacts_>;
}  // namespace

std::vector<RCP<const FacBase>> transferFactories(const rap_factory_base& rap) {
  return rap.*memberPtr(TransferFactsTag{});
}

// ---------------------------------------------------------------------------------------------
namespace {
RAPStats& statsRef() {
  static RAPStats s;
  return s;
}

void record(RAPLevelRecord rec) {
  RAPStats& s = statsRef();
  s.seconds += rec.seconds;
  if (rec.method == "trident") {
    ++s.trident_builds;
    if (rec.reused) ++s.reused_builds;
    for (const MultiplyStats* m : {&rec.ap, &rec.rap}) {
      s.gi_bytes_sent += m->gi_bytes_sent;
      s.gi_bytes_recv += m->gi_bytes_recv;
      s.li_bytes_sent += m->li_bytes_sent;
      s.li_bytes_recv += m->li_bytes_recv;
    }
  } else {
    ++s.stock_builds;
  }
  s.levels.push_back(std::move(rec));
}

void fillSizes(RAPLevelRecord& rec, const MueLu::Level& coarseLevel, const rap_factory_base* fac) {
  MueLu::Level& lvl = const_cast<MueLu::Level&>(coarseLevel);
  if (lvl.IsAvailable("A", fac)) {
    RCP<XMat> Ac = lvl.Get<RCP<XMat>>("A", fac);
    if (!Ac.is_null()) {
      rec.ac_rows = static_cast<long long>(Ac->getGlobalNumRows());
      rec.ac_nnz = static_cast<long long>(Ac->getGlobalNumEntries());
    }
  }
}

bool startsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// The "trident: " entries of a factory's list that the user set (not the validated defaults).
RCP<ParameterList> tridentParamsOf(const ParameterList& pL) {
  auto out = rcp(new ParameterList("trident"));
  for (auto it = pL.begin(); it != pL.end(); ++it) {
    const std::string& name = pL.name(it);
    if (startsWith(name, "trident: ") && !pL.entry(it).isDefault()) out->setEntry(name, pL.entry(it));
  }
  return out;
}

void checkSquare(const XMat& A, const std::string& who) {
  const auto rows = A.getGlobalNumRows(), cols = A.getGlobalNumCols();
  if (rows != cols || !A.getDomainMap()->isSameAs(*A.getRangeMap())) {
    std::ostringstream os;
    os << who << ": the operator A must be square with equal domain and range maps (A is " << rows << " x "
       << cols << ")";
    throw std::invalid_argument(os.str());
  }
}

using plan_type = Trident::MatrixMatrix::MultiplyPlan;
const char* const kPlanKey = "Trident plan";

// MueLu's reuse data of one product ("AP reuse data", "RAP reuse data"): "graph" is the product
// of the previous setup (as stock RAPFactory keeps it); Trident adds its kept MultiplyPlan. With
// both, a new setup with the same patterns ("reuse: type" = "RP" or "tP", MueLu::ReuseTpetraPreconditioner)
// executes the plan: values only, written into that same matrix in place.
struct Reuse {
  RCP<XMat> C;
  RCP<plan_type> plan;
};
Reuse reuseOf(const RCP<ParameterList>& data) {
  Reuse r;
  if (data.is_null()) return r;
  if (data->isType<RCP<XMat>>("graph")) r.C = data->get<RCP<XMat>>("graph");
  if (data->isType<RCP<plan_type>>(kPlanKey)) r.plan = data->get<RCP<plan_type>>(kPlanKey);
  return r;
}

// Xpetra::MatrixMatrix::Multiply (the variant RAPFactory calls) with Trident doing the product,
// through a plan: `reuse` in (earlier plan and product, may be empty), out (this one's). The plan
// is kept (keep: MueLu keeps the reuse data past this setup, "reuse: type") or run once: a kept
// plan fingerprints A's stored zeros, a pass over A's values that a setup which is never reused
// should not pay (1.0-1.2 ms of 36 on the 2D Laplacian 400^2 at P = 2).
RCP<XMat> tridentMultiply(const XMat& A, bool transposeA, const XMat& B, bool transposeB,
                            const std::string& label, const RCP<ParameterList>& params, MultiplyStats* stats,
                            Reuse& reuse, bool keep) {
  TEUCHOS_TEST_FOR_EXCEPTION(!A.isFillComplete(), MueLu::Exceptions::RuntimeError, "TridentRAPFactory: " << label << ": A is not fill-complete");
  TEUCHOS_TEST_FOR_EXCEPTION(!B.isFillComplete(), MueLu::Exceptions::RuntimeError, "TridentRAPFactory: " << label << ": B is not fill-complete");
  const crs_matrix_type& tpA = XHelpers::Op2TpetraCrs(A);
  const crs_matrix_type& tpB = XHelpers::Op2TpetraCrs(B);
  RCP<const map_type> rowMap = transposeA ? tpA.getDomainMap() : tpA.getRowMap();
  if (!reuse.plan.is_null() && !reuse.C.is_null()) {
    RCP<crs_matrix_type> tpC = XHelpers::Op2NonConstTpetraCrs(reuse.C);
    bool done = false;
    try {
      reuse.plan->execute(tpA, tpB, *tpC, true, label);
      done = true;
    } catch (const Trident::InvalidInput&) {
      // A new pattern (thrown on every rank alike): plan again below.
    }
    if (done) {
      if (stats) *stats = reuse.plan->stats();
      return reuse.C;
    }
  }
  RCP<crs_matrix_type> tpC = rcp(new crs_matrix_type(rowMap, size_t(0)));
  reuse.plan = rcp(new plan_type(tpA, transposeA, tpB, transposeB, params, keep, tpC.get()));
  reuse.plan->execute(tpA, tpB, *tpC, true, label);
  if (stats) *stats = reuse.plan->stats();
  if (!keep) reuse.plan = Teuchos::null;
  RCP<XMat> C = MueLu::TpetraCrs_To_XpetraMatrix<Scalar, LO, GO, Node>(tpC);
  reuse.C = C;
  // transfer striding information (block size), as Xpetra::MatrixMatrix::Multiply does
  C->CreateView("stridedMaps", rcp_const_cast<XMat>(Teuchos::rcpFromRef(A)), transposeA,
                rcp_const_cast<XMat>(Teuchos::rcpFromRef(B)), transposeB);
  return C;
}

// A product's parameters as the running MueLu's RAPFactory::Build starts them: the factory's
// "matrixmatrix: kernel params", placed where that version places them (Trident_MueLuCompat.hpp).
RCP<ParameterList> productParams(const ParameterList& pL) {
  RCP<ParameterList> params = rcp(new ParameterList);
  if (!pL.isSublist("matrixmatrix: kernel params")) return params;
  if (MueLuCompat::kKernelParamsAtTop) return rcp(new ParameterList(pL.sublist("matrixmatrix: kernel params")));
  params->sublist("matrixmatrix: kernel params") = pL.sublist("matrixmatrix: kernel params");
  return params;
}

RCP<ParameterList> merged(const RCP<ParameterList>& base, const ParameterList& extra) {
  auto out = rcp(new ParameterList(*base));
  for (auto it = extra.begin(); it != extra.end(); ++it) out->setEntry(extra.name(it), extra.entry(it));
  return out;
}
}  // namespace

const RAPStats& rapStats() { return statsRef(); }
void resetRAPStats() { statsRef() = RAPStats(); }

// ---------------------------------------------------------------------------------------------
RCP<const ParameterList> TridentRAPFactory::GetValidParameterList() const {
  auto valid = rcp(new ParameterList(*rap_factory_base::GetValidParameterList()));
  RCP<const ParameterList> tp = Trident::MatrixMatrix::getValidParameters();
  for (auto it = tp->begin(); it != tp->end(); ++it)
    if (startsWith(tp->name(it), "trident: ")) valid->setEntry(tp->name(it), tp->entry(it));
  // A setup pays for what it asks: counting the bytes of the products Tpetra's Multiply does costs
  // one more import per product, a diagnostic that MueLu's users ask for by name.
  const Teuchos::ParameterEntry& count = tp->getEntry("trident: count bytes");
  valid->set("trident: count bytes", false, count.docString(), count.validator());
  return valid;
}

void TridentRAPFactory::DeclareInput(MueLu::Level& fineLevel, MueLu::Level& coarseLevel) const {
  try {
    rap_factory_base::DeclareInput(fineLevel, coarseLevel);  // R (explicit), A, P, transfer factories
  } catch (std::exception& e) {
    TEUCHOS_TEST_FOR_EXCEPTION(true, MueLu::Exceptions::RuntimeError,
                               "TridentRAPFactory: missing input for coarse level " << coarseLevel.GetLevelID()
                               << " (needs A on the fine level, a prolongator P and, unless \"transpose: use implicit\", "
                               << "a restriction R on the coarse level): " << e.what());
  }
  declared_ = true;
}

namespace {
// The "trident: " parameters every product of the factory runs with.
RCP<ParameterList> productTridentParams(const ParameterList& pL) {
  const RCP<ParameterList> tparams = tridentParamsOf(pL);
  // Unless the user names one, each product runs the algorithm the planner predicts fastest:
  // on the FE and banded operators of AMG that is usually Tpetra's own Multiply.
  if (!tparams->isParameter("trident: algorithm")) tparams->set("trident: algorithm", std::string("auto"));
  if (!tparams->isParameter("trident: count bytes")) tparams->set("trident: count bytes", false);  // see GetValidParameterList
  return tparams;
}

// The reuse data an earlier setup left on the coarse level for this factory, if any.
void loadReuse(MueLu::Level& coarseLevel, const rap_factory_base* fac, Reuse& apReuse, Reuse& rapReuse) {
  if (coarseLevel.IsAvailable("AP reuse data", fac))
    apReuse = reuseOf(coarseLevel.Get<RCP<ParameterList>>("AP reuse data", fac));
  if (coarseLevel.IsAvailable("RAP reuse data", fac))
    rapReuse = reuseOf(coarseLevel.Get<RCP<ParameterList>>("RAP reuse data", fac));
}
}  // namespace

// MueLu's RAPFactory::Build (13.2 and 16.1), non-triple-product branch, with Trident products;
// where the two versions differ it does what the running one does (Trident_MueLuCompat.hpp).
void TridentRAPFactory::Build(MueLu::Level& fineLevel, MueLu::Level& coarseLevel) const {
  const double t0 = MPI_Wtime();
  RAPLevelRecord rec;
  rec.level = coarseLevel.GetLevelID();
  rec.method = "trident";
  {
    MueLu::FactoryMonitor m(*this, "Computing Ac", coarseLevel);
    if (!computeAc(fineLevel, coarseLevel, rec)) return;
  }
  runTransferFactories(coarseLevel);
  rec.seconds = MPI_Wtime() - t0;
  record(std::move(rec));
}

// Ac = R*(A*P) (or P^T*(A*P)) set on the coarse level, with its reuse data; false when there is
// no coarse level to build (a null prolongator, MueLu 16).
bool TridentRAPFactory::computeAc(MueLu::Level& fineLevel, MueLu::Level& coarseLevel, RAPLevelRecord& rec) const {
  using namespace MueLu;
  const bool doTranspose = true;
  std::ostringstream levelstr;
  levelstr << coarseLevel.GetLevelID();
  std::string labelstr = FormattingHelper::getColonLabel(coarseLevel.getObjectLabel());

  TEUCHOS_TEST_FOR_EXCEPTION(!declared_, Exceptions::RuntimeError,
                             "Trident::muelu::TridentRAPFactory::Build(): CallDeclareInput has not been called before Build!");

  const ParameterList& pL = GetParameterList();
  const RCP<ParameterList> tparams = productTridentParams(pL);

  RCP<XMat> A, P, AP, Ac;
  if (!fetchOperators(fineLevel, coarseLevel, A, P)) {
    // No aggregates on this level: MueLu 16's Hierarchy drops the level on a null Ac.
    Set(coarseLevel, "A", Ac);
    return false;
  }
  fitRanksPerGroup(*tparams, *A, coarseLevel);

  if (pL.get<bool>("rap: triple product"))
    GetOStream(Runtime0) << "TridentRAPFactory: \"rap: triple product\" computed as R x (A x P) with Trident" << std::endl;

  RCP<ParameterList> APparams = productParams(pL);
  // By default, we don't need global constants for A*P
  APparams->set("compute global constants: temporaries", APparams->get("compute global constants: temporaries", false));
  APparams->set("compute global constants", APparams->get("compute global constants", false));
  Reuse apReuse, rapReuse;
  loadReuse(coarseLevel, this, apReuse, rapReuse);
  if (!apReuse.plan.is_null())
    GetOStream(static_cast<MsgType>(Runtime0 | Test)) << "TridentRAPFactory: reusing the kept Trident plans" << std::endl;
  // The coarse matrix's values are about to change: an eigenvalue estimate a smoother cached on
  // it in the previous setup is stale (as stock RAPFactory resets it).
  if (!rapReuse.C.is_null()) rapReuse.C->SetMaxEigenvalueEstimate(-Teuchos::ScalarTraits<Scalar>::one());
  // Whether MueLu keeps the reuse data past this setup (the flags "reuse: type" sets, moved to
  // this factory when it replaced the stock one): only then are the plans built to be kept.
  const bool keepAP = coarseLevel.IsKept("AP reuse data", this, MueLu::All);
  const bool keepRAP = coarseLevel.IsKept("RAP reuse data", this, MueLu::All);

  {
    SubFactoryMonitor subM(*this, "MxM: A x P (Trident)", coarseLevel);
    AP = tridentMultiply(*A, !doTranspose, *P, !doTranspose, labelstr + std::string("MueLu::A*P-") + levelstr.str(),
                         merged(APparams, *tparams), &rec.ap, apReuse, keepAP);
  }

  RCP<ParameterList> RAPparams = productParams(pL);
  // We *always* need global constants for the RAP, but not for the temps
  RAPparams->set("compute global constants: temporaries", RAPparams->get("compute global constants: temporaries", false));
  RAPparams->set("compute global constants", true);

  if (pL.get<bool>("transpose: use implicit") == true) {
    SubFactoryMonitor m2(*this, "MxM: P' x (AP) (implicit, Trident)", coarseLevel);
    Ac = tridentMultiply(*P, doTranspose, *AP, !doTranspose,
                         labelstr + std::string("MueLu::R*(AP)-implicit-") + levelstr.str(), merged(RAPparams, *tparams), &rec.rap,
                         rapReuse, keepRAP);
  } else {
    RCP<XMat> R = fetchRestriction(coarseLevel);
    SubFactoryMonitor m2(*this, "MxM: R x (AP) (explicit, Trident)", coarseLevel);
    Ac = tridentMultiply(*R, !doTranspose, *AP, !doTranspose,
                         labelstr + std::string("MueLu::R*(AP)-explicit-") + levelstr.str(), merged(RAPparams, *tparams), &rec.rap,
                         rapReuse, keepRAP);
  }

  finishAc(Ac, pL, coarseLevel, rec);

  APparams->set("graph", AP);
  APparams->set(kPlanKey, apReuse.plan);
  Set(coarseLevel, "AP reuse data", APparams);
  RAPparams->set("graph", Ac);
  RAPparams->set(kPlanKey, rapReuse.plan);
  Set(coarseLevel, "RAP reuse data", RAPparams);
  rec.reused = rec.ap.reused_plan && rec.rap.reused_plan;
  return true;
}

// A from the fine level and P from the coarse one, checked to fit; false when P is null and the
// running MueLu ends the hierarchy there (Trident_MueLuCompat.hpp).
bool TridentRAPFactory::fetchOperators(MueLu::Level& fineLevel, MueLu::Level& coarseLevel, RCP<XMat>& A,
                                       RCP<XMat>& P) const {
  using namespace MueLu;
  try {
    A = Get<RCP<XMat>>(fineLevel, "A");
  } catch (std::exception& e) {
    TEUCHOS_TEST_FOR_EXCEPTION(true, Exceptions::RuntimeError,
                               "TridentRAPFactory: no fine-level matrix A on level " << fineLevel.GetLevelID() << ": " << e.what());
  }
  try {
    P = Get<RCP<XMat>>(coarseLevel, "P");
  } catch (std::exception& e) {
    TEUCHOS_TEST_FOR_EXCEPTION(true, Exceptions::RuntimeError,
                               "TridentRAPFactory: no prolongator P on level " << coarseLevel.GetLevelID()
                               << " (give the factory a \"P\" factory, e.g. SetFactory(\"P\", ...)): " << e.what());
  }
  TEUCHOS_TEST_FOR_EXCEPTION(A.is_null(), Exceptions::RuntimeError, "TridentRAPFactory: the fine-level matrix A is null");
  if (P.is_null() && MueLuCompat::kNullProlongatorEndsHierarchy) return false;
  TEUCHOS_TEST_FOR_EXCEPTION(P.is_null(), Exceptions::RuntimeError, "TridentRAPFactory: the prolongator P on level " << coarseLevel.GetLevelID() << " is null");
  try {
    checkSquare(*A, "TridentRAPFactory");
  } catch (std::invalid_argument& e) {
    TEUCHOS_TEST_FOR_EXCEPTION(true, Exceptions::RuntimeError, e.what());
  }
  TEUCHOS_TEST_FOR_EXCEPTION(P->getGlobalNumRows() != A->getGlobalNumCols(), Exceptions::RuntimeError,
                             "TridentRAPFactory: P has " << P->getGlobalNumRows() << " rows but A has " << A->getGlobalNumCols() << " columns");
  return true;
}

RCP<XMat> TridentRAPFactory::fetchRestriction(MueLu::Level& coarseLevel) const {
  using namespace MueLu;
  RCP<XMat> R;
  try {
    R = Get<RCP<XMat>>(coarseLevel, "R");
  } catch (std::exception& e) {
    TEUCHOS_TEST_FOR_EXCEPTION(true, Exceptions::RuntimeError,
                               "TridentRAPFactory: no restriction R on level " << coarseLevel.GetLevelID()
                               << " (set \"transpose: use implicit\" or give an \"R\" factory): " << e.what());
  }
  TEUCHOS_TEST_FOR_EXCEPTION(R.is_null(), Exceptions::RuntimeError, "TridentRAPFactory: the restriction R is null");
  return R;
}

// After repartitioning, coarse levels live on a subcommunicator: a "trident: ranks per group"
// that does not divide its size is reduced to the largest common divisor.
void TridentRAPFactory::fitRanksPerGroup(ParameterList& tparams, const XMat& A, const MueLu::Level& coarseLevel) const {
  if (!tparams.isType<int>("trident: ranks per group")) return;
  const int Pc = A.getRowMap()->getComm()->getSize();
  const int lam = tparams.get<int>("trident: ranks per group");
  if (lam > 0 && Pc % lam != 0) {
    const int g = std::gcd(lam, Pc);
    GetOStream(MueLu::Runtime0) << "TridentRAPFactory: level " << coarseLevel.GetLevelID() << " runs on " << Pc
                                << " ranks; \"trident: ranks per group\" " << lam << " -> " << g << std::endl;
    tparams.set("trident: ranks per group", g);
  }
}

// What RAPFactory::Build does to Ac after the products: the diagonal floor and repair, the
// statistics, its label; then Ac is set on the coarse level.
void TridentRAPFactory::finishAc(RCP<XMat>& Ac, const ParameterList& pL, MueLu::Level& coarseLevel,
                                 RAPLevelRecord& rec) const {
  using namespace MueLu;
  Teuchos::ArrayView<const double> relativeFloor = pL.get<Teuchos::Array<double>>("rap: relative diagonal floor")();
  if (relativeFloor.size() > 0) XMatrixUtils::RelativeDiagonalBoost(Ac, relativeFloor, GetOStream(Statistics2));

  bool repairZeroDiagonals = pL.get<bool>("RepairMainDiagonal") || pL.get<bool>("rap: fix zero diagonals");
  bool checkAc = pL.get<bool>("CheckMainDiagonal") || pL.get<bool>("rap: fix zero diagonals");
  if (checkAc || repairZeroDiagonals) {
    using magnitudeType = typename Teuchos::ScalarTraits<Scalar>::magnitudeType;
    magnitudeType threshold;
    if (pL.isType<magnitudeType>("rap: fix zero diagonals threshold"))
      threshold = pL.get<magnitudeType>("rap: fix zero diagonals threshold");
    else
      threshold = Teuchos::as<magnitudeType>(pL.get<double>("rap: fix zero diagonals threshold"));
    Scalar replacement = Teuchos::as<Scalar>(pL.get<double>("rap: fix zero diagonals replacement"));
    XMatrixUtils::CheckRepairMainDiagonal(Ac, repairZeroDiagonals, GetOStream(Warnings1), threshold, replacement);
  }

  if (IsPrint(Statistics2)) {
    RCP<ParameterList> params = rcp(new ParameterList());
    params->set("printLoadBalancingInfo", true);
    params->set("printCommInfo", true);
    GetOStream(Statistics2) << MueLu::PerfUtils<Trident::Scalar, Trident::LO, Trident::GO, Trident::Node>::PrintMatrixInfo(*Ac, "Ac", params);
  }

  if (!Ac.is_null()) {
    std::ostringstream oss;
    oss << "A_" << coarseLevel.GetLevelID();
    Ac->setObjectLabel(oss.str());
    rec.ac_rows = static_cast<long long>(Ac->getGlobalNumRows());
    rec.ac_nnz = static_cast<long long>(Ac->getGlobalNumEntries());
  }
  Set(coarseLevel, "A", Ac);
}

// The transfer factories added to this factory (coordinates, block numbers, aggregate export).
void TridentRAPFactory::runTransferFactories(MueLu::Level& coarseLevel) const {
  const auto transfers = transferFactories(*this);
  if (transfers.empty()) return;
  MueLu::SubFactoryMonitor m(*this, "Projections", coarseLevel);
  for (const auto& fac : transfers) {
    GetOStream(MueLu::Runtime0) << "TridentRAPFactory: call transfer factory: " << fac->description() << std::endl;
    fac->CallBuild(coarseLevel);
    coarseLevel.Release(*fac);  // see RAPFactory::Build for why transfer factories are released here
  }
}

void TimedRAPFactory::Build(MueLu::Level& fineLevel, MueLu::Level& coarseLevel) const {
  const double t0 = MPI_Wtime();
  rap_factory_base::Build(fineLevel, coarseLevel);
  RAPLevelRecord rec;
  rec.level = coarseLevel.GetLevelID();
  rec.method = "stock";
  rec.seconds = MPI_Wtime() - t0;
  fillSizes(rec, coarseLevel, this);
  record(std::move(rec));
}

// ---------------------------------------------------------------------------------------------
namespace {
class TridentFactoryFactory : public factory_factory_type {
 public:
  RCP<const FacBase> BuildFactory(const Teuchos::ParameterEntry& param, const FacMap& factoryMapIn,
                                      const FacManagerMap& factoryManagersIn) const override {
    std::string factoryName;
    ParameterList paramList;
    if (!param.isList()) {
      factoryName = Teuchos::getValue<std::string>(param);
    } else {
      paramList = Teuchos::getValue<ParameterList>(param);
      factoryName = paramList.get<std::string>("factory");
    }
    if (factoryName == "TridentRAPFactory") {
      // MueLu's Build2 silently ignores unknown keys; TridentRAPFactory rejects them.
      RCP<const ParameterList> valid = TridentRAPFactory().GetValidParameterList();
      for (auto it = paramList.begin(); it != paramList.end(); ++it) {
        const std::string& name = paramList.name(it);
        if (name == "factory" || name == "TransferFactories") continue;
        if (!valid->isParameter(name)) {
          std::ostringstream os;
          os << "TridentRAPFactory: unknown parameter \"" << name << "\" in the XML factory list; valid parameters:";
          for (auto v = valid->begin(); v != valid->end(); ++v) os << " \"" << valid->name(v) << "\"";
          throw std::invalid_argument(os.str());
        }
      }
      return this->template BuildRAPFactory<TridentRAPFactory>(paramList, factoryMapIn, factoryManagersIn);
    }
    return factory_factory_type::BuildFactory(param, factoryMapIn, factoryManagersIn);
  }
};

using interpreter_base = MueLu::ParameterListInterpreter<Scalar, LO, GO, Node>;

// Names a FacManager entry can have (easy-list interpreter and usual XML lists).
const char* const kManagerEntries[] = {
    "A", "P", "R", "Ptent", "Aggregates", "Graph", "DofsPerNode", "UnAmalgamationInfo", "CoarseMap", "Nullspace",
    "Coordinates", "Importer", "Partition", "number of partitions", "repartition: heuristic target rows per process",
    "Smoother", "PreSmoother", "PostSmoother", "CoarseSolver", "Filtering", "BlockNumber", "Node Comm", "Material",
    "P Graph", "AP Pattern", "Ppattern", "Constraint", "Scaled Nullspace", "CoarseNumZLayers", "LineDetection_Layers",
    "LineDetection_VertLineIds", "pcoarsen: element to node map", "DofStatus", "AggregateQualities", "Node Aggregate Map",
    "Node XMat", "CoarseDofsPerNode", "K", "M", "Mdiag", "D0", "SubBlockA", "FineMap", "numDimensions",
    "lCoarseNodesPerDim", "gCoarseNodesPerDim", "prolongatorGraph", "coarseCoordinates", "indexManager",
    "structuredInterpolationOrder", "Nullspace1", "Nullspace2"};

using replacement_map = std::map<const FacBase*, RCP<const FacBase>>;

// The factory that takes the place of the stock RAPFactory `old` (null: of the default one a
// manager would create): TridentRAPFactory with the "trident: " parameters on top of old's, or the
// timed stock one; old's transfer factories move over.
RCP<rap_factory_base> replacementFor(const rap_factory_base* old, bool useTrident, const ParameterList& tparams) {
  RCP<rap_factory_base> nr;
  ParameterList pl = old ? old->GetParameterList() : ParameterList();
  if (useTrident) {
    nr = rcp(new TridentRAPFactory());
    for (auto it = tparams.begin(); it != tparams.end(); ++it) pl.setEntry(tparams.name(it), tparams.entry(it));
  } else {
    nr = rcp(new TimedRAPFactory());
  }
  nr->SetParameterList(pl);
  if (old) {
    for (const auto& t : transferFactories(*old)) nr->AddTransferFactory(t);
  }
  return nr;
}

// Every factory reachable from the managers' entries through the factories' own dependencies
// (factory-valued parameters and a RAPFactory's transfer factories), each once.
std::vector<RCP<const FacBase>> reachableFactories(const std::vector<RCP<FacManager>>& managers) {
  std::vector<RCP<const FacBase>> all;
  std::set<const FacBase*> seen;
  std::vector<RCP<const FacBase>> stack;
  auto push = [&](const RCP<const FacBase>& f) {
    if (!f.is_null() && seen.insert(f.get()).second) {
      stack.push_back(f);
      all.push_back(f);
    }
  };
  for (const auto& fm : managers)
    for (const char* n : kManagerEntries)
      if (fm->hasFactory(n)) push(fm->GetFactory(n));
  while (!stack.empty()) {
    RCP<const FacBase> f = stack.back();
    stack.pop_back();
    auto fac = rcp_dynamic_cast<const MueLu::Factory>(f);
    if (fac.is_null()) continue;
    const ParameterList& pl = fac->GetParameterList();
    for (auto it = pl.begin(); it != pl.end(); ++it)
      if (pl.isType<RCP<const FacBase>>(pl.name(it))) push(pl.get<RCP<const FacBase>>(pl.name(it)));
    if (auto rap = rcp_dynamic_cast<const rap_factory_base>(f); !rap.is_null())
      for (const auto& t : transferFactories(*rap)) push(t);
  }
  return all;
}

// Points the factories' dependencies that name a replaced factory at its replacement.
void rewireDependencies(const std::vector<RCP<const FacBase>>& all, const replacement_map& repl) {
  for (const auto& f : all) {
    auto fac = rcp_const_cast<MueLu::Factory>(rcp_dynamic_cast<const MueLu::Factory>(f));
    if (fac.is_null()) continue;
    std::vector<std::pair<std::string, RCP<const FacBase>>> changes;
    const ParameterList& pl = fac->GetParameterList();
    for (auto it = pl.begin(); it != pl.end(); ++it) {
      const std::string& n = pl.name(it);
      if (!pl.isType<RCP<const FacBase>>(n)) continue;
      auto r = repl.find(pl.get<RCP<const FacBase>>(n).get());
      if (r != repl.end()) changes.emplace_back(n, r->second);
    }
    for (auto& c : changes) fac->SetFactory(c.first, c.second);
  }
}

// ParameterListInterpreter whose RAPFactory objects are swapped for TridentRAPFactory (or the timed
// stock one) after the factory managers are built and before the hierarchy is set up.
class Interpreter : public interpreter_base {
 public:
  Interpreter(ParameterList& paramList, const comm_ptr& comm, const RCP<factory_factory_type>& ff)
      : interpreter_base(paramList, comm, ff) {}

  void replaceRAPFactories(bool useTrident, const ParameterList& tparams) {
    const std::vector<RCP<FacManager>> managers = factoryManagers();
    const std::vector<RCP<const FacBase>> all = reachableFactories(managers);
    // Exact type: RAPShiftFactory, BlockedRAPFactory and already-Trident factories are left alone.
    replacement_map repl;
    for (const auto& f : all)
      if (typeid(*f) == typeid(rap_factory_base))
        repl[f.get()] = replacementFor(static_cast<const rap_factory_base*>(f.get()), useTrident, tparams);
    rewireManagers(managers, repl, useTrident, tparams);
    rewireDependencies(all, repl);
    rewireKeepFlags(repl);
  }

 private:
  std::vector<RCP<FacManager>> factoryManagers() const {
    std::vector<RCP<FacManager>> managers;
    for (size_t i = 0; i < this->getNumFactoryManagers(); ++i) {
      auto fm = rcp_dynamic_cast<FacManager>(this->GetFactoryManager(static_cast<int>(i)));
      if (!fm.is_null()) managers.push_back(fm);
    }
    return managers;
  }

  static void rewireManagers(const std::vector<RCP<FacManager>>& managers, const replacement_map& repl,
                             bool useTrident, const ParameterList& tparams) {
    for (auto& fm : managers) {
      for (const char* n : kManagerEntries)
        if (fm->hasFactory(n)) {
          auto it = repl.find(fm->GetFactory(n).get());
          if (it != repl.end()) fm->SetFactory(n, it->second);
        }
      // a manager without "A" would create a default RAPFactory at setup time
      if (!fm->hasFactory("A")) fm->SetFactory("A", replacementFor(nullptr, useTrident, tparams));
    }
  }

  // The keep flags ("reuse: type" and the like) move with the factory they were set for.
  void rewireKeepFlags(const replacement_map& repl) {
    for (auto& kv : this->keep_)
      for (auto& kp : kv.second) {
        auto r = repl.find(kp.second);
        if (r != repl.end()) kp.second = r->second.get();
      }
  }
};

// Removes the "trident: " keys from `list` (top level), validates them.
void splitTridentParams(ParameterList& list, bool& useTrident, ParameterList& tparams) {
  useTrident = true;
  RCP<const ParameterList> valid = Trident::MatrixMatrix::getValidParameters();
  std::vector<std::string> names;
  for (auto it = list.begin(); it != list.end(); ++it)
    if (startsWith(list.name(it), "trident: ")) names.push_back(list.name(it));
  for (const auto& n : names) {
    if (n == "trident: use for rap") {
      if (!list.isType<bool>(n))
        throw std::invalid_argument("Trident::muelu: parameter \"trident: use for rap\" must be a bool");
      useTrident = list.get<bool>(n);
    } else if (valid->isParameter(n)) {
      tparams.setEntry(n, list.getEntry(n));
    } else {
      std::ostringstream os;
      os << "Trident::muelu: unknown parameter \"" << n << "\"; valid Trident parameters: \"trident: use for rap\"";
      for (auto v = valid->begin(); v != valid->end(); ++v) os << ", \"" << valid->name(v) << "\"";
      throw std::invalid_argument(os.str());
    }
    list.remove(n);
  }
  // types and values
  ParameterList check(tparams);
  check.validateParameters(*valid, 0);
}
}  // namespace

RCP<factory_factory_type> makeFactoryFactory() { return rcp(new TridentFactoryFactory()); }

RCP<hierarchy_type> CreateXpetraPreconditioner(const RCP<xpetra_matrix_type>& op, const ParameterList& inParamList) {
  TEUCHOS_TEST_FOR_EXCEPTION(op.is_null(), std::invalid_argument, "Trident::muelu::CreateXpetraPreconditioner: A is null");
  checkSquare(*op, "Trident::muelu::CreateXpetraPreconditioner");
  if (!op->isFillComplete())
    throw std::invalid_argument("Trident::muelu::CreateXpetraPreconditioner: A must be fill-complete");

  ParameterList nonSerialList, paramList;
  MueLu::ExtractNonSerializableData(inParamList, paramList, nonSerialList);
  bool useTrident = true;
  ParameterList tparams("trident");
  splitTridentParams(paramList, useTrident, tparams);

  if (paramList.isParameter("parameterlist: syntax") && paramList.get<std::string>("parameterlist: syntax") == "ml")
    throw std::invalid_argument("Trident::muelu::CreateXpetraPreconditioner: the ML parameter syntax is not supported, use MueLu's");

  std::string label;
  if (paramList.isParameter("hierarchy label")) {
    label = paramList.get<std::string>("hierarchy label");
    paramList.remove("hierarchy label");
  } else {
    label = op->getObjectLabel();
  }
  std::string timerName = label != "" ? "MueLu setup time (" + label + ")" : "MueLu setup time";
  RCP<Teuchos::Time> tm = Teuchos::TimeMonitor::getNewTimer(timerName);
  tm->start();

  auto interp = rcp(new Interpreter(paramList, op->getDomainMap()->getComm(), makeFactoryFactory()));
  interp->replaceRAPFactories(useTrident, tparams);

  RCP<hierarchy_type> H = interp->CreateHierarchy(label);
  H->setlib(op->getDomainMap()->lib());
  MueLu::HierarchyUtils<Scalar, LO, GO, Node>::AddNonSerializableDataToHierarchy(*interp, *H, nonSerialList);
  H->GetLevel(0)->Set("A", op);
  H->SetProcRankVerbose(op->getDomainMap()->getComm()->getRank());
  interp->SetupHierarchy(*H);

  tm->stop();
  tm->incrementNumCalls();
  if (H->GetVerbLevel() & MueLu::Statistics0) {
    Teuchos::TimeMonitor::summarize(op->getRowMap()->getComm().ptr(), H->GetOStream(MueLu::Statistics0), true, true,
                                    false, Teuchos::Union, timerName, true);
  }
  tm->reset();
  return H;
}

RCP<muelu_tpetra_operator_type> CreateTpetraPreconditioner(const RCP<tpetra_operator_type>& inA,
                                                           ParameterList& inParamList) {
  using coord_mv = Tpetra::MultiVector<typename Teuchos::ScalarTraits<Scalar>::coordinateType, LO, GO, Node>;
  using xcoord_mv = Xpetra::MultiVector<typename Teuchos::ScalarTraits<Scalar>::coordinateType, LO, GO, Node>;
  using tmv = Tpetra::MultiVector<Scalar, LO, GO, Node>;
  using xmv = Xpetra::MultiVector<Scalar, LO, GO, Node>;
  TEUCHOS_TEST_FOR_EXCEPTION(inA.is_null(), std::invalid_argument, "Trident::muelu::CreateTpetraPreconditioner: A is null");
  RCP<crs_matrix_type> crsA = rcp_dynamic_cast<crs_matrix_type>(inA);
  if (crsA.is_null())
    throw std::invalid_argument("Trident::muelu::CreateTpetraPreconditioner: A must be a Tpetra::CrsMatrix");
  RCP<XMat> A = MueLu::TpetraCrs_To_XpetraMatrix<Scalar, LO, GO, Node>(crsA);

  ParameterList& userList = inParamList.sublist("user data");
  if (userList.isParameter("Coordinates")) {
    RCP<xcoord_mv> coordinates;
    try {
      coordinates = MueLu::TpetraMultiVector_To_XpetraMultiVector<typename Teuchos::ScalarTraits<Scalar>::coordinateType, LO, GO, Node>(
          userList.get<RCP<coord_mv>>("Coordinates"));
    } catch (Teuchos::Exceptions::InvalidParameterType&) {
      coordinates = userList.get<RCP<xcoord_mv>>("Coordinates");
    }
    userList.set<RCP<xcoord_mv>>("Coordinates", coordinates);
  }
  if (userList.isParameter("Nullspace")) {
    RCP<xmv> nullspace;
    try {
      nullspace = MueLu::TpetraMultiVector_To_XpetraMultiVector<Scalar, LO, GO, Node>(userList.get<RCP<tmv>>("Nullspace"));
    } catch (Teuchos::Exceptions::InvalidParameterType&) {
      nullspace = userList.get<RCP<xmv>>("Nullspace");
    }
    userList.set<RCP<xmv>>("Nullspace", nullspace);
  }
  RCP<hierarchy_type> H = CreateXpetraPreconditioner(A, inParamList);
  return rcp(new muelu_tpetra_operator_type(H));
}

RCP<muelu_tpetra_operator_type> CreateTpetraPreconditioner(const RCP<tpetra_operator_type>& A,
                                                           const std::string& xmlFileName) {
  TEUCHOS_TEST_FOR_EXCEPTION(A.is_null(), std::invalid_argument, "Trident::muelu::CreateTpetraPreconditioner: A is null");
  ParameterList paramList;
  Teuchos::updateParametersFromXmlFileAndBroadcast(xmlFileName, Teuchos::Ptr<ParameterList>(&paramList),
                                                   *A->getDomainMap()->getComm());
  return CreateTpetraPreconditioner(A, paramList);
}

RCP<crs_matrix_type> smoothedAggregationProlongator(const RCP<const crs_matrix_type>& A, const ParameterList& params) {
  TEUCHOS_TEST_FOR_EXCEPTION(A.is_null(), std::invalid_argument, "Trident::muelu::smoothedAggregationProlongator: A is null");
  RCP<XMat> Ax = MueLu::TpetraCrs_To_XpetraMatrix<Scalar, LO, GO, Node>(rcp_const_cast<crs_matrix_type>(A));
  checkSquare(*Ax, "Trident::muelu::smoothedAggregationProlongator");
  ParameterList list(params);
  list.set("multigrid algorithm", list.get<std::string>("multigrid algorithm", "sa"));
  list.set("verbosity", list.get<std::string>("verbosity", "none"));
  list.set("max levels", 2);
  list.set("coarse: max size", list.get<int>("coarse: max size", 1));
  list.set("transpose: use implicit", true);
  list.set("smoother: pre or post", "none");
  list.set("coarse: type", "none");
  list.set("repartition: enable", false);
  RCP<hierarchy_type> H = MueLu::CreateXpetraPreconditioner<Scalar, LO, GO, Node>(Ax, list);
  if (H->GetNumLevels() < 2)
    throw std::runtime_error("Trident::muelu::smoothedAggregationProlongator: MueLu did not coarsen A (too small?)");
  RCP<XMat> P = H->GetLevel(1)->Get<RCP<XMat>>("P");
  return XHelpers::Op2NonConstTpetraCrs(P);
}

void describeHierarchy(hierarchy_type& H, std::ostream& os) {
  const int nl = H.GetNumLevels();
  using XOp = Xpetra::Operator<Scalar, LO, GO, Node>;
  RCP<XMat> A0 = rcp_dynamic_cast<XMat>(H.GetLevel(0)->Get<RCP<XOp>>("A"));
  TEUCHOS_TEST_FOR_EXCEPTION(A0.is_null(), std::invalid_argument, "describeHierarchy: level 0 has no matrix");
  const auto comm = A0->getRowMap()->getComm();
  for (int l = 0; l < nl; ++l) {
    RCP<MueLu::Level> lvl = H.GetLevel(l);
    RCP<XMat> M;
    if (lvl->IsAvailable("A")) M = rcp_dynamic_cast<XMat>(lvl->Get<RCP<XOp>>("A"));
    long long loc[2] = {0, 0}, glob[2] = {0, 0};
    int mine = 0, ranks = 0;
    if (!M.is_null()) {
      loc[0] = static_cast<long long>(M->getGlobalNumRows());
      loc[1] = static_cast<long long>(M->getGlobalNumEntries());
      mine = Compat::localNumRows(*M) > 0 ? 1 : 0;
    }
    Teuchos::reduceAll<int, long long>(*comm, Teuchos::REDUCE_MAX, 2, loc, glob);
    Teuchos::reduceAll<int, int>(*comm, Teuchos::REDUCE_SUM, mine, Teuchos::outArg(ranks));
    os << "  level " << l << ": rows " << glob[0] << ", nnz " << glob[1] << ", ranks " << ranks << "\n";
  }
  os << "  operator complexity " << H.GetOperatorComplexity() << "\n";
}

}  // namespace muelu
}  // namespace Trident
