// trident-plan: what each algorithm would move and how long it would take on P ranks, on ONE
// process, from the matrix alone (src/trident/planner).
//   trident-plan --matrix=FILE [--op=AA|AR|RAP] --ranks=P[,P2,...] --ranks-per-group=L [--csv=FILE]
//                [--model=FILE] [--permute] [--algos=tpetra,summa,trident]
//   mpirun -np 2 trident-plan --calibrate [--model=FILE]   (writes the machine model)
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <random>
#include <sstream>

#include <Teuchos_CommandLineProcessor.hpp>
#include <Teuchos_DefaultMpiComm.hpp>
#include <Tpetra_Core.hpp>

#include "Trident_MatrixMarket.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "Trident_PlannerInput.hpp"
#include "aggregation.hpp"
#include <trident/core/Errors.hpp>
#include <trident/planner/MachineModel.hpp>
#include <trident/planner/Planner.hpp>

namespace pl = Trident::planner;
using Trident::crs_matrix_type;
using Trident::GO;

namespace {
// What the busiest node receives over Gi: one link per node (group), shared by its ranks, so this
// and not the busiest rank times lambda sets the time a Gi-bound cluster needs for the bytes.
std::uint64_t busiestGroup(const std::vector<std::uint64_t>& perRank, const Trident::planner::Ranks& ranks) {
  std::vector<std::uint64_t> node(static_cast<std::size_t>(ranks.groups()), 0);
  for (std::size_t p = 0; p < perRank.size(); ++p) node[static_cast<std::size_t>(ranks.group(static_cast<int>(p)))] += perRank[p];
  return node.empty() ? 0 : *std::max_element(node.begin(), node.end());
}


std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ','))
    if (!x.empty()) out.push_back(x);
  return out;
}

std::string matrixName(const std::string& path) {
  std::string n = path.substr(path.find_last_of('/') + 1);
  const auto dot = n.find('.');
  return dot == std::string::npos ? n : n.substr(0, dot);
}

// The products of the op, as (A, B) patterns: AA = A*A; AR = A*T; RAP = A*T then T^T*(A*T).
struct Product {
  pl::Pattern a, b;
};

std::vector<Product> productsOf(const std::string& path, const std::string& op, long long* nnzA) {
  auto self = Teuchos::rcp(new Teuchos::MpiComm<int>(MPI_COMM_SELF));
  auto A = Trident::io::readMatrixMarket(path, self);
  *nnzA = static_cast<long long>(A->getGlobalNumEntries());
  std::vector<Product> out;
  pl::Pattern pa = Trident::tpetra::gatherPattern(*A, true, -1, nullptr, nullptr, false);
  if (op == "AA") {
    pl::Pattern pb = Trident::tpetra::gatherPattern(*A, false, -1, A->getDomainMap().get(), nullptr, false);
    out.push_back({std::move(pa), std::move(pb)});
    return out;
  }
  Trident::requireAll(A->getGlobalNumRows() == A->getGlobalNumCols(), "trident-plan: --op=" + op + " needs a square matrix");
  const TridentBench::Transfer T = TridentBench::buildTransfer(*A);
  pl::Pattern pt = Trident::tpetra::gatherPattern(*T.P, false, -1, A->getDomainMap().get(), nullptr, false);
  if (op == "RAP") {
    pl::Pattern ap = pl::multiplyPattern(pa, pt);
    pl::Pattern r = pl::transpose(pt);
    out.push_back({std::move(pa), std::move(pt)});
    out.push_back({std::move(r), std::move(ap)});
  } else {
    out.push_back({std::move(pa), std::move(pt)});
  }
  return out;
}

// ---- calibration --------------------------------------------------------------------------------

