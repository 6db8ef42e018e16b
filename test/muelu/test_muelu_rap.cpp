// TridentRAPFactory vs MueLu's stock RAPFactory: coarse operators per level (structure identical,
// values to 1e-12 relative to the row's largest entry), Belos CG iteration counts, repartitioning
// (RebalanceAcFactory downstream), block size / strided maps, transfer factories, diagonal repair,
// XML selection by factory name, and the errors for bad input.
// Usage: mpirun -np P test_muelu_rap [--lambdas=1,2,...] (default: every divisor of P up to 4 values)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <Teuchos_XMLParameterListHelpers.hpp>
#include <Tpetra_Core.hpp>
#include <Tpetra_RowMatrixTransposer.hpp>
#include <Xpetra_CrsMatrixWrap.hpp>
#include <Xpetra_TpetraCrsMatrix.hpp>

#include <MueLu_CreateTpetraPreconditioner.hpp>
#include <MueLu_FactoryManager.hpp>
#include <MueLu_Hierarchy.hpp>
#include <MueLu_Level.hpp>
#include <MueLu_NoFactory.hpp>
#include <MueLu_RAPFactory.hpp>
#include <MueLu_TpetraOperator.hpp>
#include <MueLu_TwoLevelFactoryBase.hpp>
#include <MueLu_Utilities.hpp>

#include "Trident_CreatePreconditioner.hpp"
#include "Trident_MueLuProblems.hpp"
#include "Trident_MueLuRAPFactory.hpp"
#include "Trident_MueLuSolve.hpp"

using namespace Trident;
using Teuchos::ParameterList;
using Teuchos::RCP;
using Teuchos::rcp;
using XMat = Xpetra::Matrix<Scalar, LO, GO, Node>;
using XOp = Xpetra::Operator<Scalar, LO, GO, Node>;
using XHelpers = Xpetra::Helpers<Scalar, LO, GO, Node>;
using Hier = MueLu::Hierarchy<Scalar, LO, GO, Node>;

