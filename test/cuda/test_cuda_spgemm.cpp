// Differential test of the GPU backend against the host reference, core only (no Tpetra): random
// operands (empty rows and operands, unsorted rows, exact cancellation), the cuSPARSE tile
// multiply (symbolic + numeric, numeric again on new values), the K partial products summed on
// the device; with MPI, also the NCCL Li allgather. Structure must match exactly, values within
// 1e-12 relative. Exit 77 (skipped) where there is no GPU.
#ifdef TRIDENT_TEST_WITH_MPI
#include <mpi.h>

#include <trident/cuda/NcclLiTransport.hpp>
#include <trident/device/NodeLocalRank.hpp>
#endif

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <string>

#include <trident/cuda/CusparseSpGEMM.hpp>
#include <trident/local/LocalSpGEMM.hpp>

using Trident::Csr;
using Trident::DeviceCsr;

namespace {

int rank = 0, nranks = 1;
int failures = 0;

bool allRanks(bool ok) {
#ifdef TRIDENT_TEST_WITH_MPI
  int v = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return v != 0;
#else
  return ok;
#endif
}

void check(bool ok, const std::string& what, const std::string& why = "") {
  if (!ok && !why.empty()) std::cerr << "[rank " << rank << "] " << what << ": " << why << std::endl;
  ok = allRanks(ok);
  if (!ok) ++failures;
  if (rank == 0) std::cout << (ok ? "PASS " : "FAIL ") << what << std::endl;
}

Csr randomCsr(std::int64_t rows, std::int64_t cols, double density, std::mt19937_64& rng, bool ints) {
  std::vector<std::int64_t> r;
  std::vector<int> c;
  std::vector<double> v;
  std::uniform_real_distribution<double> u(0, 1);
  for (std::int64_t i = 0; i < rows; ++i) {
    if (u(rng) < 0.15) continue;  // empty rows
    for (std::int64_t j = 0; j < cols; ++j)
      if (u(rng) < density) {
        r.push_back(i);
        c.push_back(static_cast<int>(j));
        v.push_back(ints ? static_cast<double>(static_cast<int>(u(rng) * 5) - 2) : u(rng) - 0.5);
      }
  }
  // Unsorted rows: the device conversion has to sort them.
  return Trident::csrFromTriplets(rows, cols, r, c, v, /*sort_rows=*/false);
}

bool same(Csr want, const Csr& got, std::string& why) {
  want.sortRows();
  if (want.nrows != got.nrows || want.ncols != got.ncols) return why = "shape", false;
  if (want.rowptr != got.rowptr) return why = "row structure", false;
  if (want.col != got.col) return why = "column structure", false;
  for (std::size_t t = 0; t < want.val.size(); ++t)
    if (std::abs(want.val[t] - got.val[t]) > 1e-12 * std::max(1.0, std::abs(want.val[t])))
      return why = "value at " + std::to_string(t), false;
  return true;
}

// New values, same structure and order (for the numeric-only path).
void newValues(Csr& A, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& v : A.val) v = u(rng);
}

void tileMultiply(std::mt19937_64& rng) {
  struct Shape { std::int64_t m, k, n; double d; };
  const Shape shapes[] = {{0, 0, 0, 0.1},    {5, 0, 7, 0.1},     {10, 10, 10, 0.0},  {1, 50, 1, 0.3},
                          {40, 30, 50, 0.05}, {100, 80, 120, 0.03}, {300, 200, 10, 0.02}, {64, 64, 64, 0.2},
                          {50, 40, 10000, 0.05}, {2000, 2000, 2000, 0.002}};
  Trident::CusparseSpGEMM spgemm;
  Trident::MemoryResource& mem = spgemm.memory();
  for (const Shape& s : shapes) {
    for (bool ints : {false, true}) {
      const std::string tag = std::to_string(s.m) + "x" + std::to_string(s.k) + "x" + std::to_string(s.n) +
                              (ints ? " (cancelling)" : "");
      Csr A = randomCsr(s.m, s.k, s.d, rng, ints), B = randomCsr(s.k, s.n, s.d, rng, ints);
      A.sortRows();  // sorted on the host too, so new values can be copied into the device arrays as they are
      DeviceCsr a = Trident::toDeviceCsr(A, mem);
      const DeviceCsr b = Trident::toDeviceCsr(B, mem);
      std::string why;
      auto product = spgemm.symbolic(a, b);
      check(same(Trident::referenceMultiply(A, B), Trident::toHostCsr(product->C()), why), "cusparse " + tag, why);
      newValues(A, rng);
      if (A.nnz()) a.val.copyFromHost(A.val.data(), A.val.size());
      spgemm.numeric(*product);
      check(same(Trident::referenceMultiply(A, B), Trident::toHostCsr(product->C()), why),
            "cusparse numeric on new values " + tag, why);
      // The K partial products of a tile, summed on the device (K = 3 here).
      std::vector<Csr> host_parts;
      std::vector<DeviceCsr> dev_parts;
      for (int k = 0; k < 2; ++k) {
        Csr Ak = randomCsr(s.m, s.k, s.d, rng, ints), Bk = randomCsr(s.k, s.n, s.d, rng, ints);
        host_parts.push_back(Trident::referenceMultiply(Ak, Bk));
        dev_parts.push_back(Trident::toDeviceCsr(host_parts.back(), mem));
      }
      std::vector<const DeviceCsr*> addends;
      for (const DeviceCsr& p : dev_parts) addends.push_back(&p);
      const Csr sum = Trident::toHostCsr(spgemm.multiplyAdd(a, b, addends));
      host_parts.push_back(Trident::referenceMultiply(A, B));
      const Csr want = Trident::sumBlocks(std::move(host_parts), s.m, s.n, true);
      check(same(want, sum, why), "partial products summed on the device " + tag, why);
    }
  }
}

