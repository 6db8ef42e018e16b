// The drop-in Trident::MatrixMatrix::Multiply: validate collectively, convert 1D Tpetra rows into
// tiles, run the selected algorithm, bring C back as Tpetra would build it.
#include "Trident_MatrixMatrix.hpp"

#include <Teuchos_StandardParameterEntryValidators.hpp>
#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_RowMatrixTransposer.hpp>
#include <Tpetra_Vector.hpp>
#include <algorithm>
#include <numeric>

#include "Trident_TpetraConversion.hpp"
#include <trident/algorithms/Algorithms.hpp>
#include <trident/core/Errors.hpp>
#include <trident/grid/Topology.hpp>
#include <trident/local/LocalSpGEMM.hpp>
#include <trident/partition/Layout.hpp>
#include <trident/partition/Permutation.hpp>
#include <trident/partition/Redistribute.hpp>
#include <trident/stats/PhaseTimer.hpp>

namespace Trident {
namespace MatrixMatrix {

namespace {

MultiplyStats g_last_stats;

struct Options {
  std::string algorithm = "trident";
  int ranks_per_group = 0;
  bool permute = false;
  int seed = 12345;
  std::string local_kernel = "kokkoskernels";
  int lookahead = 2;
  int grid = 0;  // 0 auto, 1 square, 2 rows
  bool fetch_needed = true;
  Teuchos::RCP<Teuchos::ParameterList> tpetra_params;  // everything that is not "trident: ..."
};

const std::string kPrefix = "trident: ";

// Reads and validates the "trident: ..." keys; others pass through to Tpetra. Collective: a bad
// parameter on any rank is an exception on every rank.
Options parseOptions(const Teuchos::RCP<Teuchos::ParameterList>& params, MPI_Comm comm) {
  Options o;
  o.tpetra_params = Teuchos::rcp(new Teuchos::ParameterList("Tpetra"));
  std::string error;
  if (!params.is_null()) {
    auto valid = getValidParameters();
    for (auto it = params->begin(); it != params->end(); ++it) {
      const std::string& key = params->name(it);
      const Teuchos::ParameterEntry& e = params->entry(it);
      if (key.compare(0, kPrefix.size(), kPrefix) != 0) {
        o.tpetra_params->setEntry(key, e);
        continue;
      }
      if (!valid->isParameter(key)) {
        error = "unknown parameter \"" + key + "\"; valid: \"trident: algorithm\", \"trident: ranks per group\", "
                "\"trident: permute\", \"trident: permute seed\", \"trident: local kernel\", \"trident: lookahead\", "
                "\"trident: grid\", \"trident: fetch\"";
        break;
      }
      try {
        valid->getEntry(key).validator()->validate(e, key, "Trident");
        if (e.getAny(false).type() != valid->getEntry(key).getAny(false).type())
          throw std::invalid_argument("wrong type");
      } catch (const std::exception&) {
        error = "bad value for \"" + key + "\" (" + Teuchos::toString(e) + "); " +
                valid->getEntry(key).docString();
        break;
      }
    }
    if (error.empty()) {
      if (params->isParameter("trident: algorithm")) o.algorithm = params->get<std::string>("trident: algorithm");
      if (params->isParameter("trident: ranks per group")) o.ranks_per_group = params->get<int>("trident: ranks per group");
      if (params->isParameter("trident: permute")) o.permute = params->get<std::string>("trident: permute") == "random";
      if (params->isParameter("trident: permute seed")) o.seed = params->get<int>("trident: permute seed");
      if (params->isParameter("trident: local kernel")) o.local_kernel = params->get<std::string>("trident: local kernel");
      if (params->isParameter("trident: lookahead")) o.lookahead = params->get<int>("trident: lookahead");
      if (params->isParameter("trident: grid")) {
        const std::string g = params->get<std::string>("trident: grid");
        o.grid = g == "auto" ? 0 : g == "square" ? 1 : 2;
      }
      if (params->isParameter("trident: fetch")) o.fetch_needed = params->get<std::string>("trident: fetch") == "needed";
    }
  }
  throwIfAnyRank(comm, !error.empty(), error);
  // As Tpetra's Multiply: C's global constants are computed unless the caller says otherwise.
  if (!o.tpetra_params->isParameter("compute global constants")) o.tpetra_params->set("compute global constants", true);
  // Every rank must agree, or the ranks would disagree about the grid and deadlock.
  const int algo = o.algorithm == "trident" ? 0 : o.algorithm == "summa" ? 1 : 2;
  const int kernel = o.local_kernel == "reference" ? 1 : 0;
  int v[] = {o.ranks_per_group, o.lookahead, algo, o.permute ? 1 : 0, o.seed, kernel, o.grid, o.fetch_needed ? 1 : 0};
  constexpr int nv = sizeof(v) / sizeof(v[0]);
  int lo[nv], hi[nv];
  MPI_Allreduce(v, lo, nv, MPI_INT, MPI_MIN, comm);
  MPI_Allreduce(v, hi, nv, MPI_INT, MPI_MAX, comm);
  bool same = true;
  for (int t = 0; t < nv; ++t) same = same && lo[t] == hi[t];
  throwIfAnyRank(comm, !same, "the \"trident: ...\" parameters must be the same on every rank");
  return o;
}

template <class T>
bool allTrue(MPI_Comm comm, T local) {
  int v = local ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_MIN, comm);
  return v == 1;
}

// Everything that can be wrong with the operands, checked on every rank before any tile moves.
void validate(const crs_matrix_type& A, bool tA, const crs_matrix_type& B, bool tB, const crs_matrix_type& C,
              MPI_Comm comm) {
  throwIfAnyRank(comm, !A.isFillComplete(), "A is not fill-complete; call A.fillComplete() first");
  throwIfAnyRank(comm, !B.isFillComplete(), "B is not fill-complete; call B.fillComplete() first");
  const auto Adom = tA ? A.getRangeMap() : A.getDomainMap();
  const auto Aran = tA ? A.getDomainMap() : A.getRangeMap();
  const auto Bran = tB ? B.getDomainMap() : B.getRangeMap();
  const auto Bdom = tB ? B.getRangeMap() : B.getDomainMap();
  const auto m = Aran->getGlobalNumElements(), k = Adom->getGlobalNumElements();
  const auto k2 = Bran->getGlobalNumElements(), n = Bdom->getGlobalNumElements();
  requireAll(k == k2, "Trident: inner dimensions do not match: op(A) is " + std::to_string(m) + " x " +
                          std::to_string(k) + " but op(B) is " + std::to_string(k2) + " x " + std::to_string(n));
  const auto opArow = tA ? A.getDomainMap() : A.getRowMap();
  requireAll(C.getRowMap()->isSameAs(*opArow),
             "Trident: C must be constructed on op(A)'s row map (A's row map, or A's domain map when transposed)");
  throwIfAnyRank(comm, !C.isFillComplete() && C.getNodeNumEntries() > 0,
                 "C is neither empty nor fill-complete; pass an empty C, or a fill-complete C whose pattern "
                 "holds the product");
}

Teuchos::RCP<const crs_matrix_type> transposeOf(const crs_matrix_type& M) {
  Tpetra::RowMatrixTransposer<double, LO, GO, Node> transposer(Teuchos::rcpFromRef(M));
  return transposer.createTranspose();
}

// nnz(B(k,:)) for every column k of A's column map, through one import of B's row lengths (the
// rows Tpetra's own Multiply would import). Collective.
struct RowLengthsAtColumns {
  Teuchos::RCP<const Tpetra::Import<LO, GO, Node>> importer;
  std::vector<double> len;  // indexed by A's local column
};
RowLengthsAtColumns rowLengthsAtColumns(const crs_matrix_type& A, const crs_matrix_type& B) {
  using vec_t = Tpetra::Vector<double, LO, GO, Node>;
  vec_t rowLen(B.getRowMap());
  {
    auto d = rowLen.getDataNonConst(0);
    for (LO r = 0; r < static_cast<LO>(B.getNodeNumRows()); ++r) d[r] = static_cast<double>(B.getNumEntriesInLocalRow(r));
  }
  RowLengthsAtColumns out;
  out.importer = Teuchos::rcp(new Tpetra::Import<LO, GO, Node>(B.getRowMap(), A.getColMap()));
  vec_t atCols(A.getColMap());
  atCols.doImport(rowLen, *out.importer, Tpetra::INSERT);
  auto d = atCols.getData(0);
  out.len.assign(d.begin(), d.end());
  return out;
}

// Multiply-adds of every local row of A*B: each nonzero A(i,k) meets the nnz(B(k,:)) entries of
// row k (A's stored zeros are skipped, as Tpetra's kernel does).
std::vector<std::int64_t> multiplyAddsPerRow(const crs_matrix_type& A, const std::vector<double>& len) {
  auto local = A.getLocalMatrixHost();
  std::vector<std::int64_t> work(A.getNodeNumRows(), 0);
  for (LO r = 0; r < static_cast<LO>(work.size()); ++r)
    for (std::size_t q = local.graph.row_map(r); q < local.graph.row_map(r + 1); ++q)
      if (local.values(q) != 0.0) work[r] += static_cast<std::int64_t>(len[local.graph.entries(q)]);
  return work;
}

// Bytes Tpetra's own Multiply moves: the import of the remote B rows that A's columns need,
// packed with global column, owning PID and value per entry (20 B) plus a row header (8 B), as
// Tpetra's MMM import packs them. Split into Gi/Li by the groups of source and destination.
void tpetraImportBytes(const crs_matrix_type& A, const crs_matrix_type& B, const Topology& topo, MultiplyStats& st) {
  const RowLengthsAtColumns rl = rowLengthsAtColumns(A, B);
  for (std::int64_t w : multiplyAddsPerRow(A, rl.len)) st.local_flops += static_cast<std::uint64_t>(w);
  auto target = A.getColMap();
  auto source = B.getRowMap();
  auto lids = rl.importer->getRemoteLIDs();
  Teuchos::Array<GO> remoteGids(lids.size());
  for (std::size_t t = 0; t < static_cast<std::size_t>(lids.size()); ++t) remoteGids[t] = target->getGlobalElement(lids[t]);
  Teuchos::Array<int> pids(lids.size());
  Teuchos::Array<LO> srcLids(lids.size());
  source->getRemoteIndexList(remoteGids(), pids(), srcLids());
  std::vector<std::uint64_t> sent_to(topo.P(), 0);
  for (std::size_t t = 0; t < static_cast<std::size_t>(lids.size()); ++t) {
    const std::uint64_t bytes = 8 + 20 * static_cast<std::uint64_t>(rl.len[lids[t]]);
    (topo.same_group(topo.rank(), pids[t]) ? st.li_bytes_recv : st.gi_bytes_recv) += bytes;
    sent_to[pids[t]] += bytes;
  }
  // What I receive from p is what p sends me: one Alltoall turns receipts into sends.
  std::vector<std::uint64_t> sent_by_me(topo.P(), 0);
  MPI_Alltoall(sent_to.data(), 1, MPI_UINT64_T, sent_by_me.data(), 1, MPI_UINT64_T, topo.world());
  for (int p = 0; p < topo.P(); ++p) (topo.same_group(topo.rank(), p) ? st.li_bytes_sent : st.gi_bytes_sent) += sent_by_me[p];
}


// "trident: grid" = "auto": estimates, in entries, what crosses Gi with each grid and picks the
// smaller. rows (G x 1): group g fetches the B rows its A rows touch (coverage c_g of the inner
// dimension), nothing else crosses Gi, since the tiles line up with the 1D rows. square (qr x qc):
// the multiply fetches (qc-1)/qc of A and (qr-1)/qr of B per group, and the way in already moves
// (qc-1)/qc of A and B between groups; the way out (part of C) is left out, which favours square.
bool preferRowsGrid(const TileGrid& square, const Triplets& TA, const Triplets& TB, std::int64_t k,
                    const Topology& topo, bool fetch_needed) {
  const int G = topo.groups();
  if (G == 1 || square.cols == 1) return false;  // same grid either way
  double coverage = 1.0;
  if (fetch_needed && k > 0) {
    std::vector<std::uint8_t> used(static_cast<std::size_t>(k), 0);
    for (std::int64_t c : TA.col) used[c] = 1;
    MPI_Allreduce(MPI_IN_PLACE, used.data(), static_cast<int>(used.size()), MPI_UINT8_T, MPI_BOR, topo.li_comm());
    std::int64_t covered = 0;
    for (std::uint8_t u : used) covered += u;
    coverage = static_cast<double>(covered) / static_cast<double>(k);
  }
  // Every rank adds its group's coverage / lambda: the sum is the sum over groups.
  double v[3] = {coverage / topo.ranks_per_group(), static_cast<double>(TA.size()), static_cast<double>(TB.size())};
  MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_SUM, topo.world());
  const double sumCoverage = v[0], nnzA = v[1], nnzB = v[2];
  const double rows = sumCoverage * nnzB * (G - 1) / G;
  const double qc = square.cols, qr = square.rows;
  const double squareGi = (qc - 1) * nnzA + (qr - 1) * nnzB * (sumCoverage / G) + (qc - 1) / qc * (nnzA + nnzB);
  return rows <= squareGi;
}

}  // namespace

