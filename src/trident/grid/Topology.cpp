#include "trident/grid/Topology.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "trident/core/Errors.hpp"

namespace Trident {

Topology::Topology(MPI_Comm world, int ranks_per_group) : world_(world) {
  MPI_Comm_size(world, &P_);
  MPI_Comm_rank(world, &rank_);

  int color = 0, key = rank_;
  if (ranks_per_group <= 0) {
    // Default: the node. Name each shared-memory group by its lowest world rank.
    MPI_Comm shared;
    MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &shared);
    int shared_size = 0, lowest = rank_;
    MPI_Comm_size(shared, &shared_size);
    MPI_Allreduce(&rank_, &lowest, 1, MPI_INT, MPI_MIN, shared);
    MPI_Comm_free(&shared);
    int min_size = 0, max_size = 0;
    MPI_Allreduce(&shared_size, &min_size, 1, MPI_INT, MPI_MIN, world);
    MPI_Allreduce(&shared_size, &max_size, 1, MPI_INT, MPI_MAX, world);
    requireAll(min_size == max_size,
               "Trident: the shared-memory groups (nodes) have unequal sizes (" + std::to_string(min_size) +
                   " to " + std::to_string(max_size) +
                   " ranks); set \"trident: ranks per group\" to a lambda that divides P");
    lambda_ = shared_size;
    color = lowest;
  } else {
    requireAll(P_ % ranks_per_group == 0,
               "Trident: \"trident: ranks per group\" = " + std::to_string(ranks_per_group) +
                   " does not divide the number of ranks P = " + std::to_string(P_));
    lambda_ = ranks_per_group;
    color = rank_ / lambda_;
  }

  MPI_Comm_split(world, color, key, &li_comm_);
  MPI_Comm_rank(li_comm_, &k_);

  // Groups are numbered in the order of their lowest world rank.
  std::vector<int> colors(P_);
  MPI_Allgather(&color, 1, MPI_INT, colors.data(), 1, MPI_INT, world);
  std::vector<int> distinct = colors;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  group_of_.resize(P_);
  for (int r = 0; r < P_; ++r)
    group_of_[r] = static_cast<int>(std::lower_bound(distinct.begin(), distinct.end(), colors[r]) - distinct.begin());
  group_ = group_of_[rank_];

  std::vector<int> ks(P_);
  MPI_Allgather(&k_, 1, MPI_INT, ks.data(), 1, MPI_INT, world);
  world_of_.assign(P_, -1);
  for (int r = 0; r < P_; ++r) world_of_[group_of_[r] * lambda_ + ks[r]] = r;

  MPI_Comm_split(world, k_, group_, &gi_comm_);
}

Topology::~Topology() {
  // Cached topologies die with the program, possibly after MPI_Finalize.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (li_comm_ != MPI_COMM_NULL) MPI_Comm_free(&li_comm_);
  if (gi_comm_ != MPI_COMM_NULL) MPI_Comm_free(&gi_comm_);
}

std::shared_ptr<const Topology> cachedTopology(MPI_Comm world, int ranks_per_group) {
  struct Entry {
    MPI_Comm dup;
    int ranks_per_group;
    std::shared_ptr<const Topology> topo;
  };
  static std::vector<Entry> cache;
  // Every rank takes the same branch: congruence is a property of the communicators, the same on
  // all ranks of world.
  for (auto& e : cache) {
    if (e.ranks_per_group != ranks_per_group) continue;
    int result = MPI_UNEQUAL;
    MPI_Comm_compare(world, e.dup, &result);
    if (result == MPI_CONGRUENT || result == MPI_IDENT) return e.topo;
  }
  Entry e;
  MPI_Comm_dup(world, &e.dup);
  e.ranks_per_group = ranks_per_group;
  e.topo = std::make_shared<const Topology>(e.dup, ranks_per_group);
  if (cache.size() >= 8) cache.erase(cache.begin());  // dups of old entries stay alive with them
  cache.push_back(e);
  return e.topo;
}

void nearSquare(int n, int& rows, int& cols) {
  rows = 1;
  for (int d = 1; static_cast<long long>(d) * d <= n; ++d)
    if (n % d == 0) rows = d;
  cols = n / rows;
}

}  // namespace Trident
