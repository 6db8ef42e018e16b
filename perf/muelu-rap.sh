#!/usr/bin/env bash
# MueLu's RAP set-up time, stock RAPFactory against TridentRAPFactory, alternating in one run so
# that both see the same machine load: median of the RAP time over the rounds, their ratio, the
# algorithms the Trident side ran and the CG iterations of both (they must be equal).
#
#   perf/muelu-rap.sh BUILD_DIR NP LAMBDA ROUNDS PROBLEM_ARGS...
#   perf/muelu-rap.sh build 4 2 5 --laplace=2d --n=400
#   perf/muelu-rap.sh build 4 2 5 --matrix=test/data/bcsstk13.mtx   (plain .mtx; gunzip the .gz first)
#
# Extra trident-muelu-solve options can follow the problem (e.g. --algorithm=tpetra).
# Ranks are bound to cores round-robin (perf/mpi-binding.sh; TRIDENT_MPI_BIND=none: unbound).
set -euo pipefail
build=$1 np=$2 lambda=$3 rounds=$4
shift 4
exe="$build/apps/muelu-solve/trident-muelu-solve"
[ -x "$exe" ] || { echo "muelu-rap.sh: $exe not built" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/mpi-binding.sh"
mpi=(mpirun --oversubscribe --allow-run-as-root "${mpi_bind[@]}" -np "$np")
stock=() trident=() its_s="" its_t="" algos=""
rap() { sed -n 's/^setup: .*RAP \([0-9.]*\) s.*/\1/p'; }
for ((r = 1; r <= rounds; ++r)); do
  out=$(timeout 300 "${mpi[@]}" "$exe" "$@" --rap=tpetra --ranks-per-group="$lambda")
  stock+=("$(rap <<<"$out")")
  its_s=$(sed -n 's/^CG: converged, \([0-9]*\) iterations.*/\1/p' <<<"$out")
  out=$(timeout 300 "${mpi[@]}" "$exe" "$@" --rap=trident --ranks-per-group="$lambda")
  trident+=("$(rap <<<"$out")")
  its_t=$(sed -n 's/^CG: converged, \([0-9]*\) iterations.*/\1/p' <<<"$out")
  algos=$(sed -n 's/^  RAP level \([0-9]*\):.*, A\*P \([a-z0-9]*\), R\*(AP) \([a-z0-9]*\)$/\2\/\3/p' <<<"$out" | sort | uniq -c | awk '{printf "%s%sx%s", sep, $1, $2; sep=" "}')
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
ms=$(median "${stock[@]}") mt=$(median "${trident[@]}")
echo "problem: $* P=$np lambda=$lambda rounds=$rounds load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "stock RAP s:   ${stock[*]}  median $ms"
echo "Trident RAP s: ${trident[*]}  median $mt"
echo "ratio of medians: $(awk -v a="$mt" -v b="$ms" 'BEGIN {printf "%.2f", a/b}')  Trident ran (A*P/R*(AP) per level): $algos"
echo "CG iterations: stock $its_s, Trident $its_t"
[ "$its_s" = "$its_t" ] || { echo "muelu-rap.sh: iterations differ" >&2; exit 1; }
