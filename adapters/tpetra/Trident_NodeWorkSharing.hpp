#pragma once
// The row-wise product's kernel with its work shared inside each group (node): a rank whose rows
// weigh more than its group's average hands the rows past its cut (NodeWorkSplit), with the rows
// of B they read, to the ranks of its group that take them; they run the same kernel on them and
// send the rows of C back. Everything travels over Li, and every row of C is made and kept inside
// its owner's node. The rows come back summed in the same order, so C is bit for bit what the
// owner would have made.
#include <trident/grid/Topology.hpp>
#include <trident/local/Csr.hpp>
#include <trident/local/CsrView.hpp>
#include <trident/stats/MultiplyStats.hpp>

#include "Trident_ResultAssembly.hpp"

namespace Trident {
namespace tpetra {

// C = a * b for this rank's rows (b's rows stacked as the row-wise product reads them), entries in
// sink, rows sorted; returns C's shape (row offsets). With share (the same on every rank) and
// groups of more than one rank, collective over topo.li_comm(): the group's multiply-adds are
// all-gathered, and where the group is balanced (nodeWorkWorthSharing) every rank runs its own
// rows. Times go into the local phase, moved bytes into the Li counts, the multiply-adds this
// rank ran (its own and the others') into local_flops.
Csr multiplySharingNodeWork(const CsrView& a, const StackedCsrView& b, FinalArraysSink& sink, const Topology& topo,
                            bool share, MultiplyStats& stats);

}  // namespace tpetra
}  // namespace Trident
