#!/usr/bin/env bash
# peers.sh - Trident against what a user would pick instead: Tpetra's own Multiply, PETSc's
# MatMatMult and SuiteSparse:GraphBLAS's GrB_mxm (one process, on 1 thread and on as many threads
# as there are ranks, i.e. the cores the ranks use), C = A*A on the same inputs, one table.
#
#   perf/peers.sh [--np=4] [--ranks-per-group=2] [--trials=3] [--rounds=1] [--check] [--csv=FILE] [MATRIX ...] [-- trident-bench args]
#   e.g. perf/peers.sh ../shared/matrices/cora.mtx ../shared/matrices/pubmed.mtx rmat:16:16
#
# MATRIX: a Matrix Market file or a trident-bench generator spec (rmat:S:E, er:N:D, lap2d:N);
# default: every ../shared/matrices/*.mtx (TRIDENT_MATRIX_DIR) and rmat:16:16. A generated matrix
# is written once by trident-bench --dump and the peers read that file, so all multiply the same
# matrix (the peers read files with Trident's own parser). Each algorithm runs in its own process
# (trident-bench --algos=tpetra, then --algos=trident, then petsc-matmult, then graphblas-mxm), so
# each peak RSS is that algorithm's own: within one process the RSS is a running peak and would
# carry the first algorithm's into the next. A peer whose driver was not built (its library was
# not found at configure time) is skipped, and said so, with its columns.
# With --check every driver checks its C (trident-bench: against Tpetra's; the peers: against a
# serial product) in a second run of one trial, after the timed one: a reference held in the same
# process would count in the RSS of what it checks. A failed or missing check, or a differing
# nnz(C), is marked in the table.
# Times: median over --trials of the max over ranks (GraphBLAS: of its one process); with
# --rounds=R every column runs in R processes, one round after another, and the table gives the
# median of their times (the same code's time moves by up to 1.5x from one process to the next on
# the project's 2-core machines) and the largest of their peak RSS.
# Drop-in: Trident::MatrixMatrix::Multiply with default parameters ("trident: algorithm" = "auto",
# which may run Tpetra's Multiply), its choice remembered after the first trial as in an application.
# Tri/best, Drop/best: Trident's and the drop-in's time over the fastest of Tpetra, PETSc and
# GraphBLAS on 1 or N threads.
# Environment: TRIDENT_BUILD_DIR (default build/), TRIDENT_MATRIX_DIR, TRIDENT_PEERS_TIMEOUT
# (seconds per run, default 600). Logs go next to the CSV.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRIDENT_BUILD_DIR:-$here/build}
mdir=${TRIDENT_MATRIX_DIR:-$here/../shared/matrices}
np=4 rpg=2 trials=3 rounds=1 check=() csv_out=""
matrices=() extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --np=*) np=${1#*=} ;;
    --ranks-per-group=*) rpg=${1#*=} ;;
    --trials=*) trials=${1#*=} ;;
    --rounds=*) rounds=${1#*=} ;;
    --check) check=(--check) ;;
    --csv=*) csv_out=${1#*=} ;;
    --help|-h) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    -*) echo "peers.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    *) matrices+=("$1") ;;
  esac
  shift