const MultiplyStats& lastStats() { return g_last_stats; }

Teuchos::RCP<const Teuchos::ParameterList> getValidParameters() {
  static Teuchos::RCP<Teuchos::ParameterList> pl;
  if (!pl.is_null()) return pl;
  using Teuchos::rcp;
  pl = rcp(new Teuchos::ParameterList("Trident"));
  Teuchos::Array<std::string> algos = Teuchos::tuple<std::string>("trident", "summa", "tpetra");
  pl->set("trident: algorithm", std::string("trident"),
          "\"trident\" (hierarchical, default), \"summa\" (2D Sparse SUMMA baseline), \"tpetra\" (Tpetra's own Multiply)",
          rcp(new Teuchos::StringValidator(algos)));
  pl->set("trident: ranks per group", 0,
          "lambda, ranks per group sharing the fast link; 0 = size of the MPI_COMM_TYPE_SHARED groups",
          rcp(new Teuchos::EnhancedNumberValidator<int>(0, 1 << 30)));
  pl->set("trident: permute", std::string("none"), "\"none\" or \"random\" (symmetric random relabeling)",
          rcp(new Teuchos::StringValidator(Teuchos::tuple<std::string>("none", "random"))));
  pl->set("trident: permute seed", 12345, "seed of the random relabeling",
          rcp(new Teuchos::EnhancedNumberValidator<int>()));
  Teuchos::Array<std::string> kernels;
  for (auto& k : localKernelNames()) kernels.push_back(k);
  pl->set("trident: local kernel", std::string("kokkoskernels"), "local SpGEMM backend",
          rcp(new Teuchos::StringValidator(kernels)));
  pl->set("trident: grid", std::string("auto"),
          "coarse grid of groups: \"square\" (near-square 2D, the paper's), \"rows\" (groups x 1: nothing crosses "
          "Gi between Tpetra's 1D rows and the tiles), or \"auto\" (the one with less estimated Gi traffic)",
          rcp(new Teuchos::StringValidator(Teuchos::tuple<std::string>("auto", "square", "rows"))));
  pl->set("trident: fetch", std::string("needed"),
          "Trident's Gi fetch of B: \"needed\" (only the rows the requesting group's A tile uses) or \"whole\" "
          "(whole slices, the paper's volume model)",
          rcp(new Teuchos::StringValidator(Teuchos::tuple<std::string>("needed", "whole"))));
  pl->set("trident: lookahead", 2, "rounds of tiles in flight ahead of the multiply (>= 1)",
          rcp(new Teuchos::EnhancedNumberValidator<int>(1, 1 << 20)));
  return pl;
}

