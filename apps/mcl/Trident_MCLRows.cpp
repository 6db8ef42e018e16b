#include "Trident_MCLRows.hpp"

#include <numeric>
#include <stdexcept>

#include <trident/transport/BigCount.hpp>

namespace Trident {
namespace mcl {

RowExchange::RowExchange(const std::vector<long long>& my_rows, long long n, MPI_Comm comm) : comm_(comm), n_(n) {
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  const std::vector<std::int64_t> counts = bigcount::gatherCounts(static_cast<std::int64_t>(my_rows.size()), 0, comm);
  std::vector<long long> all;
  std::vector<std::int64_t> allCounts(P, 0);
  if (me == 0) allCounts.assign(counts.begin(), counts.end());
  MPI_Bcast(allCounts.data(), P, MPI_INT64_T, 0, comm);
  all.resize(static_cast<std::size_t>(std::accumulate(allCounts.begin(), allCounts.end(), std::int64_t{0})));
  bigcount::allgatherv(my_rows.data(), all.data(), allCounts, MPI_LONG_LONG, comm);
  if (static_cast<long long>(all.size()) != n) throw std::invalid_argument("mcl: the row map does not cover the matrix");
  owner_.assign(static_cast<std::size_t>(n), -1);
  local_.assign(static_cast<std::size_t>(n), -1);
  std::size_t pos = 0;
  for (int q = 0; q < P; ++q)
    for (std::int64_t i = 0; i < allCounts[q]; ++i, ++pos) {
      const long long g = all[pos];
      if (g < 0 || g >= n || owner_[g] >= 0)
        throw std::invalid_argument("mcl: row global ids must be 0..n-1, each on one rank");
      owner_[g] = q;
      local_[g] = static_cast<int>(i);
    }
  ownsAll_ = P == 1;
  if (ownsAll_)
    for (long long g = 0; g < n; ++g) ownsAll_ = ownsAll_ && local_[g] == g;

  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
  int leader = me;  // lowest rank of the node names it
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  std::vector<int> leaders(P);
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm);
  sameNode_.resize(P);
  for (int q = 0; q < P; ++q) sameNode_[q] = leaders[q] == leader ? 1 : 0;
}

namespace {
template <class V>
MPI_Datatype mpiType();
template <>
MPI_Datatype mpiType<double>() { return MPI_DOUBLE; }
template <>
MPI_Datatype mpiType<float>() { return MPI_FLOAT; }
}  // namespace

template <class M>
M RowExchange::fetch(const M& A, const std::vector<int>& needed, ExchangeBytes& bytes) const {
  using V = typename decltype(A.val)::value_type;
  int P = 1, me = 0;
  MPI_Comm_size(comm_, &P);
  MPI_Comm_rank(comm_, &me);
  // Requests grouped by owner, ascending within each owner.
  std::vector<std::int64_t> reqCount(P, 0);
  for (int g : needed) reqCount[owner_[g]]++;
  std::vector<std::int64_t> reqOff(P + 1, 0);
  for (int q = 0; q < P; ++q) reqOff[q + 1] = reqOff[q] + reqCount[q];
  std::vector<int> reqOut(static_cast<std::size_t>(reqOff[P]));
  {
    std::vector<std::int64_t> at(reqOff.begin(), reqOff.end() - 1);
    for (int g : needed) reqOut[at[owner_[g]]++] = g;
  }
  const std::vector<std::int64_t> inCount = bigcount::exchangeCounts(reqCount, comm_);
  std::vector<int> reqIn(static_cast<std::size_t>(std::accumulate(inCount.begin(), inCount.end(), std::int64_t{0})));
  bigcount::alltoallv(reqOut.data(), reqCount, reqIn.data(), inCount, MPI_INT, comm_);

  // Row lengths back, then the rows themselves.
  std::vector<std::int64_t> lenOut(reqIn.size()), entOut(P, 0);
  {
    std::size_t k = 0;
    for (int q = 0; q < P; ++q)
      for (std::int64_t t = 0; t < inCount[q]; ++t, ++k) {
        const int l = local_[reqIn[k]];
        lenOut[k] = A.rowptr[l + 1] - A.rowptr[l];
        entOut[q] += lenOut[k];
      }
  }
  std::vector<std::int64_t> lenIn(reqOut.size());
  bigcount::alltoallv(lenOut.data(), inCount, lenIn.data(), reqCount, MPI_INT64_T, comm_);
  std::vector<std::int64_t> entIn(P, 0);
  {
    std::size_t k = 0;
    for (int q = 0; q < P; ++q)
      for (std::int64_t t = 0; t < reqCount[q]; ++t, ++k) entIn[q] += lenIn[k];
  }
  const std::int64_t nOut = std::accumulate(entOut.begin(), entOut.end(), std::int64_t{0});
  std::vector<int> colOut;
  std::vector<V> valOut;
  colOut.reserve(static_cast<std::size_t>(nOut));
  valOut.reserve(static_cast<std::size_t>(nOut));
  for (int g : reqIn) {
    const int l = local_[g];
    colOut.insert(colOut.end(), A.col.begin() + A.rowptr[l], A.col.begin() + A.rowptr[l + 1]);
    valOut.insert(valOut.end(), A.val.begin() + A.rowptr[l], A.val.begin() + A.rowptr[l + 1]);
  }
  M B(n_, n_);
  for (std::size_t k = 0; k < reqOut.size(); ++k) B.rowptr[reqOut[k] + 1] = lenIn[k];
  for (long long g = 0; g < n_; ++g) B.rowptr[g + 1] += B.rowptr[g];
  const std::int64_t nIn = B.rowptr[n_];
  // Rows arrive grouped by owner, each owner's ascending; B wants them ascending overall, so they
  // are received into a staging buffer and placed row by row.
  std::vector<int> colIn(static_cast<std::size_t>(nIn));
  std::vector<V> valIn(static_cast<std::size_t>(nIn));
  bigcount::alltoallv(colOut.data(), entOut, colIn.data(), entIn, MPI_INT, comm_);
  bigcount::alltoallv(valOut.data(), entOut, valIn.data(), entIn, mpiType<V>(), comm_);
  colOut = std::vector<int>();
  valOut = std::vector<V>();
  B.col.resize(static_cast<std::size_t>(nIn));
  B.val.resize(static_cast<std::size_t>(nIn));
  std::size_t src = 0;
  for (std::size_t k = 0; k < reqOut.size(); ++k) {
    const std::int64_t at = B.rowptr[reqOut[k]], len = lenIn[k];
    std::copy(colIn.begin() + static_cast<std::ptrdiff_t>(src), colIn.begin() + static_cast<std::ptrdiff_t>(src + len),
              B.col.begin() + at);
    std::copy(valIn.begin() + static_cast<std::ptrdiff_t>(src), valIn.begin() + static_cast<std::ptrdiff_t>(src + len),
              B.val.begin() + at);
    src += static_cast<std::size_t>(len);
  }
  for (int q = 0; q < P; ++q) {
    if (q == me) continue;
    // requests in, lengths and rows received
    const std::uint64_t b = 4u * static_cast<std::uint64_t>(inCount[q]) + 8u * static_cast<std::uint64_t>(reqCount[q]) +
                            (4u + sizeof(V)) * static_cast<std::uint64_t>(entIn[q]);
    (sameNode_[q] ? bytes.li : bytes.gi) += b;
  }
  return B;
}

template Csr RowExchange::fetch<Csr>(const Csr&, const std::vector<int>&, ExchangeBytes&) const;
template CsrFloat RowExchange::fetch<CsrFloat>(const CsrFloat&, const std::vector<int>&, ExchangeBytes&) const;

}  // namespace mcl
}  // namespace Trident
