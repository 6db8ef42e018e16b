#include "trident/core/Errors.hpp"

#include <algorithm>
#include <vector>

namespace Trident {

namespace {
// The lowest failing rank broadcasts its message so every rank throws the same text.
[[noreturn]] void throwMessageOf(MPI_Comm comm, int first, const std::string& message) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  int len = (rank == first) ? static_cast<int>(message.size()) : 0;
  MPI_Bcast(&len, 1, MPI_INT, first, comm);
  std::vector<char> text(static_cast<size_t>(len) + 1, '\0');
  if (rank == first) message.copy(text.data(), message.size());
  MPI_Bcast(text.data(), len, MPI_CHAR, first, comm);
  std::string what(text.data(), static_cast<size_t>(len));
  if (size > 1) what = "[rank " + std::to_string(first) + "] " + what;
  throw InvalidInput("Trident: " + what);
}
}  // namespace

void throwIfAnyRank(MPI_Comm comm, bool failed, const std::string& message) {
  CollectiveCheck check;  // one check, one collective
  check.failIf(failed, message);
  check.run(comm);
}

void CollectiveCheck::failIf(bool failed, const std::string& message) {
  if (failed && message_.empty()) message_ = message.empty() ? std::string("failed") : message;
}

std::size_t CollectiveCheck::contribute(long long value) {
  values_.push_back(value);
  return values_.size() - 1;
}

std::size_t CollectiveCheck::contributeSum(long long value) {
  sums_.push_back(value);
  return sums_.size() - 1;
}

namespace {
// One element is the whole buffer [m, m - 1 values reduced by min, the rest summed] (a contiguous
// datatype, count 1): the header m is the same on every rank, so the one reduction knows where
// the sums start. MPI may apply a user operation to any part of a buffer of several elements
// (Open MPI 5's hierarchical han collectives do, between nodes), so the position-dependent
// reduction must see one element that cannot be cut.
void minThenSum(void* in, void* inout, int* len, MPI_Datatype* type) {
  int bytes = 0;
  MPI_Type_size(*type, &bytes);
  const int n = bytes / static_cast<int>(sizeof(long long));
  for (int e = 0; e < *len; ++e) {
    const long long* a = static_cast<const long long*>(in) + static_cast<std::size_t>(e) * n;
    long long* b = static_cast<long long*>(inout) + static_cast<std::size_t>(e) * n;
    const int m = static_cast<int>(b[0]);
    for (int t = 1; t < m && t < n; ++t) b[t] = std::min(a[t], b[t]);
    for (int t = m; t < n; ++t) b[t] += a[t];
  }
}
MPI_Op minThenSumOp() {
  static MPI_Op op = [] {
    MPI_Op o;
    MPI_Op_create(&minThenSum, 1, &o);
    return o;
  }();
  return op;
}
}  // namespace

void CollectiveCheck::run(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // [lowest failing rank, values, -values], all by MPI_MIN: min and max in one reduction; with
  // sums, behind a header saying where they start, by minThenSum.
  const std::size_t n = values_.size(), s = sums_.size();
  const std::size_t head = s > 0 ? 1 : 0;
  std::vector<long long> buf(head + 1 + 2 * n + s);
  if (head) buf[0] = static_cast<long long>(head + 1 + 2 * n);
  long long* v = buf.data() + head;
  v[0] = failedHere() ? rank : size;
  for (std::size_t t = 0; t < n; ++t) {
    v[1 + t] = values_[t];
    v[1 + n + t] = -values_[t];
  }
  std::copy(sums_.begin(), sums_.end(), v + 1 + 2 * n);
  if (head) {
    MPI_Datatype whole;
    MPI_Type_contiguous(static_cast<int>(buf.size()), MPI_LONG_LONG, &whole);
    MPI_Type_commit(&whole);
    MPI_Allreduce(MPI_IN_PLACE, buf.data(), 1, whole, minThenSumOp(), comm);
    MPI_Type_free(&whole);
  } else {
    MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(buf.size()), MPI_LONG_LONG, MPI_MIN, comm);
  }
  if (v[0] != size) throwMessageOf(comm, static_cast<int>(v[0]), message_);
  reduced_.assign(v + 1, v + 1 + 2 * n);
  sums_.assign(v + 1 + 2 * n, v + 1 + 2 * n + s);
}

}  // namespace Trident
