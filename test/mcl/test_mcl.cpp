// Tests of Trident's MCL (apps/mcl):
//  * unit checks: mcl's column pruning (cutoff / selection / recovery), ARI, I/O helpers;
//  * reference: Debian's mcl, run by this test on the same graph, versus Trident::mcl::cluster
//    (identical clustering, or adjusted Rand index >= 0.95);
//  * the fused kernel (prunedMultiply) against the full product pruned afterwards, on random and
//    real matrices, with pruning settings that reach cutoff, selection and recovery;
//  * P-independence: the same clusters on sub-communicators of every size given (--sizes) with
//    every algorithm (--algos; "trident" also with ranks per group 2, "fused" also with nodes of 2
//    ranks, which fetches rows once per node), and with forced column phases.
// Graphs: "planted" (a generated weighted planted-partition graph) or a Matrix Market path; a
// relative path is looked up in $TRIDENT_MATRIX_DIR. Exits 77 (ctest SKIP) when mcl is missing.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <mpi.h>
#include <Teuchos_DefaultMpiComm.hpp>
#include <Tpetra_Core.hpp>

#include "Trident_MCL.hpp"
#include "Trident_MatrixMarket.hpp"
#include <trident/local/LocalSpGEMM.hpp>
#include "PrunedSpGEMM.hpp"