#ifdef TRIDENT_TEST_WITH_MPI
void transports(std::mt19937_64& rng, int devices_on_node) {
  // Li: NCCL refuses two ranks of one communicator on the same GPU.
  int distinct = nranks <= devices_on_node ? 1 : 0;
  distinct = allRanks(distinct);
  if (!distinct) {
    if (rank == 0)
      std::cout << "SKIP NCCL Li allgather: " << nranks << " ranks share " << devices_on_node
                << " GPU(s); NCCL needs one GPU per rank" << std::endl;
    return;
  }
  Trident::NcclLiTransport li(MPI_COMM_WORLD);
  const Csr mine = randomCsr(rank % 2 ? 0 : 40 + rank, 70, 0.1, rng, false);
  std::vector<std::int64_t> rows(nranks), nnz(nranks);
  const std::int64_t my_rows = mine.nrows, my_nnz = mine.nnz();
  MPI_Allgather(&my_rows, 1, MPI_INT64_T, rows.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
  MPI_Allgather(&my_nnz, 1, MPI_INT64_T, nnz.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
  std::uint64_t sent = 0, received = 0;
  const Csr got = li.allgather(mine, rows, nnz, &sent, &received);
  // The stacked tile, rebuilt on every rank from the host slices.
  std::vector<Csr> slices(nranks);
  for (int t = 0; t < nranks; ++t) {
    Csr s(rows[t], 70);
    s.col.resize(nnz[t]);
    s.val.resize(nnz[t]);
    if (t == rank) s = mine;
    MPI_Bcast(s.rowptr.data(), static_cast<int>(s.rowptr.size()), MPI_INT64_T, t, MPI_COMM_WORLD);
    MPI_Bcast(s.col.data(), static_cast<int>(s.col.size()), MPI_INT, t, MPI_COMM_WORLD);
    MPI_Bcast(s.val.data(), static_cast<int>(s.val.size()), MPI_DOUBLE, t, MPI_COMM_WORLD);
    slices[t] = std::move(s);
  }
  std::vector<const Csr*> parts;
  for (const Csr& s : slices) parts.push_back(&s);
  std::string why;
  check(same(Trident::stackRows(parts), got, why), "NCCL Li allgather (grouped broadcasts)", why);
}
#endif

}  // namespace

int main(int argc, char** argv) {
#ifdef TRIDENT_TEST_WITH_MPI
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
#else
  (void)argc, (void)argv;
#endif
  const int devices = Trident::cudaDeviceCount();
  if (!allRanks(devices > 0)) {
    if (rank == 0) {
      try {
        Trident::requireCudaDevice();
      } catch (const Trident::DeviceUnavailable& e) {
        std::cout << "SKIP: " << e.what() << std::endl;
      }
    }
#ifdef TRIDENT_TEST_WITH_MPI
    MPI_Finalize();
#endif
    return 77;
  }
  int local = 0;
#ifdef TRIDENT_TEST_WITH_MPI
  local = Trident::nodeLocalRank(MPI_COMM_WORLD);
#endif
  const int device = Trident::activateCudaDevice(-1, local);
  if (rank == 0) std::cout << "ranks: " << nranks << ", GPUs on the node: " << devices << std::endl;
  std::cout << "[rank " << rank << "] device " << device << std::endl;
  std::mt19937_64 rng(42 + rank);
  try {
    tileMultiply(rng);
#ifdef TRIDENT_TEST_WITH_MPI
    transports(rng, devices);
#endif
  } catch (const std::exception& e) {
    std::cerr << "[rank " << rank << "] error: " << e.what() << std::endl;
#ifdef TRIDENT_TEST_WITH_MPI
    MPI_Abort(MPI_COMM_WORLD, 1);
#endif
    return 1;
  }
  if (rank == 0) std::cout << (failures ? "FAILED " : "all passed ") << failures << std::endl;
#ifdef TRIDENT_TEST_WITH_MPI
  MPI_Finalize();
#endif
  return failures ? 1 : 0;
}
