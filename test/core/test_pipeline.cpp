// The paced, pipelined transport (Gi windows of `lookahead` rounds on both sides, progress between
// rows of the local kernel, Li exchange of round r+1 during round r's multiply, row-compressed
// tiles) must not change a single bit of C: for every lambda and grid, C with lookahead = 1 and
// with a lookahead larger than the number of rounds equals C with the default lookahead exactly,
// and the needed-rows path (row-compressed B, renumbered A) equals the whole-tile path exactly
// (same products accumulated in the same order), and so does Gi pacing "eager" (the default:
// tiles sent as soon as the sender's in phase ends) against "ready" (sent once the receiving
// group is ready, GiFetch's ready gating), which the other checks here run with. Each is also
// checked against Tpetra.
//   test_pipeline [--matrices=a.mtx,...]
// Run with TRIDENT_PROGRESS_EVERY_WORK=1 the progress hook fires after every row.
#include <Teuchos_CommandLineProcessor.hpp>
#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Core.hpp>


#include "Trident_Generators.hpp"
#include "Trident_MatrixMarket.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "common/TestUtils.hpp"

using namespace TridentTest;

namespace {

Tally tally;

Entries product(const crs_matrix_type& A, const std::string& algo, int lambda, const std::string& grid,
                const std::string& fetch, int lookahead, const std::string& pacing = "ready") {
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("trident: algorithm", algo);
  params->set("trident: ranks per group", lambda);
  params->set("trident: grid", grid);
  params->set("trident: fetch", fetch);
  params->set("trident: lookahead", lookahead);
  if (algo == "trident") params->set("trident: gi pacing", pacing);
  auto C = Teuchos::rcp(new crs_matrix_type(A.getRowMap(), 0));
  Trident::MatrixMatrix::Multiply(A, false, A, false, *C, true, "", params);
  return gather(*C);
}

void runCase(const std::string& name, const crs_matrix_type& A) {
  auto Ct = Teuchos::rcp(new crs_matrix_type(A.getRowMap(), 0));
  Tpetra::MatrixMatrix::Multiply(A, false, A, false, *Ct);
  const Entries tp = gather(*Ct);
  std::string why;
  for (int lambda : divisors(size())) {
    for (const std::string grid : {"square", "rows"}) {
      const std::string what = name + " [lambda=" + std::to_string(lambda) + " grid=" + grid + "]";
      const Entries base = product(A, "trident", lambda, grid, "needed", 2);
      tally.check(sameMatrix(tp, base, why), what + " lookahead 2 == Tpetra", why);
      for (int la : {1, 64})
        tally.check(identicalEntries(base, product(A, "trident", lambda, grid, "needed", la), why),
                    what + " lookahead " + std::to_string(la) + " bit-identical to lookahead 2", why);
      tally.check(identicalEntries(base, product(A, "trident", lambda, grid, "whole", 1), why),
                  what + " whole tiles (lookahead 1) bit-identical to needed rows", why);
      for (int la : {1, 2})
        tally.check(identicalEntries(base, product(A, "trident", lambda, grid, "needed", la, "eager"), why),
                    what + " gi pacing eager (lookahead " + std::to_string(la) + ") bit-identical to ready", why);
    }
  }
  const Entries summa = product(A, "summa", 1, "auto", "needed", 2);
  tally.check(sameMatrix(tp, summa, why), name + " [summa lookahead 2] == Tpetra", why);
  for (int la : {1, 64})
    tally.check(identicalEntries(summa, product(A, "summa", 1, "auto", "needed", la), why),
                name + " [summa] lookahead " + std::to_string(la) + " bit-identical to lookahead 2", why);
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  Teuchos::CommandLineProcessor clp(false, true);
  std::string matrices = "cora.mtx,hep-th.mtx,4elt.mtx";
  clp.setOption("matrices", &matrices, "comma-separated .mtx files (relative to TRIDENT_MATRIX_DIR)");
  if (clp.parse(argc, argv) != Teuchos::CommandLineProcessor::PARSE_SUCCESSFUL) return 2;
  tally.verbose(false);
  std::string cur;
  for (char c : matrices + ",") {
    if (c != ',') {
      cur += c;
      continue;
    }
    if (cur.empty()) continue;
    auto A = Trident::io::readMatrixMarket(matrixDir() + "/" + cur, comm);
    runCase(cur + " A*A", *A);
    cur.clear();
  }
  Trident::gen::RandomOptions o;
  o.avg_per_row = 4;
  o.skew = 0.3;
  o.explicit_zeros = true;
  o.seed = 21;
  auto R = Trident::gen::random(500, 500, o, comm);
  runCase("random skewed A*A", *R);
  return tally.finish();
}
