// petsc-matmult: PETSc's MatMatMult on the inputs trident-bench reads, the peer a user would pick
// instead of Trident. Times, nnz(C) and peak RSS as trident-bench reports them, and a CSV row in
// trident-bench's schema (algo "petsc"), so that the rows can be compared and plotted together.
//
//   mpirun -np 4 petsc-matmult --matrix=../shared/matrices/cora.mtx --check --csv=out.csv
//   mpirun -np 4 trident-bench --matrix=rmat:16:16 --dump=rmat.mtx ...   (generated inputs: dump
//   mpirun -np 4 petsc-matmult --matrix=rmat.mtx --name=rmat:16:16 ...    them, then read the file)
//
// A is read on rank 0 (perf/common/MatrixMarketCsr: Trident's own parser) and handed out in PETSc's
// default contiguous row blocks (PetscSplitOwnership: n/P rows, the first n%P ranks one more),
// which is Tpetra's uniform contiguous map, so every rank holds the rows it holds in trident-bench.
// The matrix type is MATAIJ (Seq on one rank, MPI otherwise; -mat_type and PETSc's -mat_product_*
// options pass through). Each trial is one MatMatMult with MAT_INITIAL_MATRIX (symbolic + numeric,
// a fresh C, as Trident::MatrixMatrix::Multiply builds one) and the default fill; the time of a
// trial is the max over ranks of MPI_Wtime around it, the reported time the median over trials
// after one untimed warm-up.
#include <petscmat.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "MatrixMarketCsr.hpp"
#include "PeerOptions.hpp"
#include "PeerReport.hpp"
#include "ReferenceProduct.hpp"

namespace {

using peers::Csr;

#if PETSC_VERSION_GE(3, 22, 0)
const PetscReal kDefaultFill = PETSC_DETERMINE;
#else
const PetscReal kDefaultFill = PETSC_DEFAULT;
#endif

void check(PetscErrorCode ierr, const char* what) {
  if (ierr) throw std::runtime_error(std::string("PETSc error ") + std::to_string(static_cast<int>(ierr)) + " in " + what);
}

using Options = peers::PeerOptions;

const char* const kUsage =
    "petsc-matmult: PETSc MatMatMult on trident-bench's inputs (the peer in perf/peers.sh)\n"
    "  --matrix=PATH.mtx     A (coordinate real/integer/pattern, general/symmetric/skew-symmetric; pattern\n"
    "                        entries are 1.0). Generated inputs: trident-bench --matrix=rmat:16:16 --dump=PATH.mtx\n"
    "  --op=AA|AtA|AB        C = A*A (default), A^T*A (MatTransposeMatMult), A*B (with --matrix-b)\n"
    "  --matrix-b=PATH.mtx   B for --op=AB\n"
    "  --trials=N            timed trials (default 3) after one untimed warm-up\n"
    "  --check               compare C with a plain serial product on rank 0 (structure, values to 1e-12\n"
    "                        relative to |A||B|); exit 1 on mismatch\n"
    "  --csv=FILE            append one row in trident-bench's CSV schema (algo petsc)\n"
    "  --name=NAME           matrix name in the output and CSV (default: the file name without .mtx)\n"
    "  --ranks-per-group=L   only recorded in the CSV, so that rows line up with trident-bench's (PETSc has no groups)\n"
    "  Single-dash arguments go to PETSc (e.g. -mat_type, -log_view).\n";


double allMax(double v) {
  double r = v;
  MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, PETSC_COMM_WORLD);
  return r;
}

// Every rank gets rank 0's verdict and message (rank 0 is the only one that reads files).
void agreeOrThrow(const std::string& msgOnRoot, int rank) {
  int len = rank == 0 ? static_cast<int>(msgOnRoot.size()) : 0;
  MPI_Bcast(&len, 1, MPI_INT, 0, PETSC_COMM_WORLD);
  if (len == 0) return;
  std::string msg = rank == 0 ? msgOnRoot : std::string(static_cast<size_t>(len), ' ');
  MPI_Bcast(&msg[0], len, MPI_CHAR, 0, PETSC_COMM_WORLD);
  throw std::invalid_argument(msg);
}

// PETSc's default row split (PetscSplitOwnership), the same as Tpetra's uniform contiguous map.
long long blockStart(long long n, int P, int p) { return p * (n / P) + std::min<long long>(p, n % P); }

