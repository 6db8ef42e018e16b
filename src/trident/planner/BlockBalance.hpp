#pragma once
// Whether Trident cuts A's row blocks by work instead of evenly ("trident: blocks" = "auto").
//
// On a power-law graph under Tpetra's even row map the groups' work differs far more than the
// ranks' inside a group: email-Enron's A*A at P = 4, lambda = 2 puts 1.76x the average work on
// group 0 (balanced slices inside each group leave its busiest rank at 1.77x, and the others wait
// 0.16 of 0.38 s). Only rows that change group can fix that, and they cross Gi twice: their A
// entries on the way in, their C entries on the way out. What a row of C costs its producer is
// the model's trident_c_cost per entry (plus its multiply-adds, at least one per entry); what it
// costs to send is 12 B per entry over Gi. So blocks are cut by work when the groups are uneven
// and the model's Gi carries an entry of C faster than the kernel produces one: on one machine
// (the defaults: 6 ns against 39 ns) they are; on the emulated cluster at 50 Mbit (2 us an entry)
// they are not, and there blocks cut by work were measured 14x slower on email-Enron (P = 16,
// lambda = 4: 2.1 -> 29.6 s) for all their balance (busiest rank 2.90 -> 1.02x the average).
// Nor where ranks outnumber their node's cores: the operating system already evens the work out
// (a rank with less to do hands its core to a neighbour), so balance buys nothing and the moved
// rows cost their copies. email-Enron at P = 4, lambda = 2 on 2 cores: even blocks 0.262 s
// (busiest rank 1.77x the average), blocks by work 0.291 s (1.01x); at P = 2, lambda = 1,
// balanced slices, one core each: 0.248-0.254 s even, 0.229-0.236 s by work (local 0.20 -> 0.13 s,
// wait 0.16 -> 0.02 s, out 0.036 -> 0.084 s: C's moved rows).
#include <vector>

namespace Trident {
namespace planner {

struct MachineModel;

// Groups whose busiest one has at most this times the average work keep even blocks: the issue's
// target for power-law products is 1.2 on the busiest rank, and slices inside a group add a few
// percent to their group's.
constexpr double kBlockImbalance = 1.1;

// Bytes per entry of C sent to its owner (column index and value).
constexpr double kBytesPerEntryOfC = 12.0;

// The busiest group has over kBlockImbalance times the average work (group_work: the work, entries
// + multiply-adds of A's rows, of each group under even blocks). The same on every rank: the
// adapter asks the rest (one collective) only then.
bool groupsUneven(const std::vector<double>& group_work);

// groupsUneven, and the rest of the rule; ranks_share_cores: some node runs more ranks than it
// has cores.
bool balanceBlocks(const std::vector<double>& group_work, const MachineModel& model, bool ranks_share_cores);

}  // namespace planner
}  // namespace Trident
