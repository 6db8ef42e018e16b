#!/usr/bin/env bash
# auto-table.sh - "trident: algorithm" = "auto" against the algorithms it chooses from, each
# algorithm in its own process, as a user runs one.
#
#   perf/auto-table.sh [--np=4] [--ranks-per-group=2] [--rounds=3] [--trials=5] [--csv=FILE] [MATRIX ...]
#
# For every MATRIX (default: every ../shared/matrices/*.mtx, TRIDENT_MATRIX_DIR) and round, one
# mpirun of trident-bench per algorithm (tpetra, summa, trident, 1d, auto, auto-cold), in an order
# shuffled per round; each reports the median of --trials (after one warm-up). The table gives
# per algorithm the median of its rounds, what auto chose, and auto / fastest and
# auto-cold / fastest (auto-cold: "trident: auto: remember choice" = false, so every call is a
# first call: the bound, the estimate without counting, or counting, and then the product), each
# twice: as the ratio of the medians, and as the median over rounds of the ratio within a round
# (a round's five processes run back to back, so a drift of the machine's speed between rounds
# cancels there). "auto / chosen" is auto's time over the algorithm it chose, the same plan: what
# auto itself costs, apart from whether its choice was the fastest.
# Why separate processes: in one process the algorithms run before leave the heap and the
# huge pages in a state the next one inherits; cit-HepTh's kernel under auto ran 1.3x trident's
# identical plan in five-algorithm runs and 1.0x alone (docs/design.md, the automatic choice).
# Environment: TRIDENT_BUILD_DIR (default build/), TRIDENT_MATRIX_DIR, TRIDENT_MPI_BIND (below).
# Logs go next to the CSV.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRIDENT_BUILD_DIR:-$here/build}
mdir=${TRIDENT_MATRIX_DIR:-$here/../shared/matrices}
np=4 rpg=2 rounds=3 trials=5 csv_out=""
matrices=()
while [ $# -gt 0 ]; do
  case $1 in
    --np=*) np=${1#*=} ;;
    --ranks-per-group=*) rpg=${1#*=} ;;
    --rounds=*) rounds=${1#*=} ;;
    --trials=*) trials=${1#*=} ;;
    --csv=*) csv_out=${1#*=} ;;
    --help|-h) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "auto-table.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) matrices+=("$1") ;;
  esac
  shift
done
if [ ${#matrices[@]} -eq 0 ]; then
  for f in "$mdir"/*.mtx; do matrices+=("$f"); done
fi
bench="$build/perf/trident-bench"
[ -x "$bench" ] || { echo "auto-table.sh: $bench not built" >&2; exit 2; }
csv=${csv_out:-$(mktemp /tmp/auto-table.XXXXXX.csv)}
logs="${csv%.csv}.logs"
mkdir -p "$logs"
[ -s "$csv" ] && { echo "auto-table.sh: $csv exists; give a new --csv" >&2; exit 2; }
rm -f "$logs/order"
algos=(tpetra summa trident 1d auto auto-cold)
# Ranks bound to cores round-robin (perf/mpi-binding.sh; TRIDENT_MPI_BIND=none: unbound).
source "$here/perf/mpi-binding.sh"
for m in "${matrices[@]}"; do
  name=$(basename "$m" .mtx)
  for ((r = 1; r <= rounds; ++r)); do
    for a in $(printf '%s\n' "${algos[@]}" | shuf --random-source=<(yes "$r$name")); do
      log="$logs/$name.$a.$r.log"
      timeout 900 mpirun --oversubscribe --allow-run-as-root "${mpi_bind[@]}" -np "$np" "$bench" --matrix="$m" \
        --ranks-per-group="$rpg" --algos="$a" --trials="$trials" --csv="$csv" >"$log" 2>&1 ||
        { echo "auto-table.sh: $name $a failed, see $log" >&2; exit 1; }
      echo "$name $r $a" >>"$logs/order"  # the round of the CSV row just written
    done
  done
done
python3 - "$csv" "$logs" <<'EOF'
import csv, glob, os, re, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
order = [l.split() for l in open(os.path.join(sys.argv[2], "order"))]
if len(order) != len(rows):
    sys.exit("auto-table.sh: %d CSV rows for %d runs" % (len(rows), len(order)))
times, rounds = {}, {}
for (name, rnd, algo), r in zip(order, rows):
    t = float(r["time_s"])
    times.setdefault(name, {}).setdefault(algo, []).append(t)
    rounds.setdefault(name, {}).setdefault(rnd, {})[algo] = t
cols = ["matrix", "tpetra", "summa", "trident", "1d", "auto", "auto-cold", "chose", "fastest", "a/f", "a/f (r)",
        "cold/f", "cold/f (r)", "auto / chosen"]
print("| " + " | ".join(cols) + " |\n" + "|---" * len(cols) + "|")  # docs/benchmarks.md's table as it stands
ok = {"a/f": 0, "a/f r": 0, "c/f": 0, "c/f r": 0}
for m, d in sorted(times.items()):
    med = {a: statistics.median(v) for a, v in d.items()}
    fastest = min(("tpetra", "summa", "trident", "1d"), key=lambda a: med[a])
    chose = "?"
    for log in sorted(glob.glob(os.path.join(sys.argv[2], m + ".auto-cold.*.log"))):
        c = re.search(r"\[auto-cold\] chose (\w+),", open(log, errors="replace").read())
        if c: chose = c.group(1)
    per = lambda a: statistics.median(t[a] / min(t["tpetra"], t["summa"], t["trident"], t["1d"]) for t in rounds[m].values())
    r = {"a/f": med["auto"] / med[fastest], "a/f r": per("auto"),
         "c/f": med["auto-cold"] / med[fastest], "c/f r": per("auto-cold")}
    for k, v in r.items(): ok[k] += v <= 1.1
    same = med["auto"] / med[chose] if chose in med else float("nan")
    print("| %s | %.4f | %.4f | %.4f | %.4f | %.4f | %.4f | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |" %
          (m, med["tpetra"], med["summa"], med["trident"], med["1d"], med["auto"], med["auto-cold"], chose, fastest,
           r["a/f"], r["a/f r"], r["c/f"], r["c/f r"], same))
n = len(times)
print("within 1.1x of the fastest, of %d: auto %d (ratio of medians), %d (median of per-round ratios); "
      "auto-cold (first calls) %d, %d" % (n, ok["a/f"], ok["a/f r"], ok["c/f"], ok["c/f r"]))
EOF
echo "CSV: $csv; logs: $logs"
