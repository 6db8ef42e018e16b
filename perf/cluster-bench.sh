#!/usr/bin/env bash
# cluster-bench.sh - run trident-bench on an emulated hierarchical cluster (one machine).
#
#   sudo perf/cluster-bench.sh NODES RANKS_PER_NODE RATE [trident-bench args...]
#   e.g. sudo perf/cluster-bench.sh 4 4 200mbit --matrix=../shared/matrices/email-Enron.mtx --csv=cluster.csv
#
# What it emulates (through ../shared/netemu/cluster.sh, which needs root):
#   NODES "nodes", each a network namespace (own hostname, own boot_id) holding RANKS_PER_NODE
#   MPI ranks, plus a head namespace that runs mpirun. Ranks on the same node talk through Open
#   MPI's shared-memory BTL (vader: GB/s, the fast Li link); ranks on different nodes talk TCP
#   over veth links through one bridge, each link shaped to RATE in both directions with tbf
#   (the slow Gi link; measured ~24 MB/s per node at 200mbit). Only bandwidth is emulated: this
#   kernel has no netem, so there is no added latency. All nodes share the same cores, so
#   compute does not scale with NODES; volumes are exact, times are indicative.
#   One-sided MPI between nodes uses osc=sm,ucx over the shaped interface (cluster.sh sets it).
#
# Groups: trident-bench is started WITHOUT --ranks-per-group, so the drop-in uses its default,
# the MPI_COMM_TYPE_SHARED groups; Open MPI sees the namespaces as different hosts, so those
# groups are exactly the emulated nodes (lambda = RANKS_PER_NODE) with no override. Ranks are
# placed by slot, node by node, so MPI_COMM_WORLD order is node-major (what SUMMA's row-major
# grid placement sees). Passing --ranks-per-group yourself overrides this (a warning is printed).
#
# The cluster is always torn down on exit (trap EXIT), also after errors or Ctrl-C. It uses its
# own namespace prefix (NEMU_PREFIX, default tb<pid>) and state dir, so it does not disturb other
# emulated clusters on the machine.
# Environment: TRIDENT_BENCH (path of the trident-bench binary; default: the first of
# build/perf/trident-bench, build-*/perf/trident-bench), NEMU_* / OMPI_MCA_* as cluster.sh documents.
set -Eeuo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
cluster=$(readlink -f "$repo/../shared/netemu/cluster.sh")

usage() { sed -n '2,5p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 3 ] || usage
nodes=$1 lambda=$2 rate=$3
shift 3
[[ $nodes =~ ^[1-9][0-9]*$ ]] || { echo "cluster-bench: NODES must be a positive integer, not '$nodes'" >&2; exit 2; }
[[ $lambda =~ ^[1-9][0-9]*$ ]] || { echo "cluster-bench: RANKS_PER_NODE must be a positive integer, not '$lambda'" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "cluster-bench: must run as root (network namespaces, tc)" >&2; exit 2; }
[ -x "$cluster" ] || [ -f "$cluster" ] || { echo "cluster-bench: $cluster not found" >&2; exit 2; }

bench=${TRIDENT_BENCH:-}
if [ -z "$bench" ]; then
  for c in "$repo"/build/perf/trident-bench "$repo"/build-*/perf/trident-bench; do
    [ -x "$c" ] && { bench=$c; break; }
  done
fi
[ -n "$bench" ] && [ -x "$bench" ] || { echo "cluster-bench: trident-bench not built (set TRIDENT_BENCH)" >&2; exit 2; }
bench=$(readlink -f "$bench")
for a in "$@"; do
  case $a in --ranks-per-group*) echo "cluster-bench: WARNING: $a overrides the emulated nodes (MPI_COMM_TYPE_SHARED) as groups" >&2 ;; esac
done

export NEMU_PREFIX=${NEMU_PREFIX:-tb$$}
export NEMU_STATE=${NEMU_STATE:-/run/netemu-$NEMU_PREFIX}
trap 'bash "$cluster" down || true' EXIT
trap 'exit 130' INT TERM

echo "cluster-bench: $nodes nodes x $lambda ranks, Gi = TCP at $rate per node link, Li = shared memory; $bench $*" >&2
bash "$cluster" up "$nodes" "$lambda" "$rate"
# Ranks run in mpirun's working directory (this one): relative --matrix/--csv paths work.
# Open MPI 5 and later (Trilinos 16.1's root has 6.0) launch through PRRTE, which reads neither
# the OMPI_MCA_ launcher settings cluster.sh exports nor the vader BTL's old name: give it the
# same agent, hostfile, BTLs and (no) binding in its own terms.
launch=()
if mpirun --version 2>/dev/null | grep -Eq 'Open MPI\)? ([5-9]|[1-9][0-9])\.'; then
  state=${NEMU_STATE}
  launch=(--prtemca plm_ssh_agent "$cluster _agent" --hostfile "$state/hostfile" --mca btl self,sm,tcp --bind-to none)
fi
bash "$cluster" run -- -np $((nodes * lambda)) "${launch[@]}" -wdir "$PWD" --mca btl_base_warn_component_unused 0 "$bench" "$@"
