// "auto" predicts a layout and the plan builds exactly that one: with four or more groups (the
// square grid is then 2D), Trident's owner slices need the G x 1 grid, which the estimate and
// the counting must consider and the plan must then take. Run at P = 4 with lambda = 1 (four
// groups) under a machine model that makes "auto" choose Trident (TRIDENT_MACHINE_MODEL).
#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Core.hpp>
#include <string>

#include "Trident_Generators.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "common/TestUtils.hpp"

using namespace TridentTest;

namespace {

Tally tally;

Teuchos::RCP<Teuchos::ParameterList> autoParams(bool estimate, const std::string& grid) {
  auto p = Teuchos::rcp(new Teuchos::ParameterList);
  p->set("trident: ranks per group", 1);
  p->set("trident: auto: remember choice", false);
  p->set("trident: auto: estimate without counting", estimate);
  p->set("trident: grid", grid);
  return p;
}

// One product through "auto": C equals Tpetra's, Trident was chosen by the expected step, and the
// slices that ran are the ones the prediction was for (and the expected ones).
void checkLayout(const std::string& what, const crs_matrix_type& A, const Teuchos::RCP<Teuchos::ParameterList>& p,
                 Trident::AutoPath path, bool owner_slices) {
  auto expected = Teuchos::rcp(new crs_matrix_type(A.getRowMap(), 0));
  Tpetra::MatrixMatrix::Multiply(A, false, A, false, *expected);
  auto C = Teuchos::rcp(new crs_matrix_type(A.getRowMap(), 0));
  Trident::MatrixMatrix::Multiply(A, false, A, false, *C, true, "", p);
  const Trident::MultiplyStats& s = Trident::MatrixMatrix::lastStats();
  std::string why;
  tally.check(sameMatrix(gather(*expected), gather(*C), why), what + ": C == Tpetra", why);
  tally.check(s.algorithm == "trident" && s.auto_path == path,
              what + ": Trident chosen by the " + Trident::toString(path),
              s.algorithm + " by the " + Trident::toString(s.auto_path) + ": " + s.auto_reason);
  tally.check(s.owner_slices == s.predicted_owner_slices,
              what + ": the slices that ran are the predicted ones",
              std::string("predicted owner slices ") + (s.predicted_owner_slices ? "yes" : "no") + ", ran " +
                  (s.owner_slices ? "yes" : "no") + "; grid " + std::to_string(s.grid_rows) + " x " +
                  std::to_string(s.grid_cols));
  tally.check(s.owner_slices == owner_slices, what + std::string(": owner slices ") + (owner_slices ? "taken" : "not taken"),
              s.auto_reason);
  if (s.owner_slices) tally.check(s.grid_cols == 1, what + ": owner slices on the G x 1 grid", "");
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  if (comm->getSize() < 2) return 0;
  // Even rows: every rank's share of the work is the average, so owner slices are taken.
  Trident::gen::RandomOptions even;
  even.avg_per_row = 6;
  even.seed = 11;
  auto A = Trident::gen::random(2000, 2000, even, comm);
  checkLayout("even rows, estimate", *A, autoParams(true, "auto"), Trident::AutoPath::Estimate, true);
  checkLayout("even rows, counted", *A, autoParams(false, "auto"), Trident::AutoPath::Counted, true);
  checkLayout("even rows, square grid asked for", *A, autoParams(false, "square"), Trident::AutoPath::Counted, false);
  // Uneven rows: rank 0 holds most of them, so its work is well over twice the average and
  // balanced slices are predicted and built.
  const int P = comm->getSize();
  const std::size_t mine = comm->getRank() == 0 ? 1400 : 600 / (P - 1);
  auto uneven = Teuchos::rcp(new Trident::map_type(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(), mine, 0, comm));
  auto S = Trident::gen::random(uneven, uneven, uneven, even);
  checkLayout("uneven rows, counted", *S, autoParams(false, "auto"), Trident::AutoPath::Counted, false);
  return tally.finish();
}
