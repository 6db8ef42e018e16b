// The drop-in Multiply with "trident: local kernel" = "cusparse" (CUDA builds): with a GPU on
// every rank, every algorithm and lambda against Tpetra's Multiply (random rectangular A*B and
// A*A, K partial products summed through the kernel's multiplyAdd); without one, the key is refused
// with Trident::InvalidInput on every rank before any tile moves.
#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Core.hpp>

#include "Trident_Generators.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "common/TestUtils.hpp"
#include <trident/cuda/CudaDevice.hpp>

using namespace TridentTest;

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  const int P = comm->getSize();
  Tally tally;
  Trident::gen::RandomOptions o;
  o.avg_per_row = 5;
  o.seed = 11;
  auto A = Trident::gen::random(300, 200, o, comm);
  o.seed = 12;
  auto B = Trident::gen::random(200, 250, o, comm);
  auto params = [](const std::string& algo, int lambda) {
    auto p = Teuchos::rcp(new Teuchos::ParameterList);
    p->set("trident: algorithm", algo);
    p->set("trident: ranks per group", lambda);
    p->set("trident: local kernel", std::string("cusparse"));
    return p;
  };
  int gpu = Trident::cudaDeviceCount() > 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &gpu, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (!gpu) {
    expectInvalidInput(tally, "\"cusparse\" without a GPU on every rank", "no CUDA device", [&] {
      auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
      Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", params("trident", 1));
    });
    if (rank() == 0) std::cout << "SKIP the products: no CUDA device" << std::endl;
    return tally.finish();
  }
  auto Ct = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
  Tpetra::MatrixMatrix::Multiply(*A, false, *B, false, *Ct);
  const Entries expected = gather(*Ct);
  auto Att = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
  auto Asq = Trident::gen::random(300, 300, o, comm);
  Tpetra::MatrixMatrix::Multiply(*Asq, false, *Asq, false, *Att);
  const Entries expected_sq = gather(*Att);
  std::string why;
  for (const std::string algo : {"trident", "summa"})
    for (int lambda : divisors(P)) {
      const std::string tag = algo + ", P=" + std::to_string(P) + ", lambda=" + std::to_string(lambda);
      auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
      Trident::MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", params(algo, lambda));
      tally.check(sameMatrix(expected, gather(*C), why), "cusparse A*B == Tpetra, " + tag, why);
      auto C2 = Teuchos::rcp(new crs_matrix_type(Asq->getRowMap(), 0));
      Trident::MatrixMatrix::Multiply(*Asq, false, *Asq, false, *C2, true, "", params(algo, lambda));
      tally.check(sameMatrix(expected_sq, gather(*C2), why), "cusparse A*A == Tpetra, " + tag, why);
    }
  return tally.finish();
}
