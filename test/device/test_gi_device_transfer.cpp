// Gi transfer of device-format blocks over MPI, through host memory: both the direct path (what a
// CUDA-aware MPI gets) and the staged path (what every other MPI gets) run the code the GPU
// build runs. A ring: every rank sends a block to the next and receives the previous rank's.
#include <mpi.h>

#include <cstdlib>
#include <iostream>
#include <random>
#include <string>

#include <trident/device/AllgathervPlan.hpp>
#include <trident/device/DeviceCsr.hpp>
#include <trident/device/GiDeviceTransfer.hpp>
#include <trident/local/Csr.hpp>

using Trident::Csr;

namespace {

Csr blockOf(int rank, int round) {
  std::mt19937_64 rng(1000 * rank + round);
  std::uniform_real_distribution<double> u(0, 1);
  const std::int64_t rows = rank % 2 ? 0 : 20 + rank, cols = 40;  // odd ranks: empty slices
  std::vector<std::int64_t> r;
  std::vector<int> c;
  std::vector<double> v;
  for (std::int64_t i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j)
      if (u(rng) < 0.15) r.push_back(i), c.push_back(j), v.push_back(u(rng));
  return Trident::csrFromTriplets(rows, cols, r, c, v);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failures = 0;
  auto check = [&](bool ok, const std::string& what) {
    int all = ok ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) ++failures;
    if (rank == 0) std::cout << (all ? "PASS " : "FAIL ") << what << std::endl;
  };
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (bool direct : {true, false}) {
    Trident::GiDeviceTransfer gi(MPI_COMM_WORLD, direct);
    // Two rounds in flight at once, as the lookahead window keeps them.
    const Trident::DeviceCsr out0 = Trident::toDeviceCsr(blockOf(rank, 0), Trident::hostMemory());
    const Trident::DeviceCsr out1 = Trident::toDeviceCsr(blockOf(rank, 1), Trident::hostMemory());
    const Csr want0 = blockOf(prev, 0), want1 = blockOf(prev, 1);
    Trident::DeviceCsr in0 = Trident::allocateDeviceCsr(Trident::hostMemory(), want0.nrows, want0.ncols, want0.nnz());
    Trident::DeviceCsr in1 = Trident::allocateDeviceCsr(Trident::hostMemory(), want1.nrows, want1.ncols, want1.nnz());
    gi.postReceive(in0, prev, 10);
    gi.postReceive(in1, prev, 20);
    gi.postSend(out0, next, 10);
    gi.postSend(out1, next, 20);
    gi.waitAll();
    const Csr got0 = Trident::toHostCsr(in0), got1 = Trident::toHostCsr(in1);
    const bool same = got0.rowptr == want0.rowptr && got0.col == want0.col && got0.val == want0.val &&
                      got1.rowptr == want1.rowptr && got1.col == want1.col && got1.val == want1.val;
    const std::string how = direct ? "direct" : "host-staged";
    check(same, "ring of device-format blocks, " + how + ", P=" + std::to_string(size));
    check(gi.bytesSent() == Trident::AllgathervPlan::deviceWireBytes(out0.nrows, out0.nnz) +
                                Trident::AllgathervPlan::deviceWireBytes(out1.nrows, out1.nnz),
          "bytes sent counted, " + how);
  }
  // The detection can be overridden from the environment (for MPIs that misreport).
  setenv("TRIDENT_GI_DEVICE_DIRECT", "1", 1);
  const bool forced_on = Trident::mpiIsCudaAware();
  setenv("TRIDENT_GI_DEVICE_DIRECT", "0", 1);
  const bool forced_off = Trident::mpiIsCudaAware();
  unsetenv("TRIDENT_GI_DEVICE_DIRECT");
  check(forced_on && !forced_off, "TRIDENT_GI_DEVICE_DIRECT overrides the CUDA-awareness query");
  if (rank == 0) std::cout << "this MPI is CUDA-aware: " << (Trident::mpiIsCudaAware() ? "yes" : "no") << std::endl;
  MPI_Finalize();
  return failures ? 1 : 0;
}
