#!/usr/bin/env bash
# cluster-sweep.sh - bandwidth sweep on the emulated cluster: cluster-bench.sh once per (rate,
# matrix), one CSV, Trident's bound per rate, and plots.
#
#   perf/cluster-sweep.sh OUTDIR NODES RANKS_PER_NODE "RATES" MATRIX... [-- trident-bench args]
#   e.g. flock /tmp/netemu.lock perf/cluster-sweep.sh sweep 4 4 "25mbit 50mbit 200mbit 1000mbit" \
#          ../shared/matrices/ca-CondMat_cc1.mtx ../shared/matrices/pubmed.mtx -- --trials=3
#
# Writes
#   OUTDIR/sweep.csv        trident-bench's rows with the rate in front (rate_mbit,...): time per
#                           algorithm and its phases (in, gi, li, local, out), bytes per link;
#   OUTDIR/bound.csv        per matrix and rate: Tpetra, SUMMA and Trident times, Trident's Gi bytes
#                           per node (received, total over ranks / NODES: the mean node; the
#                           busiest node can carry more), the time those bytes need at the rate, and
#                           the bound = that time + Trident's time at the highest rate of the sweep
#                           (issue 10: Trident's time should stay within 1.5x of it); and the same
#                           with an upper estimate of the busiest node's bytes (ranks per node x
#                           the max over ranks), and with the busiest node's exact bytes from
#                           trident-plan (OUTDIR/plan.csv; TRIDENT_PLAN, default beside trident-bench);
#   OUTDIR/sweep-time.png   time per algorithm against the rate, one panel per matrix, with the bound;
#   OUTDIR/sweep-time-*.png plot.sh's stacked phase breakdown per rate.
# Each (rate, matrix) is one trident-bench invocation (all algorithms side by side, median of
# --trials). Take the emulator's lock around the whole sweep (it tears the cluster down after each
# run).
set -Eeuo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
usage() { sed -n '2,6p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
[ $# -ge 5 ] || usage
out=$1 nodes=$2 lambda=$3 rates=$4
shift 4
matrices=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do matrices+=("$(readlink -f "$1")"); shift; done
[ "${1:-}" = "--" ] && shift
mkdir -p "$out"
out=$(readlink -f "$out")
rm -f "$out/sweep.csv" "$out/bound.csv"

mbit() { # 50mbit / 1gbit / 1000mbit -> Mbit/s
  echo "$1" | awk '{ r = tolower($0); n = r + 0; u = r; sub(/^[0-9.]+/, "", u)
    m = (u == "kbit") ? 1e-3 : (u == "mbit") ? 1 : (u == "gbit") ? 1e3 : -1
    if (m < 0) { print "cluster-sweep: unknown rate unit in " $0 > "/dev/stderr"; exit 1 } print n * m }'
}

for rate in $rates; do
  r=$(mbit "$rate")
  for m in "${matrices[@]}"; do
    one="$out/run-$rate-$(basename "$m" .mtx).csv"
    rm -f "$one"
    "$here/cluster-bench.sh" "$nodes" "$lambda" "$rate" --matrix="$m" --csv="$one" "$@" \
      > "$out/run-$rate-$(basename "$m" .mtx).log" 2>&1 || { echo "cluster-sweep: $rate $m failed (see its .log)" >&2; continue; }
    if [ ! -s "$out/sweep.csv" ]; then sed -n '1s/^/rate_mbit,/p' "$one" > "$out/sweep.csv"; fi
    tail -n +2 "$one" | sed "s/^/$r,/" >> "$out/sweep.csv"
    echo "cluster-sweep: $rate $(basename "$m"): $(awk -F, 'NR > 1 { printf "%s %.3f s  ", $1, $7 }' "$one")" >&2
  done
done
[ -s "$out/sweep.csv" ] || { echo "cluster-sweep: no run succeeded" >&2; exit 1; }

# The busiest node's Trident Gi bytes, exactly: trident-plan (one process) for the same matrix,
# P and lambda, and the run's --grid/--permute. The runs report only the max and total over
# ranks, which bound a node's bytes from below (mean) and above (lambda x the busiest rank).
# Used only where the plan's total is within 1 % of the run's (the same grid and fetch; the plan
# cuts balanced slices, the run's "trident: slices" = "auto" may take owner slices, which moves a
# few hundred bytes between ranks), else left empty.
plan=${TRIDENT_PLAN:-$(dirname "$(readlink -f "${TRIDENT_BENCH:-$here/../build/perf/trident-bench}")")/../apps/plan/trident-plan}
planArgs=()
for a in "$@"; do case $a in --grid=*|--permute=*) planArgs+=("$a") ;; esac; done
rm -f "$out/plan.csv"
if [ -x "$plan" ]; then
  for m in "${matrices[@]}"; do
    "$plan" --matrix="$m" --ranks=$((nodes * lambda)) --ranks-per-group="$lambda" --algos=trident "${planArgs[@]}" \
      --csv="$out/plan.csv" > "$out/plan-$(basename "$m" .mtx).log" 2>&1 ||
      echo "cluster-sweep: trident-plan failed on $m (see its plan-*.log); no exact node bytes" >&2
  done