// Hands rank p rows [blockStart(p), blockStart(p+1)) of rank 0's CSR and builds the MATAIJ.
// Column layout PETSC_DECIDE: the same split of the columns, so A's columns line up with B's rows.
Mat distribute(const Csr* full, long long rows, long long cols, int rank, int P) {
  const int kTag = 7301;
  long long r0 = blockStart(rows, P, rank), m = blockStart(rows, P, rank + 1) - r0;
  std::vector<long long> ptr, col;
  std::vector<double> val;
  auto tooBig = [](long long n) { return n > INT_MAX || n > static_cast<long long>(PETSC_MAX_INT); };
  std::string err;
  if (rank == 0) {
    if (rows > static_cast<long long>(PETSC_MAX_INT) || cols > static_cast<long long>(PETSC_MAX_INT))
      err = "matrix dimensions exceed this PETSc build's PetscInt";
    for (int p = 0; p < P && err.empty(); ++p) {
      const long long b = blockStart(rows, P, p), e = blockStart(rows, P, p + 1);
      if (tooBig(full->ptr[e] - full->ptr[b]))
        err = "rank " + std::to_string(p) + "'s block has more entries than one message / PetscInt can hold";
    }
  }
  agreeOrThrow(err, rank);
  if (rank == 0) {
    for (int p = P - 1; p >= 0; --p) {
      const long long b = blockStart(rows, P, p), e = blockStart(rows, P, p + 1);
      const long long z0 = full->ptr[b], nz = full->ptr[e] - z0;
      std::vector<long long> lp(static_cast<size_t>(e - b) + 1);
      for (long long i = b; i <= e; ++i) lp[i - b] = full->ptr[i] - z0;
      if (p == 0) {
        ptr = std::move(lp);
        col.assign(full->col.begin() + z0, full->col.begin() + z0 + nz);
        val.assign(full->val.begin() + z0, full->val.begin() + z0 + nz);
      } else {
        MPI_Send(lp.data(), static_cast<int>(lp.size()), MPI_LONG_LONG, p, kTag, PETSC_COMM_WORLD);
        MPI_Send(full->col.data() + z0, static_cast<int>(nz), MPI_LONG_LONG, p, kTag + 1, PETSC_COMM_WORLD);
        MPI_Send(full->val.data() + z0, static_cast<int>(nz), MPI_DOUBLE, p, kTag + 2, PETSC_COMM_WORLD);
      }
    }
  } else {
    ptr.resize(static_cast<size_t>(m) + 1);
    MPI_Recv(ptr.data(), static_cast<int>(ptr.size()), MPI_LONG_LONG, 0, kTag, PETSC_COMM_WORLD, MPI_STATUS_IGNORE);
    col.resize(static_cast<size_t>(ptr.back()));
    val.resize(col.size());
    MPI_Recv(col.data(), static_cast<int>(col.size()), MPI_LONG_LONG, 0, kTag + 1, PETSC_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(val.data(), static_cast<int>(val.size()), MPI_DOUBLE, 0, kTag + 2, PETSC_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  std::vector<PetscInt> pi(ptr.begin(), ptr.end()), pj(col.begin(), col.end());
  std::vector<PetscScalar> pv(val.begin(), val.end());
  Mat A;
  check(MatCreate(PETSC_COMM_WORLD, &A), "MatCreate");
  check(MatSetSizes(A, static_cast<PetscInt>(m), PETSC_DECIDE, static_cast<PetscInt>(rows), static_cast<PetscInt>(cols)),
        "MatSetSizes");
  check(MatSetType(A, MATAIJ), "MatSetType");
  check(MatSetFromOptions(A), "MatSetFromOptions");
  // Only the call that matches the type does anything; each copies the arrays and assembles.
  check(MatSeqAIJSetPreallocationCSR(A, pi.data(), pj.data(), pv.data()), "MatSeqAIJSetPreallocationCSR");
  check(MatMPIAIJSetPreallocationCSR(A, pi.data(), pj.data(), pv.data()), "MatMPIAIJSetPreallocationCSR");
  PetscInt lo, hi;
  check(MatGetOwnershipRange(A, &lo, &hi), "MatGetOwnershipRange");
  if (lo != r0 || hi != r0 + m) throw std::logic_error("PETSc's row ownership differs from the contiguous split");
  return A;
}

// The rows of C this rank owns, as CSR with global sorted columns (rows = local count).
Csr localRows(Mat C) {
  PetscInt lo, hi, M, N;
  check(MatGetOwnershipRange(C, &lo, &hi), "MatGetOwnershipRange");
  check(MatGetSize(C, &M, &N), "MatGetSize");
  Csr L;
  L.rows = hi - lo;
  L.cols = N;
  std::vector<std::pair<long long, double>> row;
  for (PetscInt i = lo; i < hi; ++i) {
    PetscInt n;
    const PetscInt* c;
    const PetscScalar* v;
    check(MatGetRow(C, i, &n, &c, &v), "MatGetRow");
    row.assign(static_cast<size_t>(n), {});
    for (PetscInt k = 0; k < n; ++k) row[k] = {c[k], PetscRealPart(v[k])};
    check(MatRestoreRow(C, i, &n, &c, &v), "MatRestoreRow");
    std::sort(row.begin(), row.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    for (auto& e : row) {
      L.col.push_back(e.first);
      L.val.push_back(e.second);
    }
    L.ptr.push_back(static_cast<long long>(L.col.size()));
  }
  return L;
}

// All of C on rank 0 (for --check), from every rank's localRows in rank order.
Csr gatherOnRoot(const Csr& mine, long long rows, int rank, int P) {
  const int kTag = 7401;
  if (rank != 0) {
    long long n[2] = {mine.rows, mine.nnz()};
    MPI_Send(n, 2, MPI_LONG_LONG, 0, kTag, PETSC_COMM_WORLD);
    MPI_Send(mine.ptr.data(), static_cast<int>(mine.ptr.size()), MPI_LONG_LONG, 0, kTag + 1, PETSC_COMM_WORLD);
    MPI_Send(mine.col.data(), static_cast<int>(mine.col.size()), MPI_LONG_LONG, 0, kTag + 2, PETSC_COMM_WORLD);
    MPI_Send(mine.val.data(), static_cast<int>(mine.val.size()), MPI_DOUBLE, 0, kTag + 3, PETSC_COMM_WORLD);
    return Csr();
  }
  Csr all = mine;
  all.rows = rows;
  for (int p = 1; p < P; ++p) {
    long long n[2];
    MPI_Recv(n, 2, MPI_LONG_LONG, p, kTag, PETSC_COMM_WORLD, MPI_STATUS_IGNORE);
    std::vector<long long> ptr(static_cast<size_t>(n[0]) + 1), col(static_cast<size_t>(n[1]));
    std::vector<double> val(static_cast<size_t>(n[1]));
    MPI_Recv(ptr.data(), static_cast<int>(ptr.size()), MPI_LONG_LONG, p, kTag + 1, PETSC_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(col.data(), static_cast<int>(col.size()), MPI_LONG_LONG, p, kTag + 2, PETSC_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(val.data(), static_cast<int>(val.size()), MPI_DOUBLE, p, kTag + 3, PETSC_COMM_WORLD, MPI_STATUS_IGNORE);
    const long long base = all.nnz();
    for (size_t i = 1; i < ptr.size(); ++i) all.ptr.push_back(base + ptr[i]);
    all.col.insert(all.col.end(), col.begin(), col.end());
    all.val.insert(all.val.end(), val.begin(), val.end());
  }
  return all;
}

// The inputs: the whole matrices on rank 0 only, their sizes on every rank.
struct Inputs {
  Csr A, B;                          // B only for --op=AB
  long long dims[4] = {0, 0, 0, 0};  // A rows, A cols, B rows, B cols
  long long nnzA = 0;
  unsigned long long flops = 0;
};

std::string dimsOf(const Csr& M) { return std::to_string(M.rows) + " x " + std::to_string(M.cols); }

void readOnRoot(const Options& o, Inputs& in) {
  in.A = peers::readMatrixMarket(o.matrix);
  if (o.op == "AB") {
    in.B = peers::readMatrixMarket(o.matrixB);
    if (in.A.cols != in.B.rows)
      throw std::invalid_argument("A is " + dimsOf(in.A) + " and B is " + dimsOf(in.B) + ": inner dimensions differ");
  } else if (o.op == "AA" && in.A.rows != in.A.cols) {
    throw std::invalid_argument("--op=AA needs a square matrix, A is " + dimsOf(in.A));
  }
  const Csr& B = o.op == "AB" ? in.B : in.A;
  in.dims[0] = in.A.rows;
  in.dims[1] = in.A.cols;
  in.dims[2] = B.rows;
  in.dims[3] = B.cols;
  in.nnzA = in.A.nnz();
  in.flops = peers::flopsOf(in.A, B, o.op == "AtA");
}

// Collective: rank 0 reads, every rank gets its verdict and the sizes. False (said on err) when
// an input cannot be used.
bool readInputs(const Options& o, int rank, std::ostream& err, Inputs& in) {
  std::string msg;
  if (rank == 0) {
    try {
      readOnRoot(o, in);
    } catch (const std::exception& e) {
      msg = e.what();
      if (msg.empty()) msg = "unknown error";
    }
  }
  try {
    agreeOrThrow(msg, rank);
  } catch (const std::exception& e) {
    err << "petsc-matmult: cannot read the input: " << e.what() << std::endl;
    return false;
  }
  MPI_Bcast(in.dims, 4, MPI_LONG_LONG, 0, PETSC_COMM_WORLD);
  MPI_Bcast(&in.nnzA, 1, MPI_LONG_LONG, 0, PETSC_COMM_WORLD);
  MPI_Bcast(&in.flops, 1, MPI_UNSIGNED_LONG_LONG, 0, PETSC_COMM_WORLD);
  return true;
}

void printSetup(std::ostream& out, const Options& o, const std::string& name, const Inputs& in, int P) {
  out << "petsc-matmult: matrix " << name << ": " << in.dims[0] << " x " << in.dims[1] << ", nnz " << in.nnzA << "\n"
      << "  op " << o.op
      << (o.op == "AA" ? " (C = A*A, MatMatMult)" : o.op == "AtA" ? " (C = A^T*A, MatTransposeMatMult)" : " (C = A*B, MatMatMult)")
      << ", P = " << P << " ranks, PETSc " << PETSC_VERSION_MAJOR << "." << PETSC_VERSION_MINOR << "."
      << PETSC_VERSION_SUBMINOR << ", MAT_INITIAL_MATRIX, default fill, " << o.trials << " trials + 1 warm-up"
      << (o.check ? ", --check" : "") << "\n"
      << std::endl;
}

// One untimed warm-up and o.trials timed products; *C is the last one. Returns the median time.
double timeTrials(const Options& o, Mat A, Mat B, Mat* C, std::ostream& out) {
  std::vector<double> times;
  for (int t = 0; t <= o.trials; ++t) {
    if (*C) check(MatDestroy(C), "MatDestroy");
    MPI_Barrier(PETSC_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (o.op == "AtA")
      check(MatTransposeMatMult(A, A, MAT_INITIAL_MATRIX, kDefaultFill, C), "MatTransposeMatMult");
    else
      check(MatMatMult(A, o.op == "AB" ? B : A, MAT_INITIAL_MATRIX, kDefaultFill, C), "MatMatMult");
    const double w = allMax(MPI_Wtime() - t0);
    if (w > 2.0)
      out << "  " << (t == 0 ? std::string("warm-up") : "trial " + std::to_string(t) + "/" + std::to_string(o.trials))
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

// nnz(C), its checksums (sum of all values, Frobenius norm) and the peak RSS, over all ranks.
void summarize(const Csr& mine, Result& r) {
  double loc[2] = {0, 0}, glob[2];
  for (double v : mine.val) {
    loc[0] += v;
    loc[1] += v * v;
  }
  MPI_Allreduce(loc, glob, 2, MPI_DOUBLE, MPI_SUM, PETSC_COMM_WORLD);
  r.sum = glob[0];
  r.frobenius = std::sqrt(glob[1]);
  long long nnzMine = mine.nnz();
  MPI_Allreduce(&nnzMine, &r.nnzC, 1, MPI_LONG_LONG, MPI_SUM, PETSC_COMM_WORLD);
  r.peakMb = allMax(peers::peakRssMb());  // before --check adds the reference
}

// --check: all of C on rank 0 against the serial reference product.
void checkAgainstReference(const Options& o, const Inputs& in, const Csr& mine, int rank, int P, std::ostream& err,
                           Result& r) {
  const Csr all = gatherOnRoot(mine, o.op == "AtA" ? in.dims[1] : in.dims[0], rank, P);
  if (rank == 0) {
    const Csr At = o.op == "AtA" ? peers::transpose(in.A) : Csr();
    const auto ref = peers::referenceProduct(o.op == "AtA" ? At : in.A, o.op == "AB" ? in.B : in.A);
    std::string first;
    r.mismatches = peers::compareWithReference(ref, all, &first);
    if (r.mismatches)
      err << "petsc-matmult: --check: PETSc's C differs from the reference in " << r.mismatches
          << " rows; first: " << first << std::endl;
  }
  MPI_Bcast(&r.mismatches, 1, MPI_LONG_LONG, 0, PETSC_COMM_WORLD);
  r.check = r.mismatches ? "FAIL" : "pass";
}

void printResult(std::ostream& out, const Result& r, unsigned long long flops) {
  out << std::left << std::setw(8) << "algo" << std::right << std::setw(9) << "time_s" << std::setw(12) << "nnz(C)"
      << std::setw(14) << "flops" << std::setw(8) << "RSS MB" << std::setw(7) << "check" << std::setw(24)
      << "sum(C)" << std::setw(24) << "||C||_F" << "\n"
      << std::left << std::setw(8) << "petsc" << std::right << std::fixed << std::setprecision(3) << std::setw(9)
      << r.time_s << std::setw(12) << r.nnzC << std::setw(14) << flops << std::setw(8) << std::setprecision(0)
      << r.peakMb << std::setw(7) << r.check << std::defaultfloat << std::setprecision(17) << std::setw(24) << r.sum
      << std::setw(24) << r.frobenius << "\n"
      << "Time: median over trials of the max over ranks [s]. RSS: process peak, max over ranks "
         "(rank 0 held the whole input while reading, as trident-bench's reader does).\n"
      << std::endl;
}

// Rank 0 appends the CSV row; every rank returns 1 if that failed.
int writeCsv(const Options& o, const std::string& name, int rank, int P, const Inputs& in, const Result& r) {
  int failed = 0;
  if (!o.csv.empty() && rank == 0) {
    const peers::CsvRow row{"petsc", name, o.op, P, o.ranks_per_group, r.time_s, r.peakMb, in.nnzA, r.nnzC, in.flops,
                            r.check};
    if (!peers::appendCsv(o.csv, row)) {
      std::cerr << "petsc-matmult: cannot open --csv=" << o.csv << " for appending" << std::endl;
      failed = 1;
    }
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, PETSC_COMM_WORLD);
  return failed;
}

int run(int argc, char** argv) {
  int rank, P;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  MPI_Comm_size(PETSC_COMM_WORLD, &P);
  std::ostringstream nullStream;
  std::ostream& out = rank == 0 ? std::cout : nullStream;
  std::ostream& err = rank == 0 ? std::cerr : nullStream;

  Options o;
  const auto errors = peers::parsePeerOptions(argc, argv, o, {/*threads=*/false, /*single_dash_passed_on=*/true});
  if (o.help) {
    out << kUsage;
    return 0;
  }
  for (auto& e : errors) err << "petsc-matmult: " << e << std::endl;
  if (!errors.empty()) return 1;
  const std::string name =
      !o.name.empty() ? o.name
                      : (o.op == "AB" ? peers::matrixName(o.matrix) + "*" + peers::matrixName(o.matrixB)
                                      : peers::matrixName(o.matrix));

  Inputs in;
  if (!readInputs(o, rank, err, in)) return 1;
  Mat A = distribute(rank == 0 ? &in.A : nullptr, in.dims[0], in.dims[1], rank, P);
  Mat B = nullptr;
  if (o.op == "AB") B = distribute(rank == 0 ? &in.B : nullptr, in.dims[2], in.dims[3], rank, P);
  if (!o.check) {  // the reference needs them; otherwise only PETSc's copies stay
    in.A = Csr();
    in.B = Csr();
  }
  printSetup(out, o, name, in, P);

  Mat C = nullptr;
  Result r;
  r.time_s = timeTrials(o, A, B, &C, out);
  const Csr mine = localRows(C);
  summarize(mine, r);
  if (o.check) checkAgainstReference(o, in, mine, rank, P, err, r);
  printResult(out, r, in.flops);
  const int csvFailed = writeCsv(o, name, rank, P, in, r);

  check(MatDestroy(&C), "MatDestroy");
  if (B) check(MatDestroy(&B), "MatDestroy");
  check(MatDestroy(&A), "MatDestroy");
  if (r.mismatches) {
    err << "petsc-matmult: --check FAILED" << std::endl;
    return 1;
  }
  if (o.check) out << "petsc-matmult: --check passed" << std::endl;
  return csvFailed;
}

}  // namespace

int main(int argc, char** argv) {
  // PETSc sees only single-dash arguments: its options database would otherwise take our
  // "--matrix=..." as options of its own and list them as unused.
  std::vector<char*> petscArgs{argv[0]};
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]).rfind("--", 0) != 0) petscArgs.push_back(argv[i]);
  int pargc = static_cast<int>(petscArgs.size());
  petscArgs.push_back(nullptr);
  char** pargv = petscArgs.data();
  if (PetscInitialize(&pargc, &pargv, nullptr, nullptr) != 0) return 2;
  int rc;
  try {
    rc = run(argc, argv);
  } catch (const std::exception& e) {
    int rank = 0;
    MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
    std::cerr << "petsc-matmult: rank " << rank << ": " << e.what() << std::endl;
    MPI_Abort(PETSC_COMM_WORLD, 3);
    return 3;
  }
  PetscFinalize();
  return rc;
}
