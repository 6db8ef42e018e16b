// MultiplyPlan: validation, grid choice, layout and the per-execute phases (in, multiply, out).
#include "Trident_MultiplyPlan.hpp"

#include <TpetraExt_MatrixMatrix.hpp>
#include <Tpetra_Import.hpp>
#include <Tpetra_RowMatrixTransposer.hpp>
#include <Tpetra_Vector.hpp>
#include <algorithm>
#include <optional>
#include <stdexcept>

#include "Trident_AutoAlgorithm.hpp"
#include "Trident_MapSameness.hpp"
#include "Trident_MultiplyOptions.hpp"
#include "Trident_OneRankProduct.hpp"
#include "Trident_PatternFingerprint.hpp"
#include "Trident_ProductCounts.hpp"
#include "Trident_ResultAssembly.hpp"
#include "Trident_RowWiseProduct.hpp"
#include "Trident_StoredZeros.hpp"
#include "Trident_TpetraConversion.hpp"
#include <trident/algorithms/Algorithms.hpp>
#include <trident/core/Abort.hpp>
#include <trident/core/Errors.hpp>
#include <trident/core/HeapRetention.hpp>
#include <trident/grid/Topology.hpp>
#include <trident/planner/BlockBalance.hpp>
#include <trident/planner/Estimate.hpp>
#include <trident/planner/MachineModel.hpp>
#include <trident/partition/Layout.hpp>
#include <trident/partition/Permutation.hpp>
#include <trident/partition/Redistribute.hpp>
#include <trident/partition/ValueRoute.hpp>
#include <trident/stats/PhaseTimer.hpp>
#include <trident/core/BigCount.hpp>

