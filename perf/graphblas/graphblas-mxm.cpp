// graphblas-mxm: SuiteSparse:GraphBLAS's GrB_mxm on the inputs trident-bench reads, the
// single-machine peer a user would pick instead of Trident: one process, --threads OpenMP threads
// (peers.sh gives it the cores the ranks use). Times, nnz(C) and peak RSS as trident-bench and
// petsc-matmult report them, and a CSV row in trident-bench's schema (algo "graphblas", P = the
// number of threads), so that the rows can be compared and plotted together.
//
//   graphblas-mxm --matrix=../shared/matrices/cora.mtx --threads=2 --check --csv=out.csv
//   trident-bench --matrix=rmat:16:16 --dump=rmat.mtx ...          (generated inputs: dump them,
//   graphblas-mxm --matrix=rmat.mtx --name=rmat:16:16 ...           then read the file)
//
// A is read by perf/common/MatrixMarketCsr (Trident's own parser) and built as a GrB_Matrix of
// FP64 (GrB_Matrix_build: explicitly stored zeros stay entries, so nnz(C) is the structural count
// PETSc and Trident report). Each trial is one GrB_mxm with GrB_PLUS_TIMES_SEMIRING_FP64 into a
// fresh C (as Trident::MatrixMatrix::Multiply and PETSc's MAT_INITIAL_MATRIX build one), finished
// with GrB_Matrix_wait; --op=AtA transposes A through the descriptor (GrB_DESC_T0). The reported
// time is the median over trials after one untimed warm-up.
// GraphBLAS.h declares its C API without extern "C" of its own (its C++ parts are extern "C++").
extern "C" {
#include <GraphBLAS.h>
}

#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "MatrixMarketCsr.hpp"
#include "PeerOptions.hpp"
#include "PeerReport.hpp"
#include "ReferenceProduct.hpp"