// A random matrix with `per_row` entries per row plus the diagonal, on `comm`.
Teuchos::RCP<crs_matrix_type> randomMatrix(long long n, int per_row, const Trident::comm_ptr& comm, unsigned seed) {
  auto map = Teuchos::rcp(new Trident::map_type(n, 0, comm));
  auto M = Teuchos::rcp(new crs_matrix_type(map, per_row + 1));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<long long> col(0, n - 1);
  std::vector<GO> cols;
  std::vector<double> vals;
  for (GO g : Trident::Compat::localElementList(*map)) {
    cols.assign(1, g);
    for (int t = 0; t < per_row; ++t) cols.push_back(col(rng));
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    vals.assign(cols.size(), 1.0);
    M->insertGlobalValues(g, cols, vals);
  }
  M->fillComplete();
  return M;
}

// Median wall time of `trials` multiplies of M*M with an algorithm, on M's communicator.
double timeMultiply(const crs_matrix_type& M, const std::string& algo, int trials) {
  auto params = Teuchos::rcp(new Teuchos::ParameterList);
  params->set("trident: algorithm", algo);
  std::vector<double> t;
  for (int r = 0; r <= trials; ++r) {
    auto C = Teuchos::rcp(new crs_matrix_type(M.getRowMap(), 0));
    const double t0 = MPI_Wtime();
    Trident::MatrixMatrix::Multiply(M, false, M, false, *C, true, "", params);
    if (r > 0) t.push_back(MPI_Wtime() - t0);
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Round trip of `bytes` between ranks 0 and 1 of MPI_COMM_WORLD; half of the best of `reps`.
double pingPong(std::size_t bytes, int reps) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<char> buf(std::max<std::size_t>(bytes, 1));
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(buf.data(), static_cast<int>(bytes), MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), static_cast<int>(bytes), MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
    best = std::min(best, (MPI_Wtime() - t0) / 2);
  }
  MPI_Bcast(&best, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return best;
}

int calibrate(const std::string& path) {
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  pl::MachineModel m;
  std::ostringstream note;
  if (P >= 2) {
    const double lat = pingPong(8, 200);
    const std::size_t big = 16u << 20;
    const double bw = static_cast<double>(big) / (pingPong(big, 10) - lat);
    // Same node or not: ranks 0 and 1 in one MPI_COMM_TYPE_SHARED group measure Li; otherwise Gi.
    MPI_Comm shared;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared);
    int sharedSize = 1, sharedRank = 0;
    MPI_Comm_size(shared, &sharedSize);
    MPI_Comm_rank(shared, &sharedRank);
    int sameNode = rank == 0 ? (sharedSize >= 2 ? 1 : 0) : 0;
    MPI_Bcast(&sameNode, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Comm_free(&shared);
    if (sameNode) {
      m.li_bandwidth = m.gi_bandwidth = bw;
      m.li_latency = m.gi_latency = lat;
      note << "ranks 0 and 1 share a node: Li measured by ping-pong, Gi set equal (one machine: ranks per group "
              "only emulate groups); ";
    } else {
      m.gi_bandwidth = bw;
      m.gi_latency = lat;
      note << "ranks 0 and 1 on different nodes: Gi measured by ping-pong, Li left at its default; ";
    }
  } else {
    note << "one rank: links left at their defaults (run with mpirun -np 2 to measure them); ";
  }
  // Kernel rates and fixed costs: one rank, a small and a larger random product.
  auto self = Teuchos::rcp(new Teuchos::MpiComm<int>(MPI_COMM_SELF));
  if (rank == 0) {
    auto small = randomMatrix(200, 4, self, 1);
    auto large = randomMatrix(40000, 8, self, 2);
    double flops = 0;
    {
      auto local = large->getLocalMatrixHost();
      std::vector<double> len(Trident::Compat::localNumRows(*large));
      for (std::size_t r = 0; r < len.size(); ++r) len[r] = static_cast<double>(local.graph.row_map(r + 1) - local.graph.row_map(r));
      for (std::size_t q = 0; q < local.graph.entries.extent(0); ++q) flops += len[local.graph.entries(q)];
    }
    for (const std::string algo : {"tpetra", "trident"}) {
      const double t0 = timeMultiply(*small, algo, 5), t1 = timeMultiply(*large, algo, 3);
      const double rate = flops / std::max(t1 - t0, 1e-6);
      (algo == "tpetra" ? m.tpetra_rate : m.trident_rate) = rate;
      (algo == "tpetra" ? m.tpetra_overhead : m.trident_overhead) = t0;
    }
    note << "kernel rates and fixed costs from 40000-row and 200-row random products on one rank";
    m.save(path, note.str());
    std::cout << "trident-plan: wrote the machine model to " << path << " (" << note.str() << ")" << std::endl;
  }
  return 0;
}

// ---- planning -----------------------------------------------------------------------------------

struct Row {
  std::string algo, grid, fetch;
  pl::Prediction pr;
};

struct Options {
  std::string matrix, op = "AA", ranksList = "4", csv, model, algos = "tpetra,summa,trident", grid = "auto",
              fetch = "needed";
  int lambda = 1;
  bool permute = false, calib = false;
};

// Reads the command line into `o`; returns the exit status when the program should stop here
// (help printed or a bad option), -1 to go on.
int parseOptions(int argc, char** argv, Options& o) {
  Teuchos::CommandLineProcessor clp(false, true);
  clp.setDocString(
      "Predicts, on one process, the exact bytes each distributed SpGEMM algorithm moves per rank over Gi (between "
      "groups) and Li (inside a group), its multiply-adds and, with a machine model, its time, for P ranks in "
      "groups of L.");
  clp.setOption("matrix", &o.matrix, "Matrix Market file");
  clp.setOption("op", &o.op, "AA (A*A) | AR (A*T, T: trident-bench's aggregation prolongator) | RAP (T^T*(A*T))");
  clp.setOption("ranks", &o.ranksList, "P, or a comma-separated list of P");
  clp.setOption("ranks-per-group", &o.lambda, "lambda, ranks per group (node); must divide P");
  clp.setOption("algos", &o.algos, "comma-separated subset of tpetra,summa,trident");
  clp.setOption("grid", &o.grid, "Trident's grid: auto (as \"trident: grid\" = \"auto\"), square, rows, a comma-separated list, or all (square,rows)");
  clp.setOption("fetch", &o.fetch, "Trident's fetch: needed, whole, or all");
  clp.setOption("permute", "no-permute", &o.permute, "\"trident: permute\" = \"random\"");
  clp.setOption("csv", &o.csv, "append one row per algorithm (trident-bench's leading columns)");
  clp.setOption("model", &o.model, "machine model file (default: built-in defaults; see --calibrate)");
  clp.setOption("calibrate", "no-calibrate", &o.calib, "measure the machine model and write it to --model");
  const auto parsed = clp.parse(argc, argv);
  if (parsed == Teuchos::CommandLineProcessor::PARSE_HELP_PRINTED) return 0;
  if (parsed != Teuchos::CommandLineProcessor::PARSE_SUCCESSFUL) return 2;
  return -1;
}

// Opens --csv for appending, writing the header into a new or empty file.
void openCsv(const std::string& csv, std::ofstream& csvOut) {
  struct stat sb;
  const bool fresh = stat(csv.c_str(), &sb) != 0 || sb.st_size == 0;
  const std::string header =
      "algo,matrix,op,P,ranks_per_group,gi_bytes_max,gi_bytes_total,li_bytes_max,li_bytes_total,time_s,"
      "grid,fetch,grid_rows,grid_cols,flops_max,flops_total,in_gi_bytes_total,in_li_bytes_total,nnz_a,"
      "plan_s,chosen,gi_bytes_max_node";
  if (!fresh) {
    // Rows appended under another header would be read under the wrong names.
    std::ifstream old(csv);
    std::string first;
    std::getline(old, first);
    Trident::requireAll(first == header, "trident-plan: --csv=" + csv +
                                             " has other columns (a file from another version?); name a new file");
  }
  csvOut.open(csv, std::ios::app);
  Trident::requireAll(static_cast<bool>(csvOut), "trident-plan: cannot open --csv=" + csv);
  if (fresh) csvOut << header << "\n";
}

// One algorithm (with Trident's grid and fetch, empty for the others) over all products of the
// op: their predictions, timed with the machine model, added up.
pl::Prediction predictOp(const std::vector<Product>& prods, const std::string& algo, const std::string& grid,
                         const std::string& fetch, const pl::Ranks& ranks, const pl::PlanOptions& opt,
                         const pl::MachineModel& mm) {
  pl::Prediction total(ranks.P);
  bool first = true;
  for (const Product& p : prods) {
    pl::Prediction one;
    if (algo == "tpetra") {
      one = pl::predictTpetra(p.a, p.b, ranks);
    } else if (algo == "summa") {
      one = pl::predictSumma(p.a, p.b, ranks, opt);
    } else {
      const bool needed = fetch == "needed";
      const int G = ranks.groups();
      const Trident::TileGrid g = grid == "square" ? Trident::TileGrid::forUnits(G)
                                  : grid == "rows" ? Trident::TileGrid::rowsOnly(G)
                                                   : pl::tridentAutoGrid(p.a, p.b, ranks, needed);
      one = pl::predictTrident(p.a, p.b, ranks, g, needed, opt);
    }
    pl::predictTime(one, mm);
    if (first) {
      total = one;
      first = false;
    } else {
      total.add(one);
    }
  }
  return total;
}

// A row per algorithm of --algos, and for Trident one per grid and fetch asked for.
std::vector<Row> predictRows(const std::vector<Product>& prods, const std::string& algos,
                             const std::vector<std::string>& grids, const std::vector<std::string>& fetches,
                             const pl::Ranks& ranks, const pl::PlanOptions& opt, const pl::MachineModel& mm) {
  std::vector<Row> rows;
  for (const auto& algo : split(algos)) {
    Trident::requireAll(algo == "tpetra" || algo == "summa" || algo == "trident",
                        "trident-plan: --algos: unknown algorithm '" + algo + "'");
    std::vector<std::pair<std::string, std::string>> variants = {{"", ""}};
    if (algo == "trident") {
      variants.clear();
      for (const auto& g : grids)
        for (const auto& f : fetches) variants.push_back({g, f});
    }
    for (const auto& v : variants)
      rows.push_back(Row{algo, v.first, v.second, predictOp(prods, algo, v.first, v.second, ranks, opt, mm)});
  }
  return rows;
}

void printTableHeader(const pl::Ranks& ranks, double planS) {
  std::cout << "\nP = " << ranks.P << ", " << ranks.lambda << " ranks per group (" << ranks.groups()
            << " groups), planned in " << std::fixed << std::setprecision(2) << planS << " s" << std::defaultfloat
            << "\n";
  std::cout << std::left << std::setw(34) << "algorithm" << std::right << std::setw(14) << "Gi max B" << std::setw(16)
            << "Gi total B" << std::setw(12) << "Gi/nnz(A)" << std::setw(14) << "Li max B" << std::setw(16)
            << "Li total B" << std::setw(14) << "flops max" << std::setw(12) << "time s" << std::setw(16)
            << "Gi max node B" << "\n";
}

void printRow(const Row& row, const pl::Ranks& ranks, long long nnzA, bool best) {
  const auto& pr = row.pr;
  std::string label = row.algo;
  if (row.algo == "trident")
    label += " " + pr.grid + (row.grid == "auto" ? "(auto)" : "") + " " + std::to_string(pr.grid_rows) + "x" +
             std::to_string(pr.grid_cols) + " " + row.fetch;
  std::cout << std::left << std::setw(34) << label << std::right << std::setw(14) << pl::maxOf(pr.gi_recv)
            << std::setw(16) << pl::sumOf(pr.gi_recv) << std::setw(12) << std::fixed << std::setprecision(2)
            << static_cast<double>(pl::sumOf(pr.gi_recv)) / static_cast<double>(std::max(nnzA, 1LL))
            << std::defaultfloat << std::setw(14) << pl::maxOf(pr.li_recv) << std::setw(16) << pl::sumOf(pr.li_recv)
            << std::setw(14) << pl::maxOf(pr.flops) << std::setw(12) << std::setprecision(4) << pr.time_s
            << std::setprecision(6) << std::setw(16) << busiestGroup(pr.gi_recv, ranks)
            << (best ? "  <- least predicted time" : "") << "\n";
}

void writeCsvRow(std::ofstream& csvOut, const Row& row, const std::string& name, const std::string& op,
                 const pl::Ranks& ranks, long long nnzA, double planS, bool best) {
  const auto& pr = row.pr;
  csvOut << row.algo << "," << name << "," << op << "," << ranks.P << "," << ranks.lambda << "," << pl::maxOf(pr.gi_recv)
         << "," << pl::sumOf(pr.gi_recv) << "," << pl::maxOf(pr.li_recv) << "," << pl::sumOf(pr.li_recv) << ","
         << pr.time_s << "," << pr.grid << "," << row.fetch << "," << pr.grid_rows << "," << pr.grid_cols << ","
         << pl::maxOf(pr.flops) << "," << pl::sumOf(pr.flops) << "," << pl::sumOf(pr.in_gi_sent) << ","
         << pl::sumOf(pr.in_li_sent) << "," << nnzA << "," << planS << "," << (best ? 1 : 0) << ","
         << busiestGroup(pr.gi_recv, ranks) << "\n";
}

int run(int argc, char** argv) {
  Options o;
  if (const int status = parseOptions(argc, argv, o); status >= 0) return status;
  if (o.calib) return calibrate(o.model.empty() ? "trident-machine.txt" : o.model);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return 0;  // one process plans; extra ranks only help --calibrate

  Trident::requireAll(!o.matrix.empty(), "trident-plan: --matrix is required");
  Trident::requireAll(o.op == "AA" || o.op == "AR" || o.op == "RAP", "trident-plan: --op must be AA, AR or RAP");
  const pl::MachineModel mm = o.model.empty() ? pl::MachineModel() : pl::MachineModel::load(o.model);
  long long nnzA = 0;
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<Product> prods = productsOf(o.matrix, o.op, &nnzA);
  const double readS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string name = matrixName(o.matrix);
  std::cout << "trident-plan: " << name << ", op " << o.op << ", nnz(A) = " << nnzA << " (read in " << std::fixed
            << std::setprecision(2) << readS << " s)" << std::defaultfloat << "\n";

  std::vector<std::string> grids = o.grid == "all" ? std::vector<std::string>{"square", "rows"} : split(o.grid);
  std::vector<std::string> fetches = o.fetch == "all" ? std::vector<std::string>{"needed", "whole"} : split(o.fetch);
  for (const auto& g : grids)
    Trident::requireAll(g == "auto" || g == "square" || g == "rows", "trident-plan: --grid: auto, square, rows or all");
  for (const auto& f : fetches)
    Trident::requireAll(f == "needed" || f == "whole", "trident-plan: --fetch: needed, whole or all");
  pl::PlanOptions opt;
  opt.permute = o.permute;

  std::ofstream csvOut;
  if (!o.csv.empty()) openCsv(o.csv, csvOut);
  for (const auto& ps : split(o.ranksList)) {
    const pl::Ranks ranks{std::stoi(ps), o.lambda};
    const auto t1 = std::chrono::steady_clock::now();
    const std::vector<Row> rows = predictRows(prods, o.algos, grids, fetches, ranks, opt, mm);
    const double planS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();
    std::size_t best = 0;
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (rows[r].pr.time_s < rows[best].pr.time_s) best = r;
    printTableHeader(ranks, planS);
    for (std::size_t r = 0; r < rows.size(); ++r) {
      printRow(rows[r], ranks, nnzA, r == best);
      if (csvOut.is_open()) writeCsvRow(csvOut, rows[r], name, o.op, ranks, nnzA, planS, r == best);
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char* argv[]) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "trident-plan: " << e.what() << std::endl;
    return 1;
  }
}