done
if [ ${#matrices[@]} -eq 0 ]; then
  matrices=("$mdir"/*.mtx rmat:16:16)
  [ -f "${matrices[0]}" ] || { echo "peers.sh: no .mtx files in $mdir (TRIDENT_MATRIX_DIR)" >&2; exit 1; }
fi
bench=$build/perf/trident-bench
petsc=$build/perf/petsc/petsc-matmult
graphblas=$build/perf/graphblas/graphblas-mxm
[ -x "$bench" ] || { echo "peers.sh: $bench not built (bash scripts/setup.sh)" >&2; exit 1; }
# The table's peer columns: a driver that was not built is skipped, not an error.
peers=()
if [ -x "$petsc" ]; then peers+=(petsc); else skipped="PETSc"; fi
if [ -x "$graphblas" ]; then peers+=(grb1); [ "$np" = 1 ] || peers+=(grbN); else skipped="${skipped:+$skipped, }GraphBLAS"; fi
if [ -n "${skipped:-}" ]; then
  echo "peers.sh: skipping $skipped: not built, the library was not found at configure time" \
       "(TRIDENT_WITH_PEERS=1 bash scripts/setup.sh installs petsc-dev and libgraphblas-dev and rebuilds)" >&2
fi

logdir=$(mktemp -d "${TMPDIR:-/tmp}/trident-peers.XXXXXX")
csv=$logdir/peers.csv
# Ranks bound to cores round-robin, PETSc's as Trident's (perf/mpi-binding.sh; TRIDENT_MPI_BIND=none: unbound).
source "$(dirname "${BASH_SOURCE[0]}")/mpi-binding.sh"
mpi=(timeout "${TRIDENT_PEERS_TIMEOUT:-600}" mpirun --oversubscribe --allow-run-as-root "${mpi_bind[@]}" -np "$np")
checks=$logdir/checks.csv
timed=(--ranks-per-group="$rpg" --trials="$trials" --csv="$csv")
checked=(--ranks-per-group="$rpg" --trials=1 --check --csv="$checks")
# drive LOG WHAT COMMAND...: the timed run, then with --check (in the first round) the checking run.
drive() {
  local log=$1 what=$2
  shift 2
  "$@" "${timed[@]}" > "$log.log" 2>&1 || echo "peers.sh: $what failed (see $log.log)" >&2
  if [ ${#check[@]} -gt 0 ] && [ "$round" = 1 ]; then
    "$@" "${checked[@]}" > "$log.check.log" 2>&1 || echo "peers.sh: $what --check failed (see $log.check.log)" >&2
  fi
}
names=()
for spec in "${matrices[@]}"; do
  # trident-bench's matrix name: file name without directory and .mtx, commas as underscores.
  name=$(basename "$spec" .mtx); name=${name//,/_}
  names+=("$name")
  file=$spec dump=() file_dumped=""
  if [ ! -f "$spec" ]; then file=$logdir/${name//[:\/]/_}.mtx dump=(--dump="$file") file_dumped=$file; fi
  for round in $(seq "$rounds"); do
  echo "peers.sh: $name (round $round of $rounds)" >&2
  log=$logdir/${name//[:\/]/_}.r$round
  # Tpetra's C is the reference of the checks: its timed run is all it needs.
  "${mpi[@]}" "$bench" --matrix="$spec" --algos=tpetra "${timed[@]}" "${dump[@]}" "${extra[@]}" > "$log.tpetra.log" 2>&1 \
    || echo "peers.sh: trident-bench --algos=tpetra failed on $spec (see $log.tpetra.log)" >&2
  dump=()
  for algo in trident auto; do
    drive "$log.$algo" "trident-bench --algos=$algo on $spec" "${mpi[@]}" "$bench" --matrix="$spec" --algos=$algo "${extra[@]}"
  done
  if [ -f "$file" ] && [ -x "$petsc" ]; then
    drive "$log.petsc" "petsc-matmult on $file" "${mpi[@]}" "$petsc" --matrix="$file" --name="$name"
  fi
  if [ -f "$file" ] && [ -x "$graphblas" ]; then
    for t in $( [ "$np" = 1 ] && echo 1 || echo 1 "$np" ); do
      drive "$log.graphblas$t" "graphblas-mxm --threads=$t on $file" timeout "${TRIDENT_PEERS_TIMEOUT:-600}" \
        "$graphblas" --matrix="$file" --name="$name" --threads="$t"
    done
  fi
  done
  rm -f "$file_dumped"
done
if [ -n "$csv_out" ]; then  # append, one header, as the drivers do
  mkdir -p "$(dirname "$csv_out")"
  if [ -s "$csv_out" ]; then tail -n +2 "$csv" >> "$csv_out"; else cp "$csv" "$csv_out"; fi
fi

[ -s "$csv" ] || { echo "peers.sh: no run wrote a result (logs: $logdir)" >&2; exit 1; }
echo
echo "C = A*A, P = $np (trident: $rpg ranks per group; GraphBLAS: 1 and $np threads), median of $trials trials" \
     "(of $rounds processes' medians); RSS = peak MB, max over ranks (and rounds)"
[ ${#check[@]} -gt 0 ] && [ ! -f "$checks" ] && : > "$checks"  # every check run failed: all missing
awk -F, -v order="$(printf '%s\n' "${names[@]}")" -v peers="${peers[*]}" -v np="$np" -v checks="${check[@]:+$checks}" '
function fmt(x) { return x == "" ? "-" : sprintf("%.3f", x) }
function ratio(a, b) { return (a == "" || b == "" || b <= 0) ? "-" : sprintf("%.2f", a / b) }
function cell(m, a, f) { return ((m, a) in row) ? val[m, a, f] : "" }
# The time of every round (their median is taken at the end) and the largest peak RSS.
function keep(m, a) {
  row[m, a] = 1
  times[m, a, ++nt[m, a]] = $c["time_s"]; val[m, a, "nnzc"] = $c["nnz_c"]; val[m, a, "nnza"] = $c["nnz_a"]
  if (!((m, a, "rss") in val) || $c["peak_rss_mb"] + 0 > val[m, a, "rss"] + 0) val[m, a, "rss"] = $c["peak_rss_mb"]
}
function median(m, a,   n, i, j, x, v) {
  n = nt[m, a]
  for (i = 1; i <= n; ++i) v[i] = times[m, a, i] + 0
  for (i = 2; i <= n; ++i) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; --j) v[j + 1] = v[j]; v[j + 1] = x }
  return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
function checked(m, a) { if (FILENAME == checks) { ran[m, a] = 1; if ($c["check"] == "FAIL") failed[m, a] = 1 } else keep(m, a) }
FNR == 1 { delete c; for (i = 1; i <= NF; ++i) c[$i] = i; next }
{
  m = $c["matrix"]; a = $c["algo"]
  # GraphBLAS rows are told apart by their thread count (the P column).
  if (a != "graphblas") checked(m, a)
  else { if ($c["P"] == 1) checked(m, "grb1"); if ($c["P"] == np) checked(m, "grbN") }
}
END {
  for (k in nt) { split(k, mk, SUBSEP); val[mk[1], mk[2], "t"] = median(mk[1], mk[2]) }
  title["tpetra"] = "Tpetra"; title["trident"] = "Trident"; title["auto"] = "Drop-in"; title["petsc"] = "PETSc"
  title["grb1"] = "GrB 1t"; title["grbN"] = "GrB " np "t"
  na = split("tpetra trident auto " peers, al, " ")
  printf "%-22s %10s %11s", "matrix", "nnz(A)", "nnz(C)"
  for (j = 1; j <= na; ++j) printf " %9s", title[al[j]] " s"
  printf " %8s %8s %9s", "Tri/Tpe", "Tri/best", "Drop/best"
  for (j = 1; j <= na; ++j) printf " %10s", "RSS " title[al[j]]
  printf "\n"
  n = split(order, names, "\n")
  for (k = 1; k <= n; ++k) {
    m = names[k]; note = ""; nnza = ""; nnzc = ""; best = ""
    for (j = 1; j <= na; ++j) {
      if (nnza == "") nnza = cell(m, al[j], "nnza")
      x = cell(m, al[j], "nnzc")
      if (x == "") { note = note " " al[j] " missing"; continue }
      if (nnzc == "") nnzc = x; else if (x != nnzc) note = note " nnz(C) of " al[j] " is " x
      if ((m, al[j]) in failed) note = note " " al[j] " check FAILED"
      else if (checks != "" && al[j] != "tpetra" && !((m, al[j]) in ran)) note = note " " al[j] " check missing"
      t = cell(m, al[j], "t")
      if ((j == 1 || j > 3) && t != "" && (best == "" || t + 0 < best + 0)) best = t
    }
    if (note != "") bad = 1
    printf "%-22s %10s %11s", m, nnza == "" ? "-" : nnza, nnzc == "" ? "-" : nnzc
    for (j = 1; j <= na; ++j) printf " %9s", fmt(cell(m, al[j], "t"))
    tr = cell(m, "trident", "t")
    printf " %8s %8s %9s", ratio(tr, cell(m, "tpetra", "t")), ratio(tr, best), ratio(cell(m, "auto", "t"), best)
    for (j = 1; j <= na; ++j) printf " %10s", cell(m, al[j], "rss") == "" ? "-" : cell(m, al[j], "rss")
    printf "%s\n", note == "" ? "" : "  !" note
  }
  exit bad
}' "$csv" ${check[@]:+"$checks"} && status=0 || status=1
echo "CSV and logs: $logdir"
exit $status
