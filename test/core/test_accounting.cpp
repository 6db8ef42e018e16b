// Exact byte accounting on a case small enough to count by hand: a dense 16 x 16 matrix
// (value 1) on a uniform row map, A*A. A block of r rows and z entries costs 8r + 12z bytes on
// the wire (row offsets int64, columns int32, values double).
//
// P=4, lambda=2 (groups {0,1},{2,3}):
//   Trident: 2 x 1 group grid, 2 rounds. A(i,s) is owned by my own group, so only B moves over
//     Gi: once, my slice of B(s,0) = 4 rows x 16 cols = 64 entries -> 8*4+12*64 = 800 B per rank.
//     Li: each round the group rebuilds B(s,0) (8 x 16) from 4-row slices; I receive the other
//     slice (64 entries) -> 800 B per round, 1600 B per rank.
//   SUMMA: 2 x 2 rank grid, 2 stages. Process rows {0,1},{2,3} lie inside groups: A travels on Li;
//     process columns {0,2},{1,3} cross groups: B on Gi. Each rank receives one 8 x 8 block of each
//     (832 B): Gi 832, Li 832 per rank.
//   Tpetra: each rank imports the 12 rows it does not own (16 entries each, 8 + 20*16 = 328 B):
//     4 from its group partner (Li 1312 B), 8 from the other group (Gi 2624 B).
// P=8, lambda=2: Trident 2 x 2 group grid, 2 rounds; A and B each cross Gi once per rank in slices
//   of 4 rows x 8 cols (416 B): Gi 832 B; Li 416 B per round: 832 B.
// One group (P=4, lambda=4; P=8, lambda=8): no Gi traffic at all; the group rebuilds the whole B from
// lambda slices of 16/lambda rows: Li = (lambda-1) * (8 r + 12 * 16 r) with r = 16/lambda.
#include <Tpetra_Core.hpp>

#include "Trident_MatrixMatrix.hpp"
#include "common/TestUtils.hpp"

using namespace TridentTest;

namespace {

Teuchos::RCP<crs_matrix_type> dense(long long n, const Trident::comm_ptr& comm) {
  auto map = Teuchos::rcp(new Trident::map_type(n, 0, comm));
  auto A = Teuchos::rcp(new crs_matrix_type(map, n));
  std::vector<GO> cols(n);
  std::vector<double> vals(n, 1.0);
  for (long long c = 0; c < n; ++c) cols[c] = c;
  for (auto g : Trident::Compat::localElementList(*map)) A->insertGlobalValues(g, cols, vals);
  A->fillComplete();
  return A;
}

struct Expect {
  std::string algo;
  int lambda;
  std::uint64_t gi, li;  // received per rank
  // With "trident: fetch" = "needed", each round every rank also gets a one-bit-per-row request
  // from each other rank of its group (ceil(rows of B's block / 8) bytes): rounds * (lambda-1) *
  // that. The rows themselves are all needed (A is dense), so the rest is unchanged.
  std::uint64_t li_requests = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  Tally tally;
  const int P = comm->getSize();
  auto A = dense(16, comm);
  std::vector<Expect> cases;
  if (P == 4)
    cases = {{"trident", 2, 800, 1600, 2 * 1 * 1},
             {"summa", 2, 832, 832},
             {"tpetra", 2, 2624, 1312},
             {"trident", 4, 0, 3 * (8 * 4 + 12 * 64), 1 * 3 * 2}};
  if (P == 8) cases = {{"trident", 2, 832, 832, 2 * 1 * 1}, {"trident", 8, 0, 0, 1 * 7 * 2}};
  // A dense A needs every row of B: fetching the needed rows moves exactly the whole slices.
  for (const char* fetch : {"needed", "whole"})
  for (auto& e : cases) {
    auto params = Teuchos::rcp(new Teuchos::ParameterList);
    params->set("trident: algorithm", e.algo);
    params->set("trident: ranks per group", e.lambda);
    params->set("trident: fetch", std::string(fetch));
    params->set("trident: grid", std::string("square"));  // the volumes above are for square grids
    auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
    Trident::MatrixMatrix::Multiply(*A, false, *A, false, *C, true, "", params);
    const Trident::MultiplyStats& s = Trident::MatrixMatrix::lastStats();
    std::uint64_t li = e.li;
    if (e.algo == "trident" && e.lambda == 8) li = 7 * (8 * 2 + 12 * 32);  // 7 other slices of 2 rows x 16
    if (std::string(fetch) == "needed") li += e.li_requests;
    const std::string what =
        e.algo + " P=" + std::to_string(P) + " lambda=" + std::to_string(e.lambda) + " fetch=" + fetch;
    tally.check(s.gi_bytes_recv == e.gi, what + ": Gi bytes received",
                std::to_string(s.gi_bytes_recv) + " != " + std::to_string(e.gi));
    tally.check(s.li_bytes_recv == li, what + ": Li bytes received",
                std::to_string(s.li_bytes_recv) + " != " + std::to_string(li));
    auto r = Trident::reduceStats(s, MPI_COMM_WORLD);
    tally.check(r.total.gi_bytes_sent == r.total.gi_bytes_recv && r.total.li_bytes_sent == r.total.li_bytes_recv,
                what + ": bytes sent == bytes received, summed over ranks");
    tally.check(s.algorithm == e.algo && s.P == P && s.ranks_per_group == e.lambda, what + ": stats identify the run");
    // Every entry of C = 16 (16 x 16 dense times dense): flops = 16^3 in total.
    tally.check(r.total.local_flops == 16ull * 16 * 16, what + ": flops", std::to_string(r.total.local_flops));
    if (e.algo != "tpetra") {
      tally.check(r.total.nnz_c_local == 256, what + ": nnz of C");
      tally.check(s.times.total > 0 && s.times.local_multiply > 0, what + ": phases timed");
    }
  }
  return tally.finish();
}