namespace {

int g_pass = 0, g_fail = 0;

void check(bool ok, const std::string& what) {
  if (ok) {
    ++g_pass;
    std::cout << "PASS " << what << "\n";
  } else {
    ++g_fail;
    std::cout << "FAIL " << what << "\n";
  }
  std::cout.flush();
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string tok;
  while (std::getline(ss, tok, sep))
    if (!tok.empty()) out.push_back(tok);
  return out;
}

std::uint64_t splitmix(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
double uniform(std::uint64_t& s) { return (splitmix(s) >> 11) * (1.0 / 9007199254740992.0); }

// Weighted planted partition graph: blocks of `bs` nodes, dense inside, sparse across.
void writePlanted(const std::string& path, int n, int bs) {
  std::uint64_t seed = 20261130;
  std::vector<std::string> lines;
  for (int j = 0; j < n; ++j)
    for (int i = j + 1; i < n; ++i) {
      const bool same = (i / bs) == (j / bs);
      const double u = uniform(seed);
      if (u < (same ? 0.3 : 0.006)) {
        const double w = same ? 0.5 + 0.5 * uniform(seed) : 0.1 + 0.4 * uniform(seed);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%d %d %.6f", i + 1, j + 1, w);
        lines.push_back(buf);
      }
    }
  std::ofstream os(path);
  os << "%%MatrixMarket matrix coordinate real symmetric\n" << n << " " << n << " " << lines.size() << "\n";
  for (const auto& l : lines) os << l << "\n";
}

void unitTests() {
  using Trident::mcl::Options;
  using Trident::mcl::detail::pruneColumn;
  {
    // Cutoff only: entries below 0.99999/P are dropped, the rest re-normalized.
    Options o;
    o.prune_number = 10;  // cut ~0.1
    o.select_number = 0;
    o.recover_number = 0;
    std::vector<long long> idx{0, 1, 2, 3};
    std::vector<double> val{0.5, 0.3, 0.15, 0.05};
    pruneColumn(idx, val, 0, o);
    check(idx.size() == 3 && std::abs(val[0] - 0.5 / 0.95) < 1e-6, "prune: cutoff drops small entries");
  }
  {
    // Selection: keep the S largest when the mass kept is large enough (no recovery needed).
    Options o;
    o.prune_number = 1000;
    o.select_number = 2;
    o.recover_number = 3;
    o.recover_pct = 0.5;
    std::vector<long long> idx{0, 1, 2, 3, 4};
    std::vector<double> val{0.4, 0.3, 0.1, 0.1, 0.1};
    pruneColumn(idx, val, 0, o);
    check(idx.size() == 2 && idx[0] == 0 && idx[1] == 1, "prune: selection keeps the S largest");
  }
  {
    // Selection then recovery: selected mass 0.3 < pct, so recover to R entries.
    Options o;
    o.prune_number = 1000;
    o.select_number = 2;
    o.recover_number = 4;
    o.recover_pct = 0.9;
    std::vector<long long> idx{0, 1, 2, 3, 4, 5};
    std::vector<double> val{0.16, 0.14, 0.18, 0.2, 0.12, 0.2};
    pruneColumn(idx, val, 0, o);
    check(idx.size() == 4, "prune: recovery after selection restores up to R entries");
  }
  {
    // Recovery after a too-strict cutoff: entries below the cutoff come back (largest first).
    Options o;
    o.prune_number = 2;  // cut ~0.5: nothing survives
    o.select_number = 10;
    o.recover_number = 2;
    o.recover_pct = 0.9;
    std::vector<long long> idx{0, 1, 2};
    std::vector<double> val{0.2, 0.45, 0.35};
    double chaos = pruneColumn(idx, val, 0, o);
    check(idx.size() == 2 && idx[0] == 1 && idx[1] == 2, "prune: recovery keeps the R largest");
    // chaos = (max - sum of squares) * kept = (0.45 - 0.365) * 2
    check(std::abs(chaos - (0.45 - (0.04 + 0.2025 + 0.1225)) * 2) < 1e-6, "prune: chaos measure");
  }
  {
    // The fused expansion's pruning (rounding and the measure in one pass, vectorized where the CPU
    // allows) against pruneColumn on the row rounded beforehand: bit for bit, on rows of every
    // length around the vector width, with values that round to float zero, values at the cut, and
    // every branch of the pruning (cut, selection, recovery).
    std::uint64_t seed = 5;
    Options settings[4];
    settings[3].prune_number = 4;  // nothing but values at the cut survives; no recovery: the loop
    settings[3].recover_number = 0;
    settings[1].prune_number = 40;
    settings[1].select_number = 6;
    settings[1].recover_number = 9;
    settings[2].prune_number = 4;
    settings[2].select_number = 0;
    settings[2].recover_number = 3;
    settings[2].float_values = false;
    bool same = true;
    int rows = 0;
    for (const Options& o : settings) {
      const double cut = 0.99999 / static_cast<double>(o.prune_number);
      for (int len = 0; len <= 70 && same; ++len) {
        for (int rep = 0; rep < 4 && same; ++rep, ++rows) {
          std::vector<int> idx;
          std::vector<double> val;
          for (int k = 0; k < len; ++k) {
            idx.push_back(3 * k + static_cast<int>(splitmix(seed) % 3));
            const std::uint64_t kind = splitmix(seed) % 8;
            val.push_back(kind == 0 ? 1e-50 : kind == 1 ? cut : uniform(seed) * (kind == 2 ? 1e-4 : 0.2));
          }
          std::vector<long long> refIdx;
          std::vector<double> refVal;
          for (int k = 0; k < len; ++k) {
            const double v = o.float_values ? static_cast<double>(static_cast<float>(val[k])) : val[k];
            if (v == 0) continue;
            refIdx.push_back(idx[k]);
            refVal.push_back(v);
          }
          double mass = -1, refMass = -2;
          const double chaos = Trident::mcl::detail::pruneProductRow(idx, val, 0, o, &mass);
          const double refChaos = pruneColumn(refIdx, refVal, 0, o, &refMass);
          same = std::vector<long long>(idx.begin(), idx.end()) == refIdx && val == refVal && chaos == refChaos &&
                 mass == refMass;
        }
      }
    }
    check(same && rows == 4 * 71 * 4, "prune: the fused pass (rounding in the measure) = pruneColumn on the rounded row");
  }
  {
    std::vector<std::vector<long long>> a{{0, 1, 2}, {3, 4}}, b{{3, 4}, {2, 1, 0}}, c{{0, 1}, {2, 3, 4}};
    check(std::abs(Trident::mcl::adjustedRandIndex(a, b, 5) - 1.0) < 1e-12, "ARI of equal partitions is 1");
    const double ari = Trident::mcl::adjustedRandIndex(a, c, 5);
    check(ari < 0.5 && ari > -1.0, "ARI of different partitions is < 1");
    Trident::mcl::canonicalize(b);
    check(b == a, "canonicalize: size descending, members ascending");
    std::stringstream ss;
    Trident::mcl::writeClusters(ss, a);
    check(ss.str() == "1\t2\t3\n4\t5\n", "writeClusters: tab-separated 1-based labels");
    check(Trident::mcl::readClusters(ss) == a, "readClusters round trip");
  }
}

// A row-stochastic iterand like MCL's T0: the pattern plus loops, rows normalised.
Trident::Csr stochastic(Trident::Csr m) {
  Trident::Csr out(m.nrows, m.ncols);
  for (std::int64_t r = 0; r < m.nrows; ++r) {
    std::vector<std::pair<int, double>> row;
    bool loop = false;
    for (std::int64_t q = m.rowptr[r]; q < m.rowptr[r + 1]; ++q) {
      row.emplace_back(m.col[q], std::abs(m.val[q]) + 0.01);
      loop = loop || m.col[q] == r;
    }
    if (!loop) row.emplace_back(static_cast<int>(r), 1.0);
    std::sort(row.begin(), row.end());
    double sum = 0;
    for (const auto& e : row) sum += e.second;
    for (const auto& e : row) {
      out.col.push_back(e.first);
      out.val.push_back(e.second / sum);
    }
    out.rowptr[r + 1] = static_cast<std::int64_t>(out.col.size());
  }
  return out;
}

// denseEvery > 0: every denseEvery-th row gets 100x the entries, so that one product mixes rows
// for the kernel's dense accumulator with rows for its sorted-list one.
Trident::Csr randomSquare(int n, int perRow, std::uint64_t seed, int denseEvery = 0) {
  Trident::Csr m(n, n);
  for (int r = 0; r < n; ++r) {
    std::vector<int> cols;
    const int len = denseEvery > 0 && r % denseEvery == 0 ? 100 * perRow : perRow;
    for (int k = 0; k < len; ++k) cols.push_back(static_cast<int>(splitmix(seed) % n));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    for (int c : cols) {
      m.col.push_back(c);
      m.val.push_back(uniform(seed));
    }
    m.rowptr[r + 1] = static_cast<std::int64_t>(m.col.size());
  }
  return m;
}

// prunedMultiply(T, T) must equal gustavsonMultiply(T, T) with the same pruner applied to every
// row afterwards, also when run in row slices (the fused expansion's phases).
void fusedKernelAgainstUnfused(const Trident::Csr& T, const std::string& what) {
  using Trident::mcl::Options;
  Options settings[2];
  settings[1].prune_number = 40;  // cut ~0.025: many columns fall under R, others exceed S
  settings[1].select_number = 6;
  settings[1].recover_number = 9;
  for (const Options& o : settings) {
    const Trident::RowPruner pruner = [&o](std::int64_t r, Trident::RowCols& cols, Trident::RowVals& vals) {
      std::vector<long long> idx(cols.begin(), cols.end());
      std::vector<double> val(vals.begin(), vals.end());
      Trident::mcl::detail::pruneColumn(idx, val, r, o);
      cols.assign(idx.begin(), idx.end());
      vals.assign(val.begin(), val.end());
    };
    const Trident::Csr full = Trident::gustavsonMultiply(T, T);
    Trident::Csr ref(full.nrows, full.ncols);
    Trident::RowCols cols;
    Trident::RowVals vals;
    for (std::int64_t r = 0; r < full.nrows; ++r) {
      cols.assign(full.col.begin() + full.rowptr[r], full.col.begin() + full.rowptr[r + 1]);
      vals.assign(full.val.begin() + full.rowptr[r], full.val.begin() + full.rowptr[r + 1]);
      pruner(r, cols, vals);
      ref.col.insert(ref.col.end(), cols.begin(), cols.end());
      ref.val.insert(ref.val.end(), vals.begin(), vals.end());
      ref.rowptr[r + 1] = static_cast<std::int64_t>(ref.col.size());
    }
    Trident::PrunedSpGEMMCounts counts;
    const Trident::Csr fused = Trident::prunedMultiply(T, T, pruner, &counts);
    const std::string tag = what + " (S=" + std::to_string(o.select_number) + ")";
    check(fused.rowptr == ref.rowptr && fused.col == ref.col && fused.val == ref.val,
          "fused kernel = product then prune: " + tag);
    check(counts.expanded == static_cast<std::uint64_t>(full.nnz()) &&
              counts.flops == Trident::multiplyFlops(T, T),
          "fused kernel counts the un-pruned entries and multiply-adds: " + tag);
    if (&o == &settings[1])  // mcl's defaults may keep a small graph's whole product
      check(ref.nnz() < full.nnz(), "pruning removed entries (the comparison is not vacuous): " + tag);
    const std::int64_t mid = T.nrows / 3;
    const Trident::Csr a = Trident::prunedMultiply(T, T, 0, mid, pruner);
    const Trident::Csr b = Trident::prunedMultiply(T, T, mid, T.nrows, pruner);
    bool same = a.nrows == mid && b.nrows == T.nrows - mid;
    for (std::int64_t r = 0; same && r < T.nrows; ++r) {
      const Trident::Csr& part = r < mid ? a : b;
      const std::int64_t pr = r < mid ? r : r - mid;
      same = part.rowptr[pr + 1] - part.rowptr[pr] == ref.rowptr[r + 1] - ref.rowptr[r];
      for (std::int64_t q = 0; same && q < ref.rowptr[r + 1] - ref.rowptr[r]; ++q)
        same = part.col[part.rowptr[pr] + q] == ref.col[ref.rowptr[r] + q] &&
               part.val[part.rowptr[pr] + q] == ref.val[ref.rowptr[r] + q];
    }
    check(same, "fused kernel in row slices = in one pass: " + tag);
    // B's rows in any order (the accumulators' add-with-span path): every column's sum still runs
    // over A's row in order, so the result is bitwise the sorted-B one.
    Trident::Csr shuffled = T;
    std::uint64_t seed = 99;
    for (std::int64_t r = 0; r < T.nrows; ++r)
      for (std::int64_t q = T.rowptr[r + 1] - 1; q > T.rowptr[r]; --q) {
        const std::int64_t o = T.rowptr[r] + static_cast<std::int64_t>(splitmix(seed) % static_cast<std::uint64_t>(q - T.rowptr[r] + 1));
        std::swap(shuffled.col[q], shuffled.col[o]);
        std::swap(shuffled.val[q], shuffled.val[o]);
      }
    const Trident::Csr unsorted = Trident::prunedMultiply(T, shuffled, pruner);
    check(unsorted.rowptr == ref.rowptr && unsorted.col == ref.col && unsorted.val == ref.val,
          "fused kernel with B's rows unsorted = with them sorted: " + tag);
    // B's columns narrowed to 16 bits (up to 65,536 columns), renumbered or not, B sorted and not:
    // the same sums, handed out in B's column order.
    if (T.ncols <= Trident::kMaxNarrowColumns) {
      for (const Trident::Csr* B : {&T, static_cast<const Trident::Csr*>(&shuffled)})
        for (bool renumber : {false, true}) {
          const auto refs = Trident::rowRefs(*B);
          const std::vector<std::int64_t> named = Trident::columnCounts(refs);
          const auto narrow = Trident::narrowColumns(refs, renumber ? &named : nullptr);
          const Trident::Csr c = Trident::prunedMultiply(T, narrow.refs, 0, T.nrows, pruner);
          check(c.rowptr == ref.rowptr && c.col == ref.col && c.val == ref.val,
                std::string("fused kernel with B's columns in 16 bits") + (renumber ? ", renumbered" : "") +
                    (B == &T ? "" : ", B unsorted") + ": " + tag);
        }
    }
  }
}

// The real matrix as a local CSR block (read on one rank).
Trident::Csr readLocal(const std::string& path) {
  auto self = Teuchos::rcp(new Teuchos::MpiComm<int>(MPI_COMM_SELF));
  auto A = Trident::io::readMatrixMarket(path, self);
  const auto cmap = A->getColMap();
  const std::int64_t n = static_cast<std::int64_t>(A->getGlobalNumRows());
  Trident::Csr m(n, n);
  std::vector<std::pair<int, double>> row;
  for (std::int64_t r = 0; r < n; ++r) {
    typename Trident::crs_matrix_type::local_inds_host_view_type inds;
    typename Trident::crs_matrix_type::values_host_view_type v;
    A->getLocalRowView(static_cast<Trident::LO>(r), inds, v);
    row.clear();
    for (std::size_t k = 0; k < inds.extent(0); ++k)
      row.emplace_back(static_cast<int>(cmap->getGlobalElement(inds(k))), v(k));
    std::sort(row.begin(), row.end());
    for (const auto& e : row) {
      m.col.push_back(e.first);
      m.val.push_back(e.second);
    }
    m.rowptr[r + 1] = static_cast<std::int64_t>(m.col.size());
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard scope(&argc, &argv);
  auto world = Tpetra::getDefaultComm();
  const int rank = world->getRank(), P = world->getSize();
  std::string graph = "planted", algos = "tpetra,summa,trident", sizes = "1,2,4";
  int phases = 3;
  double budget = 0;
  for (int a = 1; a + 1 < argc; a += 2) {
    std::string k = argv[a], v = argv[a + 1];
    if (k == "--graph") graph = v;
    else if (k == "--algos") algos = v;
    else if (k == "--sizes") sizes = v;
    else if (k == "--phases") phases = std::atoi(v.c_str());
    else if (k == "--budget") budget = std::atof(v.c_str());
  }

  // mcl must be installed (the project's setup installs Debian's mcl).
  int haveMcl = 0;
  if (rank == 0) haveMcl = std::system("command -v mcl > /dev/null 2>&1") == 0 ? 1 : 0;
  MPI_Bcast(&haveMcl, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!haveMcl) {
    if (rank == 0) std::cout << "SKIP: mcl (the reference implementation) is not installed\n";
    return 77;
  }

  if (rank == 0) {
    unitTests();
    fusedKernelAgainstUnfused(stochastic(randomSquare(400, 12, 7)), "random 400x400, 12/row");
    fusedKernelAgainstUnfused(stochastic(randomSquare(300, 40, 11)), "random 300x300, 40/row");
    // Rows with over kRenumberedFrom multiply-adds a column (the renumbered sweep) beside lighter ones.
    fusedKernelAgainstUnfused(stochastic(randomSquare(200, 50, 23, 7)), "random 200x200, 50 and 5000/row");
    fusedKernelAgainstUnfused(stochastic(randomSquare(60000, 2, 13, 10)), "random 60000x60000, mixed 2 and 200/row");
    // The most columns 16 bits hold, and one more (the kernel then reads 32-bit columns).
    fusedKernelAgainstUnfused(stochastic(randomSquare(65536, 2, 17, 40)), "random 65536x65536, mixed 2 and 200/row");
    {
      const Trident::Csr wide = stochastic(randomSquare(65537, 2, 19, 40));
      bool threw = false;
      try {
        (void)Trident::narrowColumns(Trident::rowRefs(wide));
      } catch (const std::invalid_argument&) {
        threw = true;
      }
      check(threw && wide.col.size() > 0, "16-bit columns refused for 65,537 columns");
    }
    if (graph != "planted") {
      const std::string path = graph.find('/') == std::string::npos
                                   ? std::string(std::getenv("TRIDENT_MATRIX_DIR") ? std::getenv("TRIDENT_MATRIX_DIR")
                                                                                   : TRIDENT_TEST_MATRIX_DIR) +
                                         "/" + graph
                                   : graph;
      fusedKernelAgainstUnfused(stochastic(readLocal(path)), graph);
    }
  }

  // Working directory and input file.
  char dirbuf[64] = "/tmp/trident-mcl-test-XXXXXX";
  if (rank == 0 && !mkdtemp(dirbuf)) dirbuf[0] = 0;
  MPI_Bcast(dirbuf, sizeof dirbuf, MPI_CHAR, 0, MPI_COMM_WORLD);
  const std::string dir = dirbuf;
  std::string mtx = graph;
  if (graph == "planted") {
    mtx = dir + "/planted.mtx";
    if (rank == 0) writePlanted(mtx, 600, 25);
  } else if (graph.find('/') == std::string::npos) {
    const char* md = std::getenv("TRIDENT_MATRIX_DIR");
    mtx = std::string(md ? md : TRIDENT_TEST_MATRIX_DIR) + "/" + graph;
  }
  MPI_Barrier(MPI_COMM_WORLD);

  Trident::mcl::Options base;  // mcl's defaults: -I 2 -P 10000 -S 1100 -R 1400 -pct 90
  std::vector<std::vector<long long>> ref;
  long long n = 0;
  try {
    auto A = Trident::io::readMatrixMarket(mtx, world);
    n = static_cast<long long>(A->getGlobalNumRows());
    const std::string mci = dir + "/graph.mci", out = dir + "/out.mcl";
    Trident::mcl::writeMclNative(mci, *A);
    if (rank == 0) {
      std::ostringstream cmd;
      cmd << "mcl " << mci << " -te 1 -I " << base.inflation << " -P " << base.prune_number << " -S "
          << base.select_number << " -R " << base.recover_number << " -pct "
          << static_cast<int>(std::lround(base.recover_pct * 100)) << " -o " << out << " > " << dir
          << "/mcl.log 2>&1";
      const int rc = std::system(cmd.str().c_str());
      check(rc == 0, "mcl ran on " + graph + " (" + cmd.str() + ")");
      std::ifstream is(out);
      ref = Trident::mcl::readMclNativeClusters(is);
      Trident::mcl::canonicalize(ref);
      std::cout << "mcl: " << ref.size() << " clusters on n=" << n << "\n";
    }
  } catch (const std::exception& e) {
    if (rank == 0) check(false, std::string("setup: ") + e.what());
  }

  std::vector<std::vector<long long>> first;
  bool haveFirst = false;
  struct Run {
    int size;
    std::string algo;
    int rpg;
    int phases;
    double budget;
  };
  std::vector<Run> runs;
  for (const auto& s : split(sizes, ',')) {
    const int sz = std::atoi(s.c_str());
    if (sz < 1 || sz > P) continue;
    for (const auto& al : split(algos, ',')) {
      runs.push_back({sz, al, 0, 0, 0});
      // trident with lambda 2; fused with nodes of 2 ranks (its hierarchical fetch).
      if ((al == "trident" || al == "fused") && sz >= 4) runs.push_back({sz, al, 2, 0, 0});
    }
  }
  if (phases > 1 && !runs.empty()) {
    Run r = runs.back();
    r.phases = phases;
    runs.push_back(r);
  }
  if (budget > 0 && !runs.empty()) {  // phases chosen from the product-size estimate
    Run r = runs.back();
    r.phases = 0;
    r.budget = budget;
    runs.push_back(r);
  }

  for (const auto& r : runs) {
    const int color = rank < r.size ? 0 : 1;
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &sub);
    std::ostringstream name;
    name << graph << " P=" << r.size << " algo=" << r.algo;
    if (r.rpg) name << " ranks-per-group=" << r.rpg;
    if (r.phases) name << " phases=" << r.phases;
    if (r.budget > 0) name << " memory-budget=" << r.budget << "MB";
    if (color == 0) {
      auto comm = Teuchos::rcp(new Teuchos::MpiComm<int>(sub));
      std::vector<std::vector<long long>> got;
      bool ok = true;
      std::string err;
      double t = 0;
      int iters = 0, maxPhases = 0;
      try {
        Teuchos::RCP<const Trident::crs_matrix_type> A = Trident::io::readMatrixMarket(mtx, comm);
        Trident::mcl::Options o = base;
        o.algorithm = r.algo;
        o.ranks_per_group = r.rpg;
        o.force_phases = r.phases;
        o.memory_budget_mb = r.budget;
        // The fused runs hand their input over, as trident-mcl does; it must be released on the way.
        const bool handOver = r.algo == "fused";
        auto res = handOver ? Trident::mcl::cluster(std::move(A), o) : Trident::mcl::cluster(*A, o);
        if (handOver && !A.is_null()) throw std::logic_error("the input handed over to cluster() was not released");
        got = res.clusters;
        t = res.time_total;
        iters = res.iterations;
        for (const auto& h : res.history) maxPhases = std::max(maxPhases, h.phases);
      } catch (const std::exception& e) {
        ok = false;
        err = e.what();
      }
      if (rank == 0) {
        if (!ok) {
          check(false, name.str() + ": " + err);
        } else {
          const double ari = Trident::mcl::adjustedRandIndex(ref, got, n);
          std::ostringstream m;
          m << name.str() << ": " << got.size() << " clusters, " << iters << " iterations, " << t
            << " s; vs mcl: " << (got == ref ? "identical" : "differs") << ", ARI " << ari;
          check(got == ref || ari >= 0.95, m.str());
          // The fused expansion prunes every product column whole, on one rank, as mcl does:
          // nothing but mcl's own clustering is acceptable there.
          if (r.algo == "fused") check(got == ref, name.str() + ": identical to mcl");
          if (r.budget > 0) check(maxPhases > 1, name.str() + ": the budget forced column phases");
          if (!haveFirst) {
            first = got;
            haveFirst = true;
          } else {
            check(got == first, name.str() + ": identical to the first run (P-independence)");
          }
        }
      }
    }
    MPI_Comm_free(&sub);
    MPI_Barrier(MPI_COMM_WORLD);
  }

  if (rank == 0 && !dir.empty()) {
    const std::string rm = "rm -rf '" + dir + "'";
    if (std::system(rm.c_str()) != 0) std::cout << "note: could not remove " << dir << "\n";
  }
  int counts[2] = {g_pass, g_fail};
  MPI_Bcast(counts, 2, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank == 0) std::cout << counts[0] << " passed, " << counts[1] << " failed\n";
  return counts[1] == 0 ? 0 : 1;
}
