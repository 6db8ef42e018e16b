#include "trident/planner/BlockBalance.hpp"

#include <algorithm>
#include <numeric>

#include "trident/planner/MachineModel.hpp"

namespace Trident {
namespace planner {

bool groupsUneven(const std::vector<double>& group_work) {
  if (group_work.size() < 2) return false;
  const double total = std::accumulate(group_work.begin(), group_work.end(), 0.0);
  const double busiest = *std::max_element(group_work.begin(), group_work.end());
  return total > 0 && busiest > kBlockImbalance * total / static_cast<double>(group_work.size());
}

bool balanceBlocks(const std::vector<double>& group_work, const MachineModel& model, bool ranks_share_cores) {
  return !ranks_share_cores && groupsUneven(group_work) && kBytesPerEntryOfC / model.gi_bandwidth < model.trident_c_cost;
}

}  // namespace planner
}  // namespace Trident
