#!/usr/bin/env bash
# plot.sh - trident-bench CSV -> PNG plots with gnuplot (Debian: gnuplot-nox).
#
#   perf/plot.sh results.csv [OUTDIR]        (OUTDIR defaults to the CSV's directory)
#
# Writes
#   OUTDIR/<csv name>-time.png  time per algorithm per case, stacked phases in, gi, li, local,
#                               out (+ "other": time_s minus the phases, e.g. Tpetra's own
#                               multiply, which reports no phases) - the paper's Figure 9;
#   OUTDIR/<csv name>-gi.png    Gi bytes received per rank (max over ranks) per algorithm per
#                               case, log scale - the paper's Figure 10.
# A "case" is one (matrix, op, P, ranks_per_group, permute); where the CSV holds it several
# times (appended runs), the last row per algorithm wins.
set -euo pipefail
[ $# -ge 1 ] || { sed -n '2,4p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
csv=$1
[ -s "$csv" ] || { echo "plot.sh: $csv missing or empty" >&2; exit 1; }
outdir=${2:-$(dirname "$csv")}
mkdir -p "$outdir"
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not installed (apt-get install gnuplot-nox)" >&2; exit 1; }
base=$(basename "$csv" .csv)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Columns by name (the header), so added columns do not break the script.
awk -F, -v tmp="$tmp" '
NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
{
  key = $col["matrix"] " " $col["op"] " P=" $col["P"] " λ=" $col["ranks_per_group"]
  if ($col["permute"] != "none") key = key " " $col["permute"]
  if (!(key in seen)) { seen[key] = 1; order[++ncase] = key }
  a = $col["algo"]
  if (!(a in aseen)) { aseen[a] = 1 }
  k = key SUBSEP a
  t = $col["time_s"] + 0
  ph = $col["time_in_s"] " " $col["time_gi_s"] " " $col["time_li_s"] " " $col["time_local_s"] " " $col["time_out_s"]
  sum = $col["time_in_s"] + $col["time_gi_s"] + $col["time_li_s"] + $col["time_local_s"] + $col["time_out_s"]
  other = t - sum; if (other < 0) other = 0
  phases[k] = ph " " other
  gi[k] = $col["gi_bytes_max"] / 1e6
  has[k] = 1
}
END {
  nalg = split("tpetra summa trident", algs, " ")
  # time: one block (gnuplot index) per case, one row per algorithm
  for (c = 1; c <= ncase; ++c) {
    for (j = 1; j <= nalg; ++j) {
      k = order[c] SUBSEP algs[j]
      if (k in has) printf "%s %s\n", algs[j], phases[k] > (tmp "/time.dat")
      else printf "%s 0 0 0 0 0 0\n", algs[j] > (tmp "/time.dat")
    }
    printf "\n\n" > (tmp "/time.dat")
    printf "%s\n", order[c] > (tmp "/cases.txt")
    # gi: one row per case, one column per algorithm (NaN where missing)
    line = "\"" order[c] "\""
    for (j = 1; j <= nalg; ++j) {
      k = order[c] SUBSEP algs[j]
      v = (k in has) ? gi[k] : "NaN"
      if (v == 0) v = "NaN"  # log scale: no Gi traffic (e.g. one group) is not drawn
      if (v != "NaN" && (gmin == "" || v < gmin)) gmin = v
      line = line " " v
    }
    print line > (tmp "/gi.dat")
  }
  # bars start a decade below the smallest value (log scale)
  ymin = (gmin == "") ? 1e-3 : 10 ^ (int(log(gmin) / log(10) + 100) - 100 - 1)
  printf "%g\n", ymin > (tmp "/gi.ymin")
}' "$csv"
[ -s "$tmp/cases.txt" ] || { echo "plot.sh: no data rows in $csv" >&2; exit 1; }
ncase=$(wc -l < "$tmp/cases.txt")

# Figure 9: one panel per case (own time scale), bars = algorithms, stacked phases.
ncol=$(( ncase < 4 ? ncase : 4 ))
nrow=$(( (ncase + ncol - 1) / ncol ))
W=$((380 * ncol + 90)) H=$((320 * nrow + 50))
# margins in screen fractions from pixels: 60 px left, 20 px right, 35 px bottom, 55 px top
margins=$(awk -v W=$W -v H=$H 'BEGIN { printf "%.4f,%.4f,%.4f,%.4f", 60 / W, 1 - 20 / W, 35 / H, 1 - 55 / H }')
spacing=$(awk -v W=$W -v H=$H 'BEGIN { printf "%.4f,%.4f", 70 / W, 75 / H }')
{
  echo "set terminal pngcairo size $W,$H font 'Sans,10' noenhanced"
  echo "set output '$outdir/$base-time.png'"
  echo "set multiplot layout $nrow,$ncol title 'Time per algorithm: median over trials of the max over ranks, by phase (other = time_s minus the phases)' margins $margins spacing $spacing"
  echo "set style data histograms"
  echo "set style histogram rowstacked"
  echo "set style fill solid 0.85 border -1"
  echo "set boxwidth 0.7"
  echo "set ylabel 'time [s]' offset 1,0"
  echo "set yrange [0:*]"
  echo "set grid ytics"
  echo "set xtics scale 0"
  echo "set linetype 1 lc rgb '#4e79a7'"
  echo "set linetype 2 lc rgb '#e15759'"
  echo "set linetype 3 lc rgb '#f28e2b'"
  echo "set linetype 4 lc rgb '#59a14f'"
  echo "set linetype 5 lc rgb '#b07aa1'"
  echo "set linetype 6 lc rgb '#bab0ac'"
  names=(in gi li local out other)
  i=0
  while IFS= read -r c; do
    echo "set title \"$c\""
    if [ $i -eq 0 ]; then echo "set key inside left top vertical font ',8' samplen 1.5"; else echo "unset key"; fi
    printf "plot '%s' index %d using 2:xtic(1) title '%s' lt 1" "$tmp/time.dat" $i "${names[0]}"
    for p in 1 2 3 4 5; do printf ", '' index %d using %d title '%s' lt %d" $i $((p + 2)) "${names[$p]}" $((p + 1)); done
    echo
    i=$((i + 1))
  done < "$tmp/cases.txt"
  echo "unset multiplot"
} > "$tmp/time.gp"
gnuplot "$tmp/time.gp"

# Figure 10: Gi bytes per rank (max), clustered by case, log scale.
width=$((260 + 110 * ncase)); [ $width -lt 700 ] && width=700; [ $width -gt 3000 ] && width=3000
cat > "$tmp/gi.gp" <<GP
set terminal pngcairo size $width,560 font 'Sans,10' noenhanced
set output '$outdir/$base-gi.png'
set title 'Gi (inter-group) bytes received per rank, max over ranks'
set ylabel 'MB (log scale)'
set logscale y
set yrange [$(cat "$tmp/gi.ymin"):*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set key outside right top vertical
set grid ytics
set xtics rotate by 30 right font ',9' scale 0
set bmargin 9
set linetype 1 lc rgb '#9c755f'
set linetype 2 lc rgb '#76b7b2'
set linetype 3 lc rgb '#e15759'
plot '$tmp/gi.dat' using 2:xtic(1) title 'tpetra', '' using 3 title 'summa', '' using 4 title 'trident'
GP
gnuplot "$tmp/gi.gp"
echo "plot.sh: wrote $outdir/$base-time.png $outdir/$base-gi.png"
