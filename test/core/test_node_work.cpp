// The "1d" product with its work shared inside each group ("trident: share node work" =
// "always"; "auto" shares only where ranks have cores of their own) on a
// power-law matrix whose heavy rows sit on the first ranks (values from a hash of the entry's
// position, so that sums depend on their order): C equal to Tpetra's, and bit
// for bit equal to the product where every rank computes its own rows; the work was shared (the
// unshared product is imbalanced, the shared one within 1.2x of its group's average); every rank
// of a group computes what the split gives it. Also all of A's rows on rank 0, the others without any.
//   test_node_work  (any P > 1; groups of P and, where 2 divides P and P > 2, of 2)
#include <Teuchos_CommandLineProcessor.hpp>
#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "Trident_MatrixMatrix.hpp"
#include "Trident_TpetraCompat.hpp"
#include "common/TestUtils.hpp"

using namespace TridentTest;
using Trident::map_type;

namespace {

Tally tally;

double hashValue(GO i, GO j) {
  std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9e3779b97f4a7c15ull ^ static_cast<std::uint64_t>(j) * 0xc2b2ae3d27d4eb4full;
  h ^= h >> 29;
  return 0.5 + static_cast<double>(h % 1000003) / 1000003.0;
}

// A power-law matrix in the order that makes the 1D row blocks uneven: row i has about
// 2 + 1200 / (1 + i / 8) entries in columns scattered by a hash, so the first rows hold most of
// the work of A*A; values from a hash of the position. Rows on rowMap, columns on domainMap.
Teuchos::RCP<crs_matrix_type> powerLaw(GO n, const Teuchos::RCP<const map_type>& rowMap,
                                       const Teuchos::RCP<const map_type>& domainMap) {
  auto A = Teuchos::rcp(new crs_matrix_type(rowMap, 1202));
  for (std::size_t r = 0; r < Trident::Compat::localNumElements(*rowMap); ++r) {
    const GO i = rowMap->getGlobalElement(static_cast<LO>(r));
    const auto d = static_cast<std::size_t>(2 + 1200 / (1 + i / 8));
    std::vector<GO> cols;
    for (std::uint64_t t = 0; cols.size() < d; ++t) {
      const GO j = static_cast<GO>((static_cast<std::uint64_t>(i) * 7919 + t * 104729 + (t * t) % 613) % static_cast<std::uint64_t>(n));
      if (std::find(cols.begin(), cols.end(), j) == cols.end()) cols.push_back(j);
    }
    std::vector<double> vals;
    for (const GO j : cols) vals.push_back(hashValue(i, j));
    A->insertGlobalValues(i, Teuchos::ArrayView<const GO>(cols.data(), cols.size()),
                          Teuchos::ArrayView<const double>(vals.data(), vals.size()));
  }
  A->fillComplete(domainMap, rowMap);
  return A;
}

struct Run {
  Teuchos::RCP<crs_matrix_type> C;
  std::vector<std::uint64_t> flops;  // every rank's multiply-adds
};

Run multiply(const crs_matrix_type& A, const crs_matrix_type& B, int lambda, const std::string& share) {
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("trident: algorithm", std::string("1d"));
  params->set("trident: ranks per group", lambda);
  params->set("trident: share node work", share);
  Run r;
  r.C = Teuchos::rcp(new crs_matrix_type(A.getRowMap(), 0));
  Trident::MatrixMatrix::Multiply(A, false, B, false, *r.C, true, "", params);
  const Trident::MultiplyStats& s = Trident::MatrixMatrix::lastStats();
  std::uint64_t mine = s.local_flops;
  r.flops.resize(static_cast<std::size_t>(size()));
  MPI_Allgather(&mine, 1, MPI_UINT64_T, r.flops.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  tally.check(s.algorithm == "1d", "the 1d product ran", s.algorithm);
  return r;
}

// The busiest rank of a group over its average (groups of lambda consecutive ranks).
double imbalance(const std::vector<std::uint64_t>& flops, int lambda) {
  double worst = 1.0;
  for (std::size_t g0 = 0; g0 < flops.size(); g0 += static_cast<std::size_t>(lambda)) {
    const auto b = flops.begin() + static_cast<long>(g0), e = b + lambda;
    const double avg = static_cast<double>(std::accumulate(b, e, std::uint64_t{0})) / lambda;
    if (avg > 0) worst = std::max(worst, static_cast<double>(*std::max_element(b, e)) / avg);
  }
  return worst;
}

void runCase(const std::string& name, const crs_matrix_type& A, const crs_matrix_type& B, int lambda) {
  const std::string what = name + " lambda=" + std::to_string(lambda);
  auto Ct = Teuchos::rcp(new crs_matrix_type(A.getRowMap(), 0));
  Tpetra::MatrixMatrix::Multiply(A, false, B, false, *Ct);
  const Run own = multiply(A, B, lambda, "never"), shared = multiply(A, B, lambda, "always");
  const Run chosen = multiply(A, B, lambda, "auto");
  std::string why;
  const Entries tp = gather(*Ct), es = gather(*shared.C);
  tally.check(sameMatrix(tp, es, why), what + ": shared == Tpetra", why);
  tally.check(identicalEntries(gather(*own.C), es, why), what + ": shared == unshared, bit for bit", why);
  tally.check(identicalEntries(gather(*chosen.C), es, why), what + ": \"auto\" == unshared, bit for bit", why);
  tally.check(importAsTpetras(*shared.C, why), what + ": Import as Tpetra's", why);
  const std::uint64_t total = std::accumulate(own.flops.begin(), own.flops.end(), std::uint64_t{0});
  tally.check(std::accumulate(shared.flops.begin(), shared.flops.end(), std::uint64_t{0}) == total,
              what + ": every multiply-add done once");
  const double before = imbalance(own.flops, lambda), after = imbalance(shared.flops, lambda);
  tally.check(before > 1.3, what + ": unshared, the busiest rank of a group has over 1.3x its average (not vacuous)",
              std::to_string(before));
  tally.check(after <= 1.2, what + ": shared, every rank within 1.2x of its group's average", std::to_string(after));
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard scope(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  const int P = comm->getSize();
  const GO n = 3000;
  std::vector<int> lambdas{P};
  if (P > 2 && P % 2 == 0) lambdas.push_back(2);
  const auto uniform = Teuchos::rcp(new map_type(n, 0, comm));
  const auto A = powerLaw(n, uniform, uniform);
  for (int lambda : lambdas) runCase("power law A*A, uniform row blocks", *A, *A, lambda);
  // Every row of A on rank 0 (B on uniform blocks): the other ranks have no rows of their own and
  // take rank 0's.
  const auto onRank0 = Teuchos::rcp(new map_type(n, comm->getRank() == 0 ? static_cast<std::size_t>(n) : 0, 0, comm));
  runCase("power law A*B, every row of A on rank 0", *powerLaw(n, onRank0, uniform), *A, P);
  return tally.finish();
}
