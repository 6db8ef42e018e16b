#include "trident/transport/GiFetch.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

#include "trident/core/Abort.hpp"

#include "trident/core/BigCount.hpp"

namespace Trident {

namespace {
// Three messages per slice (row offsets, columns, values), a fourth (row indices) for a
// row-compressed slice of B; A and B of one round use disjoint tags.
constexpr int kTagsPerRound = 8;
int tag(int round, bool isB, int part) { return kTagsPerRound * round + (isB ? 4 : 0) + part; }
// The ready tokens' tag, after every round's.
int tokenTag(int rounds) { return kTagsPerRound * rounds; }
bool anyOpen(const std::vector<MPI_Request>& v) {
  return std::any_of(v.begin(), v.end(), [](MPI_Request q) { return q != MPI_REQUEST_NULL; });
}

// Each part may be several messages (bigcount: at most chunkLimit() elements each). bound: the
// receiver's capacity for the entries when it only knows an upper bound (filtered B slices).
void sendCsr(const Csr& m, int dest, int round, bool isB, MPI_Comm comm, std::vector<MPI_Request>& reqs,
             std::size_t bound) {
  const auto nnz = static_cast<std::size_t>(m.nnz());
  bigcount::isend(m.rowptr.data() + 1, static_cast<std::size_t>(m.nrows), MPI_INT64_T, dest, tag(round, isB, 0), comm, reqs);
  bigcount::isend(m.col.data(), nnz, MPI_INT, dest, tag(round, isB, 1), comm, reqs, bound);
  bigcount::isend(m.val.data(), nnz, MPI_DOUBLE, dest, tag(round, isB, 2), comm, reqs, bound);
}

// *col_req, *col_reqs: where the column messages' requests are in reqs (their statuses give the
// number of entries that came).
void recvCsr(Csr& m, int src, int round, bool isB, MPI_Comm comm, std::vector<MPI_Request>& reqs,
             std::size_t* col_req = nullptr, std::size_t* col_reqs = nullptr) {
  bigcount::irecv(m.rowptr.data() + 1, static_cast<std::size_t>(m.nrows), MPI_INT64_T, src, tag(round, isB, 0), comm, reqs);
  if (col_req) *col_req = reqs.size();
  const std::size_t n = bigcount::irecv(m.col.data(), m.col.size(), MPI_INT, src, tag(round, isB, 1), comm, reqs);
  if (col_reqs) *col_reqs = n;
  bigcount::irecv(m.val.data(), m.val.size(), MPI_DOUBLE, src, tag(round, isB, 2), comm, reqs);
}
}  // namespace

GiFetch::GiFetch(const Layout& L, const OwnedTiles& tiles, const NnzTable& nnz, int my_unit, int my_k,
                 MPI_Comm gi_comm, int lookahead, const NeededRows* needed, MPI_Comm ready_comm)
    : L_(L), tiles_(tiles), nnz_(nnz), unit_(my_unit), k_(my_k), i_(L.grid.unit_row(my_unit)),
      j_(L.grid.unit_col(my_unit)), comm_(gi_comm), lookahead_(lookahead < 1 ? 1 : lookahead),
      in_(L.grid.rounds), needed_(needed) {
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(comm_, MPI_TAG_UB, &ub, &flag);
  if (flag && kTagsPerRound * L.grid.rounds > *ub)
    throw std::runtime_error("Trident: too many rounds for this MPI's tag range");
  const TileGrid& g = L.grid;
  for (int s = 0; s < g.rounds; ++s) {
    if (tiles.owns_a[s])
      for (int jj = 0; jj < g.cols; ++jj)
        if (jj != j_) schedule_.push_back({g.round_of(s, i_, jj), s, jj, false});
    if (tiles.owns_b[s])
      for (int ii = 0; ii < g.rows; ++ii)
        if (ii != i_) schedule_.push_back({g.round_of(s, ii, j_), s, ii, true});
  }
  std::stable_sort(schedule_.begin(), schedule_.end(),
                   [](const Outgoing& x, const Outgoing& y) { return x.round < y.round; });
  posted_.assign(schedule_.size(), 0);
  if (ready_comm == MPI_COMM_NULL) return;
  gated_ = true;
  int units = 1;
  MPI_Comm_size(comm_, &units);
  peer_ready_.assign(static_cast<std::size_t>(units), 0);
  for (const Outgoing& o : schedule_) token_from_.push_back(destination(o));
  for (int r = 0; r < g.rounds; ++r) {
    const int s = g.stage(r, i_, j_);
    for (int u : {g.a_owner(i_, s), g.b_owner(s, j_)})
      if (u != unit_) token_to_.push_back(u);
  }
  for (auto* v : {&token_from_, &token_to_}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  // Empty messages: a token carries nothing but its arrival.
  token_recvs_.assign(token_from_.size(), MPI_REQUEST_NULL);
  for (std::size_t t = 0; t < token_from_.size(); ++t)
    MPI_Irecv(nullptr, 0, MPI_BYTE, token_from_[t], tokenTag(g.rounds), comm_, &token_recvs_[t]);
  tokens_open_ = token_from_.size();
  MPI_Ibarrier(ready_comm, &group_barrier_);
}

int GiFetch::destination(const Outgoing& o) const {
  return o.isB ? L_.grid.unit(o.peer_row_or_col, j_) : L_.grid.unit(i_, o.peer_row_or_col);
}

void GiFetch::groupReady() {
  group_ready_ = true;
  token_sends_.assign(token_to_.size(), MPI_REQUEST_NULL);
  for (std::size_t t = 0; t < token_to_.size(); ++t)
    MPI_Isend(nullptr, 0, MPI_BYTE, token_to_[t], tokenTag(L_.grid.rounds), comm_, &token_sends_[t]);
}

void GiFetch::tokenCame(std::size_t t) {
  peer_ready_[static_cast<std::size_t>(token_from_[t])] = 1;
  --tokens_open_;
}

bool GiFetch::gateOpen() const { return !gated_ || (group_ready_ && tokens_open_ == 0); }

bool GiFetch::pumpGate() {
  if (!gated_) return true;
  if (!group_ready_) {
    int flag = 0;
    MPI_Test(&group_barrier_, &flag, MPI_STATUS_IGNORE);
    if (flag) groupReady();
  }
  if (tokens_open_ > 0) {
    std::vector<int> idx(token_recvs_.size());
    int done = 0;
    MPI_Testsome(static_cast<int>(token_recvs_.size()), token_recvs_.data(), &done, idx.data(), MPI_STATUSES_IGNORE);
    if (done != MPI_UNDEFINED)
      for (int q = 0; q < done; ++q) tokenCame(static_cast<std::size_t>(idx[q]));
  }
  postAllowed();
  return gateOpen();
}

void GiFetch::waitSomeWithGate(std::vector<MPI_Request>& reqs, std::vector<MPI_Status>* st) {
  std::vector<MPI_Request> all(reqs);
  const std::size_t n = reqs.size();
  const bool barrier = gated_ && !group_ready_;
  if (barrier) all.push_back(group_barrier_);
  const std::size_t tokens_at = all.size();
  if (gated_ && tokens_open_ > 0) all.insert(all.end(), token_recvs_.begin(), token_recvs_.end());
  std::vector<int> idx(all.size());
  std::vector<MPI_Status> sts(all.size());
  int done = 0;
  MPI_Waitsome(static_cast<int>(all.size()), all.data(), &done, idx.data(), sts.data());
  std::copy(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n), reqs.begin());
  if (barrier) group_barrier_ = all[n];
  if (all.size() > tokens_at)
    std::copy(all.begin() + static_cast<std::ptrdiff_t>(tokens_at), all.end(), token_recvs_.begin());
  if (done == MPI_UNDEFINED) return;
  for (int q = 0; q < done; ++q) {
    const auto at = static_cast<std::size_t>(idx[q]);
    if (at < n) {
      if (st) (*st)[at] = sts[q];
    } else if (at >= tokens_at) {
      tokenCame(at - tokens_at);
    } else {
      groupReady();
    }
  }
  postAllowed();
}

// Only reached with transfers in flight when an exception unwinds through the multiply (finish()
// completes everything on the normal path). Freeing the requests would let MPI read send buffers
// that are being destroyed (the owned tiles, filtered_) and write into freed receive buffers;
// cancelling receives would leave the peers' messages unmatched on gi_comm, a cached
// communicator that the next multiply reuses with the same tags, where they would be taken for
// its slices. So the fetch is completed instead: every round is received (one at a time, into
// buffers released at once) and every send waited for. When all ranks fail at the same point,
// that finishes and the exception goes on. When this rank failed alone, its peers may be stuck
// waiting for it elsewhere and never receive; after kStall without any transfer completing the
// job ends with a message (the abort policy of core/Abort.hpp: it would end anyway).
GiFetch::~GiFetch() {
  bool started = !sends_.empty() || next_send_ > 0 || gated_;
  for (const auto& in : in_) started = started || in.posted;
  if (!started) return;  // nothing posted here; finish() already ran or the loop never began

  constexpr auto kStall = std::chrono::seconds(10);
  auto lastProgress = std::chrono::steady_clock::now();
  std::vector<int> idx;
  // Tests a set of requests; true while some are still open.
  auto poll = [&](std::vector<MPI_Request>& v) {
    if (v.empty()) return false;
    int done = 0;
    idx.resize(v.size());
    MPI_Testsome(static_cast<int>(v.size()), v.data(), &done, idx.data(), MPI_STATUSES_IGNORE);
    if (done == MPI_UNDEFINED) return false;  // all were complete already
    if (done > 0) lastProgress = std::chrono::steady_clock::now();
    return anyOpen(v);
  };
  // Completes reqs while letting the sends progress; false when nothing completed for kStall.
  auto complete = [&](std::vector<MPI_Request>& reqs) {
    for (;;) {
      pumpGate();  // tokens that come let the sends a peer waits for go out
      const bool open = poll(reqs);
      if (&reqs != &sends_) poll(sends_);
      if (!open) return true;
      if (std::chrono::steady_clock::now() - lastProgress > kStall) return false;
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  };
  auto stalled = [&](const char* what) {
    std::size_t open = 0;
    for (const auto& in : in_)
      for (MPI_Request r : in.reqs) open += r != MPI_REQUEST_NULL;
    for (MPI_Request r : sends_) open += r != MPI_REQUEST_NULL;
    open += static_cast<std::size_t>(std::count(posted_.begin(), posted_.end(), 0));
    abortJob(comm_, "Trident Gi fetch cleanup after an error",
             std::string(what) + ": " + std::to_string(open) +
                 " transfers with peer ranks made no progress for 10 s; their buffers cannot be released safely");
  };
  try {
    for (int r = 0; r < L_.grid.rounds; ++r) {
      postReceive(r);
      postSendsUpTo(r + 1);
      if (!complete(in_[r].reqs)) stalled("receiving the remaining rounds");
      in_[r].reqs.clear();
      release(r);
    }
    // With ready gating: the tokens of peers that never asked for a slice yet, then the sends
    // they allow, and this rank's own tokens.
    while (!pumpGate()) {
      if (std::chrono::steady_clock::now() - lastProgress > kStall) stalled("waiting for the peers' ready tokens");
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      poll(sends_);
    }
    if (!complete(sends_)) stalled("completing the sends");
    sends_.clear();
    if (!complete(token_sends_)) stalled("completing the ready tokens");
    token_sends_.clear();
  } catch (const std::exception& e) {
    // postReceive allocates; out of memory here leaves no safe way on.
    stalled(e.what());
  }
}

void GiFetch::postSend(const Outgoing& o) {
  if (!o.isB) {
    sendCsr(tiles_.a[o.s], destination(o), o.round, false, comm_, sends_, 0);
    bytes_sent_ += tiles_.a[o.s].wireBytes();
    return;
  }
  // On the wire a slice of B has all its rows, the needed ones, or (a hypersparse slice, row-
  // compressed where it is owned, OwnedTiles) its nonempty ones and their indices.
  const Csr* slice = &tiles_.b[o.s];
  const std::vector<int>* stored = tiles_.bRows(o.s);
  const int dest = destination(o);
  if (needed_) {
    const std::vector<int>& keep = needed_->rows(o.peer_row_or_col, o.s);
    filtered_.push_back(stored ? selectRows(*slice, *stored, keep) : selectRows(*slice, keep));
    slice = &filtered_.back();
  } else if (stored) {
    bigcount::isend(stored->data(), stored->size(), MPI_INT, dest, tag(o.round, true, 3), comm_, sends_);
    bytes_sent_ += 4u * stored->size();
  }
  // The receiver allocated room for the whole slice: as many messages as that takes.
  sendCsr(*slice, dest, o.round, true, comm_, sends_, static_cast<std::size_t>(tiles_.b[o.s].nnz()));
  bytes_sent_ += slice->wireBytes();
}

void GiFetch::postSendsUpTo(int round_end) {
  send_window_ = std::max(send_window_, round_end);
  if (gated_) {
    pumpGate();
  } else {
    postAllowed();
  }
}

void GiFetch::postAllowed() {
  for (std::size_t t = next_send_; t < schedule_.size() && schedule_[t].round < send_window_; ++t)
    if (!posted_[t] && peerReady(destination(schedule_[t]))) {
      postSend(schedule_[t]);
      posted_[t] = 1;
    }
  while (next_send_ < schedule_.size() && posted_[next_send_]) ++next_send_;
}

void GiFetch::postReceive(int r) {
  const TileGrid& g = L_.grid;
  Incoming& in = in_[r];
  if (in.posted) return;
  in.posted = true;
  const int s = g.stage(r, i_, j_);
  const int ua = g.a_owner(i_, s), ub = g.b_owner(s, j_);
  if (ua != unit_) {
    in.a_remote = true;
    in.a.allocate(L_.a_slice(i_, k_ + 1) - L_.a_slice(i_, k_), L_.inner_width(s), nnz_.a_nnz(i_, s, k_));
    recvCsr(in.a, ua, r, false, comm_, in.reqs);
  }
  if (ub != unit_) {
    in.b_remote = true;
    in.b_filtered = needed_ != nullptr;
    // Filtered: only the needed rows come; their entry count is at most the slice's, and the
    // received count is read from the status.
    const std::int64_t full = L_.b_slice(s, k_ + 1) - L_.b_slice(s, k_), stored = nnz_.b_stored_rows(s, j_, k_);
    in.b_compressed = !in.b_filtered && stored != full;
    const std::int64_t rows = in.b_filtered ? static_cast<std::int64_t>(needed_->rows(i_, s).size()) : stored;
    if (in.b_compressed) {
      in.b_ids.resize(static_cast<std::size_t>(stored));
      bigcount::irecv(in.b_ids.data(), in.b_ids.size(), MPI_INT, ub, tag(r, true, 3), comm_, in.reqs);
    }
    in.b.allocate(rows, L_.col_width(j_), nnz_.b_nnz(s, j_, k_));
    recvCsr(in.b, ub, r, true, comm_, in.reqs, &in.b_req, &in.b_col_reqs);
  }
  in.st.resize(in.reqs.size());
}

bool GiFetch::testIncoming(Incoming& in) {
  if (!in.posted) return false;
  if (in.reqs.empty()) return true;
  std::vector<int> idx(in.reqs.size());
  std::vector<MPI_Status> st(in.reqs.size());
  int done = 0;
  MPI_Testsome(static_cast<int>(in.reqs.size()), in.reqs.data(), &done, idx.data(), st.data());
  if (done == MPI_UNDEFINED) return true;
  for (int q = 0; q < done; ++q) in.st[idx[q]] = st[q];
  return !anyOpen(in.reqs);
}

bool GiFetch::test(int r) { return r < L_.grid.rounds && testIncoming(in_[r]); }

void GiFetch::postReceivesUpTo(int round_end) {
  for (int r = 0; r < round_end && r < L_.grid.rounds; ++r) postReceive(r);
}

void GiFetch::wait(int r, const Csr** a, const Csr** b, const std::vector<int>** b_rows) {
  postReceivesUpTo(r + lookahead_);
  postSendsUpTo(r + lookahead_);
  Incoming& in = in_[r];
  // Completes the rest, keeping the statuses of requests that progress() completed earlier.
  std::vector<int> idx(in.reqs.size());
  std::vector<MPI_Status> st(in.reqs.size());
  for (;;) {
    if (!gateOpen()) {
      pumpGate();
      if (!anyOpen(in.reqs)) break;
      waitSomeWithGate(in.reqs, &in.st);
      continue;
    }
    int done = 0;
    if (in.reqs.empty()) break;
    MPI_Waitsome(static_cast<int>(in.reqs.size()), in.reqs.data(), &done, idx.data(), st.data());
    if (done == MPI_UNDEFINED) break;
    for (int q = 0; q < done; ++q) in.st[idx[q]] = st[q];
  }
  in.reqs.clear();
  const int s = L_.grid.stage(r, i_, j_);
  if (in.a_remote) bytes_recv_ += in.a.wireBytes();
  if (in.b_remote) {
    if (in.b_filtered) {
      const std::size_t got = bigcount::receivedCount(&in.st[in.b_req], in.b_col_reqs, MPI_INT);
      in.b.col.resize(got);
      in.b.val.resize(got);
    }
    bytes_recv_ += in.b.wireBytes() + 4u * in.b_ids.size();
    const std::int64_t full = L_.b_slice(s, k_ + 1) - L_.b_slice(s, k_);
    if (in.b_filtered && !b_rows) in.b = expandRows(in.b, needed_->rows(i_, s), full);
    if (in.b_compressed && !b_rows) in.b = expandRows(in.b, in.b_ids, full);
  }
  if (b_rows) {
    *b_rows = in.b_remote ? (in.b_filtered ? &needed_->rows(i_, s) : in.b_compressed ? &in.b_ids : nullptr)
                          : tiles_.bRows(s);
    *b = in.b_remote ? &in.b : &tiles_.b[s];
  } else if (in.b_remote || !tiles_.bRows(s)) {
    *b = in.b_remote ? &in.b : &tiles_.b[s];
  } else {  // a compressed own slice, asked for with all its rows
    in.b = expandRows(tiles_.b[s], *tiles_.bRows(s), L_.b_slice(s, k_ + 1) - L_.b_slice(s, k_));
    *b = &in.b;
  }
  *a = in.a_remote ? &in.a : &tiles_.a[s];
  // Keep the pipeline `lookahead` rounds deep.
  postReceivesUpTo(r + 1 + lookahead_);
  postSendsUpTo(r + 1 + lookahead_);
}

void GiFetch::release(int r) {
  in_[r].a = Csr();
  in_[r].b = Csr();
  in_[r].b_ids = std::vector<int>();
}

void GiFetch::progress() {
  if (!gateOpen()) pumpGate();
  if (!sends_.empty()) {
    int flag = 0;
    MPI_Testall(static_cast<int>(sends_.size()), sends_.data(), &flag, MPI_STATUSES_IGNORE);
    if (flag) sends_.clear();
  }
  for (Incoming& in : in_)
    if (in.posted && !in.reqs.empty()) testIncoming(in);
}

void GiFetch::finish() {
  postSendsUpTo(L_.grid.rounds);
  // Every token must come (and with them every send is posted) and the group's barrier complete,
  // also on a rank that sends nothing or had all its slices before its group was ready.
  std::vector<MPI_Request> none;
  while (!pumpGate()) waitSomeWithGate(none, nullptr);
  if (!sends_.empty()) MPI_Waitall(static_cast<int>(sends_.size()), sends_.data(), MPI_STATUSES_IGNORE);
  sends_.clear();
  if (!token_sends_.empty()) MPI_Waitall(static_cast<int>(token_sends_.size()), token_sends_.data(), MPI_STATUSES_IGNORE);
  token_sends_.clear();
  filtered_.clear();
}

}  // namespace Trident
