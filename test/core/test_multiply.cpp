// Differential test of the drop-in: every algorithm, every lambda that divides P, against
// Tpetra::MatrixMatrix::Multiply and the serial reference, on real and random matrices.
//   test_multiply [--matrices=a.mtx,b.mtx,...] [--random] [--lambdas=all|1,2]
#include <Teuchos_CommandLineProcessor.hpp>
#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Core.hpp>

#include "Trident_Generators.hpp"
#include "Trident_MatrixMarket.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "common/TestUtils.hpp"

using namespace TridentTest;
using Trident::map_type;

namespace {

Tally tally;
std::vector<int> lambdas;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == ',') {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

Teuchos::RCP<crs_matrix_type> emptyOn(const Teuchos::RCP<const map_type>& rowMap) {
  return Teuchos::rcp(new crs_matrix_type(rowMap, 0));
}

void runCase(const std::string& name, const crs_matrix_type& A, bool tA, const crs_matrix_type& B, bool tB,
             bool with_permute) {
  auto rowMap = tA ? A.getDomainMap() : A.getRowMap();
  auto expectedDomain = tB ? B.getRangeMap() : B.getDomainMap();
  auto expectedRange = tA ? A.getDomainMap() : A.getRangeMap();
  auto Ct = emptyOn(rowMap);
  Tpetra::MatrixMatrix::Multiply(A, tA, B, tB, *Ct);
  Entries tp = gather(*Ct);
  std::string why;
  {
    Entries ref = referenceProduct(gather(A), tA, gather(B), tB);
    tally.check(sameMatrix(ref, tp, why), name + ": Tpetra == serial reference", why);
  }
  struct Variant {
    std::string algo;
    int lambda;
    std::string permute;
    std::string grid = "auto";
    std::string fetch = "needed";
    std::string slices = "auto";
    std::string blocks = "auto";
  };
  std::vector<Variant> variants;
  for (int l : lambdas) variants.push_back({"trident", l, "none"});
  variants.push_back({"summa", lambdas.back(), "none"});
  variants.push_back({"1d", lambdas[0], "none"});  // Tpetra's where it cannot run in place (transposes)
  variants.push_back({"trident", lambdas[0], "none", "rows"});
  variants.push_back({"trident", lambdas.size() > 2 ? lambdas[1] : lambdas[0], "none", "square"});
  variants.push_back({"trident", lambdas.back(), "none", "square", "whole"});
  // Slices at the 1D owners' rows (nothing moves in or out) and always balanced ones.
  variants.push_back({"trident", lambdas.back(), "none", "auto", "needed", "owners"});
  variants.push_back({"trident", lambdas[0], "none", "rows", "whole", "owners"});
  variants.push_back({"trident", lambdas.back(), "none", "rows", "needed", "balanced"});
  // Row blocks cut by work (C's rows may leave their owners' group), on both grids.
  variants.push_back({"trident", lambdas[0], "none", "rows", "needed", "balanced", "balanced"});
  variants.push_back({"trident", lambdas.back(), "none", "square", "whole", "balanced", "balanced"});
  if (with_permute) {
    variants.push_back({"trident", lambdas.size() > 1 ? lambdas[1] : lambdas[0], "random"});
    variants.push_back({"summa", lambdas[0], "random"});
  }
  for (const auto& v : variants) {
    auto params = Teuchos::rcp(new Teuchos::ParameterList);
    params->set("trident: algorithm", v.algo);
    params->set("trident: ranks per group", v.lambda);
    params->set("trident: permute", v.permute);
    params->set("trident: grid", v.grid);
    params->set("trident: fetch", v.fetch);
    params->set("trident: slices", v.slices);
    params->set("trident: blocks", v.blocks);
    auto C = emptyOn(rowMap);
    const std::string what = name + " [" + v.algo + " lambda=" + std::to_string(v.lambda) + " permute=" + v.permute +
                             " grid=" + v.grid + " fetch=" + v.fetch + " slices=" + v.slices + " blocks=" + v.blocks + "]";
    bool threw = false;
    try {
      Trident::MatrixMatrix::Multiply(A, tA, B, tB, *C, true, "", params);
    } catch (const std::exception& e) {
      threw = true;
      why = e.what();
    }
    if (!tally.check(!threw, what + " runs", why)) continue;
    bool maps = C->isFillComplete() && C->getDomainMap()->isSameAs(*expectedDomain) &&
                C->getRangeMap()->isSameAs(*expectedRange) && C->getRowMap()->isSameAs(*rowMap);
    tally.check(maps, what + " maps as Tpetra's");
    tally.check(sameMatrix(tp, gather(*C), why), what + " == Tpetra", why);
    // "1d" with a transposed operand is Tpetra's own Multiply, whose Import there is its union
    // of B's and the remote rows' Imports, not a fresh one.
    if (v.algo != "1d" || !(tA || tB)) tally.check(importAsTpetras(*C, why), what + " Import as Tpetra's", why);
  }
}

// A map that gives rank 0 no rows (when P > 1) and non-contiguous, shuffled global IDs.
Teuchos::RCP<const map_type> awkwardMap(long long n, const Trident::comm_ptr& comm) {
  const int P = comm->getSize(), me = comm->getRank();
  std::vector<GO> mine;
  for (long long g = 0; g < n; ++g) {
    const int owner = P == 1 ? 0 : 1 + static_cast<int>((g * 7) % (P - 1));
    if (owner == me) mine.push_back(3 * g + 5);
  }
  return Teuchos::rcp(new map_type(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                                   Teuchos::ArrayView<const GO>(mine.data(), mine.size()), 0, comm));
}

// M again with its column map's GIDs in reverse order, a column map Tpetra would not make: the
// "1d" product then sorts all of C's columns instead of merging B's order with the extra ones.
Teuchos::RCP<crs_matrix_type> withColumnsReversed(const crs_matrix_type& M) {
  const auto gids = Trident::Compat::localElementList(*M.getColMap());
  std::vector<GO> reversed(gids.size());
  for (std::size_t i = 0; i < reversed.size(); ++i) reversed[i] = gids[reversed.size() - 1 - i];
  auto colMap = Teuchos::rcp(new map_type(Teuchos::OrdinalTraits<Tpetra::global_size_t>::invalid(),
                                          Teuchos::ArrayView<const GO>(reversed.data(), reversed.size()),
                                          M.getColMap()->getIndexBase(), M.getComm()));
  auto R = Teuchos::rcp(new crs_matrix_type(M.getRowMap(), colMap, M.getGlobalMaxNumRowEntries()));
  const auto local = M.getLocalMatrixHost();
  for (LO r = 0; r < static_cast<LO>(Trident::Compat::localNumRows(M)); ++r) {
    std::vector<GO> cols;
    std::vector<double> vals;
    for (std::size_t q = local.graph.row_map(r); q < local.graph.row_map(r + 1); ++q) {
      cols.push_back(M.getColMap()->getGlobalElement(local.graph.entries(q)));
      vals.push_back(local.values(q));
    }
    R->insertGlobalValues(M.getRowMap()->getGlobalElement(r), Teuchos::ArrayView<const GO>(cols.data(), cols.size()),
                          Teuchos::ArrayView<const double>(vals.data(), vals.size()));
  }
  R->fillComplete(M.getDomainMap(), M.getRangeMap());
  return R;
}

void randomCases(const Trident::comm_ptr& comm) {
  using Trident::gen::RandomOptions;
  RandomOptions o;
  o.avg_per_row = 5;
  o.empty_row_fraction = 0.1;
  o.empty_col_fraction = 0.1;
  o.skew = 0.2;
  o.explicit_zeros = true;
  o.seed = 7;
  auto A = Trident::gen::random(300, 200, o, comm);  // 300 x 200
  o.seed = 8;
  auto B = Trident::gen::random(200, 250, o, comm);  // 200 x 250
  runCase("random A(300x200)*B(200x250)", *A, false, *B, false, true);
  runCase("random A*B, B's column map reversed", *A, false, *withColumnsReversed(*B), false, false);
  o.seed = 9;
  auto At = Trident::gen::random(200, 300, o, comm);  // op(A) = At^T is 300 x 200
  runCase("random At^T*B", *At, true, *B, false, false);
  o.seed = 10;
  auto Bt = Trident::gen::random(250, 200, o, comm);  // op(B) = Bt^T is 200 x 250
  runCase("random A*Bt^T", *A, false, *Bt, true, false);

  // Non-contiguous maps, a rank with no rows, domain map distributed differently from B's rows.
  auto rowA = awkwardMap(180, comm);
  auto inner = Teuchos::rcp(new map_type(120, 0, comm));
  o.seed = 11;
  auto A2 = Trident::gen::random(rowA, inner, rowA, o);
  o.seed = 12;
  auto colB = awkwardMap(90, comm);
  auto B2 = Trident::gen::random(inner, colB, inner, o);
  runCase("awkward maps A(180x120)*B(120x90)", *A2, false, *B2, false, true);

  // Hypersparse C over a domain map whose GIDs run backwards on every rank: C's Import tells each
  // owner its few columns as index lists (not bitmaps), in an order that is not the owner's own.
  {
    const long long n = 40000;
    const int P = comm->getSize(), me = comm->getRank();
    std::vector<GO> backwards;
    for (long long g = n * (me + 1) / P - 1; g >= n * me / P; --g) backwards.push_back(g);
    auto domainB = Teuchos::rcp(new map_type(n, Teuchos::ArrayView<const GO>(backwards.data(), backwards.size()), 0, comm));
    auto innerH = Teuchos::rcp(new map_type(8000, 0, comm));
    auto rowH = Teuchos::rcp(new map_type(200, 0, comm));
    RandomOptions h;
    h.avg_per_row = 3;
    h.seed = 14;
    auto AH = Trident::gen::random(rowH, innerH, rowH, h);
    h.avg_per_row = 1;
    h.seed = 15;
    auto BH = Trident::gen::random(innerH, domainB, innerH, h);
    runCase("hypersparse C, backwards domain map A(200x8000)*B(8000x40000)", *AH, false, *BH, false, false);
  }

  // B's column GIDs spread far wider than its entries (a stride of 100,000): the "1d" product
  // numbers the remote rows' columns by hash, not by a table over their range.
  {
    const long long n = 3000;
    const int P = comm->getSize(), me = comm->getRank();
    std::vector<GO> wide;
    for (long long g = n * me / P; g < n * (me + 1) / P; ++g) wide.push_back(100000 * g + 3);
    auto domainW = Teuchos::rcp(new map_type(n, Teuchos::ArrayView<const GO>(wide.data(), wide.size()), 0, comm));
    auto innerW = Teuchos::rcp(new map_type(600, 0, comm));
    auto rowW = Teuchos::rcp(new map_type(300, 0, comm));
    RandomOptions w;
    w.avg_per_row = 4;
    w.seed = 16;
    auto AW = Trident::gen::random(rowW, innerW, rowW, w);
    w.seed = 17;
    auto BW = Trident::gen::random(innerW, domainW, innerW, w);
    runCase("wide column GIDs A(300x600)*B(600x3000)", *AW, false, *BW, false, false);
  }

  // Square random with a very skewed row, A*A.
  RandomOptions s;
  s.avg_per_row = 3;
  s.skew = 0.5;
  s.seed = 13;
  auto S = Trident::gen::random(400, 400, s, comm);
  runCase("random skewed A*A", *S, false, *S, false, true);
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  Teuchos::CommandLineProcessor clp(false, true);
  std::string matrices, lambda_list = "all";
  bool random = true;
  clp.setOption("matrices", &matrices, "comma-separated .mtx files (relative to TRIDENT_MATRIX_DIR)");
  clp.setOption("random", "no-random", &random, "run the random-matrix cases");
  clp.setOption("lambdas", &lambda_list, "\"all\" divisors of P, or a comma-separated list");
  if (clp.parse(argc, argv) != Teuchos::CommandLineProcessor::PARSE_SUCCESSFUL) return 2;
  if (lambda_list == "all") {
    lambdas = divisors(comm->getSize());
  } else {
    for (auto& s : split(lambda_list)) lambdas.push_back(std::stoi(s));
  }
  tally.verbose(false);

  for (const auto& m : split(matrices)) {
    Trident::io::MatrixMarketInfo info;
    auto A = Trident::io::readMatrixMarket(matrixDir() + "/" + m, comm, &info);
    runCase(m + " A*A", *A, false, *A, false, true);
    if (info.symmetry == "general") {  // for symmetric A these equal A*A
      runCase(m + " A^T*A", *A, true, *A, false, false);
      runCase(m + " A*A^T", *A, false, *A, true, false);
    }
  }
  if (random) randomCases(comm);
  return tally.finish();
}
