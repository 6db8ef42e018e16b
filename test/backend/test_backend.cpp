// The backend seam: every local kernel x Li transport x Gi transport the host backend offers, run
// through Trident's loop (and SUMMA's, which takes only the kernel) on random rectangular
// problems with empty rows, against the serial reference multiply. For one kernel, every
// transport combination must give bit-identical blocks (they move the same entries; only what
// travels differs), and a kept state (a plan) must reproduce new values through the kernel's
// handle (symbolic once, numeric after).
// Through the drop-in, "trident: device" = "host" is the default's product, and "cuda" is refused
// with InvalidInput on every rank where some rank has no GPU (or CUDA is not built in). The
// registries hold the backends and kernels this build has, with their available() answers, and
// unknown names throw with the names the build has.
//   test_backend   (run at P = 1, 2, 4; every lambda dividing P)
#include <Tpetra_Core.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "Trident_Generators.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "common/TestUtils.hpp"
#include "common/TripletRows.hpp"
#include <trident/algorithms/Algorithms.hpp>
#include <trident/backend/Backend.hpp>
#include <trident/grid/Topology.hpp>
#include <trident/partition/Layout.hpp>
#include <trident/partition/Redistribute.hpp>
#ifdef TRIDENT_HAVE_CUDA
#include <trident/cuda/CudaDevice.hpp>
#endif

using namespace TridentTest;
using namespace Trident;

