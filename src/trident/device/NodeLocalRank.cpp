#include "trident/device/NodeLocalRank.hpp"

#include <algorithm>
#include <thread>
#include <utility>

namespace Trident {

namespace {
// This rank's rank in its MPI_COMM_TYPE_SHARED communicator, and that communicator's size.
std::pair<int, int> placeOnNode(MPI_Comm comm) {
  MPI_Comm node;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int r = 0, n = 1;
  MPI_Comm_rank(node, &r);
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return {r, n};
}
}  // namespace

int nodeLocalRank(MPI_Comm comm) { return placeOnNode(comm).first; }

double ranksPerCore(MPI_Comm comm) {
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  return std::max(1.0, placeOnNode(comm).second / cores);
}

}  // namespace Trident
