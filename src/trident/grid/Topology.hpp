#pragma once
// The machine as Trident sees it: P ranks in G groups of lambda ranks ("ranks_per_group") that
// share a fast link Li (NVLink, shared memory); groups talk over the slow link Gi.
//
// Each rank is (group, k), k = its index inside the group. Two communicators follow from that:
//   li_comm   - the lambda ranks of my group (where the Allgatherv runs)
//   gi_comm   - the G ranks with my k, one per group, ordered by group (where tiles are fetched)
#include <mpi.h>
#include <memory>
#include <vector>

namespace Trident {

class Topology {
 public:
  // ranks_per_group <= 0: lambda = size of the MPI_COMM_TYPE_SHARED groups (the node), which
  // must all be equal. Otherwise groups are consecutive blocks of ranks_per_group world ranks.
  // Collective over world; throws InvalidInput on every rank if lambda does not divide P or
  // the shared-memory groups are unequal.
  Topology(MPI_Comm world, int ranks_per_group);
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  MPI_Comm world() const { return world_; }
  MPI_Comm li_comm() const { return li_comm_; }
  MPI_Comm gi_comm() const { return gi_comm_; }
  int P() const { return P_; }
  int rank() const { return rank_; }
  int ranks_per_group() const { return lambda_; }
  int groups() const { return P_ / lambda_; }
  int group() const { return group_; }
  int k() const { return k_; }
  int group_of(int world_rank) const { return group_of_[world_rank]; }
  int world_rank_of(int group, int k) const { return world_of_[group * lambda_ + k]; }
  bool same_group(int world_a, int world_b) const { return group_of_[world_a] == group_of_[world_b]; }
  // Group g is world ranks g * lambda .. g * lambda + lambda - 1, in order (what owner slices need).
  bool groups_consecutive() const {
    for (std::size_t w = 0; w < world_of_.size(); ++w)
      if (world_of_[w] != static_cast<int>(w)) return false;
    return true;
  }
  // The fewest ranks that share a core on any node (at least 1: ranksPerCore), the same on every
  // rank. Where ranks time-share cores the operating system hands a lighter rank's core to a
  // busier one, so a busiest rank costs less than on a core of its own (auto's model, Estimate.hpp).
  double ranks_per_core() const { return ranks_per_core_; }
  // Some node runs more ranks than it has cores ("trident: blocks" then keeps even blocks).
  bool ranks_share_cores() const { return ranks_share_cores_; }
  // The ranks_per_group it was built for (0 or less: the node), the key of cachedTopology.
  int requested_ranks_per_group() const { return requested_; }

 private:
  MPI_Comm world_ = MPI_COMM_NULL;
  MPI_Comm li_comm_ = MPI_COMM_NULL;
  MPI_Comm gi_comm_ = MPI_COMM_NULL;
  int requested_ = 0;
  int P_ = 1, rank_ = 0, lambda_ = 1, group_ = 0, k_ = 0;
  double ranks_per_core_ = 1;
  bool ranks_share_cores_ = false;
  std::vector<int> group_of_;  // world rank -> group
  std::vector<int> world_of_;  // group * lambda + k -> world rank
};

// The topology of (world, ranks_per_group), built once and reused: splitting communicators is
// collective and costs more than a small multiply. A cached entry is reused only while its
// duplicate of `world` is still congruent with the caller's communicator (same ranks, same
// order), so a freed and recycled communicator handle never aliases a stale topology.
// Collective over world (every rank must call it with the same arguments). The cache keeps the
// last 8 topologies; the communicators of one (its duplicate of world, li_comm, gi_comm) are
// freed when the last holder releases it, and at the latest inside MPI_Finalize.
std::shared_ptr<const Topology> cachedTopology(MPI_Comm world, int ranks_per_group);

// Near-square factorization rows x cols = n with rows <= cols (rows = largest divisor <= sqrt n).
void nearSquare(int n, int& rows, int& cols);

}  // namespace Trident
