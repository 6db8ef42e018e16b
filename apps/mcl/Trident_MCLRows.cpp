#include "Trident_MCLRows.hpp"

#include <algorithm>
#include <numeric>
#include <utility>
#include <stdexcept>

#include <trident/core/BigCount.hpp>
#include <trident/core/HugePages.hpp>

namespace Trident {
namespace mcl {

RowExchange::RowExchange(const std::vector<long long>& my_rows, long long n, MPI_Comm comm, int ranks_per_node)
    : comm_(comm), n_(n) {
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

  // Nodes: named by their lowest rank, numbered in that order.
  int leader = me;
  if (ranks_per_node > 0) {
    leader = me / ranks_per_node * ranks_per_node;
  } else {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, me, MPI_INFO_NULL, &node);
    MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
  }
  std::vector<int> leaders(P);
  MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm);
  sameNode_.resize(P);
  nodeOf_.assign(P, 0);
  indexOf_.assign(P, 0);
  std::vector<int> distinct(leaders);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  std::vector<int> size(distinct.size(), 0);
  for (int q = 0; q < P; ++q) {
    sameNode_[q] = leaders[q] == leader ? 1 : 0;
    nodeOf_[q] = static_cast<int>(std::lower_bound(distinct.begin(), distinct.end(), leaders[q]) - distinct.begin());
    indexOf_[q] = size[nodeOf_[q]]++;
  }
  // Hierarchical with several nodes of one size > 1 (every rank then has a peer on every node).
  const bool even = std::all_of(size.begin(), size.end(), [&](int z) { return z == size[0]; });
  if (distinct.size() > 1 && size[0] > 1 && even) {
    MPI_Comm_split(comm, nodeOf_[me], indexOf_[me], &node_comm_);
    MPI_Comm_split(comm, indexOf_[me], nodeOf_[me], &peer_comm_);
  }
}

RowExchange::~RowExchange() {
  if (node_comm_ != MPI_COMM_NULL) MPI_Comm_free(&node_comm_);
  if (peer_comm_ != MPI_COMM_NULL) MPI_Comm_free(&peer_comm_);
}

