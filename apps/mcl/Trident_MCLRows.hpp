#pragma once
// The layout of MCL's fused expansion: every rank owns whole rows of the iterand T = M^T (whole
// columns of mcl's M), with global column indices, from the first iteration to the last. A row of
// the product T*T is then complete on one rank, so mcl's per-column pruning can run on it the
// moment the kernel finishes it. This is Trident's one-group schedule (lambda = P, a 1 x 1 grid):
// a rank fetches from the others only the rows of T its own rows' columns name (the needed-rows
// exchange), nothing moves back afterwards, and no Tpetra matrix is built between iterations.
//
// On several nodes the fetch is hierarchical, as Trident's Gi/Li split: a row owned by rank k of
// another node is fetched over Gi once per node, by rank k of this node (the owner's peer), and
// handed over Li (shared memory) to the node's ranks that need it; rows owned on this node come
// straight from their owner over Li. On dense iterations every rank of a node needs nearly every
// row, so a flat fetch moves each row over Gi once per rank (lambda times per node) and this one
// once per node.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include <trident/local/Csr.hpp>
#include "PrunedSpGEMM.hpp"

namespace Trident {
namespace mcl {

struct ExchangeBytes {
  std::uint64_t li = 0;  // received from ranks on this rank's shared-memory node
  std::uint64_t gi = 0;  // received from other nodes
};

// What a fetch returns: B's rows by reference (refs: n rows, the needed ones filled, the others
// empty), pointing into this rank's own block for its own rows and into the arrays below for the
// others. Moving it keeps the references valid; they also point into the block the fetch was
// given, which must outlive them.
template <class V>
struct FetchedRows {
  RowRefs<V> refs;
  std::vector<int> col;  // the rows received from the other ranks
  std::vector<V> val;
  std::vector<int> nodeCol;  // hierarchical fetch: the rows this rank fetched over Gi for its node
  std::vector<V> nodeVal;
};

class RowExchange {
 public:
  // my_rows: the global ids (in [0, n)) of this rank's rows, in local order. Collective.
  // ranks_per_node: the nodes are runs of that many consecutive ranks (to emulate nodes on one
  // machine, as "trident: ranks per group" does); 0: the MPI_COMM_TYPE_SHARED nodes. The fetch is
  // hierarchical when there are several nodes of equal size > 1, flat otherwise.
  RowExchange(const std::vector<long long>& my_rows, long long n, MPI_Comm comm, int ranks_per_node = 0);
  ~RowExchange();
  RowExchange(const RowExchange&) = delete;
  RowExchange& operator=(const RowExchange&) = delete;
  bool hierarchical() const { return node_comm_ != MPI_COMM_NULL; }
  // True when this rank owns all n rows as local rows 0..n-1 (one rank): T itself is the B of
  // the product and nothing has to be fetched.
  bool ownsAll() const { return ownsAll_; }
  // A: this rank's rows (local order), columns global ids. needed: ascending global row ids.
  // Returns B's n rows, the needed ones from their owners (own ones referenced in A, not copied),
  // the others empty. Collective: every rank calls it the same number of times.
  // M: Csr or CsrFloat.
  template <class M>
  FetchedRows<typename decltype(M::val)::value_type> fetch(const M& A, const std::vector<int>& needed,
                                                           ExchangeBytes& bytes) const;

 private:
  template <class M>
  FetchedRows<typename decltype(M::val)::value_type> flatFetch(const M& A, const std::vector<int>& needed,
                                                               ExchangeBytes& bytes) const;
  template <class M>
  FetchedRows<typename decltype(M::val)::value_type> hierarchicalFetch(const M& A, const std::vector<int>& needed,
                                                                       ExchangeBytes& bytes) const;

  MPI_Comm comm_;
  long long n_ = 0;
  bool ownsAll_ = false;
  std::vector<int> owner_;      // rank owning each global row
  std::vector<int> local_;      // local index of each global row on its owner
  std::vector<char> sameNode_;  // per rank: on this rank's node
  std::vector<int> nodeOf_, indexOf_;  // per rank: its node, and its index among the node's ranks
  // Hierarchical only: this node's ranks (by index), and the ranks of the same index on every
  // node (by node).
  MPI_Comm node_comm_ = MPI_COMM_NULL, peer_comm_ = MPI_COMM_NULL;
};

}  // namespace mcl
}  // namespace Trident
