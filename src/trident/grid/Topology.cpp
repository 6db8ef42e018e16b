#include "trident/grid/Topology.hpp"

#include <algorithm>
#include <memory>
#include <string>

#include "trident/core/Errors.hpp"
#include "trident/device/NodeLocalRank.hpp"

namespace Trident {

Topology::Topology(MPI_Comm world, int ranks_per_group) : world_(world), requested_(ranks_per_group) {
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

  // The fewest and (negated) the most ranks per core of any node, in one allreduce.
  const double mine = ranksPerCore(world);
  double fewestMost[2] = {mine, -mine};
  MPI_Allreduce(MPI_IN_PLACE, fewestMost, 2, MPI_DOUBLE, MPI_MIN, world);
  ranks_per_core_ = fewestMost[0];
  ranks_share_cores_ = -fewestMost[1] > 1.0;
}

namespace {

// Communicators are freed only while MPI runs: a Topology can outlive MPI_Finalize (a static, a
// leaked shared_ptr), and freeing then is an error.
void freeComm(MPI_Comm& c) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized && c != MPI_COMM_NULL) MPI_Comm_free(&c);
  c = MPI_COMM_NULL;
}

}  // namespace

Topology::~Topology() {
  freeComm(li_comm_);
  freeComm(gi_comm_);
}

namespace {

std::vector<std::shared_ptr<const Topology>>& topologyCache() {
  static std::vector<std::shared_ptr<const Topology>> cache;
  return cache;
}

// MPI_Finalize deletes the attributes of MPI_COMM_SELF before anything else, with MPI still fully
// usable: the cache empties itself there, so the communicators of topologies nobody holds are
// freed before MPI goes away (the static cache itself is destroyed only after main).
int clearCacheAtFinalize(MPI_Comm, int, void*, void*) {
  topologyCache().clear();
  return MPI_SUCCESS;
}

void clearCacheAtFinalizeOnce() {
  static bool registered = false;
  if (registered) return;
  registered = true;
  int key = MPI_KEYVAL_INVALID;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, clearCacheAtFinalize, &key, nullptr);
  MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr);
  MPI_Comm_free_keyval(&key);  // the attribute keeps it alive until MPI_Finalize deletes it
}

}  // namespace

std::shared_ptr<const Topology> cachedTopology(MPI_Comm world, int ranks_per_group) {
  auto& cache = topologyCache();
  clearCacheAtFinalizeOnce();
  // Every rank takes the same branch: congruence is a property of the communicators, the same on
  // all ranks of world.
  for (const auto& t : cache) {
    if (t->requested_ranks_per_group() != ranks_per_group) continue;
    int result = MPI_UNEQUAL;
    MPI_Comm_compare(world, t->world(), &result);
    if (result == MPI_CONGRUENT || result == MPI_IDENT) return t;
  }
  // The topology works on its own duplicate of world (its tags never meet the caller's) and owns
  // it: the duplicate is freed with the topology, when the last holder lets go of it, whether
  // the cache evicted it long before or MPI_Finalize empties the cache.
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(world, &dup);
  Topology* raw = nullptr;
  try {
    raw = new Topology(dup, ranks_per_group);
  } catch (...) {
    freeComm(dup);
    throw;
  }
  std::shared_ptr<const Topology> topo(raw, [dup](const Topology* t) mutable {
    delete t;
    freeComm(dup);
  });
  if (cache.size() >= 8) cache.erase(cache.begin());
  cache.push_back(topo);
  return topo;
}

void nearSquare(int n, int& rows, int& cols) {
  rows = 1;
  for (int d = 1; static_cast<long long>(d) * d <= n; ++d)
    if (n % d == 0) rows = d;
  cols = n / rows;
}

}  // namespace Trident
