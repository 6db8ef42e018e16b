// trident-bench's report: the table and the lines around it on rank 0, and the CSV rows.
#include <sys/stat.h>

#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <mpi.h>

#include "Bench.hpp"

namespace TridentBench {

namespace {

std::string fmtBytes(double b) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(b >= 1e9 ? 2 : (b >= 1e6 ? 2 : 1));
  if (b >= 1e9)
    o << b / 1e9 << "G";
  else if (b >= 1e6)
    o << b / 1e6 << "M";
  else if (b >= 1e3)
    o << b / 1e3 << "k";
  else
    o << std::setprecision(0) << b;
  return o.str();
}

std::string fmtRatio(double num, double den) {
  if (!(den > 0)) return "n/a";
  std::ostringstream o;
  o << std::fixed << std::setprecision(3) << num / den;
  return o.str();
}

// The results of tpetra, summa and trident (kAlgoNames' first three), null where not run.
struct Baselines {
  const Result* tpetra = nullptr;
  const Result* summa = nullptr;
  const Result* trident = nullptr;
};

Baselines findBaselines(const std::vector<Result>& results) {
  const Result* byAlgo[3] = {nullptr, nullptr, nullptr};
  for (auto& r : results)
    for (int k = 0; k < 3; ++k)
      if (r.algo == kAlgoNames[k]) byAlgo[k] = &r;
  return Baselines{byAlgo[0], byAlgo[1], byAlgo[2]};
}

void printPlacement(std::ostream& out, const Baselines& b) {
  if (b.summa)
    out << "SUMMA placement: " << b.summa->grid_rows << " x " << b.summa->grid_cols
        << " grid; ranks take grid positions in MPI_COMM_WORLD order, row-major (rank r -> row r / "
        << b.summa->grid_cols << ", column r % " << b.summa->grid_cols << ")\n";
  if (b.trident)
    out << "Trident: " << b.trident->ranks_per_group << " ranks per group, coarse grid " << b.trident->grid_rows
        << " x " << b.trident->grid_cols << ", " << b.trident->rounds << " rounds, "
        << (b.trident->owner_slices ? "slices at the owners' rows"
                                    : b.trident->blocks_by_work ? "row blocks and slices cut by work"
                                                                : "even row blocks, slices cut by work")
        << "\n";
  out << "Times: median over trials of the max over ranks [s]; local = local multiply + accumulate; wait = for "
         "the slowest rank after the loop (its imbalance), before the out phase. "
         "Bytes received (Gi: between groups, Li: inside a group). RSS: process peak so far, max over ranks.\n\n";
}

void printTable(std::ostream& out, const std::vector<Result>& results) {
  std::ostringstream t;
  t << std::left << std::setw(10) << "algo" << std::right << std::setw(9) << "time_s" << std::setw(8) << "in"
    << std::setw(8) << "gi" << std::setw(8) << "li" << std::setw(8) << "local" << std::setw(8) << "wait"
    << std::setw(8) << "out"
    << std::setw(10) << "Gi max" << std::setw(10) << "Gi total" << std::setw(10) << "Li max" << std::setw(10)
    << "Li total" << std::setw(11) << "nnz(C)" << std::setw(10) << "flops" << std::setw(8) << "RSS MB"
    << std::setw(7) << "check" << "\n";
  for (auto& r : results) {
    t << std::left << std::setw(10) << r.algo << std::right << std::fixed << std::setprecision(4) << std::setw(9)
      << r.time_s << std::setprecision(3);
    for (int k : {0, 1, 2, 3, 6, 4}) t << std::setw(8) << r.phase[k];
    t << std::setw(10) << (fmtBytes(r.gi_max) + (r.bytes_fallback ? "*" : "")) << std::setw(10)
      << fmtBytes(r.gi_total) << std::setw(10) << fmtBytes(r.li_max) << std::setw(10) << fmtBytes(r.li_total)
      << std::setw(11) << r.nnz_c << std::setw(10) << (fmtBytes(r.flops) + (r.flops_fallback ? "*" : ""))
      << std::setw(8) << std::setprecision(0) << r.peak_rss_mb << std::setw(7) << r.check << "\n";
  }
  out << t.str();
  bool anyFallback = false;
  for (auto& r : results) anyFallback = anyFallback || r.bytes_fallback || r.flops_fallback;
  if (anyFallback)
    out << "  * computed by the driver from the matrices (the library's stats reported 0): Tpetra's import of "
           "remote B rows / multiply-adds\n";
}

// Work balance: the local kernels' time follows the busiest rank's multiply-adds.
void printBalance(std::ostream& out, const std::vector<Result>& results, int P) {
  bool any = false;
  for (auto& r : results) any = any || (r.flops_max > 0 && !r.flops_fallback);
  if (!any) return;
  out << "Multiply-adds on the busiest rank / the average (load balance of the local kernels):";
  for (auto& r : results)
    if (r.flops_max > 0 && !r.flops_fallback && r.flops > 0)
      out << "  " << r.algo << " " << std::fixed << std::setprecision(2)
          << static_cast<double>(r.flops_max) * P / static_cast<double>(r.flops) << std::defaultfloat << ";";
  out << "\n";
}

void printRedistribution(std::ostream& out, const std::vector<Result>& results) {
  bool any = false;
  for (auto& r : results) any = any || r.redist_gi_total + r.redist_li_total > 0;
  if (!any) return;
  out << "Redistribution 1D rows <-> tiles (in + out, not in the columns above), bytes sent in total:";
  for (auto& r : results)
    if (r.algo != "tpetra")
      out << "  " << r.algo << " Gi " << fmtBytes(r.redist_gi_total) << ", Li " << fmtBytes(r.redist_li_total) << ";";
  out << "\n";
}

void printRatios(std::ostream& out, const Baselines& b) {
  if (b.trident && b.summa)
    out << "\nTrident / SUMMA: Gi bytes total " << fmtRatio(b.trident->gi_total, b.summa->gi_total)
        << ", Gi bytes max " << fmtRatio(b.trident->gi_max, b.summa->gi_max) << ", time "
        << fmtRatio(b.trident->time_s, b.summa->time_s);
  if (b.trident && b.tpetra)
    out << "\nTrident / Tpetra: Gi bytes total " << fmtRatio(b.trident->gi_total, b.tpetra->gi_total) << ", time "
        << fmtRatio(b.trident->time_s, b.tpetra->time_s);
  if (b.summa && b.tpetra) out << "\nSUMMA / Tpetra: time " << fmtRatio(b.summa->time_s, b.tpetra->time_s);
  out << "\n" << std::endl;
}

void writeCsvRows(std::ostream& f, const Options& o, const std::string& name, int P, long long nnzA,
                  const std::vector<Result>& results) {
  f << std::setprecision(6);
  for (auto& r : results) {
    f << r.algo << "," << name << "," << o.op << "," << P << "," << r.ranks_per_group << "," << o.permute << ","
      << r.time_s;
    for (int k = 0; k < 5; ++k) f << "," << r.phase[k];
    f << "," << r.gi_max << "," << r.gi_total << "," << r.li_max << "," << r.li_total << "," << nnzA << ","
      << r.nnz_c << "," << r.flops << "," << std::fixed << std::setprecision(1) << r.peak_rss_mb
      << std::defaultfloat << std::setprecision(6) << "," << r.check << "," << r.phase[6] << "\n";
  }
}

}  // namespace