namespace {
comm_ptr g_comm;
int g_passed = 0, g_failed = 0;

bool allTrue(bool ok) {
  int l = ok ? 1 : 0, g = 0;
  Teuchos::reduceAll<int, int>(*g_comm, Teuchos::REDUCE_MIN, l, Teuchos::outArg(g));
  return g == 1;
}

// Collective check: passes only when it holds on every rank; the first failing rank's message is printed.
void check(bool ok, const std::string& name, const std::string& why = "") {
  const bool all = allTrue(ok);
  if (all) {
    ++g_passed;
    if (g_comm->getRank() == 0) std::printf("PASS %s\n", name.c_str());
  } else {
    ++g_failed;
    if (!ok) std::fprintf(stderr, "[rank %d] FAIL %s: %s\n", g_comm->getRank(), name.c_str(), why.c_str());
    if (g_comm->getRank() == 0) std::printf("FAIL %s\n", name.c_str());
  }
  std::fflush(stdout);
}

// Runs f, expecting an exception whose message contains `needle` (on every rank).
void checkThrows(const std::string& name, const std::string& needle, const std::function<void()>& f) {
  bool ok = false;
  std::string why = "no exception";
  try {
    f();
  } catch (std::exception& e) {
    const std::string msg = e.what();
    ok = msg.find(needle) != std::string::npos;
    why = "message lacks \"" + needle + "\": " + msg.substr(0, 600);
  }
  check(ok, name, why);
}

RCP<XMat> toX(const RCP<crs_matrix_type>& A) { return MueLu::TpetraCrs_To_XpetraMatrix<Scalar, LO, GO, Node>(A); }

// Compares two distributed matrices: same row maps, same global column indices per row, values to
// tol relative to the largest magnitude in the row. Returns "" when equal (on this rank).
std::string compare(const XMat* X, const XMat* Y, double tol) {
  if (!X && !Y) return "";
  if (!X || !Y) return "matrix present in one hierarchy only";
  if (X->getGlobalNumRows() != Y->getGlobalNumRows() || X->getGlobalNumCols() != Y->getGlobalNumCols())
    return "global sizes differ";
  if (!X->getRowMap()->isSameAs(*Y->getRowMap())) return "row maps differ";
  if (!X->getDomainMap()->isSameAs(*Y->getDomainMap()) || !X->getRangeMap()->isSameAs(*Y->getRangeMap()))
    return "domain/range maps differ";
  const crs_matrix_type& x = XHelpers::Op2TpetraCrs(*X);
  const crs_matrix_type& y = XHelpers::Op2TpetraCrs(*Y);
  auto rowMap = x.getRowMap();
  std::vector<std::pair<GO, double>> ex, ey;
  for (size_t l = 0; l < Compat::localNumElements(*rowMap); ++l) {
    const GO g = rowMap->getGlobalElement(static_cast<LO>(l));
    auto fill = [&](const crs_matrix_type& M, std::vector<std::pair<GO, double>>& out) {
      const size_t n = M.getNumEntriesInGlobalRow(g);
      crs_matrix_type::nonconst_global_inds_host_view_type idx("idx", n);
      crs_matrix_type::nonconst_values_host_view_type val("val", n);
      size_t nn = 0;
      M.getGlobalRowCopy(g, idx, val, nn);
      out.clear();
      for (size_t k = 0; k < nn; ++k) out.emplace_back(idx[k], val[k]);
      std::sort(out.begin(), out.end());
    };
    fill(x, ex);
    fill(y, ey);
    if (ex.size() != ey.size()) {
      std::ostringstream os;
      os << "row " << g << ": " << ex.size() << " vs " << ey.size() << " entries";
      return os.str();
    }
    double rowmax = 0;
    for (auto& e : ex) rowmax = std::max(rowmax, std::abs(e.second));
    for (size_t k = 0; k < ex.size(); ++k) {
      if (ex[k].first != ey[k].first) {
        std::ostringstream os;
        os << "row " << g << ": column " << ex[k].first << " vs " << ey[k].first;
        return os.str();
      }
      if (std::abs(ex[k].second - ey[k].second) > tol * std::max(rowmax, 1e-300)) {
        std::ostringstream os;
        os.precision(17);
        os << "row " << g << " col " << ex[k].first << ": " << ex[k].second << " vs " << ey[k].second;
        return os.str();
      }
    }
  }
  return "";
}

RCP<XMat> levelA(Hier& H, int l) {
  auto lvl = H.GetLevel(l);
  if (!lvl->IsAvailable("A")) return Teuchos::null;
  return Teuchos::rcp_dynamic_cast<XMat>(lvl->Get<RCP<XOp>>("A"));
}

// Level-by-level comparison of two hierarchies. With repartitioning onto a subcommunicator, ranks
// left out of the coarse levels hold fewer levels: compare up to the largest count over all ranks.
void compareHierarchies(Hier& S, Hier& T, const std::string& name) {
  int nl = std::max(S.GetNumLevels(), T.GetNumLevels()), maxLevels = 0;
  Teuchos::reduceAll<int, int>(*g_comm, Teuchos::REDUCE_MAX, nl, Teuchos::outArg(maxLevels));
  check(S.GetNumLevels() == T.GetNumLevels() && maxLevels >= 3, name + ": same number of levels (>= 3)",
        std::to_string(S.GetNumLevels()) + " vs " + std::to_string(T.GetNumLevels()));
  for (int l = 1; l < maxLevels; ++l) {
    RCP<XMat> a = l < S.GetNumLevels() ? levelA(S, l) : Teuchos::null;
    RCP<XMat> b = l < T.GetNumLevels() ? levelA(T, l) : Teuchos::null;
    const std::string err = compare(a.get(), b.get(), 1e-12);
    check(err.empty(), name + ": level " + std::to_string(l) + " coarse operator equal", err);
  }
}

ParameterList baseParams() {
  ParameterList p;
  p.set("verbosity", "none");
  p.set("multigrid algorithm", "sa");
  p.set("max levels", 4);
  // MueLu 13.2 + Ifpack2 relaxation break CG (non-SPD preconditioner) when the coarsest level has
  // only a couple of rows per rank (seen at P=8 with 16 rows, stock RAPFactory too): stop earlier.
  p.set("coarse: max size", g_comm->getSize() >= 8 ? 64 : 30);
  p.set("aggregation: type", "uncoupled");
  p.set("smoother: type", "RELAXATION");
  p.sublist("smoother: params").set("relaxation: type", "Symmetric Gauss-Seidel");
  p.sublist("smoother: params").set("relaxation: sweeps", 1);
  // Amesos2 (KLU2) is wrong with > 1 rank in Debian's Trilinos 13.2
  p.set("coarse: type", "RELAXATION");
  p.sublist("coarse: params").set("relaxation: type", "Symmetric Gauss-Seidel");
  p.sublist("coarse: params").set("relaxation: sweeps", 4);
  return p;
}

int cgIterations(const RCP<crs_matrix_type>& A, const RCP<Tpetra::Operator<Scalar, LO, GO, Node>>& M, double* relres) {
  auto x = rcp(new muelu::multivector_type(A->getDomainMap(), 1));
  auto ones = rcp(new muelu::multivector_type(A->getDomainMap(), 1));
  ones->putScalar(1.0);
  auto b = rcp(new muelu::multivector_type(A->getRangeMap(), 1));
  A->apply(*ones, *b);
  auto res = muelu::solveCG(A, M, b, x, 1e-8, 200);
  if (relres) *relres = res.relative_residual;
  return res.converged ? res.iterations : -1;
}

// Stock MueLu vs the Trident helper on one problem, for every lambda.
void hierarchyCase(const std::string& name, const RCP<crs_matrix_type>& A, const ParameterList& params,
                   const std::vector<int>& lambdas, const RCP<muelu::coord_multivector_type>& coords = Teuchos::null,
                   bool expectRebalance = false) {
  ParameterList sp(params);
  if (!coords.is_null()) sp.sublist("user data").set("Coordinates", coords);
  auto stockOp = MueLu::CreateTpetraPreconditioner<Scalar, LO, GO, Node>(
      Teuchos::rcp_implicit_cast<Tpetra::Operator<Scalar, LO, GO, Node>>(A), sp);
  double rs = 0;
  const int itS = cgIterations(A, stockOp, &rs);
  {
    // "trident: use for rap" = false: the helper is MueLu's stock setup (RAP only timed)
    ParameterList op(sp);
    op.set("trident: use for rap", false);
    muelu::resetRAPStats();
    auto offOp = muelu::CreateTpetraPreconditioner(Teuchos::rcp_implicit_cast<Tpetra::Operator<Scalar, LO, GO, Node>>(A), op);
    check(muelu::rapStats().trident_builds == 0 && muelu::rapStats().stock_builds == offOp->GetHierarchy()->GetNumLevels() - 1,
          name + ": trident: use for rap = false uses the stock RAPFactory");
    compareHierarchies(*stockOp->GetHierarchy(), *offOp->GetHierarchy(), name + " (use for rap = false)");
  }
  for (int lambda : lambdas) {
    const std::string nm = name + " lambda=" + std::to_string(lambda);
    ParameterList tp(params);
    if (!coords.is_null()) tp.sublist("user data").set("Coordinates", coords);
    tp.set("trident: ranks per group", lambda);
    tp.set("trident: count bytes", true);  // the Gi bytes are checked below
    muelu::resetRAPStats();
    RCP<muelu::muelu_tpetra_operator_type> tridentOp;
    std::string err;
    try {
      tridentOp = muelu::CreateTpetraPreconditioner(Teuchos::rcp_implicit_cast<Tpetra::Operator<Scalar, LO, GO, Node>>(A), tp);
    } catch (std::exception& e) {
      err = e.what();
    }
    check(err.empty(), nm + ": Trident setup", err);
    if (!allTrue(err.empty())) continue;
    auto H = tridentOp->GetHierarchy();
    check(muelu::rapStats().trident_builds == H->GetNumLevels() - 1 && muelu::rapStats().stock_builds == 0,
          nm + ": every coarse level built by TridentRAPFactory",
          std::to_string(muelu::rapStats().trident_builds) + " trident builds, " + std::to_string(H->GetNumLevels()) + " levels");
    compareHierarchies(*stockOp->GetHierarchy(), *H, nm);
    {
      // with several groups, Trident moved data over Gi (lambda < P), else none
      unsigned long long gi = muelu::rapStats().gi_bytes_recv, giAll = 0;
      Teuchos::reduceAll<int, unsigned long long>(*g_comm, Teuchos::REDUCE_SUM, gi, Teuchos::outArg(giAll));
      const bool expectGi = lambda < g_comm->getSize();
      check(expectGi ? giAll > 0 : true, nm + ": Trident stats recorded (Gi bytes " + std::to_string(giAll) + ")",
            "no Gi bytes recorded");
    }
    if (expectRebalance) {
      // the coarsest level lives on fewer ranks: RebalanceAcFactory consumed TridentRAPFactory's Ac
      const int last = H->GetNumLevels() - 1;
      RCP<XMat> Ac = levelA(*H, last);
      int mine = (!Ac.is_null() && Compat::localNumRows(*Ac) > 0) ? 1 : 0, ranks = 0;
      Teuchos::reduceAll<int, int>(*g_comm, Teuchos::REDUCE_SUM, mine, Teuchos::outArg(ranks));
      check(ranks < g_comm->getSize(), nm + ": coarse level repartitioned onto fewer ranks",
            std::to_string(ranks) + " ranks hold the coarsest level");
    }
    double rt = 0;
    const int itT = cgIterations(A, tridentOp, &rt);
    check(itS > 0 && itS == itT, nm + ": CG iterations identical",
          "stock " + std::to_string(itS) + " vs trident " + std::to_string(itT));
    if (g_comm->getRank() == 0)
      std::printf("  %s: %d levels, CG %d iterations (stock %d), relres %.2e\n", nm.c_str(), H->GetNumLevels(), itT, itS, rt);
  }
}

// "reuse: type" = "RP" (keep R and P, redo RAP on the same patterns; MueLu 13.2 keeps the "AP/RAP
// reuse data" for "RP" and "tP"): MueLu::ReuseTpetraPreconditioner with new values of A (same pattern) makes
// TridentRAPFactory re-execute its kept plans (values only, coarse matrices updated in place); the
// coarse operators equal a stock hierarchy reused the same way, CG iterations too.
void reuseCase(const std::string& name, const RCP<crs_matrix_type>& A, int lambda) {
  using tpetra_op = Tpetra::Operator<Scalar, LO, GO, Node>;
  ParameterList p = baseParams();
  p.set("reuse: type", "RP");
  auto stockOp = MueLu::CreateTpetraPreconditioner<Scalar, LO, GO, Node>(Teuchos::rcp_implicit_cast<tpetra_op>(A), p);
  ParameterList tp(p);
  tp.set("trident: ranks per group", lambda);
  auto tridentOp = muelu::CreateTpetraPreconditioner(Teuchos::rcp_implicit_cast<tpetra_op>(A), tp);
  // New values, same pattern, still SPD: 2 A + I/2 (the Laplacian stores its diagonal).
  auto A2 = rcp(new crs_matrix_type(*A, Teuchos::Copy));
  A2->resumeFill();
  {
    auto local = A2->getLocalMatrixHost();
    auto rowMap = A2->getRowMap();
    auto colMap = A2->getColMap();
    for (LO r = 0; r < static_cast<LO>(Compat::localNumRows(*A2)); ++r)
      for (size_t q = local.graph.row_map(r); q < local.graph.row_map(r + 1); ++q) {
        local.values(q) *= 2.0;
        if (colMap->getGlobalElement(local.graph.entries(q)) == rowMap->getGlobalElement(r)) local.values(q) += 0.5;
      }
  }
  A2->fillComplete(A->getDomainMap(), A->getRangeMap());
  MueLu::ReuseTpetraPreconditioner(A2, *stockOp);
  muelu::resetRAPStats();
  std::string err;
  try {
    MueLu::ReuseTpetraPreconditioner(A2, *tridentOp);
  } catch (std::exception& e) {
    err = e.what();
  }
  check(err.empty(), name + ": ReuseTpetraPreconditioner with TridentRAPFactory", err);
  if (!allTrue(err.empty())) return;
  const int levels = tridentOp->GetHierarchy()->GetNumLevels();
  check(muelu::rapStats().trident_builds == levels - 1 && muelu::rapStats().reused_builds == levels - 1,
        name + ": every level re-executed its kept plans",
        std::to_string(muelu::rapStats().reused_builds) + " of " + std::to_string(levels - 1) + " builds reused plans");
  compareHierarchies(*stockOp->GetHierarchy(), *tridentOp->GetHierarchy(), name + " after reuse");
  double rs = 0, rt = 0;
  const int itS = cgIterations(A2, stockOp, &rs), itT = cgIterations(A2, tridentOp, &rt);
  check(itS > 0 && itS == itT, name + ": CG iterations identical after reuse",
        "stock " + std::to_string(itS) + " vs trident " + std::to_string(itT));
}

// ---- direct factory tests on hand-made levels ------------------------------------------------
struct TwoLevels {
  MueLu::Level fine, coarse;
  TwoLevels(const RCP<XMat>& A, const RCP<XMat>& P, const RCP<XMat>& R = Teuchos::null) {
    auto fm = rcp(new MueLu::FactoryManager<Scalar, LO, GO, Node>());
    fine.SetFactoryManager(fm);
    coarse.SetFactoryManager(fm);
    fine.SetLevelID(0);
    coarse.SetLevelID(1);
    coarse.SetPreviousLevel(Teuchos::rcpFromRef(fine));
    if (!A.is_null()) fine.Set("A", A);
    if (!P.is_null()) coarse.Set("P", P);
    if (!R.is_null()) coarse.Set("R", R);
  }
};

RCP<XMat> runRAP(const RCP<MueLu::RAPFactory<Scalar, LO, GO, Node>>& rap, const ParameterList& pl, const RCP<XMat>& A,
                 const RCP<XMat>& P, const RCP<XMat>& R = Teuchos::null) {
  rap->SetParameterList(pl);
  rap->SetFactory("A", MueLu::NoFactory::getRCP());
  rap->SetFactory("P", MueLu::NoFactory::getRCP());
  if (!R.is_null()) rap->SetFactory("R", MueLu::NoFactory::getRCP());
  TwoLevels lv(A, P, R);
  lv.coarse.Request("A", rap.get());
  return lv.coarse.Get<RCP<XMat>>("A", rap.get());
}

// A transfer factory that only counts its Build calls.
class CountingTransfer : public MueLu::TwoLevelFactoryBase {
 public:
  mutable int builds = 0;
  RCP<const ParameterList> GetValidParameterList() const override { return rcp(new ParameterList); }
  void DeclareInput(MueLu::Level&, MueLu::Level&) const override {}
  void Build(MueLu::Level&, MueLu::Level&) const override { ++builds; }
};

// P with one extra, empty coarse column (gives a zero diagonal in Ac).
RCP<crs_matrix_type> withEmptyColumn(const crs_matrix_type& P) {
  const GO nc = static_cast<GO>(P.getGlobalNumCols());
  auto comm = P.getRowMap()->getComm();
  auto dom = rcp(new map_type(nc + 1, 0, comm));
  auto Q = rcp(new crs_matrix_type(P.getRowMap(), Compat::localMaxNumRowEntries(P)));
  for (size_t l = 0; l < Compat::localNumElements(*P.getRowMap()); ++l) {
    const GO g = P.getRowMap()->getGlobalElement(static_cast<LO>(l));
    const size_t n = P.getNumEntriesInGlobalRow(g);
    crs_matrix_type::nonconst_global_inds_host_view_type idx("idx", n);
    crs_matrix_type::nonconst_values_host_view_type val("val", n);
    size_t nn = 0;
    P.getGlobalRowCopy(g, idx, val, nn);
    Q->insertGlobalValues(g, Teuchos::ArrayView<const GO>(idx.data(), nn), Teuchos::ArrayView<const Scalar>(val.data(), nn));
  }
  Q->fillComplete(dom, P.getRangeMap());
  return Q;
}

void directTests(const std::vector<int>& lambdas) {
  using RAPF = MueLu::RAPFactory<Scalar, LO, GO, Node>;
  auto A = muelu::laplacian(2, 24, g_comm);
  RCP<crs_matrix_type> P;
  {
    std::string err;
    try {
      P = muelu::smoothedAggregationProlongator(A);
    } catch (std::exception& e) {
      err = e.what();
    }
    check(err.empty() && !P.is_null() && P->getGlobalNumRows() == A->getGlobalNumRows() &&
              P->getGlobalNumCols() > 1 && P->getGlobalNumCols() < A->getGlobalNumRows() &&
              P->getRowMap()->isSameAs(*A->getRowMap()),
          "smoothedAggregationProlongator: P is fine-rows x coarse-cols", err);
    if (!allTrue(err.empty())) return;
  }
  Tpetra::RowMatrixTransposer<Scalar, LO, GO, Node> tr(P);
  RCP<crs_matrix_type> R = tr.createTranspose();
  auto Ax = toX(A), Px = toX(P), Rx = toX(R);

  for (int lambda : lambdas) {
    const std::string lam = " lambda=" + std::to_string(lambda);
    for (bool implicit : {true, false}) {
      ParameterList pl;
      pl.set("transpose: use implicit", implicit);
      ParameterList tl(pl);
      tl.set("trident: ranks per group", lambda);
      auto s = runRAP(rcp(new RAPF()), pl, Ax, Px, implicit ? Teuchos::null : Rx);
      auto t = runRAP(rcp(new muelu::TridentRAPFactory()), tl, Ax, Px, implicit ? Teuchos::null : Rx);
      const std::string err = compare(s.get(), t.get(), 1e-12);
      check(err.empty(), std::string("direct RAP, ") + (implicit ? "P^T(AP)" : "R(AP)") + lam, err);
    }
  }

  // diagonal repair and relative floor, same options on both factories
  {
    auto Pz = toX(withEmptyColumn(*P));
    ParameterList pl;
    pl.set("transpose: use implicit", true);
    pl.set("rap: fix zero diagonals", true);
    pl.set("rap: fix zero diagonals replacement", 2.5);
    auto s = runRAP(rcp(new RAPF()), pl, Ax, Pz);
    auto t = runRAP(rcp(new muelu::TridentRAPFactory()), pl, Ax, Pz);
    std::string err = compare(s.get(), t.get(), 1e-12);
    // the empty column's diagonal was repaired to the replacement value
    const GO last = static_cast<GO>(t->getGlobalNumRows()) - 1;
    bool repaired = true;
    if (t->getRowMap()->isNodeGlobalElement(last)) {
      const crs_matrix_type& tc = XHelpers::Op2TpetraCrs(*t);
      const size_t n = tc.getNumEntriesInGlobalRow(last);
      crs_matrix_type::nonconst_global_inds_host_view_type idx("idx", n);
      crs_matrix_type::nonconst_values_host_view_type val("val", n);
      size_t nn = 0;
      tc.getGlobalRowCopy(last, idx, val, nn);
      repaired = false;
      for (size_t k = 0; k < nn; ++k)
        if (idx[k] == last && val[k] == 2.5) repaired = true;
    }
    check(err.empty() && repaired, "direct RAP: rap: fix zero diagonals", err.empty() ? "diagonal not repaired" : err);

    ParameterList pf;
    pf.set("transpose: use implicit", true);
    pf.set("rap: relative diagonal floor", Teuchos::Array<double>(1, 0.9));
    auto s2 = runRAP(rcp(new RAPF()), pf, Ax, Px);
    auto t2 = runRAP(rcp(new muelu::TridentRAPFactory()), pf, Ax, Px);
    err = compare(s2.get(), t2.get(), 1e-12);
    check(err.empty(), "direct RAP: rap: relative diagonal floor", err);
  }

  // strided maps survive (block size 2)
  {
    auto A2 = muelu::laplacian(2, 12, g_comm, 2);
    ParameterList sa;
    sa.set("number of equations", 2);
    auto P2 = muelu::smoothedAggregationProlongator(A2, sa);
    auto A2x = toX(A2), P2x = toX(P2);
    A2x->SetFixedBlockSize(2);
    P2x->SetFixedBlockSize(2);  // rows: 2 dofs per node, columns: 1 per nullspace vector (2)
    ParameterList pl;
    pl.set("transpose: use implicit", true);
    auto s = runRAP(rcp(new RAPF()), pl, A2x, P2x);
    auto t = runRAP(rcp(new muelu::TridentRAPFactory()), pl, A2x, P2x);
    const std::string err = compare(s.get(), t.get(), 1e-12);
    check(err.empty() && t->IsView("stridedMaps") && t->GetFixedBlockSize() == s->GetFixedBlockSize(),
          "direct RAP: strided maps / block size kept",
          err + " blocksize " + std::to_string(t->GetFixedBlockSize()) + " vs " + std::to_string(s->GetFixedBlockSize()));
  }

  // transfer factories are run
  {
    auto counting = rcp(new CountingTransfer());
    auto rap = rcp(new muelu::TridentRAPFactory());
    rap->AddTransferFactory(counting);
    ParameterList pl;
    pl.set("transpose: use implicit", true);
    runRAP(rap, pl, Ax, Px);
    check(counting->builds == 1 && muelu::transferFactories(*rap).size() == 1, "direct RAP: transfer factory called",
          std::to_string(counting->builds) + " calls");
  }

  // ---- bad input
  checkThrows("error: unknown trident parameter on the factory", "trident: bogus", [&] {
    ParameterList pl;
    pl.set("trident: bogus", 1);
    muelu::TridentRAPFactory f;
    f.SetParameterList(pl);
  });
  checkThrows("error: unknown parameter on the factory", "no such parameter", [&] {
    ParameterList pl;
    pl.set("no such parameter", 1);
    muelu::TridentRAPFactory f;
    f.SetParameterList(pl);
  });
  checkThrows("error: missing P", "prolongator P", [&] {
    ParameterList pl;
    pl.set("transpose: use implicit", true);
    runRAP(rcp(new muelu::TridentRAPFactory()), pl, Ax, Teuchos::null);
  });
  checkThrows("error: non-square A in the factory", "square", [&] {
    ParameterList pl;
    pl.set("transpose: use implicit", true);
    runRAP(rcp(new muelu::TridentRAPFactory()), pl, Px, Px);
  });
  checkThrows("error: non-square A in the helper", "square", [&] {
    ParameterList pl = baseParams();
    muelu::CreateTpetraPreconditioner(Teuchos::rcp_implicit_cast<Tpetra::Operator<Scalar, LO, GO, Node>>(P), pl);
  });
  checkThrows("error: unknown trident parameter in the helper", "trident: bogus", [&] {
    ParameterList pl = baseParams();
    pl.set("trident: bogus", true);
    muelu::CreateTpetraPreconditioner(Teuchos::rcp_implicit_cast<Tpetra::Operator<Scalar, LO, GO, Node>>(A), pl);
  });
  checkThrows("error: bad type of trident: use for rap", "use for rap", [&] {
    ParameterList pl = baseParams();
    pl.set("trident: use for rap", 1);
    muelu::CreateTpetraPreconditioner(Teuchos::rcp_implicit_cast<Tpetra::Operator<Scalar, LO, GO, Node>>(A), pl);
  });
}

// ---- XML Factories syntax ------------------------------------------------------------------------
std::string xmlList(const std::string& rapFactory, const std::string& extra) {
  return R"(<ParameterList name="MueLu">
  <ParameterList name="Factories">
    <ParameterList name="myTentativePFact"><Parameter name="factory" type="string" value="TentativePFactory"/></ParameterList>
    <ParameterList name="myProlongatorFact">
      <Parameter name="factory" type="string" value="SaPFactory"/>
      <Parameter name="P" type="string" value="myTentativePFact"/>
    </ParameterList>
    <ParameterList name="myRestrictorFact">
      <Parameter name="factory" type="string" value="TransPFactory"/>
      <Parameter name="P" type="string" value="myProlongatorFact"/>
    </ParameterList>
    <ParameterList name="myNullspaceFact">
      <Parameter name="factory" type="string" value="NullspaceFactory"/>
      <Parameter name="Nullspace" type="string" value="myTentativePFact"/>
    </ParameterList>
    <ParameterList name="myCoordTransferFact"><Parameter name="factory" type="string" value="CoordinatesTransferFactory"/></ParameterList>
    <ParameterList name="myRAPFact">
      <Parameter name="factory" type="string" value=")" + rapFactory + R"("/>
      <Parameter name="P" type="string" value="myProlongatorFact"/>
      <Parameter name="R" type="string" value="myRestrictorFact"/>
      )" + extra + R"(
      <ParameterList name="TransferFactories">
        <Parameter name="For Coordinates" type="string" value="myCoordTransferFact"/>
      </ParameterList>
    </ParameterList>
    <ParameterList name="mySmooFact">
      <Parameter name="factory" type="string" value="TrilinosSmoother"/>
      <Parameter name="type" type="string" value="RELAXATION"/>
      <ParameterList name="ParameterList">
        <Parameter name="relaxation: type" type="string" value="Symmetric Gauss-Seidel"/>
        <Parameter name="relaxation: sweeps" type="int" value="2"/>
      </ParameterList>
    </ParameterList>
  </ParameterList>
  <ParameterList name="Hierarchy">
    <Parameter name="max levels" type="int" value="4"/>
    <Parameter name="coarse: max size" type="int" value="30"/>
    <Parameter name="verbosity" type="string" value="None"/>
    <ParameterList name="All">
      <Parameter name="startLevel" type="int" value="0"/>
      <Parameter name="P" type="string" value="myProlongatorFact"/>
      <Parameter name="Ptent" type="string" value="myTentativePFact"/>
      <Parameter name="Nullspace" type="string" value="myNullspaceFact"/>
      <Parameter name="R" type="string" value="myRestrictorFact"/>
      <Parameter name="A" type="string" value="myRAPFact"/>
      <Parameter name="Coordinates" type="string" value="myCoordTransferFact"/>
      <Parameter name="Smoother" type="string" value="mySmooFact"/>
      <Parameter name="CoarseSolver" type="string" value="mySmooFact"/>
    </ParameterList>
  </ParameterList>
</ParameterList>)";
}

