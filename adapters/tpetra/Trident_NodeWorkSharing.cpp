#include "Trident_NodeWorkSharing.hpp"

#include <mpi.h>
#include <algorithm>
#include <cstdlib>
#include <memory>
#include <vector>

#include "Trident_LocalViews.hpp"
#include <trident/core/BigCount.hpp>
#include <trident/partition/NodeWorkSplit.hpp>
#include <trident/stats/PhaseTimer.hpp>

namespace Trident {
namespace tpetra {

namespace {

// Tags on the group's communicator; nothing else runs on it during the row-wise product. A message
// is four transfers on consecutive tags: its sizes (offsets, entries), offsets, columns, values.
enum Tag : int { kRunSizes = 0x5e01, kRunIdx, kRunCol, kRunVal, kRowsSizes, kRowsIdx, kRowsCol, kRowsVal };

// sizes must stay valid until the sends complete, as the arrays do.
void sendMessage(std::int64_t (&sizes)[2], const std::int64_t* idx, const int* col, const double* val, int to,
                 int sizesTag, MPI_Comm li, std::vector<MPI_Request>& reqs) {
  reqs.emplace_back();
  MPI_Isend(sizes, 2, MPI_INT64_T, to, sizesTag, li, &reqs.back());
  const auto nIdx = static_cast<std::size_t>(sizes[0]), n = static_cast<std::size_t>(sizes[1]);
  bigcount::isend(idx, nIdx, MPI_INT64_T, to, sizesTag + 1, li, reqs);
  bigcount::isend(col, n, MPI_INT, to, sizesTag + 2, li, reqs);
  bigcount::isend(val, n, MPI_DOUBLE, to, sizesTag + 3, li, reqs);
}

// A run on its way to the rank that computes it: idx = {rows, B's rows, B's width, A's row
// offsets, B's row offsets}, then A's columns (as the packed rows of B) and B's columns (in the
// sender's numbering, so that the rows of C come back in it), and their values.
struct Run {
  std::int64_t sizes[2] = {0, 0};  // idx's length, col's (and val's) length
  std::vector<std::int64_t> idx;
  std::vector<int> col;
  std::vector<double> val;
  std::uint64_t bytes() const { return idx.size() * 8 + col.size() * 12; }
};

void sendRun(Run& m, int to, MPI_Comm li, std::vector<MPI_Request>& reqs) {
  m.sizes[0] = static_cast<std::int64_t>(m.idx.size());
  m.sizes[1] = static_cast<std::int64_t>(m.col.size());
  sendMessage(m.sizes, m.idx.data(), m.col.data(), m.val.data(), to, kRunSizes, li, reqs);
}

Run receiveRun(int from, MPI_Comm li) {
  Run m;
  MPI_Recv(m.sizes, 2, MPI_INT64_T, from, kRunSizes, li, MPI_STATUS_IGNORE);
  m.idx.resize(static_cast<std::size_t>(m.sizes[0]));
  m.col.resize(static_cast<std::size_t>(m.sizes[1]));
  m.val.resize(m.col.size());
  bigcount::recv(m.idx.data(), m.idx.size(), MPI_INT64_T, from, kRunIdx, li);
  bigcount::recv(m.col.data(), m.col.size(), MPI_INT, from, kRunCol, li);
  bigcount::recv(m.val.data(), m.val.size(), MPI_DOUBLE, from, kRunVal, li);
  return m;
}

// Rows [r0, r1) of a with the rows of b they read. slot: -1 for each row of b, left so.
Run packRun(const CsrView& a, const StackedCsrView& b, std::int64_t r0, std::int64_t r1, std::vector<int>& slot) {
  Run m;
  std::vector<std::int64_t> bRows;
  const std::int64_t base = a.rowptr[r0];
  m.idx = {r1 - r0, 0, b.ncols};
  for (std::int64_t r = r0; r <= r1; ++r) m.idx.push_back(a.rowptr[r] - base);
  for (std::int64_t p = base; p < a.rowptr[r1]; ++p) {
    int& s = slot[static_cast<std::size_t>(a.col[p])];
    if (s < 0) {
      s = static_cast<int>(bRows.size());
      bRows.push_back(a.col[p]);
    }
    m.col.push_back(s);
    m.val.push_back(a.val[p]);
  }
  m.idx[1] = static_cast<std::int64_t>(bRows.size());
  m.idx.push_back(0);
  for (const std::int64_t k : bRows) {
    const CsrView& part = b.part(k);
    const std::int64_t q0 = part.rowptr[b.rowInPart(k)], q1 = part.rowptr[b.rowInPart(k) + 1];
    m.col.insert(m.col.end(), part.col + q0, part.col + q1);
    m.val.insert(m.val.end(), part.val + q0, part.val + q1);
    m.idx.push_back(m.idx.back() + (q1 - q0));
    slot[static_cast<std::size_t>(k)] = -1;
  }
  return m;
}

// Rows of C go back in blocks of about 2^21 multiply-adds, sent as each is computed, so the
// owner takes in the first blocks while the later ones are computed; a block's buffer is used again
// once its sends are done (the owner receives only after its own rows, so most of a run is in
// flight by then). At most 24 MB each, the buffers come from the heap that HeapRetention keeps
// resident rather than fresh pages: the whole run computed into one fresh array cost its pages'
// faults on every call, and where no huge pages were at hand the owner waited 0.45 s in a call of
// 0.2 (email-Enron at P = 2; in blocks, 0.183-0.191 s over three processes against 0.188-0.237).
// TRIDENT_SHARE_BLOCK_FLOPS (read once): another block size, a test hook that makes small
// products go back in many blocks.
std::uint64_t blockFlops() {
  static const std::uint64_t n = [] {
    const char* e = std::getenv("TRIDENT_SHARE_BLOCK_FLOPS");
    const long long v = e ? std::atoll(e) : 0;
    return v > 0 ? static_cast<std::uint64_t>(v) : std::uint64_t{1} << 21;
  }();
  return n;
}

// A block's entries go into arrays left uninitialized and advised onto huge pages, as C's final
// arrays are (FinalArraysSink): a zero-filled std::vector made a run 1.4x slower than the same rows
// on their owner (email-Enron at P = 2, one block: 0.133 against 0.092 s).
struct BlockOut {
  std::int64_t sizes[2] = {0, 0};  // row offsets, entries
  Csr shape;
  FinalArraysSink entries;
  std::vector<MPI_Request> reqs;
  bool done() {
    int all = 0;
    MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &all, MPI_STATUSES_IGNORE);
    if (all) reqs.clear();
    return all != 0;
  }
  void wait() {
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    reqs.clear();
  }
};

class BlockPool {
 public:
  BlockOut& idle() {
    for (auto& b : blocks_)
      if (b->done()) return *b;
    blocks_.push_back(std::make_unique<BlockOut>());
    return *blocks_.back();
  }
  void waitAll() {
    for (auto& b : blocks_) b->wait();
  }

