// The planner against the real runs: for every algorithm (Tpetra import, SUMMA, Trident on the
// square and the rows grid, fetching needed rows or whole slices, and the grid "auto" picks) and
// every lambda that divides P, the bytes each rank sent and received over Gi and Li and the
// multiply-adds it did, as MultiplyStats reports them, must EQUAL the planner's prediction from
// the global patterns alone (one process simulating the P ranks).
//   test_planner --matrices=a.mtx,b.mtx [--lambdas=1,2,4] [--permute]
#include <algorithm>
#include <cstdlib>
#include <Teuchos_CommandLineProcessor.hpp>
#include <Tpetra_Core.hpp>

#include "Trident_MatrixMarket.hpp"
#include "Trident_MatrixMatrix.hpp"
#include "Trident_PlannerInput.hpp"
#include "common/TestUtils.hpp"
#include <trident/grid/Topology.hpp>
#include <trident/planner/Estimate.hpp>
#include <trident/planner/MachineModel.hpp>
#include <trident/planner/Planner.hpp>

using namespace TridentTest;
namespace pl = Trident::planner;

namespace {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ','))
    if (!x.empty()) out.push_back(x);
  return out;
}

// Every rank's counters, on every rank.
std::vector<std::uint64_t> allRanks(std::uint64_t mine) {
  std::vector<std::uint64_t> all(size());
  MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, world());
  return all;
}

