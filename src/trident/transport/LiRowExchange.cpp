#include "trident/transport/LiRowExchange.hpp"

#include <algorithm>
#include <limits>
#include <chrono>
#include <string>
#include <thread>
#include <numeric>
#include <stdexcept>

#include "trident/core/Abort.hpp"
#include "trident/core/Bits.hpp"
#include "trident/core/BigCount.hpp"

namespace Trident {

namespace {
// Three messages per pair and round: row lengths, columns, values.
int tag(int round, int part) { return 3 * round + part; }
}  // namespace

LiRowExchange::LiRowExchange(MPI_Comm li_comm, int round, const Csr& a, const Csr& mine,
                             const std::vector<int>* mine_rows, std::vector<std::int64_t> slice_rows, int me,
                             std::vector<std::vector<int>> used, bool as_lists)
    : comm_(li_comm), round_(round), me_(me), lambda_(static_cast<int>(slice_rows.size())), a_(a), mine_(mine),
      mine_rows_(mine_rows), first_(slice_rows.size() + 1, 0), as_lists_(as_lists) {
  std::partial_sum(slice_rows.begin(), slice_rows.end(), first_.begin() + 1);
  bytes_ = (first_[lambda_] + 7) / 8;
  int* ub = nullptr;
  int flag = 0;
  MPI_Comm_get_attr(comm_, MPI_TAG_UB, &ub, &flag);
  if (flag && tag(round, 2) > *ub) throw std::runtime_error("Trident: too many rounds for this MPI's tag range");
  request_bytes_.assign(lambda_, 0);
  if (!used.empty()) {
    if (static_cast<int>(used.size()) != lambda_) throw std::logic_error("LiRowExchange: precomputed requests of the wrong size");
    want_ = std::move(used);
    // Counted as if exchanged now (they were, once, before the loop).
    for (int q = 0; q < lambda_; ++q)
      request_bytes_[q] = as_lists_ ? 4u * static_cast<std::uint64_t>(want_[q].size()) : static_cast<std::uint64_t>(bytes_);
    onMasks();
    return;
  }
  coll_.resize(1);
  if (as_lists_) {
    my_list_ = a.col;  // lists only for hypersparse tiles: a sort costs less than a bit per row
    std::sort(my_list_.begin(), my_list_.end());
    my_list_.erase(std::unique(my_list_.begin(), my_list_.end()), my_list_.end());
    list_counts_.assign(lambda_ + 1, 0);
    list_counts_[lambda_] = static_cast<std::int64_t>(my_list_.size());  // the send buffer
    MPI_Iallgather(&list_counts_[lambda_], 1, MPI_INT64_T, list_counts_.data(), 1, MPI_INT64_T, comm_, &coll_[0]);
    stage_ = Stage::counts;
    return;
  }
  if (bytes_ > std::int64_t{1} << 30) throw std::runtime_error("Trident: tile too tall for the Li row masks");
  my_mask_.assign(static_cast<std::size_t>(bytes_), 0);
  for (int c : a.col) my_mask_[c / 8] |= static_cast<std::uint8_t>(1u << (c % 8));
  masks_.assign(static_cast<std::size_t>(lambda_) * bytes_, 0);
  MPI_Iallgather(my_mask_.data(), static_cast<int>(bytes_), MPI_UINT8_T, masks_.data(), static_cast<int>(bytes_),
                 MPI_UINT8_T, comm_, &coll_[0]);
}

void LiRowExchange::onCounts() {
  list_icounts_.assign(lambda_, 0);
  list_displs_.assign(lambda_, 0);
  std::int64_t total = 0;
  for (int q = 0; q < lambda_; ++q) {
    list_displs_[q] = static_cast<int>(total);
    list_icounts_[q] = static_cast<int>(list_counts_[q]);
    total += list_counts_[q];
  }
  // Lists are only used for tiles with far more rows than entries, and tile rows fit in int.
  if (total > std::numeric_limits<int>::max()) throw std::runtime_error("Trident: Li row requests too long");
  lists_.resize(static_cast<std::size_t>(total));
  coll_.resize(1);
  MPI_Iallgatherv(my_list_.data(), list_icounts_[me_], MPI_INT, lists_.data(), list_icounts_.data(),
                  list_displs_.data(), MPI_INT, comm_, &coll_[0]);
  stage_ = Stage::masks;
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
  if (want_.empty()) {  // the requests just came: as sorted lists from here on
    want_.resize(lambda_);
    for (int q = 0; q < lambda_; ++q) {
      if (as_lists_) {
        want_[q].assign(lists_.begin() + list_displs_[q], lists_.begin() + list_displs_[q] + list_icounts_[q]);
        request_bytes_[q] = 4u * static_cast<std::uint64_t>(want_[q].size());
      } else {
        const std::uint8_t* m = masks_.data() + static_cast<std::size_t>(q) * bytes_;
        for (std::int64_t b = 0; b < bytes_; ++b)
          for (unsigned x = m[b]; x; x &= x - 1) want_[q].push_back(static_cast<int>(8 * b + __builtin_ctz(x)));
        request_bytes_[q] = static_cast<std::uint64_t>(bytes_);
      }
    }
    std::vector<std::uint8_t>().swap(masks_);
    std::vector<std::uint8_t>().swap(my_mask_);
    std::vector<int>().swap(lists_);
    std::vector<int>().swap(my_list_);
  }
  // Rows of my slice each other rank wants, in row order (the receiver enumerates them the same way).
  lcount_.assign(lambda_, 0);
  ecount_.assign(lambda_, 0);
  std::vector<std::size_t> lat(lambda_ + 1, 0), eat(lambda_ + 1, 0);
  for (int q = 0; q < lambda_; ++q) {
    RowCursor at{mine_rows_};
    if (q != me_) {
      const auto range = wanted(q, first_[me_], first_[me_ + 1]);
      for (const int* w = range.first; w != range.second; ++w) {
        const std::int64_t x = at(*w - first_[me_]);
        const std::int64_t b = x < 0 ? 0 : mine_.rowptr[x], e = x < 0 ? 0 : mine_.rowptr[x + 1];
        lsend_.push_back(e - b);
        csend_.insert(csend_.end(), mine_.col.begin() + b, mine_.col.begin() + e);
        vsend_.insert(vsend_.end(), mine_.val.begin() + b, mine_.val.begin() + e);
        ++lcount_[q];
        ecount_[q] += e - b;
      }
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
    const auto range = wanted(me_, first_[q], first_[q + 1]);
    lin_[q].resize(static_cast<std::size_t>(range.second - range.first));
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
  if (stage_ == Stage::counts) {
    if (!complete(coll_)) return;
    onCounts();
  }
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
  const std::vector<int>& mine_used = want_[me_];
  const std::int64_t used = static_cast<std::int64_t>(mine_used.size());

  Csr& b = *b_used;
  b = Csr(used, mine_.ncols);
  std::size_t nz = 0;
  for (int q = 0; q < lambda_; ++q)
    nz += q == me_ ? 0 : cin_[q].size();
  {
    RowCursor at{mine_rows_};
    const auto range = wanted(me_, first_[me_], first_[me_ + 1]);
    for (const int* w = range.first; w != range.second; ++w) {
      const std::int64_t x = at(*w - first_[me_]);
      if (x >= 0) nz += static_cast<std::size_t>(mine_.rowptr[x + 1] - mine_.rowptr[x]);
    }
  }
  b.col.reserve(nz);
  b.val.reserve(nz);
  std::int64_t row = 0;
  for (int q = 0; q < lambda_; ++q) {
    std::size_t li = 0, e = 0;
    RowCursor at{mine_rows_};
    const auto range = wanted(me_, first_[q], first_[q + 1]);
    for (const int* w = range.first; w != range.second; ++w) {
      if (q == me_) {
        const std::int64_t x = at(*w - first_[q]);
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
  const std::int64_t tile_rows = first_[lambda_];
  if (tile_rows <= 64 * used + 4096) {
    // Not hypersparse: the rank of a used row among the used rows from a count per 64 rows (one
    // bit per tile row, at most about a word per used row) and the bits below within the word.
    const std::int64_t words = (tile_rows + 63) / 64;
    std::vector<std::uint64_t> bits(static_cast<std::size_t>(words), 0);
    for (int c : mine_used) bits[c / 64] |= std::uint64_t{1} << (c % 64);
    std::vector<std::int64_t> before(static_cast<std::size_t>(words) + 1, 0);
    for (std::int64_t w = 0; w < words; ++w) before[w + 1] = before[w] + popcount64(bits[w]);
    for (std::size_t p = 0; p < a_.col.size(); ++p) {
      const int c = a_.col[p];
      const std::uint64_t below = bits[c / 64] & ((std::uint64_t{1} << (c % 64)) - 1u);
      a.col[p] = static_cast<int>(before[c / 64] + popcount64(below));
    }
  } else {
    for (std::size_t p = 0; p < a_.col.size(); ++p)
      a.col[p] = static_cast<int>(std::lower_bound(mine_used.begin(), mine_used.end(), a_.col[p]) - mine_used.begin());
  }

  for (int q = 0; q < lambda_; ++q) {
    if (q == me_) continue;
    if (sent)
      *sent += request_bytes_[me_] + 8u * static_cast<std::uint64_t>(lcount_[q]) +
               12u * static_cast<std::uint64_t>(ecount_[q]);
    if (received)
      *received += request_bytes_[q] + 8u * static_cast<std::uint64_t>(lin_[q].size()) +
                   12u * static_cast<std::uint64_t>(std::accumulate(lin_[q].begin(), lin_[q].end(), std::int64_t{0}));
  }
}

}  // namespace Trident