namespace {

using peers::Csr;

void check(GrB_Info info, const char* what) {
  if (info != GrB_SUCCESS) throw std::runtime_error(std::string("GraphBLAS error ") + std::to_string(info) + " in " + what);
}

using Options = peers::PeerOptions;

const char* const kUsage =
    "graphblas-mxm: SuiteSparse:GraphBLAS GrB_mxm on trident-bench's inputs (a peer in perf/peers.sh)\n"
    "  --matrix=PATH.mtx     A (coordinate real/integer/pattern, general/symmetric/skew-symmetric; pattern\n"
    "                        entries are 1.0). Generated inputs: trident-bench --matrix=rmat:16:16 --dump=PATH.mtx\n"
    "  --op=AA|AtA|AB        C = A*A (default), A^T*A (GrB_DESC_T0), A*B (with --matrix-b)\n"
    "  --matrix-b=PATH.mtx   B for --op=AB\n"
    "  --threads=N           GraphBLAS threads (GxB_NTHREADS; default: the machine's hardware threads)\n"
    "  --trials=N            timed trials (default 3) after one untimed warm-up\n"
    "  --check               compare C with a plain serial product (structure, values to 1e-12 relative\n"
    "                        to |A||B|); exit 1 on mismatch\n"
    "  --csv=FILE            append one row in trident-bench's CSV schema (algo graphblas, P = threads)\n"
    "  --name=NAME           matrix name in the output and CSV (default: the file name without .mtx)\n"
    "  --ranks-per-group=L   only recorded in the CSV, so that rows line up with trident-bench's\n";


std::string dimsOf(const Csr& M) { return std::to_string(M.rows) + " x " + std::to_string(M.cols); }

// Reads A (and B) and checks their dimensions against --op.
void readInputs(const Options& o, Csr& A, Csr& B) {
  A = peers::readMatrixMarket(o.matrix);
  if (o.op == "AB") {
    B = peers::readMatrixMarket(o.matrixB);
    if (A.cols != B.rows)
      throw std::invalid_argument("A is " + dimsOf(A) + " and B is " + dimsOf(B) + ": inner dimensions differ");
  } else if (o.op == "AA" && A.rows != A.cols) {
    throw std::invalid_argument("--op=AA needs a square matrix, A is " + dimsOf(A));
  }
}

GrB_Matrix toGrB(const Csr& M) {
  std::vector<GrB_Index> I(M.col.size()), J(M.col.begin(), M.col.end());
  for (long long i = 0; i < M.rows; ++i)
    for (long long k = M.ptr[i]; k < M.ptr[i + 1]; ++k) I[static_cast<size_t>(k)] = static_cast<GrB_Index>(i);
  GrB_Matrix G = nullptr;
  check(GrB_Matrix_new(&G, GrB_FP64, static_cast<GrB_Index>(M.rows), static_cast<GrB_Index>(M.cols)), "GrB_Matrix_new");
  check(GrB_Matrix_build_FP64(G, I.data(), J.data(), M.val.data(), static_cast<GrB_Index>(M.val.size()), GrB_PLUS_FP64),
        "GrB_Matrix_build_FP64");
  check(GrB_Matrix_wait(G, GrB_MATERIALIZE), "GrB_Matrix_wait");
  return G;
}

Csr fromGrB(GrB_Matrix G) {
  GrB_Index rows, cols, n;
  check(GrB_Matrix_nrows(&rows, G), "GrB_Matrix_nrows");
  check(GrB_Matrix_ncols(&cols, G), "GrB_Matrix_ncols");
  check(GrB_Matrix_nvals(&n, G), "GrB_Matrix_nvals");
  std::vector<GrB_Index> I(n), J(n);
  std::vector<double> X(n);
  check(GrB_Matrix_extractTuples_FP64(I.data(), J.data(), X.data(), &n, G), "GrB_Matrix_extractTuples_FP64");
  return peers::csrFromTriplets(static_cast<long long>(rows), static_cast<long long>(cols),
                                std::vector<long long>(I.begin(), I.end()), std::vector<long long>(J.begin(), J.end()), X);
}

// One untimed warm-up and o.trials timed products; *C is the last one. Returns the median time.
double timeTrials(const Options& o, GrB_Matrix A, GrB_Matrix B, GrB_Index rows, GrB_Index cols, GrB_Matrix* C) {
  std::vector<double> times;
  for (int t = 0; t <= o.trials; ++t) {
    if (*C) check(GrB_Matrix_free(C), "GrB_Matrix_free");
    const auto t0 = std::chrono::steady_clock::now();
    check(GrB_Matrix_new(C, GrB_FP64, rows, cols), "GrB_Matrix_new");
    check(GrB_mxm(*C, nullptr, nullptr, GrB_PLUS_TIMES_SEMIRING_FP64, A, o.op == "AB" ? B : A,
                  o.op == "AtA" ? GrB_DESC_T0 : nullptr),
          "GrB_mxm");
    check(GrB_Matrix_wait(*C, GrB_MATERIALIZE), "GrB_Matrix_wait");
    const double w = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (w > 2.0)
      std::cout << "  " << (t == 0 ? std::string("warm-up") : "trial " + std::to_string(t) + "/" + std::to_string(o.trials))
                << ": " << std::fixed << std::setprecision(2) << w << " s" << std::defaultfloat << std::endl;
    if (t > 0) times.push_back(w);
  }
  return peers::median(times);
}

struct Result {
  double time_s = 0, sum = 0, frobenius = 0, peakMb = 0;
  long long nnzC = 0, mismatches = 0;
  std::string check = "off";
};

void printResult(const Result& r, unsigned long long flops) {
  std::cout << std::left << std::setw(10) << "algo" << std::right << std::setw(9) << "time_s" << std::setw(12)
            << "nnz(C)" << std::setw(14) << "flops" << std::setw(8) << "RSS MB" << std::setw(7) << "check"
            << std::setw(24) << "sum(C)" << std::setw(24) << "||C||_F" << "\n"
            << std::left << std::setw(10) << "graphblas" << std::right << std::fixed << std::setprecision(3)
            << std::setw(9) << r.time_s << std::setw(12) << r.nnzC << std::setw(14) << flops << std::setw(8)
            << std::setprecision(0) << r.peakMb << std::setw(7) << r.check << std::defaultfloat
            << std::setprecision(17) << std::setw(24) << r.sum << std::setw(24) << r.frobenius << "\n"
            << "Time: median over trials [s]. RSS: process peak (it held the whole input while reading).\n"
            << std::endl;
}

// C's checksums; with --check, C against the serial reference product.
void inspect(const Options& o, const Csr& A, const Csr& B, GrB_Matrix C, Result& r) {
  const Csr c = fromGrB(C);
  r.nnzC = c.nnz();
  double sq = 0;
  for (double v : c.val) {
    r.sum += v;
    sq += v * v;
  }
  r.frobenius = std::sqrt(sq);
  if (!o.check) return;
  const Csr At = o.op == "AtA" ? peers::transpose(A) : Csr();
  const auto ref = peers::referenceProduct(o.op == "AtA" ? At : A, o.op == "AB" ? B : A);
  std::string first;
  r.mismatches = peers::compareWithReference(ref, c, &first);
  if (r.mismatches)
    std::cerr << "graphblas-mxm: --check: GraphBLAS's C differs from the reference in " << r.mismatches
              << " rows; first: " << first << std::endl;
  r.check = r.mismatches ? "FAIL" : "pass";
}

void printSetup(const Options& o, const std::string& name, const std::string& dimsA, long long nnzA, int threads) {
  std::cout << "graphblas-mxm: matrix " << name << ": " << dimsA << ", nnz " << nnzA << "\n"
            << "  op " << o.op << (o.op == "AA" ? " (C = A*A)" : o.op == "AtA" ? " (C = A^T*A)" : " (C = A*B)")
            << ", SuiteSparse:GraphBLAS " << GxB_IMPLEMENTATION_MAJOR << "." << GxB_IMPLEMENTATION_MINOR << "."
            << GxB_IMPLEMENTATION_SUB << ", " << threads << " threads, GrB_PLUS_TIMES_SEMIRING_FP64, " << o.trials
            << " trials + 1 warm-up" << (o.check ? ", --check" : "") << "\n"
            << std::endl;
}

int multiply(const Options& o, const std::string& name) {
  Csr A, B;
  try {
    readInputs(o, A, B);
  } catch (const std::exception& e) {
    std::cerr << "graphblas-mxm: cannot read the input: " << e.what() << std::endl;
    return 1;
  }
  const Csr& Bref = o.op == "AB" ? B : A;
  const unsigned long long flops = peers::flopsOf(A, Bref, o.op == "AtA");
  const long long nnzA = A.nnz();
  const std::string dimsA = dimsOf(A);
  const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  check(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, threads), "GxB_Global_Option_set(GxB_NTHREADS)");
  GrB_Matrix gA = toGrB(A), gB = o.op == "AB" ? toGrB(B) : nullptr;
  if (!o.check) {  // the reference needs them; otherwise only GraphBLAS's copies stay
    A = Csr();
    B = Csr();
  }
  printSetup(o, name, dimsA, nnzA, threads);

