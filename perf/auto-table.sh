#!/usr/bin/env bash
# auto-table.sh - "trident: algorithm" = "auto" against the three algorithms it chooses from,
# each algorithm in its own process, as a user runs one: issue 11's table.
#
#   perf/auto-table.sh [--np=4] [--ranks-per-group=2] [--rounds=3] [--trials=5] [--csv=FILE] [MATRIX ...]
#
# For every MATRIX (default: every ../shared/matrices/*.mtx, TRIDENT_MATRIX_DIR) and round, one
# mpirun of trident-bench per algorithm (tpetra, summa, trident, auto, auto-cold), in an order
# shuffled per round; each reports the median of --trials (after one warm-up). The table gives
# per algorithm the median of its rounds, what auto chose, and auto / fastest and
# auto-cold / fastest (auto-cold: "trident: auto: remember choice" = false, so every call is a
# first call: the bound, the estimate without counting, or counting, and then the product).
# Why separate processes: in one process the algorithms run before leave the heap and the
# huge pages in a state the next one inherits; cit-HepTh's kernel under auto ran 1.3x trident's
# identical plan in five-algorithm runs and 1.0x alone (docs/benchmarks.md, eighteenth session).
# Environment: TRIDENT_BUILD_DIR (default build/), TRIDENT_MATRIX_DIR. Logs go next to the CSV.
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
    --help|-h) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
algos=(tpetra summa trident auto auto-cold)
for m in "${matrices[@]}"; do
  name=$(basename "$m" .mtx)
  for ((r = 1; r <= rounds; ++r)); do
    for a in $(printf '%s\n' "${algos[@]}" | shuf --random-source=<(yes "$r$name")); do
      log="$logs/$name.$a.$r.log"
      timeout 900 mpirun --oversubscribe --allow-run-as-root -np "$np" "$bench" --matrix="$m" \
        --ranks-per-group="$rpg" --algos="$a" --trials="$trials" --csv="$csv" >"$log" 2>&1 ||
        { echo "auto-table.sh: $name $a failed, see $log" >&2; exit 1; }
    done
  done
done
python3 - "$csv" "$logs" <<'EOF'
import csv, glob, os, re, statistics, sys
times = {}
for r in csv.DictReader(open(sys.argv[1])):
    times.setdefault(r["matrix"], {}).setdefault(r["algo"], []).append(float(r["time_s"]))
print("%-20s %9s %9s %9s %9s %9s  %-8s %-8s %6s %6s" % ("matrix", "tpetra", "summa", "trident", "auto", "auto-cold",
                                                     "chose", "fastest", "a/f", "c/f"))
ok_a = ok_c = 0
for m, d in sorted(times.items()):
    med = {a: statistics.median(v) for a, v in d.items()}
    fastest = min(("tpetra", "summa", "trident"), key=lambda a: med[a])
    chose = "?"
    for log in sorted(glob.glob(os.path.join(sys.argv[2], m + ".auto-cold.*.log"))):
        c = re.search(r"\[auto-cold\] chose (\w+),", open(log, errors="replace").read())
        if c: chose = c.group(1)
    ra, rc = med["auto"] / med[fastest], med["auto-cold"] / med[fastest]
    ok_a += ra <= 1.1; ok_c += rc <= 1.1
    print("%-20s %9.4f %9.4f %9.4f %9.4f %9.4f  %-8s %-8s %6.2f %6.2f" % (m, med["tpetra"], med["summa"], med["trident"],
          med["auto"], med["auto-cold"], chose, fastest, ra, rc))
print("within 1.1x of the fastest: auto %d of %d, auto-cold (first calls) %d of %d" % (ok_a, len(times), ok_c, len(times)))
EOF
echo "CSV: $csv; logs: $logs"
