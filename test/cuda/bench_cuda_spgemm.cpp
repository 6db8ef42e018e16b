// Times the tile multiply of the GPU backend (CusparseSpGEMM: reuse API, C's rows normalized,
// Trident's buffers) against bare cusparseSpGEMM (workEstimation, compute, copy: the textbook
// sequence) on the same device operands, and the numeric-only recompute a kept plan runs.
// Median of --trials runs after one warm-up, each ending in cudaDeviceSynchronize. Prints a table;
// the goal is trident/bare <= 1.2.
#include <cuda_runtime.h>
#include <cusparse.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <trident/cuda/CusparseSpGEMM.hpp>
#include <trident/local/LocalSpGEMM.hpp>

using Trident::Csr;
using Trident::DeviceCsr;

namespace {

#define CHECK(call)                                                                           \
  do {                                                                                        \
    if ((call) != 0) throw std::runtime_error(std::string("bench: failed: ") + #call);        \
  } while (0)

// Erdos-Renyi: about d distinct entries per row at random columns (CSR entries must be unique).
Csr randomMatrix(std::int64_t n, int d, std::mt19937_64& rng) {
  std::uniform_int_distribution<std::int64_t> col(0, n - 1);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<std::int64_t> r;
  std::vector<int> c;
  std::vector<double> v;
  std::vector<int> row;
  for (std::int64_t i = 0; i < n; ++i) {
    row.clear();
    for (int t = 0; t < d; ++t) row.push_back(static_cast<int>(col(rng)));
    std::sort(row.begin(), row.end());
    row.erase(std::unique(row.begin(), row.end()), row.end());
    for (int j : row) r.push_back(i), c.push_back(j), v.push_back(u(rng));
  }
  return Trident::csrFromTriplets(n, n, r, c, v);
}

// 5-point Laplacian on a k x k grid (FE-like, banded).
Csr laplacian2d(std::int64_t k) {
  std::vector<std::int64_t> r;
  std::vector<int> c;
  std::vector<double> v;
  for (std::int64_t i = 0; i < k; ++i)
    for (std::int64_t j = 0; j < k; ++j) {
      const std::int64_t row = i * k + j;
      auto add = [&](std::int64_t col, double val) { r.push_back(row), c.push_back(static_cast<int>(col)), v.push_back(val); };
      add(row, 4);
      if (i > 0) add(row - k, -1);
      if (i + 1 < k) add(row + k, -1);
      if (j > 0) add(row - 1, -1);
      if (j + 1 < k) add(row + 1, -1);
    }
  return Trident::csrFromTriplets(k * k, k * k, r, c, v);
}

double medianMs(int trials, const std::function<void()>& f) {
  f();  // warm-up
  std::vector<double> t;
  for (int i = 0; i < trials; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    CHECK(cudaDeviceSynchronize());
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// The plain generic-API sequence from cuSPARSE's documentation, C allocated and freed inside.
std::int64_t bareSpGEMM(cusparseHandle_t h, const DeviceCsr& A, const DeviceCsr& B) {
  const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
  const double alpha = 1, beta = 0;
  cusparseConstSpMatDescr_t a, b;
  cusparseSpMatDescr_t c;
  CHECK(cusparseCreateConstCsr(&a, A.nrows, A.ncols, A.nnz, A.rowptr.data(), A.col.data(), A.val.data(),
                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CHECK(cusparseCreateConstCsr(&b, B.nrows, B.ncols, B.nnz, B.rowptr.data(), B.col.data(), B.val.data(),
                               CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  CHECK(cusparseCreateCsr(&c, A.nrows, B.ncols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                          CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  cusparseSpGEMMDescr_t d;
  CHECK(cusparseSpGEMM_createDescr(&d));
  size_t s1 = 0, s2 = 0;
  void *b1 = nullptr, *b2 = nullptr;
  CHECK(cusparseSpGEMM_workEstimation(h, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s1, nullptr));
  CHECK(cudaMalloc(&b1, s1));
  CHECK(cusparseSpGEMM_workEstimation(h, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s1, b1));
  CHECK(cusparseSpGEMM_compute(h, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s2, nullptr));
  CHECK(cudaMalloc(&b2, s2));
  CHECK(cusparseSpGEMM_compute(h, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s2, b2));
  std::int64_t rows, cols, nnz;
  CHECK(cusparseSpMatGetSize(c, &rows, &cols, &nnz));
  int *crow, *ccol;
  double* cval;
  CHECK(cudaMalloc(&crow, (A.nrows + 1) * sizeof(int)));
  CHECK(cudaMalloc(&ccol, std::max<std::int64_t>(nnz, 1) * sizeof(int)));
  CHECK(cudaMalloc(&cval, std::max<std::int64_t>(nnz, 1) * sizeof(double)));
  CHECK(cusparseCsrSetPointers(c, crow, ccol, cval));
  CHECK(cusparseSpGEMM_copy(h, op, op, &alpha, a, b, &beta, c, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d));
  CHECK(cudaDeviceSynchronize());
  cudaFree(b1), cudaFree(b2), cudaFree(crow), cudaFree(ccol), cudaFree(cval);
  cusparseSpGEMM_destroyDescr(d);
  cusparseDestroySpMat(a), cusparseDestroySpMat(b), cusparseDestroySpMat(c);
  return nnz;
}

}  // namespace

int main(int argc, char** argv) {
  int trials = 5;
  double scale = 1.0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a.rfind("--trials=", 0) == 0) trials = std::max(1, std::atoi(a.c_str() + 9));
    else if (a.rfind("--scale=", 0) == 0) scale = std::atof(a.c_str() + 8);
    else { std::fprintf(stderr, "usage: %s [--trials=5] [--scale=1.0]\n", argv[0]); return 2; }
  }
  if (Trident::cudaDeviceCount() == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  Trident::activateCudaDevice(-1, 0);
  std::mt19937_64 rng(7);
  struct Case { std::string name; Csr A; };
  std::vector<Case> cases;
  cases.push_back({"ER n=" + std::to_string(static_cast<long>(100000 * scale)) + " d=8",
                   randomMatrix(static_cast<std::int64_t>(100000 * scale), 8, rng)});
  cases.push_back({"ER n=" + std::to_string(static_cast<long>(20000 * scale)) + " d=32",
                   randomMatrix(static_cast<std::int64_t>(20000 * scale), 32, rng)});
  const auto k = static_cast<std::int64_t>(700 * std::sqrt(scale));
  cases.push_back({"Laplace2D " + std::to_string(k) + "^2", laplacian2d(k)});

  Trident::CusparseSpGEMM spgemm;
  cusparseHandle_t h;
  CHECK(cusparseCreate(&h));
  std::printf("%-24s %10s %11s %12s %12s %8s %14s\n", "A*A", "nnz(A)", "nnz(C)", "trident ms", "bare ms", "ratio",
              "numeric ms");
  bool within = true;
  for (const Case& c : cases) {
    const DeviceCsr a = Trident::toDeviceCsr(c.A, spgemm.memory());
    std::int64_t nnz_c = 0;
    const double t_trident = medianMs(trials, [&] { nnz_c = spgemm.multiply(a, a).nnz; });
    const double t_bare = medianMs(trials, [&] { bareSpGEMM(h, a, a); });
    auto product = spgemm.symbolic(a, a);
    const double t_numeric = medianMs(trials, [&] { spgemm.numeric(*product); });
    const double ratio = t_trident / t_bare;
    within = within && ratio <= 1.2;
    std::printf("%-24s %10lld %11lld %12.2f %12.2f %8.2f %14.2f\n", c.name.c_str(), static_cast<long long>(c.A.nnz()),
                static_cast<long long>(nnz_c), t_trident, t_bare, ratio, t_numeric);
  }
  cusparseDestroy(h);
  std::printf("goal trident/bare <= 1.2: %s\n", within ? "met" : "NOT met");
  return 0;
}
