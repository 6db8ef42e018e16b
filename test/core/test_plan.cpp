// MultiplyPlan: a plan executed again with new values of A and B (same patterns) gives exactly what
// a fresh Multiply gives, reuses C in place, and refuses a changed pattern on every rank; for every
// algorithm, plain and transposed operands, rectangular shapes, several lambdas.
#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Core.hpp>

#include "Trident_Generators.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "common/TestUtils.hpp"
#include <trident/core/Errors.hpp>

using namespace TridentTest;

namespace {

Tally tally;

// Same pattern, new values: every stored value v becomes v * (1.5 + 0.25 * (q mod 3)), so no value
// turns into or out of zero.
Teuchos::RCP<crs_matrix_type> newValues(const crs_matrix_type& M) {
  auto N = Teuchos::rcp(new crs_matrix_type(M, Teuchos::Copy));
  N->resumeFill();
  {
    auto local = N->getLocalMatrixHost();
    for (std::size_t q = 0; q < local.values.extent(0); ++q) local.values(q) *= 1.5 + 0.25 * static_cast<double>(q % 3);
  }
  N->fillComplete(M.getDomainMap(), M.getRangeMap());
  return N;
}

bool bitIdentical(const Entries& a, const Entries& b, std::string& why) {
  int ok = 1;
  if (rank() == 0) {
    ok = a.row == b.row && a.col == b.col && a.val.size() == b.val.size();
    for (std::size_t t = 0; ok && t < a.val.size(); ++t) ok = a.val[t] == b.val[t];
    if (!ok) why = "not bit-identical";
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, world());
  return ok == 1;
}

Teuchos::RCP<crs_matrix_type> tpetraProduct(const crs_matrix_type& A, bool tA, const crs_matrix_type& B, bool tB) {
  auto C = Teuchos::rcp(new crs_matrix_type(tA ? A.getDomainMap() : A.getRowMap(), 0));
  Tpetra::MatrixMatrix::Multiply(A, tA, B, tB, *C);
  return C;
}

void runCase(const std::string& name, const crs_matrix_type& A, bool tA, const crs_matrix_type& B, bool tB,
             const Teuchos::RCP<Teuchos::ParameterList>& params, bool reuses) {
  std::string why;
  // Trident's own algorithms repeat the same sums in the same order: bit-identical. Tpetra's
  // Multiply into a filled C takes another kernel than into an empty one: equal to rounding.
  auto identical = [reuses](const Entries& a, const Entries& b, std::string& w) {
    return reuses ? bitIdentical(a, b, w) : sameMatrix(a, b, w);
  };
  const auto rowMap = tA ? A.getDomainMap() : A.getRowMap();
  Trident::MatrixMatrix::MultiplyPlan plan(A, tA, B, tB, params);
  auto C = Teuchos::rcp(new crs_matrix_type(rowMap, 0));
  plan.execute(A, B, *C);
  const Entries first = gather(*C);
  tally.check(sameMatrix(gather(*tpetraProduct(A, tA, B, tB)), first, why), name + ": first execute = Tpetra", why);

  auto A2 = newValues(A), B2 = newValues(B);
  const auto colMapBefore = C->getColMap();
  plan.execute(*A2, *B2, *C);
  const Entries second = gather(*C);
  auto Cfresh = Teuchos::rcp(new crs_matrix_type(rowMap, 0));
  Trident::MatrixMatrix::Multiply(*A2, tA, *B2, tB, *Cfresh, true, "", params);
  tally.check(identical(gather(*Cfresh), second, why), name + ": re-execute with new values = fresh Multiply", why);
  tally.check(sameMatrix(gather(*tpetraProduct(*A2, tA, *B2, tB)), second, why), name + ": re-execute = Tpetra", why);
  if (reuses) {
    tally.check(plan.reusedExecutions() == 1 && C->getColMap().get() == colMapBefore.get(),
                name + ": C updated in place", "reused " + std::to_string(plan.reusedExecutions()));
  }
  tally.check(C->isFillComplete(), name + ": C fill-complete after re-execute");

  // Back to the first values: the first result again, exactly.
  plan.execute(A, B, *C);
  tally.check(identical(first, gather(*C), why), name + ": third execute = first", why);

  // Another, empty C: the plan builds it afresh.
  auto C2 = Teuchos::rcp(new crs_matrix_type(rowMap, 0));
  plan.execute(*A2, *B2, *C2);
  tally.check(identical(second, gather(*C2), why), name + ": execute into a new C", why);
  tally.check(plan.executions() == 4, name + ": executions counted");
}


}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  const int P = comm->getSize();
  Trident::gen::RandomOptions o;
  o.avg_per_row = 5;
  o.empty_row_fraction = 0.1;
  o.seed = 11;
  auto A = Trident::gen::random(150, 110, o, comm);
  o.seed = 12;
  o.skew = 0.2;
  auto B = Trident::gen::random(110, 90, o, comm);
  o.seed = 13;
  o.skew = 0;
  auto S = Trident::gen::random(130, 130, o, comm);

  std::vector<int> lambdas = {1};
  if (P % 2 == 0 && P > 1) lambdas.push_back(2);
  for (const std::string algo : {"trident", "summa", "tpetra"})
    for (int lambda : lambdas)
      for (const std::string grid : {"auto", "square"}) {
        if (algo != "trident" && grid != "auto") continue;
        auto params = Teuchos::rcp(new Teuchos::ParameterList);
        params->set("trident: algorithm", algo);
        params->set("trident: ranks per group", lambda);
        params->set("trident: grid", grid);
        const std::string tag = algo + " lambda=" + std::to_string(lambda) + " grid=" + grid;
        const bool reuses = algo != "tpetra";
        runCase(tag + " A*B", *A, false, *B, false, params, reuses);
        runCase(tag + " A^T*A", *A, true, *A, false, params, reuses);
        runCase(tag + " S*S^T", *S, false, *S, true, params, reuses);
      }
  {
    auto params = Teuchos::rcp(new Teuchos::ParameterList);
    params->set("trident: algorithm", std::string("trident"));  // the default is "auto"
    params->set("trident: permute", std::string("random"));
    runCase("trident permute=random A*B", *A, false, *B, false, params, true);
    params->set("trident: local kernel", std::string("reference"));
    runCase("trident kernel=reference S*S", *S, false, *S, false, params, true);
  }
  {
    // Slices at the 1D owners' rows: A (and, when aligned, B) never move; their new values are
    // routed on the rank itself.
    auto params = Teuchos::rcp(new Teuchos::ParameterList);
    params->set("trident: algorithm", std::string("trident"));
    params->set("trident: slices", std::string("owners"));
    params->set("trident: grid", std::string("rows"));
    runCase("trident slices=owners S*S", *S, false, *S, false, params, true);
    runCase("trident slices=owners A*B", *A, false, *B, false, params, true);
  }

  // A changed pattern is refused on every rank, with a message that says what to do.
  {
    Trident::MatrixMatrix::MultiplyPlan plan(*A, false, *B, false);
    auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
    plan.execute(*A, *B, *C);
    o.seed = 99;
    auto Aother = Trident::gen::random(150, 110, o, comm);
    expectInvalidInput(tally, "execute with a different pattern of A", "build a new plan", [&] { plan.execute(*Aother, *B, *C); });
    // A value that becomes zero changes op(A)'s pattern (Tpetra skips A's stored zeros).
    auto Azero = Teuchos::rcp(new crs_matrix_type(*A, Teuchos::Copy));
    Azero->resumeFill();
    {
      auto local = Azero->getLocalMatrixHost();
      if (comm->getRank() == 0 && local.values.extent(0) > 0) local.values(0) = 0.0;
    }
    Azero->fillComplete(A->getDomainMap(), A->getRangeMap());
    expectInvalidInput(tally, "execute after an entry of A became zero", "build a new plan", [&] { plan.execute(*Azero, *B, *C); });
    // After the refusals the plan still works.
    plan.execute(*A, *B, *C);
    std::string why;
    tally.check(sameMatrix(gather(*tpetraProduct(*A, false, *B, false)), gather(*C), why),
                "plan usable after refused executes", why);
  }
  // The same matrix object, changed in place: the plan holds its graph arrays, so an equal
  // structure is not hashed again, but a value turned zero must still be seen, and a copy with
  // the same pattern (other arrays, equal contents) must still be accepted.
  {
    auto Aown = Teuchos::rcp(new crs_matrix_type(*A, Teuchos::Copy));
    Trident::MatrixMatrix::MultiplyPlan plan(*Aown, false, *B, false);
    auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
    plan.execute(*Aown, *B, *C);
    auto Acopy = Teuchos::rcp(new crs_matrix_type(*Aown, Teuchos::Copy));
    plan.execute(*Acopy, *B, *C);
    std::string why;
    tally.check(sameMatrix(gather(*tpetraProduct(*A, false, *B, false)), gather(*C), why),
                "a copy with the same pattern (other arrays) is accepted", why);
    Aown->resumeFill();
    {
      auto local = Aown->getLocalMatrixHost();
      if (comm->getRank() == comm->getSize() - 1 && local.values.extent(0) > 0) local.values(local.values.extent(0) - 1) = 0.0;
    }
    Aown->fillComplete(A->getDomainMap(), A->getRangeMap());
    expectInvalidInput(tally, "execute after an entry of the same A object became zero", "build a new plan",
                       [&] { plan.execute(*Aown, *B, *C); });
  }
  // A one-shot plan shown a fresh C (at P = 1 it then lays out nothing and reads A and B where
  // they are) but executed into another C, one with the product's pattern: it lays out then.
  for (const char* algo : {"trident", "summa"}) {
    auto params = Teuchos::rcp(new Teuchos::ParameterList);
    params->set("trident: algorithm", std::string(algo));
    auto shown = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
    Trident::MatrixMatrix::MultiplyPlan plan(*A, false, *B, false, params, false, shown.get());
    auto filled = tpetraProduct(*A, false, *B, false);
    filled->resumeFill();
    filled->setAllToScalar(0.0);
    filled->fillComplete(B->getDomainMap(), A->getRangeMap());
    plan.execute(*A, *B, *filled);
    std::string why;
    tally.check(sameMatrix(gather(*tpetraProduct(*A, false, *B, false)), gather(*filled), why),
                std::string(algo) + " one-shot plan executed into another C than it was shown", why);
  }
  return tally.finish();
}