namespace {

struct Problem {
  std::string name;
  std::int64_t m = 0, k = 0, n = 0;
  Triplets A, B;  // all entries (every rank builds the whole problem)
};

// perRow entries per nonempty row; a row is empty with probability `empty`.
Triplets randomTriplets(std::int64_t rows, std::int64_t cols, int perRow, double empty, double scale,
                        std::mt19937_64& rng) {
  Triplets T;
  std::uniform_real_distribution<double> u(0, 1);
  for (std::int64_t r = 0; r < rows; ++r) {
    if (u(rng) < empty) continue;
    for (int e = 0; e < perRow; ++e)
      T.push(r, static_cast<std::int64_t>(rng() % static_cast<unsigned long long>(cols)), scale * (u(rng) - 0.3));
  }
  return T;
}

Problem makeProblem(const std::string& name, std::int64_t m, std::int64_t k, std::int64_t n, int perRow,
                    double empty, double scale, unsigned seed, double emptyA = -1) {
  std::mt19937_64 rng(seed);
  Problem p{name, m, k, n, {}, {}};
  p.A = randomTriplets(m, k, perRow, emptyA < 0 ? empty : emptyA, 1.0, rng);
  p.B = randomTriplets(k, n, perRow, empty, scale, rng);
  return p;
}

Csr toCsr(const Triplets& T, std::int64_t rows, std::int64_t cols) {
  std::vector<int> c(T.col.begin(), T.col.end());
  return csrFromTriplets(rows, cols, T.row, c, T.val);
}

// This rank's share (row % P == rank), as the adapter would hand it in.
Triplets mine(const Triplets& T) {
  Triplets out;
  for (std::size_t t = 0; t < T.size(); ++t)
    if (T.row[t] % size() == rank()) out.push(T.row[t], T.col[t], T.val[t]);
  return out;
}

struct Setup {
  Layout L;
  OwnedTiles tiles;
};

Setup distribute(const Problem& p, const Topology& topo, const TileGrid& grid, int slices, int my_unit, int my_k,
                 const RankOf& rankOf) {
  const Triplets a = mine(p.A), b = mine(p.B);
  std::vector<std::int64_t> ap, aw, bp, bw;
  TridentTest::rowsAndEntries(a, ap, aw);
  TridentTest::rowsAndEntries(b, bp, bw);
  Setup s;
  s.L = makeLayout(grid, slices, p.m, p.k, p.n, ap, aw, bp, bw, topo.world());
  s.tiles = distributeTiles(s.L, a, b, rankOf, my_unit, my_k, topo.world(), nullptr);
  return s;
}

// The reference product's block: rows [r0, r1), columns [c0, c1) renumbered from 0, sorted rows.
Csr referenceBlock(const Csr& C, std::int64_t r0, std::int64_t r1, std::int64_t c0, std::int64_t c1) {
  std::vector<std::int64_t> r;
  std::vector<int> c;
  std::vector<double> v;
  for (std::int64_t i = r0; i < r1; ++i)
    for (std::int64_t t = C.rowptr[i]; t < C.rowptr[i + 1]; ++t)
      if (C.col[t] >= c0 && C.col[t] < c1) {
        r.push_back(i - r0);
        c.push_back(static_cast<int>(C.col[t] - c0));
        v.push_back(C.val[t]);
      }
  return csrFromTriplets(r1 - r0, c1 - c0, r, c, v);
}

bool sameAsReference(Csr got, const Csr& ref, std::string& why) {
  got.sortRows();
  if (got.nrows != ref.nrows || got.ncols != ref.ncols) return why = "shape", false;
  if (got.rowptr != ref.rowptr) return why = "row structure", false;
  if (got.col != ref.col) return why = "column structure", false;
  for (std::size_t t = 0; t < ref.val.size(); ++t)
    if (std::abs(got.val[t] - ref.val[t]) > 1e-12 * std::max(1.0, std::abs(ref.val[t])))
      return why = "value " + std::to_string(t), false;
  return true;
}

bool bitIdentical(const Csr& a, const Csr& b) {
  return a.nrows == b.nrows && a.ncols == b.ncols && a.rowptr == b.rowptr && a.col == b.col && a.val == b.val;
}

struct Transport {
  std::string name;
  bool gi_needed, li_needed;
};

void runTrident(Tally& tally, const Problem& p, const Problem& p2, int lambda) {
  auto topo = cachedTopology(MPI_COMM_WORLD, lambda);
  const TileGrid grid = TileGrid::forUnits(topo->groups());
  RankOf rankOf = [&](int unit, int kk) { return topo->world_rank_of(unit, kk); };
  const Setup s = distribute(p, *topo, grid, lambda, topo->group(), topo->k(), rankOf);
  const Setup s2 = distribute(p2, *topo, grid, lambda, topo->group(), topo->k(), rankOf);
  const int i = grid.unit_row(topo->group()), j = grid.unit_col(topo->group());
  const std::int64_t r0 = s.L.a_slice(i, topo->k()), r1 = s.L.a_slice(i, topo->k() + 1);
  const Csr ref = referenceBlock(referenceMultiply(toCsr(p.A, p.m, p.k), toCsr(p.B, p.k, p.n)), r0, r1,
                                 s.L.col_bounds[j], s.L.col_bounds[j + 1]);
  const Csr ref2 = referenceBlock(referenceMultiply(toCsr(p2.A, p2.m, p2.k), toCsr(p2.B, p2.k, p2.n)), r0, r1,
                                  s.L.col_bounds[j], s.L.col_bounds[j + 1]);
  const std::vector<Transport> transports = {{"Gi needed, Li needed rows", true, true},
                                             {"Gi needed, Li allgather", true, false},
                                             {"Gi whole, Li needed rows", false, true},
                                             {"Gi whole, Li allgather", false, false}};
  const std::string where = p.name + " P=" + std::to_string(size()) + " lambda=" + std::to_string(lambda);
  for (const std::string& kernel : localKernelNames()) {
    if (kernel == "cusparse") continue;  // the host backend's kernels only
    Csr first;
    for (std::size_t t = 0; t < transports.size(); ++t) {
      const Transport& tr = transports[t];
      auto backend = makeHostBackend(kernel);
      AlgorithmOptions opt;
      opt.fetch_needed_rows = tr.gi_needed;
      opt.li_needed_rows = tr.li_needed;
      MultiplyStats stats;
      const std::string what = where + " " + kernel + " (" + tr.name + ")";
      Csr C = tridentMultiply(s.L, s.tiles, *topo, *backend, opt, stats);
      std::string why;
      tally.check(sameAsReference(C, ref, why), what + " == reference", why);
      if (t == 0)
        first = C;
      else
        tally.check(bitIdentical(C, first), what + " bit-identical to " + transports[0].name);
    }
    // A plan: the kept state makes the backend once, keeps the kernel's handle (the block's
    // pattern) on the first run, and later runs compute values only (numeric step).
    AlgorithmOptions opt;
    opt.device = "host";
    opt.local_kernel = kernel;
    AlgorithmState state;
    state.keep_pattern = true;
    MultiplyStats stats;
    Csr C1 = tridentMultiply(s.L, s.tiles, *topo, opt, stats, &state);
    const Backend* kept = state.backend.get();
    const bool symbolic = state.handle && state.handle->has_pattern;
    Csr C2 = tridentMultiply(s2.L, s2.tiles, *topo, opt, stats, &state);
    std::string why1, why2;
    tally.check(symbolic && kept && kept == state.backend.get() && state.backend->kernel().name() == kernel,
                where + " " + kernel + " plan: backend and handle kept");
    tally.check(sameAsReference(C1, ref, why1), where + " " + kernel + " plan first run == reference", why1);
    tally.check(sameAsReference(C2, ref2, why2), where + " " + kernel + " plan, new values == reference", why2);
  }
}

void runSumma(Tally& tally, const Problem& p) {
  auto topo = cachedTopology(MPI_COMM_WORLD, 1);
  const TileGrid grid = TileGrid::forUnits(size());
  RankOf rankOf = [](int unit, int) { return unit; };
  const Setup s = distribute(p, *topo, grid, 1, rank(), 0, rankOf);
  const int i = grid.unit_row(rank()), j = grid.unit_col(rank());
  const Csr ref = referenceBlock(referenceMultiply(toCsr(p.A, p.m, p.k), toCsr(p.B, p.k, p.n)), s.L.a_slice(i, 0),
                                 s.L.a_slice(i, 1), s.L.col_bounds[j], s.L.col_bounds[j + 1]);
  for (const std::string& kernel : localKernelNames()) {
    if (kernel == "cusparse") continue;
    auto backend = makeHostBackend(kernel);
    AlgorithmOptions opt;
    MultiplyStats stats;
    Csr C = summaMultiply(s.L, s.tiles, *topo, *backend, opt, stats);
    std::string why;
    tally.check(sameAsReference(C, ref, why), p.name + " P=" + std::to_string(size()) + " SUMMA " + kernel +
                                                  " == reference", why);
  }
}

// The "trident: device" option of the drop-in.
void runDeviceOption(Tally& tally) {
  auto comm = Tpetra::getDefaultComm();
  gen::RandomOptions o;
  o.avg_per_row = 4;
  o.seed = 21;
  auto A = gen::random(120, 90, o, comm);
  o.seed = 22;
  auto B = gen::random(90, 70, o, comm);
  auto multiply = [&](const std::string& device) {
    auto p = Teuchos::rcp(new Teuchos::ParameterList);
    p->set("trident: algorithm", std::string("trident"));
    if (!device.empty()) p->set("trident: device", device);
    auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
    MatrixMatrix::Multiply(*A, false, *B, false, *C, true, "", p);
    return gather(*C);
  };
  const Entries plain = multiply(""), host = multiply("host");
  std::string why;
  tally.check(sameMatrix(plain, host, why), "drop-in: \"trident: device\" = \"host\" is the default", why);
  int gpu = 0;
#ifdef TRIDENT_HAVE_CUDA
  gpu = cudaDeviceCount() > 0 ? 1 : 0;
#endif
  MPI_Allreduce(MPI_IN_PLACE, &gpu, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (gpu) {
    tally.check(sameMatrix(plain, multiply("cuda"), why), "drop-in: \"trident: device\" = \"cuda\" == host", why);
  } else {
    expectInvalidInput(tally, "drop-in: \"trident: device\" = \"cuda\" refused on every rank without a GPU",
                       "trident: device", [&] { multiply("cuda"); });
  }
}

bool hasName(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// The invalid_argument message of f, or "" when it throws none.
template <class F>
std::string invalidArgument(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// The registered backends and kernels: the host ones always there and available, the CUDA ones
// there exactly in CUDA builds and available exactly where this rank sees a GPU.
void checkRegistered(Tally& tally) {
  const std::vector<std::string> devices = backendDeviceNames(), kernels = localKernelNames();
  tally.check(!devices.empty() && devices.front() == "host" && backendAvailable("host"),
              "registry: \"host\" is the first backend, always available");
  tally.check(!kernels.empty() && kernels.front() == "gustavson", "registry: \"gustavson\" is the first kernel");
  for (const char* k : {"gustavson", "kokkoskernels", "reference"})
    tally.check(hasName(kernels, k) && localKernelAvailable(k), std::string("registry: host kernel ") + k +
                                                                     " registered and available");
  bool cuda_built = false, gpu = false;
#ifdef TRIDENT_HAVE_CUDA
  cuda_built = true;
  gpu = cudaDeviceCount() > 0;
#endif
  tally.check(hasName(devices, "cuda") == cuda_built && hasName(kernels, "cusparse") == cuda_built,
              "registry: \"cuda\" and \"cusparse\" registered exactly in CUDA builds");
  tally.check(backendAvailable("cuda") == gpu && localKernelAvailable("cusparse") == gpu,
              "registry: \"cuda\" and \"cusparse\" available exactly where this rank sees a GPU");
  tally.check(!backendAvailable("nope") && !localKernelAvailable("nope"), "registry: unknown names unavailable");
  tally.check(invalidArgument([] { makeBackend("nope", "gustavson"); }) ==
                  "Trident: unknown device \"nope\" (this build has " +
                      std::string(cuda_built ? "\"host\", \"cuda\")" : "\"host\")"),
              "registry: an unknown device names the ones this build has");
  const std::string kernel_error = invalidArgument([] { makeLocalSpGEMM("nope"); });
  tally.check(kernel_error.rfind("Trident: unknown local kernel \"nope\" (this build has \"gustavson\", "
                                 "\"kokkoskernels\", \"reference\"",
                                 0) == 0,
              "registry: an unknown kernel names the ones this build has", kernel_error);
}

// A kernel registered from outside the library: listed after the built-ins, asked for available(),
// made by name, and replaced by a second registration of its name. Last in main: it stays listed.
void checkRegisterKernel(Tally& tally) {
  bool up = false;
  registerLocalKernel({"test-kernel", [&up] { return up; }, [] { return makeLocalSpGEMM("reference"); }});
  const std::vector<std::string> kernels = localKernelNames();
  tally.check(kernels.front() == "gustavson" && kernels.back() == "test-kernel" &&
                  !localKernelAvailable("test-kernel"),
              "registerLocalKernel: listed after the built-ins, its available() asked");
  up = true;
  tally.check(localKernelAvailable("test-kernel") && makeBackend("host", "test-kernel")->kernel().name() == "reference",
              "registerLocalKernel: available() asked on every call, made by name through the host backend");
  registerLocalKernel({"test-kernel", [] { return true; }, [] { return makeLocalSpGEMM("gustavson"); }});
  tally.check(localKernelNames().size() == kernels.size() && makeLocalSpGEMM("test-kernel")->name() == "gustavson",
              "registerLocalKernel: a second entry of a name replaces the first");
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  Tally tally;
  tally.verbose(std::getenv("TRIDENT_TEST_VERBOSE") != nullptr);
  {
    auto backend = makeHostBackend("gustavson");
    tally.check(backend->name() == "host" && backend->memory().space() == MemorySpace::Host &&
                    backend->kernel().name() == "gustavson",
                "host backend: host memory, the kernel asked for");
    bool threw = false;
    try {
      makeBackend("nope", "gustavson");
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    tally.check(threw, "makeBackend: an unknown device throws");
    threw = false;
    try {
      makeBackend("host", "nope");
    } catch (const std::invalid_argument&) {
      threw = true;
    }
    tally.check(threw, "makeBackend: an unknown kernel throws");
  }
  // Rectangular, with empty rows; the second of each pair has the same pattern, new values.
  const std::vector<std::pair<Problem, Problem>> problems = {
      {makeProblem("random 300x200x250", 300, 200, 250, 6, 0.2, 1.0, 11),
       makeProblem("random 300x200x250", 300, 200, 250, 6, 0.2, -2.5, 11)},
      {makeProblem("wide 90x400x60, half rows empty", 90, 400, 60, 9, 0.5, 1.0, 12),
       makeProblem("wide 90x400x60, half rows empty", 90, 400, 60, 9, 0.5, 3.0, 12)},
      // Tiles of more than 2^16 rows with few entries: row-compressed slices, hypersparse Li
      // tiles (gathered as their rows) and index-list requests.
      {makeProblem("hypersparse 20000x400000x500", 20000, 400000, 500, 3, 0.97, 1.0, 13, 0.5),
       makeProblem("hypersparse 20000x400000x500", 20000, 400000, 500, 3, 0.97, 0.5, 13, 0.5)},
      {makeProblem("B empty 50x40x30", 50, 40, 30, 4, 0.0, 1.0, 14),
       makeProblem("B empty 50x40x30", 50, 40, 30, 4, 0.0, 1.0, 14)},
  };
  auto& emptyB = const_cast<std::pair<Problem, Problem>&>(problems.back());
  emptyB.first.B = Triplets();
  emptyB.second.B = Triplets();
  for (const auto& pp : problems) {
    for (int lambda = 1; lambda <= size(); ++lambda)
      if (size() % lambda == 0) runTrident(tally, pp.first, pp.second, lambda);
    runSumma(tally, pp.first);
  }
  runDeviceOption(tally);
  checkRegistered(tally);
  checkRegisterKernel(tally);
  return tally.finish();
}
