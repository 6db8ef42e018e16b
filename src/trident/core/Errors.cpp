#include "trident/core/Errors.hpp"

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

void CollectiveCheck::run(MPI_Comm comm) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  // [lowest failing rank, values, -values], all by MPI_MIN: min and max in one reduction.
  const std::size_t n = values_.size();
  std::vector<long long> buf(1 + 2 * n);
  buf[0] = failedHere() ? rank : size;
  for (std::size_t t = 0; t < n; ++t) {
    buf[1 + t] = values_[t];
    buf[1 + n + t] = -values_[t];
  }
  MPI_Allreduce(MPI_IN_PLACE, buf.data(), static_cast<int>(buf.size()), MPI_LONG_LONG, MPI_MIN, comm);
  if (buf[0] != size) throwMessageOf(comm, static_cast<int>(buf[0]), message_);
  reduced_.assign(buf.begin() + 1, buf.end());
}

}  // namespace Trident