  GrB_Index rows, cols;
  check(o.op == "AtA" ? GrB_Matrix_ncols(&rows, gA) : GrB_Matrix_nrows(&rows, gA), "GrB_Matrix_nrows");
  check(GrB_Matrix_ncols(&cols, gB ? gB : gA), "GrB_Matrix_ncols");
  GrB_Matrix C = nullptr;
  Result r;
  r.time_s = timeTrials(o, gA, gB, rows, cols, &C);
  r.peakMb = peers::peakRssMb();  // before the checks add copies of C and the reference
  inspect(o, A, B, C, r);
  printResult(r, flops);

  int rc = r.mismatches ? 1 : 0;
  if (!o.csv.empty() &&
      !peers::appendCsv(o.csv, {"graphblas", name, o.op, threads, o.ranks_per_group, r.time_s, r.peakMb, nnzA, r.nnzC,
                                flops, r.check})) {
    std::cerr << "graphblas-mxm: cannot open --csv=" << o.csv << " for appending" << std::endl;
    rc = 1;
  }
  GrB_Matrix_free(&C);
  GrB_Matrix_free(&gA);
  if (gB) GrB_Matrix_free(&gB);
  if (r.mismatches) std::cerr << "graphblas-mxm: --check FAILED" << std::endl;
  else if (o.check) std::cout << "graphblas-mxm: --check passed" << std::endl;
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  const auto errors = peers::parsePeerOptions(argc, argv, o, {/*threads=*/true, /*single_dash_passed_on=*/false});
  if (o.help) {
    std::cout << kUsage;
    return 0;
  }
  for (auto& e : errors) std::cerr << "graphblas-mxm: " << e << std::endl;
  if (!errors.empty()) return 1;
  const std::string name = !o.name.empty() ? o.name
                           : o.op == "AB"  ? peers::matrixName(o.matrix) + "*" + peers::matrixName(o.matrixB)
                                           : peers::matrixName(o.matrix);
  if (GrB_init(GrB_NONBLOCKING) != GrB_SUCCESS) return 2;
  int rc;
  try {
    rc = multiply(o, name);
  } catch (const std::exception& e) {
    std::cerr << "graphblas-mxm: " << e.what() << std::endl;
    rc = 3;
  }
  GrB_finalize();
  return rc;
}
