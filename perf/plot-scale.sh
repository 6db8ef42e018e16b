#!/usr/bin/env bash
# plot-scale.sh - trident-plan's scaling CSV -> the paper's Figure-10 trend as PNGs (gnuplot).
#
#   perf/plot-scale.sh scale.csv [OUTDIR]     (OUTDIR defaults to the CSV's directory)
#   e.g. for m in ca-CondMat_cc1 email-Enron cit-HepTh; do
#          build/apps/plan/trident-plan --matrix=../shared/matrices/$m.mtx --ranks=64,256,1024,4096 \
#            --ranks-per-group=4 --grid=square,auto --fetch=needed,whole --csv=scale.csv; done
#        perf/plot-scale.sh scale.csv docs
#
# Writes
#   OUTDIR/<csv name>-gi-per-node.png  Gi bytes received per node (the total over ranks / nodes)
#                                      against P, one panel per matrix, log-log: Tpetra 1D, SUMMA,
#                                      Trident square grid with whole slices (the paper's volume)
#                                      and Trident as "auto" runs it (its grid, needed rows);
#   OUTDIR/<csv name>-ratio.png        Trident (square, whole) / SUMMA against P per matrix, with
#                                      the model curve 2(sqrt(P/l)-1)/(2 sqrt(P)-l-1) (l = lambda),
#                                      which falls toward 1/sqrt(l).
# Columns are found by name in the header (trident-plan writes trident-bench's names plus grid
# and fetch); a (matrix, P, variant) seen twice keeps its last row.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
csv=$1
[ -s "$csv" ] || { echo "plot-scale.sh: $csv missing or empty" >&2; exit 1; }
outdir=${2:-$(dirname "$csv")}
mkdir -p "$outdir"
command -v gnuplot >/dev/null || { echo "plot-scale.sh: gnuplot not installed (apt-get install gnuplot-nox)" >&2; exit 1; }
base=$(basename "$csv" .csv)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# One data file per matrix: P, lambda, then MB per node of tpetra, summa, trident square/whole,
# trident auto (rows/needed or whatever auto's grid was with needed rows; "-" when missing).
awk -F, -v tmp="$tmp" '
NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
{
  m = $col["matrix"]; P = $col["P"] + 0; l = $col["ranks_per_group"] + 0
  nodes = (l > 0) ? P / l : P
  mb = $col["gi_bytes_total"] / nodes / 1e6
  a = $col["algo"]; v = ""
  if (a == "tpetra") v = "tpetra"
  else if (a == "summa") v = "summa"
  else if (a == "trident" && $col["grid"] == "square" && $col["fetch"] == "whole") v = "whole"
  else if (a == "trident" && $col["grid"] != "square" && $col["fetch"] == "needed") v = "auto"
  if (v == "") next
  key = m SUBSEP P
  if (!(key in seen)) { seen[key] = 1; order[++n] = key; lam[key] = l }
  val[key, v] = mb
  if (!(m in mats)) { mats[m] = 1; mlist[++nm] = m }
}
END {
  for (t = 1; t <= n; ++t) {
    split(order[t], k, SUBSEP)
    f = tmp "/" k[1] ".dat"
    printf "%s %s", k[2], lam[order[t]] >> f
    split("tpetra summa whole auto", vs, " ")
    for (j = 1; j <= 4; ++j) printf " %s", ((order[t], vs[j]) in val ? val[order[t], vs[j]] : "-") >> f
    printf "\n" >> f
  }
  for (t = 1; t <= nm; ++t) print mlist[t] > (tmp "/matrices")
}' "$csv"
[ -s "$tmp/matrices" ] || { echo "plot-scale.sh: no rows in $csv" >&2; exit 1; }
for f in "$tmp"/*.dat; do sort -n -k1,1 "$f" -o "$f"; done
mapfile -t mats < "$tmp/matrices"
n=${#mats[@]}

{
  echo "set terminal pngcairo size $((420 * n)),380 font ',9' noenhanced"
  echo "set output '$outdir/$base-gi-per-node.png'"
  echo "set multiplot layout 1,$n title 'Gi bytes received per node (mean over nodes), trident-plan'"
  echo "set logscale xy; set xlabel 'P (ranks)'; set ylabel 'MB per node'; set key bottom left; set grid"
  echo "set datafile missing '-'"
  for m in "${mats[@]}"; do
    d="$tmp/$m.dat"
    echo "set title '$m'"
    echo "plot '$d' u 1:3 w lp t 'Tpetra 1D', '' u 1:4 w lp t 'SUMMA', '' u 1:5 w lp t 'Trident square, whole slices', '' u 1:6 w lp t 'Trident as auto runs it'"
  done
  echo "unset multiplot"
  echo "set output '$outdir/$base-ratio.png'"
  echo "set terminal pngcairo size 560,400 font ',9' noenhanced"
  echo "unset logscale y; set logscale x; set yrange [0:1]; set key top right"
  echo "set title 'Trident (square, whole slices) / SUMMA, Gi bytes per node'"
  echo "set ylabel 'ratio'"
  # The model curve at the lambda of the first matrix's rows (the sweep's lambda).
  l=$(awk 'NR == 1 {print $2}' "$tmp/${mats[0]}.dat")
  plot="plot [48:6000] 2*(sqrt(x/$l)-1)/(2*sqrt(x)-$l-1) w l lw 2 t 'model, lambda = $l'"
  for m in "${mats[@]}"; do plot="$plot, '$tmp/$m.dat' u 1:(\$5/\$4) w lp t '$m'"; done
  echo "$plot"
} > "$tmp/plot.gp"
gnuplot "$tmp/plot.gp"
echo "plot-scale.sh: wrote $outdir/$base-gi-per-node.png, $outdir/$base-ratio.png"
