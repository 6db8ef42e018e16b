#include "trident/transport/LiRowExchange.hpp"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <numeric>
#include <stdexcept>

#include "trident/core/Abort.hpp"
#include "trident/transport/BigCount.hpp"

namespace Trident {

namespace {
// Three messages per pair and round: row lengths, columns, values.
int tag(int round, int part) { return 3 * round + part; }
}  // namespace

LiRowExchange::LiRowExchange(MPI_Comm li_comm, int round, const Csr& a, const Csr& mine,
                             const std::vector<int>* mine_rows, std::vector<std::int64_t> slice_rows, int me,
                             std::vector<std::uint8_t> masks)
    : comm_(li_comm), round_(round), me_(me), lambda_(static_cast<int>(slice_rows.size())), a_(a), mine_(mine),
      mine_rows_(mine_rows), first_(slice_rows.size() + 1, 0) {
  std::partial_sum(slice_rows.begin(), slice_rows.end(), first_.begin() + 1);
  bytes_ = (first_[lambda_] + 7) / 8;
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(comm_, MPI_TAG_UB, &ub, &flag);
  if (flag && tag(round, 2) > *ub) throw std::runtime_error("Trident: too many rounds for this MPI's tag range");
  if (bytes_ > std::int64_t{1} << 30) throw std::runtime_error("Trident: tile too tall for the Li row masks");
  if (!masks.empty()) {
    if (static_cast<std::int64_t>(masks.size()) != lambda_ * bytes_)
      throw std::logic_error("LiRowExchange: precomputed masks of the wrong size");
    masks_ = std::move(masks);
    my_mask_.assign(masks_.begin() + me * bytes_, masks_.begin() + (me + 1) * bytes_);
    onMasks();
    return;
  }
  my_mask_.assign(static_cast<std::size_t>(bytes_), 0);
  for (int c : a.col) my_mask_[c / 8] |= static_cast<std::uint8_t>(1u << (c % 8));
  masks_.assign(static_cast<std::size_t>(lambda_) * bytes_, 0);
  coll_.resize(1);
  MPI_Iallgather(my_mask_.data(), static_cast<int>(bytes_), MPI_UINT8_T, masks_.data(), static_cast<int>(bytes_),
                 MPI_UINT8_T, comm_, &coll_[0]);
}

// Only reached with requests open when an exception unwinds the multiply. Freeing the requests
// would let MPI touch freed buffers, so the exchange is completed instead; when a group member
// failed alone and never takes part, nothing moves for kStall and the job ends with a message
// (the abort policy of core/Abort.hpp, as GiFetch's cleanup does).
LiRowExchange::~LiRowExchange() {
  constexpr auto kStall = std::chrono::seconds(10);
  auto since = std::chrono::steady_clock::now();
  try {
    while (stage_ != Stage::done) {
      const Stage before = stage_;
      advance(false);
      if (stage_ == Stage::done) break;
      if (stage_ != before) since = std::chrono::steady_clock::now();
      if (std::chrono::steady_clock::now() - since > kStall)
        abortJob(comm_, "Trident Li row exchange cleanup after an error",
                 "no progress in round " + std::to_string(round_) + "'s exchange for 10 s (a group member left it)");
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  } catch (const std::exception& e) {
    abortJob(comm_, "Trident Li row exchange cleanup after an error", e.what());
  }
}

bool LiRowExchange::testAll(std::vector<MPI_Request>& reqs) {
  if (reqs.empty()) return true;
  int flag = 0;
  MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &flag, MPI_STATUSES_IGNORE);
  if (flag) reqs.clear();
  return flag != 0;
}

void LiRowExchange::onMasks() {
  // Rows of my slice each other rank wants, in row order (the receiver enumerates them the same way).
  lcount_.assign(lambda_, 0);
  ecount_.assign(lambda_, 0);
  std::vector<std::size_t> lat(lambda_ + 1, 0), eat(lambda_ + 1, 0);
  for (int q = 0; q < lambda_; ++q) {
    RowCursor at{mine_rows_};
    if (q != me_)
      for (std::int64_t r = 0; r < first_[me_ + 1] - first_[me_]; ++r) {
        if (!wants(q, first_[me_] + r)) continue;
        const std::int64_t x = at(r);
        const std::int64_t b = x < 0 ? 0 : mine_.rowptr[x], e = x < 0 ? 0 : mine_.rowptr[x + 1];
        lsend_.push_back(e - b);
        csend_.insert(csend_.end(), mine_.col.begin() + b, mine_.col.begin() + e);
        vsend_.insert(vsend_.end(), mine_.val.begin() + b, mine_.val.begin() + e);
        ++lcount_[q];
        ecount_[q] += e - b;
      }
    lat[q + 1] = lsend_.size();
    eat[q + 1] = csend_.size();
  }
  lin_.resize(lambda_);
  for (int q = 0; q < lambda_; ++q) {
    if (q == me_) continue;
    bigcount::isend(lsend_.data() + lat[q], lat[q + 1] - lat[q], MPI_INT64_T, q, tag(round_, 0), comm_, sends_);
    bigcount::isend(csend_.data() + eat[q], eat[q + 1] - eat[q], MPI_INT, q, tag(round_, 1), comm_, sends_);
    bigcount::isend(vsend_.data() + eat[q], eat[q + 1] - eat[q], MPI_DOUBLE, q, tag(round_, 2), comm_, sends_);
    std::int64_t n = 0;
    for (std::int64_t r = first_[q]; r < first_[q + 1]; ++r) n += wants(me_, r) ? 1 : 0;
    lin_[q].resize(static_cast<std::size_t>(n));
    bigcount::irecv(lin_[q].data(), lin_[q].size(), MPI_INT64_T, q, tag(round_, 0), comm_, recvs_);
  }
  stage_ = Stage::lengths;
}

void LiRowExchange::onLengths() {
  cin_.resize(lambda_);
  vin_.resize(lambda_);
  for (int q = 0; q < lambda_; ++q) {
    if (q == me_) continue;
    const auto n = static_cast<std::size_t>(std::accumulate(lin_[q].begin(), lin_[q].end(), std::int64_t{0}));
    cin_[q].resize(n);
    vin_[q].resize(n);
    bigcount::irecv(cin_[q].data(), n, MPI_INT, q, tag(round_, 1), comm_, recvs_);
    bigcount::irecv(vin_[q].data(), n, MPI_DOUBLE, q, tag(round_, 2), comm_, recvs_);
  }
  stage_ = Stage::entries;
}

void LiRowExchange::advance(bool block) {
  auto complete = [&](std::vector<MPI_Request>& reqs) {
    if (!block) return testAll(reqs);
    if (!reqs.empty()) MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    reqs.clear();
    return true;
  };
  if (stage_ == Stage::masks) {
    if (!complete(coll_)) return;
    onMasks();
  }
  if (stage_ == Stage::lengths) {
    if (!complete(recvs_)) return;
    onLengths();
  }
  if (stage_ == Stage::entries) {
    const bool in = complete(recvs_);
    const bool out = complete(sends_);
    if (in && out) stage_ = Stage::done;
  }
}

void LiRowExchange::progress() { advance(false); }

void LiRowExchange::finish(Csr* a_used, Csr* b_used, std::uint64_t* sent, std::uint64_t* received) {
  advance(true);
  // Rank of each used row among the used rows: a count per mask byte, then the bits below.
  std::vector<std::int64_t> before(static_cast<std::size_t>(bytes_) + 1, 0);
  for (std::int64_t q = 0; q < bytes_; ++q)
    before[q + 1] = before[q] + __builtin_popcount(my_mask_[static_cast<std::size_t>(q)]);
  const std::int64_t used = before[bytes_];

  Csr& b = *b_used;
  b = Csr(used, mine_.ncols);
  std::size_t nz = 0;
  for (int q = 0; q < lambda_; ++q)
    nz += q == me_ ? 0 : cin_[q].size();
  {
    RowCursor at{mine_rows_};
    for (std::int64_t r = first_[me_]; r < first_[me_ + 1]; ++r) {
      const std::int64_t x = wants(me_, r) ? at(r - first_[me_]) : -1;
      if (x >= 0) nz += static_cast<std::size_t>(mine_.rowptr[x + 1] - mine_.rowptr[x]);
    }
  }
  b.col.reserve(nz);
  b.val.reserve(nz);
  std::int64_t row = 0;
  for (int q = 0; q < lambda_; ++q) {
    std::size_t li = 0, e = 0;
    RowCursor at{mine_rows_};
    for (std::int64_t r = first_[q]; r < first_[q + 1]; ++r) {
      if (!wants(me_, r)) continue;
      if (q == me_) {
        const std::int64_t x = at(r - first_[q]);
        const std::int64_t lo = x < 0 ? 0 : mine_.rowptr[x], hi = x < 0 ? 0 : mine_.rowptr[x + 1];
        b.col.insert(b.col.end(), mine_.col.begin() + lo, mine_.col.begin() + hi);
        b.val.insert(b.val.end(), mine_.val.begin() + lo, mine_.val.begin() + hi);
      } else {
        const auto n = static_cast<std::size_t>(lin_[q][li++]);
        b.col.insert(b.col.end(), cin_[q].begin() + e, cin_[q].begin() + e + n);
        b.val.insert(b.val.end(), vin_[q].begin() + e, vin_[q].begin() + e + n);
        e += n;
      }
      b.rowptr[++row] = static_cast<std::int64_t>(b.col.size());
    }
    if (q != me_) {
      std::vector<int>().swap(cin_[q]);
      std::vector<double>().swap(vin_[q]);
    }
  }

  Csr& a = *a_used;
  a.nrows = a_.nrows;
  a.ncols = used;
  a.rowptr = a_.rowptr;
  a.val = a_.val;
  a.col.resize(a_.col.size());
  for (std::size_t p = 0; p < a_.col.size(); ++p) {
    const int c = a_.col[p];
    const unsigned below = my_mask_[c / 8] & ((1u << (c % 8)) - 1u);
    a.col[p] = static_cast<int>(before[c / 8] + __builtin_popcount(below));
  }

  for (int q = 0; q < lambda_; ++q) {
    if (q == me_) continue;
    if (sent)
      *sent += static_cast<std::uint64_t>(bytes_) + 8u * static_cast<std::uint64_t>(lcount_[q]) +
               12u * static_cast<std::uint64_t>(ecount_[q]);
    if (received)
      *received += static_cast<std::uint64_t>(bytes_) + 8u * static_cast<std::uint64_t>(lin_[q].size()) +
                   12u * static_cast<std::uint64_t>(std::accumulate(lin_[q].begin(), lin_[q].end(), std::int64_t{0}));
  }
}

}  // namespace Trident