 private:
  std::vector<std::unique_ptr<BlockOut>> blocks_;
};

void sendBlock(BlockOut& out, int owner, MPI_Comm li, MultiplyStats& stats) {
  const auto n = static_cast<std::size_t>(out.shape.nnz());
  out.sizes[0] = static_cast<std::int64_t>(out.shape.rowptr.size());
  out.sizes[1] = static_cast<std::int64_t>(n);
  sendMessage(out.sizes, out.shape.rowptr.data(), out.entries.col(), out.entries.val(), owner, kRowsSizes, li,
              out.reqs);
  stats.li_bytes_sent += out.shape.rowptr.size() * 8 + n * 12;
}

// Another rank's run through the kernel, its rows of C sent back block by block (still in flight
// on return: pool.waitAll()).
void runForOther(const Run& run, int owner, MPI_Comm li, BlockPool& pool, MultiplyStats& stats) {
  const std::int64_t rows = run.idx[0], bRows = run.idx[1];
  const std::int64_t* aPtr = run.idx.data() + 3;
  const std::int64_t aNnz = aPtr[rows];
  const CsrView B{bRows, run.idx[2], aPtr + rows + 1, run.col.data() + aNnz, run.val.data() + aNnz};
  const std::vector<std::uint64_t> rowFlops =
      multiplyFlopsPerRow(CsrView{rows, bRows, aPtr, run.col.data(), run.val.data()}, B);
  std::vector<std::int64_t> ptr;
  for (std::int64_t r0 = 0, r1 = 0; r0 < rows; r0 = r1) {
    std::uint64_t flops = rowFlops[static_cast<std::size_t>(r0)];
    for (r1 = r0 + 1; r1 < rows && flops + rowFlops[static_cast<std::size_t>(r1)] <= blockFlops(); ++r1)
      flops += rowFlops[static_cast<std::size_t>(r1)];
    ptr.resize(static_cast<std::size_t>(r1 - r0 + 1));
    for (std::int64_t r = r0; r <= r1; ++r) ptr[static_cast<std::size_t>(r - r0)] = aPtr[r] - aPtr[r0];
    const CsrView A{r1 - r0, bRows, ptr.data(), run.col.data() + aPtr[r0], run.val.data() + aPtr[r0]};
    BlockOut& out = pool.idle();
    out.shape = gustavsonMultiplyInto(A, B, out.entries, flops);
    stats.local_flops += flops;
    sendBlock(out, owner, li, stats);
  }
}

// The rows of C the others made of my runs, received block by block where they belong in C's
// arrays, after my own rows.
void receiveRows(const NodeWorkSplit& s, const Csr& own, FinalArraysSink& sink, Csr& shape, MPI_Comm li,
                 MultiplyStats& stats) {
  std::copy(own.rowptr.begin(), own.rowptr.end(), shape.rowptr.begin());
  std::int64_t row = own.nrows, at = own.nnz();
  std::vector<std::int64_t> idx;
  for (const RowRun& g : s.give) {
    for (std::int64_t left = g.end - g.begin; left > 0;) {
      std::int64_t sizes[2];
      MPI_Recv(sizes, 2, MPI_INT64_T, g.rank, kRowsSizes, li, MPI_STATUS_IGNORE);
      idx.resize(static_cast<std::size_t>(sizes[0]));
      const auto n = static_cast<std::size_t>(sizes[1]);
      bigcount::recv(idx.data(), idx.size(), MPI_INT64_T, g.rank, kRowsIdx, li);
      if (static_cast<std::size_t>(at) + n > sink.capacity())
        sink.reserve(static_cast<std::size_t>(at) + n, static_cast<std::size_t>(at));
      bigcount::recv(sink.col() + at, n, MPI_INT, g.rank, kRowsCol, li);
      bigcount::recv(sink.val() + at, n, MPI_DOUBLE, g.rank, kRowsVal, li);
      for (std::size_t r = 1; r < idx.size(); ++r) shape.rowptr[static_cast<std::size_t>(++row)] = at + idx[r];
      at += static_cast<std::int64_t>(n);
      left -= sizes[0] - 1;
      stats.li_bytes_recv += idx.size() * 8 + n * 12;
    }
  }
}

// The shared product: runs out, the others' runs computed and sent back, my own rows, my rows of
// C in. Every send is non-blocking and every receive waits only on a send posted before its
// sender blocked, so no order of arrival can deadlock.
Csr shareAndMultiply(const NodeWorkSplit& s, const std::vector<std::uint64_t>& perRow, const CsrView& a,
                     const StackedCsrView& b, FinalArraysSink& sink, MPI_Comm li, MultiplyStats& stats) {
  // Room for all my rows at once: the kernel's own bound for my rows, the others' rows at most as
  // wide as B; only what is written becomes resident.
  std::uint64_t ownFlops = 0, bound = 0;
  for (std::int64_t r = 0; r < a.nrows; ++r) {
    const std::uint64_t f = perRow[static_cast<std::size_t>(r)];
    if (r < s.own_end) ownFlops += f;
    else bound += std::min<std::uint64_t>(f, static_cast<std::uint64_t>(b.ncols));
  }
  sink.reserve(static_cast<std::size_t>(ownFlops + bound), 0);
  std::vector<MPI_Request> reqs;
  std::vector<Run> out(s.give.size());
  std::vector<int> slot(static_cast<std::size_t>(b.nrows()), -1);
  for (std::size_t t = 0; t < s.give.size(); ++t) {
    out[t] = packRun(a, b, s.give[t].begin, s.give[t].end, slot);
    stats.li_bytes_sent += out[t].bytes();
    sendRun(out[t], s.give[t].rank, li, reqs);
  }
  BlockPool pool;
  if (!s.take_from.empty()) {
    Teuchos::TimeMonitor othersTimer(*phaseTimer("Trident: local multiply: other ranks' rows"));
    for (const int from : s.take_from) {
      const Run run = receiveRun(from, li);
      stats.li_bytes_recv += run.bytes();
      runForOther(run, from, li, pool, stats);
    }
  }
  // A donor's own rows are a prefix of its rows: A's offsets as they are.
  const CsrView mine{s.own_end, a.ncols, a.rowptr, a.col, a.val};
  const Csr own = gustavsonMultiplyInto(mine, b, sink, ownFlops);
  stats.local_flops += ownFlops;
  Csr shape(a.nrows, own.ncols);
  {
    Teuchos::TimeMonitor backTimer(*phaseTimer("Trident: local multiply: my rows from other ranks"));
    receiveRows(s, own, sink, shape, li, stats);
  }
  MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  pool.waitAll();
  return shape;
}

}  // namespace

Csr multiplySharingNodeWork(const CsrView& a, const StackedCsrView& b, FinalArraysSink& sink, const Topology& topo,
                            bool share, MultiplyStats& stats) {
  if (!share || topo.ranks_per_group() == 1) return multiplyIntoC(a, b, sink, stats);
  Csr shape;
  {
    PhaseTimer t(stats.times.local_multiply, "Trident: local multiply");
    const std::vector<std::uint64_t> perRow = multiplyFlopsPerRow(a, b);
    std::uint64_t total = 0;
    for (const std::uint64_t f : perRow) total += f;
    std::vector<std::uint64_t> totals(static_cast<std::size_t>(topo.ranks_per_group()));
    MPI_Allgather(&total, 1, MPI_UINT64_T, totals.data(), 1, MPI_UINT64_T, topo.li_comm());
    const NodeWorkSplit s = splitNodeWork(totals, topo.k(), perRow);
    if (s.shared) {
      shape = shareAndMultiply(s, perRow, a, b, sink, topo.li_comm(), stats);
    } else {
      shape = gustavsonMultiplyInto(a, b, sink, total);
      stats.local_flops += total;
    }
  }
  stats.nnz_c_local = static_cast<std::uint64_t>(shape.nnz());
  return shape;
}

}  // namespace tpetra
}  // namespace Trident