namespace Trident {
namespace MatrixMatrix {

using tpetra::multiplyAddsPerRow;
using tpetra::rowLengthsAtColumns;
using tpetra::RowLengthsAtColumns;

namespace {

// Everything that can be wrong with the operands: this rank's half, recorded in check, so that
// all of a call's checks share one collective (CollectiveCheck; each collective costs
// milliseconds on a loaded machine, which MueLu's small coarse products feel).
void checkOperands(const crs_matrix_type& A, const crs_matrix_type& B, CollectiveCheck& check) {
  check.failIf(!A.isFillComplete(), "A is not fill-complete; call A.fillComplete() first");
  check.failIf(!B.isFillComplete(), "B is not fill-complete; call B.fillComplete() first");
}

// After the collective (both fill-complete on every rank): the sizes, the same on every rank.
void requireInnerDimensions(const crs_matrix_type& A, bool tA, const crs_matrix_type& B, bool tB) {
  const auto Adom = tA ? A.getRangeMap() : A.getDomainMap();
  const auto Aran = tA ? A.getDomainMap() : A.getRangeMap();
  const auto Bran = tB ? B.getDomainMap() : B.getRangeMap();
  const auto Bdom = tB ? B.getRangeMap() : B.getDomainMap();
  const auto m = Aran->getGlobalNumElements(), k = Adom->getGlobalNumElements();
  const auto k2 = Bran->getGlobalNumElements(), n = Bdom->getGlobalNumElements();
  requireAll(k == k2, "Trident: inner dimensions do not match: op(A) is " + std::to_string(m) + " x " +
                          std::to_string(k) + " but op(B) is " + std::to_string(k2) + " x " + std::to_string(n));
}

// C's half of the checks (asked only once A is known to be fill-complete here).
void checkResult(const crs_matrix_type& A, bool tA, const crs_matrix_type& C, CollectiveCheck& check) {
  if (!A.isFillComplete()) return;  // reported as A's failure
  const auto opArow = tA ? A.getDomainMap() : A.getRowMap();
  check.failIf(!tpetra::locallySame(*C.getRowMap(), *opArow),
               "C must be constructed on op(A)'s row map (A's row map, or A's domain map when transposed)");
  check.failIf(!C.isFillComplete() && Compat::localNumEntries(C) > 0,
               "C is neither empty nor fill-complete; pass an empty C, or a fill-complete C whose pattern "
               "holds the product");
}

Teuchos::RCP<const crs_matrix_type> transposeOf(const crs_matrix_type& M) {
  Tpetra::RowMatrixTransposer<double, LO, GO, Node> transposer(Teuchos::rcpFromRef(M));
  return transposer.createTranspose();
}

// Bytes Tpetra's own Multiply moves: the import of the remote B rows that A's columns need,
// packed with global column, owning PID and value per entry (20 B) plus a row header (8 B), as
// Tpetra's MMM import packs them. Split into Gi/Li by the groups of source and destination.
// No collective beyond the import of row lengths: the owners of the received rows come from the
// Import's receive lists, the bytes sent from its export lists.
void tpetraImportBytes(const crs_matrix_type& A, const crs_matrix_type& B, const Topology& topo,
                       std::optional<bool> a_import_serves, MultiplyStats& st) {
  const RowLengthsAtColumns rl = rowLengthsAtColumns(A, B, a_import_serves);
  for (std::int64_t w : multiplyAddsPerRow(A, rl.len)) st.local_flops += static_cast<std::uint64_t>(w);
  const std::optional<std::vector<int>> owners = tpetra::remoteOwners(*rl.importer);
  if (!owners) throw std::logic_error("Trident: Tpetra's Import has a receive layout the byte accounting does not know");
  tpetra::ImportBytes bytes;
  tpetra::addImportBytesReceived(*rl.importer, *owners, rl.len, topo, bytes);
  tpetra::addImportBytesSent(*rl.importer, B, topo, bytes);
  st.gi_bytes_recv += bytes.gi_recv;
  st.li_bytes_recv += bytes.li_recv;
  st.gi_bytes_sent += bytes.gi_sent;
  st.li_bytes_sent += bytes.li_sent;
}

// "trident: grid" = "auto": estimates, in entries, what crosses Gi with each grid and picks the
// smaller. rows (G x 1): group g fetches the B rows its A rows touch (coverage c_g of the inner
// dimension), nothing else crosses Gi, since the tiles line up with the 1D rows. square (qr x qc):
// the multiply fetches (qc-1)/qc of A and (qr-1)/qr of B per group, and the way in already moves
// (qc-1)/qc of A and B between groups; the way out (part of C) is left out, which favours square.
bool preferRowsGrid(const TileGrid& square, const LocalRows& A, const LocalRows& B, std::int64_t k,
                    const Topology& topo, bool fetch_needed) {
  const int G = topo.groups();
  if (G == 1 || square.cols == 1) return false;  // same grid either way
  double coverage = 1.0;
  if (fetch_needed && k > 0) {
    // Distinct columns of the group's A: each rank sends its distinct columns to rank c mod lambda
    // of the group, which counts the distinct ones it receives; memory O(local entries).
    const int lambda = topo.ranks_per_group();
    std::vector<char> used(A.col_pos.size(), 0);
    for (std::int64_t r = 0; r < A.nrows; ++r)
      for (std::size_t q = A.rowptr[r]; q < A.rowptr[r + 1]; ++q)
        if (A.kept(q)) used[static_cast<std::size_t>(A.col[q])] = 1;
    std::vector<std::int64_t> cols;
    for (std::size_t c = 0; c < used.size(); ++c)
      if (used[c]) cols.push_back(A.col_pos[c]);
    std::sort(cols.begin(), cols.end());  // distinct already: one position per local column
    std::vector<std::int64_t> counts(lambda, 0);
    for (std::int64_t c : cols) ++counts[c % lambda];
    std::vector<std::int64_t> send(cols.size()), next(lambda, 0);
    for (int q = 1; q < lambda; ++q) next[q] = next[q - 1] + counts[q - 1];
    for (std::int64_t c : cols) send[next[c % lambda]++] = c;
    const std::vector<std::int64_t> rcounts = bigcount::exchangeCounts(counts, topo.li_comm());
    std::int64_t nrecv = 0;
    for (std::int64_t r : rcounts) nrecv += r;
    std::vector<std::int64_t> recv(static_cast<std::size_t>(nrecv));
    bigcount::alltoallv(send.data(), counts, recv.data(), rcounts, MPI_INT64_T, topo.li_comm());
    std::sort(recv.begin(), recv.end());
    std::int64_t covered = static_cast<std::int64_t>(std::unique(recv.begin(), recv.end()) - recv.begin());
    MPI_Allreduce(MPI_IN_PLACE, &covered, 1, MPI_INT64_T, MPI_SUM, topo.li_comm());
    coverage = static_cast<double>(covered) / static_cast<double>(k);
  }
  // Every rank adds its group's coverage / lambda: the sum is the sum over groups.
  double v[3] = {coverage / topo.ranks_per_group(), static_cast<double>(A.entries), static_cast<double>(B.entries)};
  MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_SUM, topo.world());
  const double sumCoverage = v[0], nnzA = v[1], nnzB = v[2];
  const double rows = sumCoverage * nnzB * (G - 1) / G;
  const double qc = square.cols, qr = square.rows;
  const double squareGi = (qc - 1) * nnzA + (qr - 1) * nnzB * (sumCoverage / G) + (qc - 1) / qc * (nnzA + nnzB);
  return rows <= squareGi;
}

// "trident: slices" = "owners": with the G x 1 grid, groups of consecutive world ranks and no
// relabeling, slice t of group g can be exactly the rows rank g*lambda + t holds in Tpetra's 1D
// row map. Then A stays where it is on the way in, B too when its rows are distributed like
// op(A)'s domain map, and every row of C is produced by its owner, so no entry moves in or out
// (on a Gi-bound cluster those redistributions were world all-to-alls), and each rank's block is
// its rows of C, so the kernel writes C's final arrays (BlockSink) and nothing is copied out. The
// price is balance: the 1D rows carry uneven work, so "auto" (the default) takes these cuts only
// when the busiest rank's work (entries + multiply-adds of its rows) is at most that bound
// times the average. Measured (docs/benchmarks.md, P = 4 on one machine, Trident / Tpetra with
// balanced -> owner slices): as-caida 0.61 -> 0.39 and email-Enron 0.66 -> 0.33 at lambda = 2,
// 0.41 -> 0.27 and 0.39 -> 0.19 at lambda = 4; before C was written in place they saved nothing
// on one machine. On 4 x 4 emulated nodes at 50 Mbit they took the in phase of ca-CondMat from
// 0.54 s to 0.36-0.41 s.
// The bound was 1.2 while balanced slices' C was copied and renumbered into Tpetra's arrays at
// little cost next to the multiply; measured again once the kernel wrote C's final arrays (P = 4,
// lambda = 2, both cuts side by side, best of two runs of 5 trials; this bound's measure in
// brackets), owner slices were as fast or faster up to 2.85: rajat01 (1.35) 0.062 s against 0.091
// balanced, ca-CondMat (1.43) 0.078 / 0.095, bcsstk13 (1.55) 0.017 / 0.028, hep-th (1.77)
// 0.014 / 0.017, facebook (1.83) 0.074 / 0.084, email-Enron (2.85) 0.70 / 0.85; ties on cora
// (1.45) and bcspwr10 (1.45). Balanced cuts move and place every entry of C again (an out phase
// about as long as the multiply there), which owner slices save; 2 keeps a margin for machines
// whose kernel is slower next to their copies. The bound is planner::kOwnerSliceImbalance, which
// auto's estimate applies too.
// Returns empty cuts when they are not taken; throws InvalidInput on every rank when "owners"
// was asked for and is not possible.

SliceCuts ownerCuts(SliceChoice choice, const TileGrid& grid, const Topology& topo, bool permute,
                    const tpetra::MapPositions& rowPos, const tpetra::MapPositions& innerPos,
                    const std::vector<std::int64_t>& bRow, const std::vector<std::int64_t>& rowWork, MPI_Comm comm,
                    bool* b_aligned) {
  *b_aligned = false;
  if (choice == SliceChoice::Balanced) return {};
  const int P = topo.P();
  std::string why;
  if (grid.cols != 1) why = "the tiles must span whole rows (\"trident: grid\" = \"rows\")";
  if (permute) why = "the rows must not be relabeled (\"trident: permute\" = \"none\")";
  if (why.empty() && !topo.groups_consecutive()) why = "the groups must be consecutive world ranks";
  if (!why.empty()) {
    requireAll(choice != SliceChoice::Owners, "Trident: \"trident: slices\" = \"owners\" is not possible: " + why);
    return {};
  }
  // B's rows are aligned when every rank holds exactly its own range of op(A)'s domain map.
  int me = topo.rank();
  bool mine = static_cast<std::int64_t>(bRow.size()) == innerPos.begin(me + 1) - innerPos.begin(me);
  for (std::size_t r = 0; r < bRow.size() && mine; ++r) mine = bRow[r] == innerPos.begin(me) + static_cast<std::int64_t>(r);
  double work = 0.0;
  for (std::int64_t w : rowWork) work += static_cast<double>(w);
  double maxWork = 0.0;
  MPI_Allreduce(&work, &maxWork, 1, MPI_DOUBLE, MPI_MAX, comm);
  double sums[2] = {work, mine ? 0.0 : 1.0};  // total work, ranks whose B rows are not aligned
  MPI_Allreduce(MPI_IN_PLACE, sums, 2, MPI_DOUBLE, MPI_SUM, comm);
  const double avg = sums[0] / P;
  if (choice == SliceChoice::Auto && maxWork > planner::kOwnerSliceImbalance * avg) return {};
  SliceCuts cuts;
  cuts.a.resize(P + 1);
  for (int r = 0; r <= P; ++r) cuts.a[r] = rowPos.begin(r);
  if (sums[1] == 0.0) {
    *b_aligned = true;
    cuts.b.resize(P + 1);
    for (int r = 0; r <= P; ++r) cuts.b[r] = innerPos.begin(r);
  }
  return cuts;
}

// "trident: blocks": the rule makeLayout asks once it knows the groups' work under even blocks
// (planner/BlockBalance.hpp). Groups near balance (the same answer on every rank) cost nothing
// more; uneven ones one collective, so that ranks whose machine model files or core counts differ
// still cut alike, and a model file some rank cannot read fails on every rank. shared: some node
// runs more ranks than it has cores (Topology::ranks_share_cores).
BlockRule blockRule(BlockChoice choice, MPI_Comm comm, bool shared) {
  if (choice == BlockChoice::Even) return {};
  return [choice, comm, shared](const std::vector<double>& groupWork) {
    if (choice == BlockChoice::Balanced) return true;
    if (!planner::groupsUneven(groupWork)) return false;
    std::string error;
    const planner::MachineModel& model = MatrixMatrix::environmentModel(&error);
    CollectiveCheck check;
    check.failIf(!error.empty(), "Trident: \"trident: blocks\" = \"auto\": " + error);
    const std::size_t slot = check.contribute(planner::balanceBlocks(groupWork, model, shared) ? 1 : 0);
    check.run(comm);
    return check.min(slot) == 1;
  };
}

}  // namespace

struct MultiplyPlan::Impl {
  MultiplyOptions opt;
  MPI_Comm world = MPI_COMM_NULL;
  std::shared_ptr<const Topology> topo;  // formed by topology(), when first needed
  bool tA = false, tB = false, summa = false;
  tpetra::PatternFingerprint fingerprintA, fingerprintB;
  bool keep = true;
  int executions = 0, reused = 0;
  MultiplyStats stats;
  MultiplyStats tpetraCounts;  // "tpetra": its import's bytes and multiply-adds (patterns only)
  bool tpetraCounted = false;  // "auto" chose Tpetra and counted them already
  std::optional<bool> aImportServes;  // known when op(A) = A and op(B) = B (Trident_MapSameness.hpp)
  std::vector<std::int64_t> autoRowWork;  // A's rows' multiply-adds, when "auto" counted A*B
  bool autoCountedRows = false;           // ... which is then the case on every rank
  const crs_matrix_type* checkedC = nullptr;  // checked with the operands: its first execute skips it
  const crs_matrix_type* builtA = nullptr;    // the operands the plan was built from: a first execute
  const crs_matrix_type* builtB = nullptr;    // on them skips their checks
  PhaseTimes setup;  // the plan's own cost, reported with the first execute