std::string firstDiff(const std::vector<std::uint64_t>& measured, const std::vector<std::uint64_t>& predicted) {
  for (std::size_t p = 0; p < measured.size(); ++p)
    if (measured[p] != predicted[p])
      return "rank " + std::to_string(p) + ": measured " + std::to_string(measured[p]) + ", predicted " +
             std::to_string(predicted[p]);
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  auto comm = Tpetra::getDefaultComm();
  Teuchos::CommandLineProcessor clp(false, true);
  std::string matrices = "cora.mtx", lambdas;
  bool permute = false;
  clp.setOption("matrices", &matrices, "comma-separated .mtx files (relative to TRIDENT_MATRIX_DIR)");
  clp.setOption("lambdas", &lambdas, "comma-separated ranks per group (default: every divisor of P)");
  clp.setOption("permute", "no-permute", &permute, "also with \"trident: permute\" = \"random\"");
  if (clp.parse(argc, argv) != Teuchos::CommandLineProcessor::PARSE_SUCCESSFUL) return 2;
  const int P = size();
  std::vector<int> lams;
  if (lambdas.empty())
    lams = divisors(P);
  else
    for (auto& l : split(lambdas)) lams.push_back(std::stoi(l));
  Tally tally;
  tally.verbose(false);

  struct Case {
    std::string algo, grid, fetch;
  };
  const std::vector<Case> cases = {{"tpetra", "", ""},           {"summa", "", ""},
                                   {"trident", "square", "needed"}, {"trident", "square", "whole"},
                                   {"trident", "rows", "needed"},   {"trident", "rows", "whole"},
                                   {"trident", "auto", "needed"},   {"trident", "auto", "whole"}};
  for (const auto& name : split(matrices)) {
    auto A = Trident::io::readMatrixMarket(matrixDir() + "/" + name, comm);
    const pl::Pattern pa = Trident::tpetra::gatherPattern(*A, true);
    const pl::Pattern pb = Trident::tpetra::gatherPattern(*A, false, -1, A->getDomainMap().get());
    for (int lam : lams) {
      const pl::Ranks ranks{P, lam};
      for (const bool perm : permute ? std::vector<bool>{false, true} : std::vector<bool>{false})
        for (const auto& c : cases) {
          if (perm && c.algo == "tpetra") continue;
          auto params = Teuchos::rcp(new Teuchos::ParameterList);
          params->set("trident: algorithm", c.algo);
          params->set("trident: ranks per group", lam);
          params->set("trident: slices", std::string("balanced"));  // the planner models balanced slices
          params->set("trident: blocks", std::string("even"));      // in even row blocks
          if (perm) params->set("trident: permute", std::string("random"));
          if (!c.grid.empty()) params->set("trident: grid", c.grid);
          if (!c.fetch.empty()) params->set("trident: fetch", c.fetch);
          auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
          Trident::MatrixMatrix::Multiply(*A, false, *A, false, *C, true, "", params);
          const Trident::MultiplyStats s = Trident::MatrixMatrix::lastStats();

          pl::PlanOptions opt;
          opt.permute = perm;
          pl::Prediction pr;
          const bool needed = c.fetch != "whole";
          if (c.algo == "tpetra")
            pr = pl::predictTpetra(pa, pb, ranks);
          else if (c.algo == "summa")
            pr = pl::predictSumma(pa, pb, ranks, opt);
          else {
            const int G = ranks.groups();
            const Trident::TileGrid g = c.grid == "rows"     ? Trident::TileGrid::rowsOnly(G)
                                        : c.grid == "square" ? Trident::TileGrid::forUnits(G)
                                                             : pl::tridentAutoGrid(pa, pb, ranks, needed);
            pr = pl::predictTrident(pa, pb, ranks, g, needed, opt);
          }
          const std::string what = name + " P=" + std::to_string(P) + " lambda=" + std::to_string(lam) + " " +
                                   c.algo + (c.grid.empty() ? "" : " grid=" + c.grid) +
                                   (c.fetch.empty() ? "" : " fetch=" + c.fetch) + (perm ? " permute" : "");
          if (c.algo != "tpetra")
            tally.check(s.grid_rows == pr.grid_rows && s.grid_cols == pr.grid_cols, what + ": grid",
                        std::to_string(s.grid_rows) + "x" + std::to_string(s.grid_cols) + " vs predicted " +
                            std::to_string(pr.grid_rows) + "x" + std::to_string(pr.grid_cols));
          const std::pair<const char*, std::pair<std::uint64_t, const std::vector<std::uint64_t>*>> fields[] = {
              {"Gi received", {s.gi_bytes_recv, &pr.gi_recv}}, {"Gi sent", {s.gi_bytes_sent, &pr.gi_sent}},
              {"Li received", {s.li_bytes_recv, &pr.li_recv}}, {"Li sent", {s.li_bytes_sent, &pr.li_sent}},
              {"multiply-adds", {s.local_flops, &pr.flops}}};
          for (const auto& f : fields) {
            const auto measured = allRanks(f.second.first);
            const std::string diff = firstDiff(measured, *f.second.second);
            tally.check(diff.empty(), what + ": " + f.first, diff);
          }
        }
      // "auto": the cheap distributed estimate decides. Its exact parts (Tpetra's multiply-adds and
      // import bytes per rank) must equal the exact planner's; what runs is the estimate's least
      // predicted time under the default model; a Tpetra choice predicts its measured bytes.
      {
        auto params = Teuchos::rcp(new Teuchos::ParameterList);
        params->set("trident: algorithm", std::string("auto"));
        params->set("trident: ranks per group", lam);
        auto C = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
        Trident::MatrixMatrix::Multiply(*A, false, *A, false, *C, true, "", params);
        const Trident::MultiplyStats s = Trident::MatrixMatrix::lastStats();
        const auto topo = Trident::cachedTopology(world(), lam);
        const pl::LocalCounts mine = Trident::tpetra::localCounts(*A, *A, *topo);
        const pl::Prediction tp = pl::predictTpetra(pa, pb, ranks);
        const std::string what = name + " P=" + std::to_string(P) + " lambda=" + std::to_string(lam) + " auto";
        const int me = rank();
        tally.check(mine.flops == static_cast<double>(tp.flops[me]) &&
                        mine.tpetra_gi_bytes == static_cast<double>(tp.gi_recv[me]) &&
                        mine.tpetra_li_bytes == static_cast<double>(tp.li_recv[me]) &&
                        mine.tpetra_gi_msgs == static_cast<double>(tp.gi_msgs[me]) &&
                        mine.tpetra_li_msgs == static_cast<double>(tp.li_msgs[me]) &&
                        mine.tpetra_import_rows == static_cast<double>(tp.import_rows[me]),
                    what + ": local counts = the exact planner's Tpetra counts",
                    "flops " + std::to_string(mine.flops) + " vs " + std::to_string(tp.flops[me]) + ", Gi " +
                        std::to_string(mine.tpetra_gi_bytes) + " vs " + std::to_string(tp.gi_recv[me]));
        pl::GlobalCounts all = pl::reduceCounts(mine, lam, world());
        // The drop-in's defaults: no relabeling, slices and grid "auto".
        all.owner_slices_possible = Trident::tpetra::ownerSlicesPossible(*topo, true, true);
        all.ranks_per_core = topo->ranks_per_core();
        // A one-shot A*A into a fresh C runs Tpetra's algorithm in place ("1d"), predicted so.
        const pl::MachineModel plain;
        const pl::MachineModel model = pl::tpetraInPlace(P == 1 ? pl::movingNothing(plain) : plain);
        const std::vector<pl::Estimate> est = pl::estimateAll(all, model);
        auto algoOf = [](const std::string& a) { return a == "1d" ? std::string("tpetra") : a; };
        int best = 0;
        for (int a = 1; a < 3; ++a)
          if (est[a].time_s < est[best].time_s) best = a;
        // Decided by the estimate without counting (from the owned columns): the least time of
        // that estimate, which must be close to the counted one's: the counted estimate of what
        // ran within kDecisive (1.25x) of the counted least.
        const bool estimated = s.auto_path == Trident::AutoPath::Estimate;
        int ran = 0;
        for (int a = 0; a < 3; ++a)
          if (est[a].algo == algoOf(s.algorithm)) ran = a;
        if (estimated)
          tally.check(s.auto_chosen && est[ran].time_s <= 1.25 * est[best].time_s,
                      what + ": chose without counting, within 1.25x of the counted least predicted time",
                      "ran " + s.algorithm + " (counted " + std::to_string(est[ran].time_s) + " s), least counted " +
                          est[best].algo + " (" + std::to_string(est[best].time_s) + " s); " + s.auto_reason);
        else
          tally.check(s.auto_chosen && algoOf(s.algorithm) == est[best].algo, what + ": chose the least predicted time",
                      "ran " + s.algorithm + ", least predicted: " + est[best].algo);
        // Settled by the bound (no counting): its Tpetra time is an upper bound of the counted
        // estimate's, and no more than the others' counted estimates.
        const bool bounded = s.auto_reason.find("bounded without counting") != std::string::npos;
        // Not worth counting: Tpetra's time from above is still above its counted estimate.
        const bool notWorth = s.auto_reason.find("not worth counting") != std::string::npos;
        if (notWorth)
          tally.check(algoOf(s.algorithm) == "tpetra" && s.predicted_time >= est[0].time_s * (1 - 1e-12),
                      what + ": not worth counting: Tpetra, its bound above its counted estimate",
                      std::to_string(est[0].time_s) + " <= " + std::to_string(s.predicted_time));
        else if (bounded)
          tally.check(s.predicted_time >= est[0].time_s * (1 - 1e-12) &&
                          s.predicted_time <= std::min(est[1].time_s, est[2].time_s),
                      what + ": the bound lies between Tpetra's counted estimate and the others'",
                      std::to_string(est[0].time_s) + " <= " + std::to_string(s.predicted_time) + " <= " +
                          std::to_string(std::min(est[1].time_s, est[2].time_s)));
        else if (!estimated)
          tally.check(s.predicted_time == est[best].time_s, what + ": predicted time is the counted estimate's",
                      std::to_string(s.predicted_time) + " vs " + std::to_string(est[best].time_s));
        {
          // TRIDENT_AUTO_COUNT=1 counts also what the bound settles: the counted estimate's choice.
          setenv("TRIDENT_AUTO_COUNT", "1", 1);
          auto C2 = Teuchos::rcp(new crs_matrix_type(A->getRowMap(), 0));
          Trident::MatrixMatrix::Multiply(*A, false, *A, false, *C2, true, "", params);
          unsetenv("TRIDENT_AUTO_COUNT");
          const Trident::MultiplyStats s2 = Trident::MatrixMatrix::lastStats();
          tally.check(s2.auto_path == Trident::AutoPath::Counted && algoOf(s2.algorithm) == est[best].algo &&
                          s2.predicted_time == est[best].time_s,
                      what + ": TRIDENT_AUTO_COUNT=1 counts and takes the least counted estimate", s2.auto_reason);
        }
        if (s.algorithm == "tpetra" && !bounded && !notWorth && !estimated)
          tally.check(s.predicted_gi_bytes_recv == s.gi_bytes_recv && s.predicted_li_bytes_recv == s.li_bytes_recv,
                      what + ": predicted bytes = measured bytes",
                      "Gi " + std::to_string(s.predicted_gi_bytes_recv) + " vs " + std::to_string(s.gi_bytes_recv));
        if (rank() == 0)
          std::cout << what << ": " << s.auto_reason << " measured " << s.times.total << " s on rank 0" << std::endl;
      }
    }
  }
  return tally.finish();
}