template <>
void Multiply<double, LO, GO, Node>(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B,
                                    bool transposeB, crs_matrix_type& C, bool call_FillComplete_on_result,
                                    const std::string& label, const Teuchos::RCP<Teuchos::ParameterList>& params) {
  const double t_start = MPI_Wtime();
  MPI_Comm world = tpetra::rawComm(A.getComm());
  MultiplyStats stats;
  g_last_stats = stats;

  Options opt = parseOptions(params, world);
  validate(A, transposeA, B, transposeB, C, world);
  stats.algorithm = opt.algorithm;

  if (opt.algorithm == "tpetra") {
    Teuchos::RCP<Teuchos::ParameterList> p = opt.tpetra_params;
    {
      PhaseTimer t(stats.times.local_multiply, "Trident: Tpetra multiply");
      Tpetra::MatrixMatrix::Multiply(A, transposeA, B, transposeB, C, call_FillComplete_on_result, label, p);
    }
    stats.times.total = MPI_Wtime() - t_start;
    // Accounting after the timed part, so that it does not count against Tpetra.
    const Topology& topo = *cachedTopology(world, opt.ranks_per_group);
    stats.P = topo.P();
    stats.ranks_per_group = topo.ranks_per_group();
    auto Ap = transposeA ? transposeOf(A) : Teuchos::rcpFromRef(A);
    auto Bp = transposeB ? transposeOf(B) : Teuchos::rcpFromRef(B);
    tpetraImportBytes(*Ap, *Bp, topo, stats);
    stats.nnz_c_local = C.getNodeNumEntries();
    g_last_stats = stats;
    return;
  }

  Teuchos::TimeMonitor total_timer(*phaseTimer("Trident: total"));
  const auto topoPtr = cachedTopology(world, opt.ranks_per_group);
  const Topology& topo = *topoPtr;
  const bool summa = opt.algorithm == "summa";
  stats.P = topo.P();
  stats.ranks_per_group = topo.ranks_per_group();

  Teuchos::RCP<const crs_matrix_type> Ap, Bp;
  std::vector<std::uint64_t> redistributed(topo.P(), 0);
  Layout L;
  OwnedTiles tiles;
  Permutation prow, pinner, pcol;
  std::unique_ptr<tpetra::MapPositions> rowPos, colPos;
  Teuchos::RCP<const map_type> domainB, rangeA;
  {
    PhaseTimer t(stats.times.redistribute_in, "Trident: redistribute in");
    Ap = transposeA ? transposeOf(A) : Teuchos::rcpFromRef(A);
    Bp = transposeB ? transposeOf(B) : Teuchos::rcpFromRef(B);
    domainB = Bp->getDomainMap();
    rangeA = Ap->getRangeMap();
    rowPos = std::make_unique<tpetra::MapPositions>(*Ap->getRowMap());
    tpetra::MapPositions innerPos(*Ap->getDomainMap());
    colPos = std::make_unique<tpetra::MapPositions>(*domainB);
    const std::int64_t m = rowPos->global(), k = innerPos.global(), n = colPos->global();

    // Global IDs -> positions. B's rows must be global IDs of op(A)'s domain map.
    std::vector<std::int64_t> aRow(Ap->getNodeNumRows());
    for (std::size_t r = 0; r < aRow.size(); ++r) aRow[r] = rowPos->first() + static_cast<std::int64_t>(r);
    auto aCol = tpetra::positionsOf(*Ap->getDomainMap(), innerPos, Ap->getColMap()->getNodeElementList(),
                                    "a column of op(A)");
    auto bRow = tpetra::positionsOf(*Ap->getDomainMap(), innerPos, Bp->getRowMap()->getNodeElementList(),
                                    "a row of op(B) (op(B)'s rows must match op(A)'s domain map)");
    auto bCol = tpetra::positionsOf(*domainB, *colPos, Bp->getColMap()->getNodeElementList(),
                                    "a column of op(B)");
    if (opt.permute) {
      const auto seed = static_cast<std::uint64_t>(opt.seed);
      prow = Permutation(m, seed);
      pinner = Permutation(k, seed);
      pcol = Permutation(n, seed);
    }
    Triplets TA = tpetra::toTriplets(*Ap, aRow, aCol, prow, pinner, true);
    Triplets TB = tpetra::toTriplets(*Bp, bRow, bCol, pinner, pcol, false);

    // A's slices are balanced by the work of their rows, the multiply-adds (the entries of B each
    // row meets), not by A's entries alone: on power-law graphs the two differ by orders of
    // magnitude. One import of B's row lengths onto A's columns gives it.
    const std::vector<std::int64_t> rowWork = multiplyAddsPerRow(*Ap, rowLengthsAtColumns(*Ap, *Bp).len);
    std::vector<std::int64_t> aw(aRow.size()), bw(bRow.size()), ap(aRow.size()), bp(bRow.size());
    for (std::size_t r = 0; r < aRow.size(); ++r) {
      ap[r] = prow(aRow[r]);
      aw[r] = static_cast<std::int64_t>(Ap->getNumEntriesInLocalRow(static_cast<LO>(r))) + rowWork[r];
    }
    for (std::size_t r = 0; r < bRow.size(); ++r) {
      bp[r] = pinner(bRow[r]);
      bw[r] = static_cast<std::int64_t>(Bp->getNumEntriesInLocalRow(static_cast<LO>(r)));
    }
    TileGrid grid = summa ? TileGrid::forUnits(topo.P()) : TileGrid::forUnits(topo.groups());
    if (!summa && (opt.grid == 2 || (opt.grid == 0 && preferRowsGrid(grid, TA, TB, k, topo, opt.fetch_needed))))
      grid = TileGrid::rowsOnly(topo.groups());
    L = makeLayout(grid, summa ? 1 : topo.ranks_per_group(), m, k, n, ap, aw, bp, bw, world);
    RankOf rank_of = summa ? RankOf([](int unit, int) { return unit; })
                           : RankOf([&topo](int unit, int kk) { return topo.world_rank_of(unit, kk); });
    tiles = distributeTiles(L, TA, TB, rank_of, summa ? topo.rank() : topo.group(), summa ? 0 : topo.k(), world,
                            &redistributed);
  }
  // Split what the redistributions sent by link.
  auto accountRedistribution = [&] {
    for (int d = 0; d < static_cast<int>(redistributed.size()); ++d)
      (topo.same_group(topo.rank(), d) ? stats.redistribute_li_bytes : stats.redistribute_gi_bytes) += redistributed[d];
    redistributed.assign(redistributed.size(), 0);
  };
  accountRedistribution();
  stats.grid_rows = L.grid.rows;
  stats.grid_cols = L.grid.cols;
  stats.rounds = L.grid.rounds;

  AlgorithmOptions aopt;
  aopt.local_kernel = opt.local_kernel;
  aopt.lookahead = opt.lookahead;
  aopt.fetch_needed_rows = opt.fetch_needed;
  Csr Cblk = summa ? summaMultiply(L, tiles, topo, aopt, stats) : tridentMultiply(L, tiles, topo, aopt, stats);
  tiles = OwnedTiles();

  {
    PhaseTimer t(stats.times.redistribute_out, "Trident: redistribute out");
    const int unit = summa ? topo.rank() : topo.group();
    const int i = L.grid.unit_row(unit), j = L.grid.unit_col(unit);
    const std::int64_t r0 = L.a_slice(i, summa ? 0 : topo.k()), c0 = L.col_bounds[j];
    tpetra::ResultRows rows = tpetra::sendRowsToOwners(Cblk, r0, c0, prow, pcol, *rowPos,
                                                       C.getRowMap()->getNodeNumElements(), world,
                                                       &redistributed, colPos->global());
    Cblk = Csr();
    tpetra::assembleResult(C, rows, *colPos, domainB, rangeA, call_FillComplete_on_result, opt.tpetra_params);
  }
  accountRedistribution();
  stats.times.total = MPI_Wtime() - t_start;
  g_last_stats = stats;
}

}  // namespace MatrixMatrix
}  // namespace Trident