  // Position space.
  std::unique_ptr<tpetra::MapPositions> rowPos, colPos;
  std::vector<std::int64_t> aRow, aCol, bRow, bCol;
  Permutation prow, pinner, pcol;
  Teuchos::RCP<const map_type> domainB, rangeA;
  Layout L;
  RankOf rank_of;
  int my_unit = 0, my_k = 0;
  bool aStays = false, bStays = false;  // "trident: slices" = "owners": the operand needs no moving in
  bool oneRank = false;  // P = 1: no layout; execute reads the operands where they are (readsInPlace)
  AlgorithmState state;
  std::unique_ptr<tpetra::ResultAssembly> assembly;
  // The operands as the plan saw them, used by the first execute of a one-shot plan (Multiply):
  // where an operand stays, its rows where op(A) / op(B) hold them (held: a transpose formed here
  // lives as long), else its triplets.
  Triplets firstA, firstB;
  LocalRows rowsA, rowsB;
  Teuchos::RCP<const crs_matrix_type> heldA, heldB;
  // A kept plan keeps its tiles, and the route of new values into them (the in phase of later
  // executes: values only, point to point).
  OwnedTiles keptTiles;
  ValueRoute route;

  // The plan's steps, in the order a drop-in call takes them: check the operands (one
  // collective), choose the algorithm ("auto"), lay out (positions, weights, grid, slices,
  // layout); then each execute moves the operands in, multiplies, waits for the slowest rank and
  // assembles C.
  AutoInputs checkAll(const crs_matrix_type& A, const crs_matrix_type& B,
                      const Teuchos::RCP<Teuchos::ParameterList>& params, const crs_matrix_type* first_C,
                      CollectiveCheck& check, std::optional<std::size_t>& a_zeros);
  void choose(const crs_matrix_type& A, const crs_matrix_type& B, const CollectiveCheck& check, AutoInputs& in);
  void layOut(const crs_matrix_type& A, const crs_matrix_type& B);
  // P = 1, one-shot, not transposed, host gustavson, a fresh C: execute may read the operands
  // where they are (Trident_OneRankProduct); readsInPlace then skips the layout.
  bool oneRankPossible(const crs_matrix_type* first_C) const;
  bool readsInPlace(const crs_matrix_type* first_C);
  bool executeOnOneRank(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C, bool fill,
                        double t_start);
  // "1d", and auto's choice of Tpetra's algorithm, run it with Trident's kernel in place
  // (Trident_OneRankProduct at P = 1, Trident_RowWiseProduct at P > 1) where it can; elsewhere
  // Tpetra's own Multiply runs it.
  bool oneDLocallyPossible(const crs_matrix_type* first_C) const;  // all but the agreed aImportServes
  bool oneDInPlacePossible(const crs_matrix_type* first_C) const;
  void settleOneD(const crs_matrix_type* first_C);
  void executeOneD(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C, bool fill,
                   const std::string& label, double t_start);
  void checkExecute(const crs_matrix_type& A, const crs_matrix_type& B, const crs_matrix_type& C);
  void executeTpetra(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C, bool fill,
                     const std::string& label, double t_start);
  OwnedTiles moveIn(const crs_matrix_type& A, const crs_matrix_type& B, std::vector<std::uint64_t>& sent);
  Csr multiply(const OwnedTiles& tiles, crs_matrix_type& C, bool values_only, tpetra::FinalArraysSink& sink);
  void waitForSlowest();
  void assemble(Csr& Cblk, crs_matrix_type& C, bool values_only, bool fill, tpetra::FinalArraysSink& sink,
                std::vector<std::uint64_t>& sent);

  // layOut's parts: op(A) and op(B) in position space, the rows' weights for balance, the grid,
  // slices and layout, and what a one-shot plan keeps of the operands for its execute.
  struct Positioned {
    tpetra::MapPositions inner;  // op(A)'s domain map (the inner dimension)
    LocalRows a, b;
  };
  struct RowWeights {
    std::vector<std::int64_t> a_pos, a_work, b_pos, b_work;
  };
  Positioned toPositions(const crs_matrix_type& Ap, const crs_matrix_type& Bp);
  RowWeights rowWeights(const crs_matrix_type& Ap, const crs_matrix_type& Bp);
  void layTiles(const Positioned& pos, const RowWeights& w);
  void keepFirstOperands(const Teuchos::RCP<const crs_matrix_type>& Ap, const Teuchos::RCP<const crs_matrix_type>& Bp,
                         Positioned& pos);
  // Bytes sent in the redistributions, by link; clears `sent`.
  void accountSent(std::vector<std::uint64_t>& sent);