else
  echo "cluster-sweep: $plan not built (TRIDENT_PLAN); no exact node bytes" >&2
fi
[ -s "$out/plan.csv" ] || echo "algo" > "$out/plan.csv"

# The bound per (matrix, rate), from the columns by name.
awk -F, -v nodes="$nodes" '
FNR == 1 && FILENAME ~ /plan.csv$/ { for (i = 1; i <= NF; ++i) pc[$i] = i; next }
FILENAME ~ /plan.csv$/ { if ($pc["chosen"] == 1) { pn[$pc["matrix"]] = $pc["gi_bytes_max_node"]; pt[$pc["matrix"]] = $pc["gi_bytes_total"] }; next }
FNR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
{ k = $c["matrix"] SUBSEP $c["rate_mbit"]; t[$c["algo"], k] = $c["time_s"]; keys[k] = 1
  if ($c["algo"] == "trident") { g[k] = $c["gi_bytes_total"] / nodes; gu[k] = $c["gi_bytes_max"] * $c["ranks_per_group"]; gt_run[k] = $c["gi_bytes_total"] }
  if ($c["rate_mbit"] + 0 > top[$c["matrix"]] + 0) top[$c["matrix"]] = $c["rate_mbit"] }
END {
  print "matrix,rate_mbit,tpetra_s,summa_s,trident_s,trident_gi_bytes_per_node,gi_time_s,bound_s,trident_over_bound,summa_over_trident,tpetra_over_trident,trident_gi_bytes_busiest_node_upper,bound_upper_s,trident_over_bound_upper,trident_gi_bytes_busiest_node_planned,bound_node_s,trident_over_bound_node"
  for (k in keys) {
    split(k, p, SUBSEP); mtx = p[1]; r = p[2]
    fast = t["trident", mtx SUBSEP top[mtx]]
    gt = g[k] * 8 / (r * 1e6); b = gt + fast; bu = gu[k] * 8 / (r * 1e6) + fast
    d = pt[mtx] - gt_run[k]; if (d < 0) d = -d
    exact = (mtx in pn) && d <= 0.01 * gt_run[k]
    bn = exact ? pn[mtx] * 8 / (r * 1e6) + fast : 0
    printf "%s,%s,%s,%s,%s,%.0f,%.4f,%.4f,%.3f,%.3f,%.3f,%.0f,%.4f,%.3f,%s,%s,%s\n", mtx, r, t["tpetra", k], t["summa", k], t["trident", k], g[k], gt, b,
      (b > 0 ? t["trident", k] / b : 0), (t["trident", k] > 0 ? t["summa", k] / t["trident", k] : 0),
      (t["trident", k] > 0 ? t["tpetra", k] / t["trident", k] : 0), gu[k], bu, (bu > 0 ? t["trident", k] / bu : 0),
      (exact ? pn[mtx] : ""), (exact ? sprintf("%.4f", bn) : ""), ((exact && bn > 0) ? sprintf("%.3f", t["trident", k] / bn) : "")
  } }' "$out/plan.csv" "$out/sweep.csv" | { IFS= read -r h; echo "$h"; sort -t, -k1,1 -k2,2n; } > "$out/bound.csv"
column -s, -t "$out/bound.csv" >&2 || cat "$out/bound.csv" >&2

command -v gnuplot >/dev/null || { echo "cluster-sweep: gnuplot not installed, no plots" >&2; exit 0; }
# Phase breakdown per rate (plot.sh's stacked bars), one CSV per rate.
for rate in $(tail -n +2 "$out/sweep.csv" | cut -d, -f1 | sort -nu); do
  { head -1 "$out/sweep.csv" | cut -d, -f2-; awk -F, -v r="$rate" 'NR > 1 && $1 == r' "$out/sweep.csv" | cut -d, -f2-; } \
    > "$out/sweep-${rate}mbit.csv"
  bash "$here/plot.sh" "$out/sweep-${rate}mbit.csv" "$out" >/dev/null 2>&1 || true
done
# Time against rate per matrix: one data file per (matrix, algorithm) and the bound.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk -F, -v tmp="$tmp" 'NR > 1 { f = tmp "/" $1 ".dat"; print $2, $3, $4, $5, $8 >> f }' "$out/bound.csv"
n=$(ls "$tmp"/*.dat | wc -l)
{
  echo "set terminal pngcairo size $((480 * n)),420 noenhanced"
  echo "set output '$out/sweep-time.png'"
  echo "set multiplot layout 1,$n"
  echo "set logscale x; set xlabel 'Gi rate per node link [Mbit/s]'; set ylabel 'time [s]'; set key top right"
  for d in "$tmp"/*.dat; do
    echo "set title '$(basename "$d" .dat)'"
    echo "plot '$d' u 1:2 w lp t 'tpetra', '' u 1:3 w lp t 'summa', '' u 1:4 w lp t 'trident', '' u 1:5 w l dt 2 t 'bound (Gi bytes/rate + fastest time)'"
  done
  echo "unset multiplot"
} | gnuplot
echo "cluster-sweep: wrote $out/sweep.csv, $out/bound.csv, $out/sweep-time.png" >&2