namespace {
template <class V>
MPI_Datatype mpiType();
template <>
MPI_Datatype mpiType<double>() { return MPI_DOUBLE; }
template <>
MPI_Datatype mpiType<float>() { return MPI_FLOAT; }

// Rows by global id over comm: reqOut holds the ids this rank asks for, grouped by the rank asked
// (reqCount of each, ascending within each). serve(reqIn) is called once with what the others ask
// of this rank (grouped by asker) and returns row(g, &len) -> (columns, values) for each of them;
// it may itself communicate (collectively: every rank calls it at the same point). Returns the
// rows, in reqOut's order: those from other ranks in received arrays, those this rank asked of
// itself as row() gives them (not copied: its own rows are where they already are). *bytesFrom
// gets, per rank, what this rank received from it (requests in, lengths and rows back).
template <class V>
struct RowsIn {
  std::vector<typename RowRefs<V>::Row> rows;  // per entry of reqOut
  std::vector<int> col;  // the received rows, which rows point into
  std::vector<V> val;
};

// The rows' entries packed for every rank but this one, in reqIn's order; entOut: per rank.
template <class V, class Row>
void packRows(const std::vector<int>& reqIn, const std::vector<std::int64_t>& inCount, int me, Row& row,
              const std::vector<std::int64_t>& entOut, std::vector<int>& colOut, std::vector<V>& valOut) {
  const std::int64_t nOut = std::accumulate(entOut.begin(), entOut.end(), std::int64_t{0});
  reserveHugePages(colOut, static_cast<std::size_t>(nOut));
  reserveHugePages(valOut, static_cast<std::size_t>(nOut));
  std::size_t k = 0;
  for (int q = 0; q < static_cast<int>(inCount.size()); ++q)
    for (std::int64_t t = 0; t < inCount[q]; ++t, ++k) {
      if (q == me) continue;
      std::int64_t len = 0;
      const auto [c, v] = row(reqIn[k], len);
      colOut.insert(colOut.end(), c, c + len);
      valOut.insert(valOut.end(), v, v + len);
    }
}

template <class V, class Serve>
RowsIn<V> exchangeRows(MPI_Comm comm, const std::vector<std::int64_t>& reqCount, const std::vector<int>& reqOut,
                       Serve&& serve, std::vector<std::uint64_t>* bytesFrom) {
  int P = 1, me = 0;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &me);
  const std::vector<std::int64_t> inCount = bigcount::exchangeCounts(reqCount, comm);
  std::vector<int> reqIn(static_cast<std::size_t>(std::accumulate(inCount.begin(), inCount.end(), std::int64_t{0})));
  bigcount::alltoallv(reqOut.data(), reqCount, reqIn.data(), inCount, MPI_INT, comm);
  auto row = serve(reqIn);
  // Row lengths back, then the rows themselves (none to this rank itself).
  std::vector<std::int64_t> lenOut(reqIn.size()), entOut(P, 0), lenIn(reqOut.size()), entIn(P, 0);
  {
    std::size_t k = 0;
    for (int q = 0; q < P; ++q)
      for (std::int64_t t = 0; t < inCount[q]; ++t, ++k) {
        row(reqIn[k], lenOut[k]);
        if (q != me) entOut[q] += lenOut[k];
      }
  }
  bigcount::alltoallv(lenOut.data(), inCount, lenIn.data(), reqCount, MPI_INT64_T, comm);
  {
    std::size_t k = 0;
    for (int q = 0; q < P; ++q)
      for (std::int64_t t = 0; t < reqCount[q]; ++t, ++k)
        if (q != me) entIn[q] += lenIn[k];
  }
  std::vector<int> colOut;
  std::vector<V> valOut;
  packRows(reqIn, inCount, me, row, entOut, colOut, valOut);
  RowsIn<V> in;
  const std::int64_t nIn = std::accumulate(entIn.begin(), entIn.end(), std::int64_t{0});
  reserveHugePages(in.col, static_cast<std::size_t>(nIn));
  reserveHugePages(in.val, static_cast<std::size_t>(nIn));
  in.col.resize(static_cast<std::size_t>(nIn));
  in.val.resize(static_cast<std::size_t>(nIn));
  bigcount::alltoallv(colOut.data(), entOut, in.col.data(), entIn, MPI_INT, comm);
  bigcount::alltoallv(valOut.data(), entOut, in.val.data(), entIn, mpiType<V>(), comm);
  in.rows.resize(reqOut.size());
  std::int64_t at = 0;
  std::size_t k = 0;
  for (int q = 0; q < P; ++q)
    for (std::int64_t t = 0; t < reqCount[q]; ++t, ++k) {
      if (q == me) {
        std::int64_t len = 0;
        const auto [c, v] = row(reqOut[k], len);
        in.rows[k] = {c, v, len};
      } else {
        in.rows[k] = {in.col.data() + at, in.val.data() + at, lenIn[k]};
        at += lenIn[k];
      }
    }
  if (bytesFrom) {
    bytesFrom->assign(P, 0);
    for (int q = 0; q < P; ++q)
      (*bytesFrom)[q] = 4u * static_cast<std::uint64_t>(inCount[q]) + 8u * static_cast<std::uint64_t>(reqCount[q]) +
                        (4u + sizeof(V)) * static_cast<std::uint64_t>(entIn[q]);
  }
  return in;
}

// B's n rows by reference: rows ids[k] = in.rows[k], the others empty; in's arrays move into the
// result (the references stay valid).
template <class V>
FetchedRows<V> placeRows(long long n, const std::vector<int>& ids, RowsIn<V>&& in) {
  FetchedRows<V> B;
  B.refs.ncols = n;
  B.refs.row.resize(static_cast<std::size_t>(n));
  for (std::size_t k = 0; k < ids.size(); ++k) B.refs.row[static_cast<std::size_t>(ids[k])] = in.rows[k];
  B.col = std::move(in.col);
  B.val = std::move(in.val);
  return B;
}

// Requests grouped by target (target(g) in [0, P)), ascending within each.
template <class Target>
void groupRequests(const std::vector<int>& ids, int P, Target&& target, std::vector<std::int64_t>& count,
                   std::vector<int>& grouped) {
  count.assign(P, 0);
  for (int g : ids) count[target(g)]++;
  std::vector<std::int64_t> at(P, 0);
  for (int q = 1; q < P; ++q) at[q] = at[q - 1] + count[q - 1];
  grouped.resize(ids.size());
  for (int g : ids) grouped[static_cast<std::size_t>(at[target(g)]++)] = g;
}

// Rows of this rank's own block A by global id (local: their local index), as exchangeRows serves them.
template <class M>
auto ownRowsOf(const M& A, const std::vector<int>& local) {
  return [&A, &local](int g, std::int64_t& len) {
    const int l = local[g];
    len = A.rowptr[l + 1] - A.rowptr[l];
    return std::make_pair(A.col.data() + A.rowptr[l], A.val.data() + A.rowptr[l]);
  };
}

}  // namespace

template <class M>
FetchedRows<typename decltype(M::val)::value_type> RowExchange::fetch(const M& A, const std::vector<int>& needed,
                                                                      ExchangeBytes& bytes) const {
  return hierarchical() ? hierarchicalFetch(A, needed, bytes) : flatFetch(A, needed, bytes);
}