void xmlTests(int lambda) {
  const long long n = 30;
  auto A = muelu::laplacian(2, n, g_comm);
  auto coords = muelu::gridCoordinates(*A, 2, n);
  auto Aop = Teuchos::rcp_implicit_cast<Tpetra::Operator<Scalar, LO, GO, Node>>(A);
  RCP<ParameterList> stockList = Teuchos::getParametersFromXmlString(xmlList("RAPFactory", ""));
  stockList->sublist("user data").set("Coordinates", coords);
  auto stockOp = MueLu::CreateTpetraPreconditioner<Scalar, LO, GO, Node>(Aop, *stockList);

  RCP<ParameterList> tl = Teuchos::getParametersFromXmlString(xmlList(
      "TridentRAPFactory", "<Parameter name=\"trident: ranks per group\" type=\"int\" value=\"" + std::to_string(lambda) + "\"/>"));
  tl->set("trident: use for rap", false);  // only the XML-selected factory may use Trident
  tl->sublist("user data").set("Coordinates", coords);
  muelu::resetRAPStats();
  std::string err;
  RCP<muelu::muelu_tpetra_operator_type> op;
  try {
    op = muelu::CreateTpetraPreconditioner(Aop, *tl);
  } catch (std::exception& e) {
    err = e.what();
  }
  check(err.empty(), "XML: TridentRAPFactory selected by name", err);
  if (!allTrue(err.empty())) return;
  auto H = op->GetHierarchy();
  check(muelu::rapStats().trident_builds == H->GetNumLevels() - 1, "XML: coarse levels built by TridentRAPFactory",
        std::to_string(muelu::rapStats().trident_builds) + " builds");
  compareHierarchies(*stockOp->GetHierarchy(), *H, "XML lambda=" + std::to_string(lambda));
  const int itS = cgIterations(A, stockOp, nullptr), itT = cgIterations(A, op, nullptr);
  check(itS > 0 && itS == itT, "XML: CG iterations identical", std::to_string(itS) + " vs " + std::to_string(itT));

  checkThrows("error: unknown parameter for TridentRAPFactory in XML", "trident: bogus", [&] {
    RCP<ParameterList> bad = Teuchos::getParametersFromXmlString(
        xmlList("TridentRAPFactory", "<Parameter name=\"trident: bogus\" type=\"int\" value=\"1\"/>"));
    bad->sublist("user data").set("Coordinates", coords);
    muelu::CreateTpetraPreconditioner(Aop, *bad);
  });
}
}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard scope(&argc, &argv);
  g_comm = Tpetra::getDefaultComm();
  const int P = g_comm->getSize();
  std::vector<int> lambdas;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--lambdas=", 0) == 0) {
      std::stringstream ss(a.substr(10));
      std::string tok;
      while (std::getline(ss, tok, ',')) lambdas.push_back(std::stoi(tok));
    }
  }
  if (lambdas.empty())
    for (int d = 1; d <= P; ++d)
      if (P % d == 0) lambdas.push_back(d);
  if (lambdas.size() > 3) lambdas.erase(lambdas.begin(), lambdas.end() - 3);

  // the largest lambda that still leaves several groups (so Gi is used), else P
  int multiGroup = lambdas.back();
  for (int l : lambdas)
    if (l < P) multiGroup = l;

  try {
    directTests(lambdas);

    // 2D, explicit R (MueLu's default)
    hierarchyCase("2D Laplacian 40^2", muelu::laplacian(2, 40, g_comm), baseParams(), lambdas);
    // 3D, implicit transpose (P^T (AP))
    {
      ParameterList p = baseParams();
      p.set("transpose: use implicit", true);
      hierarchyCase("3D Laplacian 14^3 implicit", muelu::laplacian(3, 14, g_comm), p, {multiGroup});
    }
    // block size 2 (strided maps through the whole hierarchy)
    {
      ParameterList p = baseParams();
      p.set("number of equations", 2);
      hierarchyCase("2D Laplacian 24^2 x 2 dofs", muelu::laplacian(2, 24, g_comm, 2), p, {lambdas.front()});
    }
    // repartitioning: RebalanceAcFactory holds the RAP factory; coordinates transferred by RAP
    if (P > 1) {
      ParameterList p = baseParams();
      p.set("repartition: enable", true);
      p.set("repartition: partitioner", "zoltan2");
      p.sublist("repartition: params").set("algorithm", "multijagged");
      p.set("repartition: start level", 1);
      p.set("repartition: min rows per proc", 200);
      p.set("repartition: max imbalance", 1.1);
      p.set("repartition: use subcommunicators", true);
      const long long n = 40;
      auto A = muelu::laplacian(2, n, g_comm);
      hierarchyCase("2D Laplacian 40^2 repartitioned", A, p, {multiGroup}, muelu::gridCoordinates(*A, 2, n), true);
    }
    xmlTests(multiGroup);
    reuseCase("2D Laplacian 40^2 reuse: type RP", muelu::laplacian(2, 40, g_comm), multiGroup);
  } catch (std::exception& e) {
    std::fprintf(stderr, "[rank %d] unexpected exception: %s\n", g_comm->getRank(), e.what());
    ++g_failed;
  }
  int failed = 0;
  Teuchos::reduceAll<int, int>(*g_comm, Teuchos::REDUCE_MAX, g_failed, Teuchos::outArg(failed));
  if (g_comm->getRank() == 0) std::printf("%d passed, %d failed\n", g_passed, failed);
  return failed == 0 ? 0 : 1;
}