void printReport(std::ostream& out, const std::vector<Result>& results, int P) {
  const Baselines b = findBaselines(results);
  printPlacement(out, b);
  printTable(out, results);
  if (P > 1) printBalance(out, results, P);
  printRedistribution(out, results);
  printRatios(out, b);
}

bool writeCsv(const Options& o, const std::string& name, int rank, int P, long long nnzA,
              const std::vector<Result>& results) {
  int csvFailed = 0;
  if (!o.csv.empty() && rank == 0) {
    struct stat sb;
    const bool fresh = stat(o.csv.c_str(), &sb) != 0 || sb.st_size == 0;
    std::ofstream f(o.csv, std::ios::app);
    if (!f) {
      std::cerr << "trident-bench: cannot open --csv=" << o.csv << " for appending" << std::endl;
      csvFailed = 1;
    } else {
      if (fresh)
        f << "algo,matrix,op,P,ranks_per_group,permute,time_s,time_in_s,time_gi_s,time_li_s,time_local_s,time_out_s,"
             "gi_bytes_max,gi_bytes_total,li_bytes_max,li_bytes_total,nnz_a,nnz_c,flops,peak_rss_mb,check,time_wait_s\n";
      writeCsvRows(f, o, name, P, nnzA, results);
      if (!f) csvFailed = 1;
    }
  }
  MPI_Bcast(&csvFailed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return csvFailed != 0;
}

}  // namespace TridentBench