  // The tiles of a kept plan's first execute, and the route for later ones: distributeTiles runs
  // on entry ids instead of values, so the ids show where each value lands.
  void firstTilesOfKeptPlan(const crs_matrix_type& Ap, const crs_matrix_type& Bp, std::vector<std::uint64_t>* sent);

  void rememberPatterns(const crs_matrix_type& A, const crs_matrix_type& B, std::optional<std::size_t> a_zeros);
  // Collective the first time: every rank asks at the same point (the choices that lead there
  // are agreed).
  const Topology& topology() {
    if (!topo) topo = cachedTopology(world, opt.ranks_per_group);
    return *topo;
  }
  // op(A)'s and op(B)'s entries in position space; qA/qB (optional): the local value index of each.
  Triplets triplets(const crs_matrix_type& Ap, const crs_matrix_type& Bp, Triplets* TB,
                    std::vector<std::int64_t>* qA = nullptr, std::vector<std::int64_t>* qB = nullptr) const {
    *TB = tpetra::toTriplets(Bp, bRow, bCol, pinner, pcol, false, qB);
    return tpetra::toTriplets(Ap, aRow, aCol, prow, pinner, true, qA);
  }
};

MultiplyPlan::MultiplyPlan(const crs_matrix_type& A, bool transposeA, const crs_matrix_type& B, bool transposeB,
                           const Teuchos::RCP<Teuchos::ParameterList>& params, bool keep_for_reuse,
                           const crs_matrix_type* first_C)
    : impl_(std::make_unique<Impl>()) {
  Impl& p = *impl_;
  p.keep = keep_for_reuse;
  p.state.keep_pattern = keep_for_reuse;
  retainFreedHeap();  // once per process (core/HeapRetention.hpp)
  const double t0 = MPI_Wtime();
  p.world = tpetra::rawComm(A.getComm());
  p.tA = transposeA;
  p.tB = transposeB;
  CollectiveCheck check;
  std::optional<std::size_t> aZeros;
  AutoInputs autoIn = p.checkAll(A, B, params, first_C, check, aZeros);
  p.checkedC = first_C;
  p.builtA = &A;
  p.builtB = &B;
  if (p.keep) {
    Teuchos::TimeMonitor fingerprintTimer(*phaseTimer("Trident: plan: pattern fingerprints"));
    p.rememberPatterns(A, B, aZeros);
  }
  if (p.opt.algorithm == Algorithm::Auto) p.choose(A, B, check, autoIn);
  p.settleOneD(first_C);
  p.stats.algorithm = toString(p.opt.algorithm);
  MPI_Comm_size(p.world, &p.stats.P);
  // Tpetra's own Multiply needs no groups: they are formed (a few collectives, the first time a
  // process asks for them) only for what uses them, so ranks_per_group says 0 where they were not.
  p.stats.ranks_per_group = p.topo ? p.topo->ranks_per_group() : 0;
  if (p.opt.algorithm == Algorithm::Tpetra || p.opt.algorithm == Algorithm::OneD) {
    p.setup.total = MPI_Wtime() - t0;  // "auto" chose it: the planning counts with the first execute
    return;
  }
  p.summa = p.opt.algorithm == Algorithm::Summa;
  p.stats.ranks_per_group = p.topology().ranks_per_group();
  // Past validation, a failure on one rank would leave the others waiting: end the job instead.
  if (!p.readsInPlace(first_C)) runOrAbort(p.world, "MultiplyPlan set-up", [&] { p.layOut(A, B); });
  p.setup.total = MPI_Wtime() - t0;
}

// One collective for every check of the call (parameters, operands, the first C, what "auto"
// reads) and for the questions whose answers must agree across ranks.
AutoInputs MultiplyPlan::Impl::checkAll(const crs_matrix_type& A, const crs_matrix_type& B,
                                        const Teuchos::RCP<Teuchos::ParameterList>& params,
                                        const crs_matrix_type* first_C, CollectiveCheck& check,
                                        std::optional<std::size_t>& a_zeros) {
  Teuchos::TimeMonitor checkTimer(*phaseTimer("Trident: plan: checks"));
  opt = MultiplyOptions::parse(params, check);
  const std::string padError = heapPadSettingError();
  check.failIf(!padError.empty(), padError);
  checkOperands(A, B, check);
  if (first_C) checkResult(A, tA, *first_C, check);
  const bool plain = !tA && !tB && A.isFillComplete() && B.isFillComplete();
  const std::size_t servesSlot = check.contribute(plain && tpetra::aImportServesLocally(A, B) ? 1 : 0);
  // A's stored zeros: a kept plan's fingerprint (op(A) = A) needs them (every algorithm's kernel,
  // Tpetra's too, skips them), and auto's bound (A*B) reads them when they are counted. A one-off
  // call does not count them for the bound alone: the bound settles without them
  // (AutoInputs::agree), and on MueLu's 2D Laplacian (P = 2) the count cost 0.6 of the
  // bound's own pass.
  if (!tA && A.isFillComplete() && keep) a_zeros = tpetra::storedZeros(A);
  AutoInputs in;
  if (opt.algorithm == Algorithm::Auto) {
    // A product that will move nothing is predicted, and remembered, as such.
    const bool inPlace = oneRankPossible(first_C);
    const std::uint64_t context =
        rememberContext(opt) ^ (inPlace ? 0x1B1ACEull : 0ull) ^ (oneDLocallyPossible(first_C) ? 0x1D0000ull : 0ull);
    in = AutoInputs::gather(A, tA, B, tB, check, a_zeros,
                            opt.remember_auto_choice ? std::optional<std::uint64_t>(context) : std::nullopt,
                            opt.estimate_auto_choice);
    if (inPlace) in.model = planner::movingNothing(in.model);
  } else
    AutoInputs::holdPlaces(check);
  check.run(world);
  opt.requireAgreement(check);
  requireInnerDimensions(A, tA, B, tB);
  if (plain) aImportServes = check.min(servesSlot) == 1;
  return in;
}

// "auto": the choice, and the layout its prediction is for, which the plan then builds.
void MultiplyPlan::Impl::choose(const crs_matrix_type& A, const crs_matrix_type& B, const CollectiveCheck& check,
                                AutoInputs& in) {
  in.agree(check);
  in.a_import_serves = aImportServes;
  // Tpetra's algorithm, where it would run in place, is predicted as it would run (settleOneD).
  if (oneDInPlacePossible(checkedC)) in.model = planner::tpetraInPlace(in.model);
  in.owner_slices_allowed = !opt.permute && opt.slices != SliceChoice::Balanced;
  in.rows_grid_allowed = opt.grid != GridChoice::Square;
  AutoChoice choice = chooseAlgorithm(A, tA, B, tB, world, [this]() -> const Topology& { return topology(); }, in, stats);
  opt.algorithm = choice.algorithm;
  // The slices: those predicted, except that where owner slices are possible the plan's ownerCuts
  // applies the prediction's own rule (planner::kOwnerSliceImbalance) to the exact work of each
  // rank's rows, which the plan imports anyway. Counted choices come out the same; an estimate's
  // may not: on rajat01 at P = 4 its multiply-adds (0.45x the exact count on this circuit, whose
  // few dense rows are remote to most ranks) put the busiest rank at 3.3x the average work where
  // it is 1.35x, and the balanced slices it predicted took 0.084 s against owner slices' 0.030 s.
  if (choice.algorithm == Algorithm::Trident) {
    const bool exactRule = in.owner_slices_allowed && !tA && !tB && topology().P() > 1;
    opt.slices = exactRule ? SliceChoice::Auto : choice.owner_slices ? SliceChoice::Owners : SliceChoice::Balanced;
    if (choice.owner_slices) opt.grid = GridChoice::Rows;
  }
  if (choice.tpetra_counts) {
    tpetraCounts = *choice.tpetra_counts;
    tpetraCounted = true;
  }
  // A remembered choice or one settled without counting (agreed on every rank) counted no rows.
  if (choice.row_work && opt.algorithm != Algorithm::Tpetra) {
    autoRowWork = std::move(*choice.row_work);
    autoCountedRows = true;
  }
}

void MultiplyPlan::Impl::layOut(const crs_matrix_type& A, const crs_matrix_type& B) {
  Teuchos::TimeMonitor total_timer(*phaseTimer("Trident: total"));
  PhaseTimer t(setup.redistribute_in, "Trident: redistribute in");
  auto Ap = tA ? transposeOf(A) : Teuchos::rcpFromRef(A);
  auto Bp = tB ? transposeOf(B) : Teuchos::rcpFromRef(B);
  domainB = Bp->getDomainMap();
  rangeA = Ap->getRangeMap();
  Positioned pos = toPositions(*Ap, *Bp);
  layTiles(pos, rowWeights(*Ap, *Bp));
  stats.grid_rows = L.grid.rows;
  stats.grid_cols = L.grid.cols;
  stats.rounds = L.grid.rounds;
  stats.owner_slices = aStays;
  stats.blocks_by_work = !summa && !aStays && L.row_bounds != evenBounds(L.m, L.grid.rows);
  keepFirstOperands(Ap, Bp, pos);
}

// At P = 1 nothing moves, and the 1 x 1 grid is the same product for Trident and SUMMA: a
// one-shot product into a fresh C reads A and B where Tpetra keeps them and writes C's final
// arrays (Trident_OneRankProduct.hpp), with no positions, layout or tiles, which were all copying
// there (45% of tetdual:35's drop-in call). A kept plan keeps its tiles and value route (its
// re-executes are values only), and other kernels and devices take tiles, so they lay out.
bool MultiplyPlan::Impl::oneRankPossible(const crs_matrix_type* first_C) const {
  int P = 0;
  MPI_Comm_size(world, &P);
  return P == 1 && oneDLocallyPossible(first_C);
}

bool MultiplyPlan::Impl::readsInPlace(const crs_matrix_type* first_C) {
  oneRank = oneRankPossible(first_C);
  if (oneRank) {
    stats.grid_rows = stats.grid_cols = stats.rounds = 1;
    stats.owner_slices = !summa && opt.slices != SliceChoice::Balanced;  // as ownerCuts takes them at P = 1
  }
  return oneRank;
}

// False where the product needs the general path after all (another C than the plan was shown,
// or maps whose columns the one-rank product cannot take as they are): the layout is made now,
// its time counted in this execute's in phase.
bool MultiplyPlan::Impl::executeOnOneRank(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C,
                                          bool fill, double t_start) {
  oneRank = false;
  const bool fresh = !C.isFillComplete() && !C.hasColMap();
  if (fresh && runOrAbort(world, "Trident multiply",
                          [&] { return tpetra::multiplyOnOneRank(A, B, C, fill, opt.tpetra_params, stats); })) {
    stats.times.total = MPI_Wtime() - t_start + setup.total;
    ++executions;
    return true;
  }
  const double t0 = MPI_Wtime();
  runOrAbort(world, "MultiplyPlan set-up", [&] { layOut(A, B); });
  stats.times.redistribute_in += MPI_Wtime() - t0;
  return false;
}

// Global IDs -> positions. B's rows must be global IDs of op(A)'s domain map. With linear maps
// the three look-ups are local and share one check.
MultiplyPlan::Impl::Positioned MultiplyPlan::Impl::toPositions(const crs_matrix_type& Ap, const crs_matrix_type& Bp) {
  Teuchos::TimeMonitor timer(*phaseTimer("Trident: plan: positions"));
  std::vector<tpetra::MapPositions> positions =
      tpetra::MapPositions::of({Ap.getRowMap().get(), Ap.getDomainMap().get(), domainB.get()});
  rowPos = std::make_unique<tpetra::MapPositions>(std::move(positions[0]));
  colPos = std::make_unique<tpetra::MapPositions>(std::move(positions[2]));
  const tpetra::MapPositions& innerPos = positions[1];
  aRow.resize(Compat::localNumRows(Ap));
  for (std::size_t r = 0; r < aRow.size(); ++r) aRow[r] = rowPos->first() + static_cast<std::int64_t>(r);
  CollectiveCheck lookups;
  aCol = tpetra::positionsOf(*Ap.getDomainMap(), innerPos, Compat::localElementList(*Ap.getColMap()),
                             "a column of op(A)", &lookups);
  bRow = tpetra::positionsOf(*Ap.getDomainMap(), innerPos, Compat::localElementList(*Bp.getRowMap()),
                             "a row of op(B) (op(B)'s rows must match op(A)'s domain map)", &lookups);
  bCol = tpetra::positionsOf(*domainB, *colPos, Compat::localElementList(*Bp.getColMap()), "a column of op(B)",
                             &lookups);
  lookups.run(world);
  if (opt.permute) {
    const auto seed = static_cast<std::uint64_t>(opt.seed);
    prow = Permutation(rowPos->global(), seed);
    pinner = Permutation(innerPos.global(), seed);
    pcol = Permutation(colPos->global(), seed);
  }
  LocalRows rowsOfA = tpetra::localRowsOf(Ap, aRow, aCol, prow, pinner, true);
  LocalRows rowsOfB = tpetra::localRowsOf(Bp, bRow, bCol, pinner, pcol, false);
  return Positioned{std::move(positions[1]), std::move(rowsOfA), std::move(rowsOfB)};
}

// A's slices are balanced by the work of their rows, the multiply-adds (the entries of B each
// row meets), not by A's entries alone: on power-law graphs the two differ by orders of
// magnitude. One import of B's row lengths onto A's columns gives it.
MultiplyPlan::Impl::RowWeights MultiplyPlan::Impl::rowWeights(const crs_matrix_type& Ap, const crs_matrix_type& Bp) {
  Teuchos::TimeMonitor timer(*phaseTimer("Trident: plan: balance"));
  // With one slice per tile (SUMMA, or lambda = 1 with balanced slices) nothing is balanced, and
  // one rank's one tile has nothing to balance against (at P = 1 the import and the count were
  // 14% of tetdual:35's multiply): skip the import.
  const bool balanced =
      !summa && topo->P() > 1 && (topo->ranks_per_group() > 1 || opt.slices != SliceChoice::Balanced);
  // "auto" has counted them already when it counted this product (same A and B, no transposes).
  // The same on every rank (the import below is collective): auto counted the rows of A*B (no
  // transposes) and chose a 2D algorithm.
  const bool counted = autoCountedRows;
  if (counted && autoRowWork.size() != aRow.size())
    throw std::logic_error("MultiplyPlan: auto's row work does not match A's rows");
  const std::vector<std::int64_t> rowWork =
      !balanced ? std::vector<std::int64_t>(aRow.size(), 0)
      : counted ? std::move(autoRowWork)
                : multiplyAddsPerRow(Ap, rowLengthsAtColumns(Ap, Bp, aImportServes).len);
  autoRowWork = {};
  RowWeights w;
  w.a_pos.resize(aRow.size());
  w.a_work.resize(aRow.size());
  w.b_pos.resize(bRow.size());
  w.b_work.resize(bRow.size());
  for (std::size_t r = 0; r < aRow.size(); ++r) {
    w.a_pos[r] = prow(aRow[r]);
    w.a_work[r] = static_cast<std::int64_t>(Ap.getNumEntriesInLocalRow(static_cast<LO>(r))) + rowWork[r];
  }
  for (std::size_t r = 0; r < bRow.size(); ++r) {
    w.b_pos[r] = pinner(bRow[r]);
    w.b_work[r] = static_cast<std::int64_t>(Bp.getNumEntriesInLocalRow(static_cast<LO>(r)));
  }
  return w;
}

// The coarse grid, the slices (at the owners' rows or balanced) and the layout, and from them
// who holds which tile and how C goes back.
void MultiplyPlan::Impl::layTiles(const Positioned& pos, const RowWeights& w) {
  Teuchos::TimeMonitor timer(*phaseTimer("Trident: plan: grid and layout"));
  const Topology& tp = *topo;
  const std::int64_t m = rowPos->global(), k = pos.inner.global(), n = colPos->global();
  TileGrid grid = summa ? TileGrid::forUnits(tp.P()) : TileGrid::forUnits(tp.groups());
  const bool fetchNeeded = opt.fetch == Fetch::Needed;
  if (!summa && (opt.grid == GridChoice::Rows ||
                 (opt.grid == GridChoice::Auto && preferRowsGrid(grid, pos.a, pos.b, k, tp, fetchNeeded))))
    grid = TileGrid::rowsOnly(tp.groups());
  if (!summa && opt.slices == SliceChoice::Owners && opt.grid == GridChoice::Auto)
    grid = TileGrid::rowsOnly(tp.groups());
  SliceCuts cuts;
  if (!summa)
    cuts = ownerCuts(opt.slices, grid, tp, opt.permute, *rowPos, pos.inner, bRow, w.a_work, world, &bStays);
  aStays = !cuts.a.empty();
  if (!summa && !aStays) cuts.balance_blocks = blockRule(opt.blocks, world, tp.ranks_share_cores());
  L = makeLayout(grid, summa ? 1 : tp.ranks_per_group(), m, k, n, w.a_pos, w.a_work, w.b_pos, w.b_work, world, cuts);
  checkLocalIndexRange(L);  // before anything moves: tiles must fit 32-bit local indices
  const std::shared_ptr<const Topology> topoPtr = topo;
  rank_of = summa ? RankOf([](int unit, int) { return unit; })
                  : RankOf([topoPtr](int unit, int kk) { return topoPtr->world_rank_of(unit, kk); });
  my_unit = summa ? tp.rank() : tp.group();
  my_k = summa ? 0 : tp.k();
  assembly = std::make_unique<tpetra::ResultAssembly>(L, rank_of, my_unit, my_k, prow, pcol, *rowPos, *colPos, world);
}

// A kept plan forms its own tiles at its first execute (firstTilesOfKeptPlan). A one-shot plan's
// operand that stays is cut into tiles from its rows there; one that moves is sent as triplets.
void MultiplyPlan::Impl::keepFirstOperands(const Teuchos::RCP<const crs_matrix_type>& Ap,
                                           const Teuchos::RCP<const crs_matrix_type>& Bp, Positioned& pos) {
  if (keep) return;
  if (aStays) {
    rowsA = std::move(pos.a);
    heldA = Ap;
  } else {
    firstA = toTriplets(pos.a);
  }
  if (bStays) {
    rowsB = std::move(pos.b);
    heldB = Bp;
  } else {
    firstB = toTriplets(pos.b);
  }
}

MultiplyPlan::~MultiplyPlan() = default;

const MultiplyStats& MultiplyPlan::stats() const { return impl_->stats; }
int MultiplyPlan::executions() const { return impl_->executions; }
int MultiplyPlan::reusedExecutions() const { return impl_->reused; }

void MultiplyPlan::execute(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C,
                           bool call_FillComplete_on_result, const std::string& label) {
  Impl& p = *impl_;
  const double t_start = MPI_Wtime();
  clearMeasurements(p.stats);
  if (p.executions == 0) p.stats.times += p.setup;
  // A one-shot plan (Multiply) executes on the operands it was just built from: nothing to check.
  requireAll(p.keep || p.executions == 0,
             "Trident: a MultiplyPlan built with keep_for_reuse = false runs once; build it with true to execute again");
  p.checkExecute(A, B, C);
  if (p.opt.algorithm == Algorithm::Tpetra) {
    p.executeTpetra(A, B, C, call_FillComplete_on_result, label, t_start);
    return;
  }
  if (p.opt.algorithm == Algorithm::OneD) {
    p.executeOneD(A, B, C, call_FillComplete_on_result, label, t_start);
    return;
  }
  Teuchos::TimeMonitor total_timer(*phaseTimer("Trident: total"));
  if (p.oneRank && p.executeOnOneRank(A, B, C, call_FillComplete_on_result, t_start)) return;
  std::vector<std::uint64_t> sent(p.topo->P(), 0);
  OwnedTiles oneShotTiles = p.moveIn(A, B, sent);
  // Decided before the multiply: a values-only run needs no column indices in its block.
  const bool valuesOnly = p.keep && p.assembly->canAssembleValues(C);
  tpetra::FinalArraysSink sink;
  Csr Cblk = p.multiply(p.keep ? p.keptTiles : oneShotTiles, C, valuesOnly, sink);
  oneShotTiles = OwnedTiles();
  p.waitForSlowest();
  p.assemble(Cblk, C, valuesOnly, call_FillComplete_on_result, sink, sent);
  p.stats.times.total = MPI_Wtime() - t_start + (p.executions == 0 ? p.setup.total : 0.0);
  ++p.executions;
}

bool MultiplyPlan::Impl::oneDLocallyPossible(const crs_matrix_type* first_C) const {
  return !keep && !tA && !tB && !opt.permute && opt.local_kernel == "gustavson" && opt.device == "host" && first_C &&
         !first_C->isFillComplete() && !first_C->hasColMap();
}

bool MultiplyPlan::Impl::oneDInPlacePossible(const crs_matrix_type* first_C) const {
  int P = 0;
  MPI_Comm_size(world, &P);
  return oneDLocallyPossible(first_C) && (P == 1 || aImportServes.value_or(false));
}

// Tpetra's algorithm, asked for as "1d" or chosen by "auto", with Trident's kernel where it can
// run in place: the same rows move (B's remote rows, along A's Import), and the kernel is the one
// that takes a fraction of Tpetra's time at P = 1. The conditions are agreed on every rank.
void MultiplyPlan::Impl::settleOneD(const crs_matrix_type* first_C) {
  const bool autoTpetra = stats.auto_chosen && opt.algorithm == Algorithm::Tpetra;
  if (opt.algorithm != Algorithm::OneD && !autoTpetra) return;
  const bool inPlace = oneDInPlacePossible(first_C);
  opt.algorithm = inPlace ? Algorithm::OneD : Algorithm::Tpetra;
  const std::string chose = "chose tpetra";
  if (autoTpetra && inPlace && stats.auto_reason.compare(0, chose.size(), chose) == 0)
    stats.auto_reason =
        "chose 1d (Tpetra's algorithm, Trident's kernel in place)" + stats.auto_reason.substr(chose.size());
}

void MultiplyPlan::Impl::executeOneD(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C,
                                     bool fill, const std::string& label, double t_start) {
  // A C other than the fresh one the plan was shown takes Tpetra's own Multiply (the same on every
  // rank: a C's fill state and column map are collective).
  if (C.isFillComplete() || C.hasColMap()) {
    executeTpetra(A, B, C, fill, label, t_start);
    return;
  }
  Teuchos::TimeMonitor total_timer(*phaseTimer("Trident: total"));
  int P = 1;
  MPI_Comm_size(world, &P);
  if (P > 1) stats.ranks_per_group = topology().ranks_per_group();
  const bool done = runOrAbort(world, "1D multiply", [&] {
    if (P == 1) return tpetra::multiplyOnOneRank(A, B, C, fill, opt.tpetra_params, stats);
    const bool share = opt.share_node_work == ShareChoice::Always ||
                        (opt.share_node_work == ShareChoice::Auto && !topo->ranks_share_cores());
    tpetra::multiplyRowWise(A, B, C, fill, opt.tpetra_params, *topo, share, stats);
    return true;
  });
  if (!done) {  // P = 1, maps the in-place product cannot take
    executeTpetra(A, B, C, fill, label, t_start);
    return;
  }
  stats.times.total = MPI_Wtime() - t_start + (executions == 0 ? setup.total : 0.0);
  ++executions;
}

// The checks of this execute, in one collective: none at all when the plan checked them (a
// first execute on the operands the plan was just built from, as one-shot plans and MueLu's
// kept ones run, with the C it was shown). A second collective and pattern check there would
// cost MueLu's small products more than the plan's own check does.
void MultiplyPlan::Impl::checkExecute(const crs_matrix_type& A, const crs_matrix_type& B, const crs_matrix_type& C) {
  const bool oneShot = !keep && executions == 0;
  const bool operandsChecked = oneShot || (executions == 0 && &A == builtA && &B == builtB);
  const bool cChecked = executions == 0 && &C == checkedC;
  if (!operandsChecked || !cChecked) {
    CollectiveCheck check;
    if (!operandsChecked) checkOperands(A, B, check);
    if (!cChecked) checkResult(A, tA, C, check);
    if (!operandsChecked && !check.failedHere())
      check.failIf(!fingerprintA.matches(A) || !fingerprintB.matches(B),
                   "the pattern (maps, stored entries, or A's stored zeros) of A or B differs from the one "
                   "the MultiplyPlan was built for; build a new plan");
    check.run(world);
  }
  checkedC = nullptr;
}

void MultiplyPlan::Impl::executeTpetra(const crs_matrix_type& A, const crs_matrix_type& B, crs_matrix_type& C,
                                       bool fill, const std::string& label, double t_start) {
  // Into a fill-complete C (a kept plan's product) Tpetra reuses C's graph: values only.
  stats.reused_plan = executions > 0 && C.isFillComplete();
  {
    PhaseTimer t(stats.times.local_multiply, "Trident: Tpetra multiply");
    Tpetra::MatrixMatrix::Multiply(A, tA, B, tB, C, fill, label, opt.tpetra_params);
  }
  stats.times.total = MPI_Wtime() - t_start + (executions == 0 && stats.auto_chosen ? setup.total : 0.0);
  // Accounting after the timed part, so that it does not count against Tpetra; it depends on
  // the patterns only, so a kept plan counts once.
  if (executions == 0 && !tpetraCounted && opt.count_bytes) {
    auto Ap = tA ? transposeOf(A) : Teuchos::rcpFromRef(A);
    auto Bp = tB ? transposeOf(B) : Teuchos::rcpFromRef(B);
    Teuchos::TimeMonitor accountTimer(*phaseTimer("Trident: Tpetra's import bytes"));
    runOrAbort(world, "Tpetra's byte accounting",
               [&] { tpetraImportBytes(*Ap, *Bp, topology(), aImportServes, tpetraCounts); });
    stats.ranks_per_group = topology().ranks_per_group();
  }
  stats.bytes_counted = tpetraCounted || opt.count_bytes;
  stats.gi_bytes_sent = tpetraCounts.gi_bytes_sent;
  stats.gi_bytes_recv = tpetraCounts.gi_bytes_recv;
  stats.li_bytes_sent = tpetraCounts.li_bytes_sent;
  stats.li_bytes_recv = tpetraCounts.li_bytes_recv;
  stats.local_flops = tpetraCounts.local_flops;
  stats.nnz_c_local = Compat::localNumEntries(C);
  ++executions;
}

void MultiplyPlan::Impl::accountSent(std::vector<std::uint64_t>& sent) {
  for (int d = 0; d < topo->P(); ++d)
    (topo->same_group(topo->rank(), d) ? stats.redistribute_li_bytes : stats.redistribute_gi_bytes) += sent[d];
  sent.assign(sent.size(), 0);
}

// The operands into their tiles: a one-shot plan sends what it kept from the set-up; a kept plan
// forms its tiles at its first execute and later routes new values only.
OwnedTiles MultiplyPlan::Impl::moveIn(const crs_matrix_type& A, const crs_matrix_type& B,
                                      std::vector<std::uint64_t>& sent) {
  OwnedTiles oneShotTiles;
  {
    PhaseTimer t(stats.times.redistribute_in, "Trident: redistribute in");
    if (!keep) {
      Triplets TA = std::move(firstA), TB = std::move(firstB);
      Teuchos::TimeMonitor tilesTimer(*phaseTimer("Trident: redistribute in: tiles"));
      const OperandEntries a = aStays ? OperandEntries{nullptr, &rowsA} : OperandEntries{&TA, nullptr};
      const OperandEntries b = bStays ? OperandEntries{nullptr, &rowsB} : OperandEntries{&TB, nullptr};
      oneShotTiles = runOrAbort(world, "redistribute in", [&] {
        return distributeTiles(L, a, b, rank_of, my_unit, my_k, world, &sent, aStays, bStays);
      });
      rowsA = LocalRows();
      rowsB = LocalRows();
      heldA = heldB = Teuchos::null;
    } else {
      // The set-up's triplets hold the values the plan was built with; an execute takes its own.
      firstA = Triplets();
      firstB = Triplets();
      auto Ap = tA ? transposeOf(A) : Teuchos::rcpFromRef(A);
      auto Bp = tB ? transposeOf(B) : Teuchos::rcpFromRef(B);
      if (route.empty()) {
        Teuchos::TimeMonitor tilesTimer(*phaseTimer("Trident: redistribute in: tiles"));
        runOrAbort(world, "redistribute in", [&] { firstTilesOfKeptPlan(*Ap, *Bp, &sent); });
      } else {
        Teuchos::TimeMonitor valuesTimer(*phaseTimer("Trident: redistribute in: values"));
        runOrAbort(world, "redistribute in", [&] {
          route.refresh(Ap->getLocalMatrixHost().values.data(), Bp->getLocalMatrixHost().values.data(), keptTiles,
                        &sent);
        });
      }
    }
  }
  accountSent(sent);
  return oneShotTiles;
}

Csr MultiplyPlan::Impl::multiply(const OwnedTiles& tiles, crs_matrix_type& C, bool values_only,
                                 tpetra::FinalArraysSink& sink) {
  state.values_only = values_only;
  // This rank's block is its rows of C (owner slices): the numeric step writes C's values itself.
  state.values_into = {};
  if (values_only && assembly->valuesStraightIntoC(C)) {
    if (C.isFillComplete()) C.resumeFill();
    auto values = C.getLocalMatrixHost().values;
    state.values_into.values = values.data();
    state.values_into.size = values.extent(0);
    state.values_into.cols = assembly->straightColumns();
  }
  AlgorithmOptions aopt;
  aopt.local_kernel = opt.local_kernel;
  aopt.device = opt.device;
  aopt.lookahead = opt.lookahead;
  aopt.gi_ready_gating = opt.gi_pacing == GiPacing::Ready;
  aopt.fetch_needed_rows = opt.fetch == Fetch::Needed;
  // A one-shot product whose block is exactly this rank's rows of a fresh C: the kernel writes
  // the entries into C's final arrays (BlockSink), so the out phase only renumbers columns.
  const bool inPlace = !keep && assembly->writesInPlace() && !C.isFillComplete() && !C.hasColMap();
  state.sink = inPlace ? &sink : nullptr;
  Csr Cblk = runOrAbort(world, summa ? "SUMMA multiply" : "Trident multiply", [&] {
    return summa ? summaMultiply(L, tiles, *topo, aopt, stats, &state) : tridentMultiply(L, tiles, *topo, aopt, stats, &state);
  });
  state.sink = nullptr;
  state.values_into = {};
  return Cblk;
}

// The out phase's first world collectives (C's column map, its global constants) would wait here
// anyway for the rank whose loop ends last; measured apart, the out phase is what it costs
// itself and the wait is the multiply's imbalance (on a Gi-bound cluster, most of the out
// phase's time when they were one: ca-CondMat 4 x 4 at 50 Mbit, docs/benchmarks.md).
void MultiplyPlan::Impl::waitForSlowest() {
  PhaseTimer t(stats.times.imbalance_wait, "Trident: wait for the slowest rank");
  MPI_Barrier(world);
}

void MultiplyPlan::Impl::assemble(Csr& Cblk, crs_matrix_type& C, bool values_only, bool fill,
                                  tpetra::FinalArraysSink& sink, std::vector<std::uint64_t>& sent) {
  {
    PhaseTimer t(stats.times.redistribute_out, "Trident: redistribute out");
    // The assembly into a C given by the caller may throw InvalidInput (a pattern that lacks the
    // product) on every rank; anything else ends the job.
    runOrAbort(world, "redistribute out", [&] {
      if (values_only) {
        assembly->assembleValues(Cblk, C, domainB, rangeA, fill, opt.tpetra_params, &sent);
        state.spare_values = std::move(Cblk.val);
        ++reused;
        stats.reused_plan = true;
      } else {
        assembly->assemble(Cblk, C, domainB, rangeA, fill, opt.tpetra_params, keep, &sent, &sink);
      }
    });
  }
  accountSent(sent);
}

void MultiplyPlan::Impl::firstTilesOfKeptPlan(const crs_matrix_type& Ap, const crs_matrix_type& Bp,
                                              std::vector<std::uint64_t>* sent) {
  int P = 1, me = 0;
  MPI_Comm_size(world, &P);
  MPI_Comm_rank(world, &me);
  // Which value each triplet carries (q: op(A)'s local value index, then op(B)'s after nA).
  std::vector<std::int64_t> q, qB;
  Triplets TB;
  Triplets TA = triplets(Ap, Bp, &TB, &q, &qB);
  const auto aValues = Ap.getLocalMatrixHost().values;
  const auto bValues = Bp.getLocalMatrixHost().values;
  const auto nA = static_cast<std::int64_t>(aValues.extent(0));
  for (std::int64_t& i : qB) i += nA;
  q.insert(q.end(), qB.begin(), qB.end());
  std::vector<int> dest = tileDestinations(L, TA, true, rank_of);
  const std::vector<int> destB = tileDestinations(L, TB, false, rank_of);
  dest.insert(dest.end(), destB.begin(), destB.end());
  for (std::size_t t = 0; t < TA.size(); ++t) TA.val[t] = ValueRoute::encodeId(q[t], me, P);
  for (std::size_t t = 0; t < TB.size(); ++t) TB.val[t] = ValueRoute::encodeId(q[TA.size() + t], me, P);
  keptTiles = distributeTiles(L, TA, TB, rank_of, my_unit, my_k, world, sent, aStays, bStays);
  route = ValueRoute(q, dest, keptTiles, nA, world);
  route.refresh(aValues.data(), bValues.data(), keptTiles, sent);
}

void MultiplyPlan::Impl::rememberPatterns(const crs_matrix_type& A, const crs_matrix_type& B,
                                          std::optional<std::size_t> a_zeros) {
  // A plan keeps its operands' graph arrays and maps alive (shared, not copied), so comparing
  // addresses is exact and an execute need not hash the pattern.
  using tpetra::PatternFingerprint;
  fingerprintA = PatternFingerprint(A, !tA, a_zeros, PatternFingerprint::Hold::Arrays);
  fingerprintB = PatternFingerprint(B, false, std::nullopt, PatternFingerprint::Hold::Arrays);
}

}  // namespace MatrixMatrix
}  // namespace Trident