template <class M>
FetchedRows<typename decltype(M::val)::value_type> RowExchange::flatFetch(const M& A, const std::vector<int>& needed,
                                                                          ExchangeBytes& bytes) const {
  using V = typename decltype(A.val)::value_type;
  int P = 1, me = 0;
  MPI_Comm_size(comm_, &P);
  MPI_Comm_rank(comm_, &me);
  std::vector<std::int64_t> reqCount;
  std::vector<int> reqOut;
  groupRequests(needed, P, [this](int g) { return owner_[g]; }, reqCount, reqOut);
  auto serveOwn = [&](const std::vector<int>&) { return ownRowsOf(A, local_); };
  std::vector<std::uint64_t> from;
  RowsIn<V> in = exchangeRows<V>(comm_, reqCount, reqOut, serveOwn, &from);
  for (int q = 0; q < P; ++q)
    if (q != me) (sameNode_[q] ? bytes.li : bytes.gi) += from[q];
  return placeRows(n_, reqOut, std::move(in));
}

template <class M>
FetchedRows<typename decltype(M::val)::value_type> RowExchange::hierarchicalFetch(const M& A,
                                                                                  const std::vector<int>& needed,
                                                                                  ExchangeBytes& bytes) const {
  using V = typename decltype(A.val)::value_type;
  int me = 0, lambda = 1, nodes = 1, myIndex = 0, myNode = 0;
  MPI_Comm_rank(comm_, &me);
  MPI_Comm_size(node_comm_, &lambda);
  MPI_Comm_size(peer_comm_, &nodes);
  MPI_Comm_rank(node_comm_, &myIndex);
  MPI_Comm_rank(peer_comm_, &myNode);
  // Each row is asked of the node's rank with its owner's index: the owner itself when it is on
  // this node, its peer here otherwise, which fetches it over Gi for the whole node.
  std::vector<std::int64_t> reqCount;
  std::vector<int> reqOut;
  groupRequests(needed, lambda, [this](int g) { return indexOf_[owner_[g]]; }, reqCount, reqOut);
  RowsIn<V> fromPeers;  // the rows this rank fetched over Gi for its node
  std::vector<std::pair<int, std::size_t>> byId;  // (id, position in fromPeers.rows), ascending
  auto serveNode = [&](const std::vector<int>& reqIn) {
    // The rows the node's ranks asked of me that live on other nodes, each once, by owner node.
    std::vector<int> wanted, remote;
    for (int g : reqIn)
      if (owner_[g] != me) wanted.push_back(g);
    std::sort(wanted.begin(), wanted.end());
    wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
    std::vector<std::int64_t> peerCount;
    groupRequests(wanted, nodes, [this](int g) { return nodeOf_[owner_[g]]; }, peerCount, remote);
    auto serveOwn = [&](const std::vector<int>&) { return ownRowsOf(A, local_); };
    std::vector<std::uint64_t> from;
    fromPeers = exchangeRows<V>(peer_comm_, peerCount, remote, serveOwn, &from);
    for (int q = 0; q < nodes; ++q)
      if (q != myNode) bytes.gi += from[q];
    byId.resize(remote.size());
    for (std::size_t k = 0; k < remote.size(); ++k) byId[k] = {remote[k], k};
    std::sort(byId.begin(), byId.end());
    return [&, own = ownRowsOf(A, local_)](int g, std::int64_t& len) {
      if (owner_[g] == me) return own(g, len);
      const std::size_t k =
          std::lower_bound(byId.begin(), byId.end(), std::make_pair(g, std::size_t{0}))->second;
      len = fromPeers.rows[k].len;
      return std::make_pair(fromPeers.rows[k].col, fromPeers.rows[k].val);
    };
  };
  std::vector<std::uint64_t> from;
  RowsIn<V> in = exchangeRows<V>(node_comm_, reqCount, reqOut, serveNode, &from);
  for (int q = 0; q < lambda; ++q)
    if (q != myIndex) bytes.li += from[q];
  FetchedRows<V> B = placeRows(n_, reqOut, std::move(in));
  B.nodeCol = std::move(fromPeers.col);  // the rows this rank asked of itself point here
  B.nodeVal = std::move(fromPeers.val);
  return B;
}

template FetchedRows<double> RowExchange::fetch<Csr>(const Csr&, const std::vector<int>&, ExchangeBytes&) const;
template FetchedRows<float> RowExchange::fetch<CsrFloat>(const CsrFloat&, const std::vector<int>&,
                                                         ExchangeBytes&) const;

}  // namespace mcl
}  // namespace Trident
