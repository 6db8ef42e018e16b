#!/usr/bin/env bash
# peers.sh - Trident against what a user would pick instead: Tpetra's own Multiply and PETSc's
# MatMatMult, C = A*A on the same inputs, one table.
#
#   perf/peers.sh [--np=4] [--ranks-per-group=2] [--trials=3] [--check] [--csv=FILE] [MATRIX ...] [-- trident-bench args]
#   e.g. perf/peers.sh ../shared/matrices/cora.mtx ../shared/matrices/pubmed.mtx rmat:16:16
#
# MATRIX: a Matrix Market file or a trident-bench generator spec (rmat:S:E, er:N:D, lap2d:N);
# default: every ../shared/matrices/*.mtx (TRIDENT_MATRIX_DIR) and rmat:16:16. A generated matrix
# is written once by trident-bench --dump and the PETSc driver reads that file, so both multiply
# the same matrix. Each algorithm runs in its own mpirun (trident-bench --algos=tpetra, then
# --algos=trident, then petsc-matmult), so each peak RSS is that algorithm's own: within one
# process the RSS is a running peak and would carry the first algorithm's into the next.
# With --check every driver checks its C (trident-bench: against Tpetra's, whose run then
# precedes Trident's in the same process and so also counts in Trident's RSS; petsc-matmult:
# against a serial product); a failed check or differing nnz(C) is marked in the table.
# Times: median over --trials of the max over ranks, as both drivers report them.
# Environment: TRIDENT_BUILD_DIR (default build/), TRIDENT_MATRIX_DIR, TRIDENT_PEERS_TIMEOUT
# (seconds per run, default 600). Logs go next to the CSV.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRIDENT_BUILD_DIR:-$here/build}
mdir=${TRIDENT_MATRIX_DIR:-$here/../shared/matrices}
np=4 rpg=2 trials=3 check=() csv_out=""
matrices=() extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --np=*) np=${1#*=} ;;
    --ranks-per-group=*) rpg=${1#*=} ;;
    --trials=*) trials=${1#*=} ;;
    --check) check=(--check) ;;
    --csv=*) csv_out=${1#*=} ;;
    --help|-h) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
[ -x "$bench" ] || { echo "peers.sh: $bench not built (bash scripts/setup.sh)" >&2; exit 1; }
[ -x "$petsc" ] || { echo "peers.sh: $petsc not built: PETSc was not found at configure time" \
                          "(TRIDENT_WITH_PETSC=1 bash scripts/setup.sh installs petsc-dev and rebuilds)" >&2; exit 1; }

logdir=$(mktemp -d "${TMPDIR:-/tmp}/trident-peers.XXXXXX")
csv=$logdir/peers.csv
# Ranks bound to cores round-robin, PETSc's as Trident's (perf/mpi-binding.sh; TRIDENT_MPI_BIND=none: unbound).
source "$(dirname "${BASH_SOURCE[0]}")/mpi-binding.sh"
mpi=(timeout "${TRIDENT_PEERS_TIMEOUT:-600}" mpirun --oversubscribe --allow-run-as-root "${mpi_bind[@]}" -np "$np")
common=(--ranks-per-group="$rpg" --trials="$trials" "${check[@]}" --csv="$csv")
names=()
for spec in "${matrices[@]}"; do
  # trident-bench's matrix name: file name without directory and .mtx, commas as underscores.
  name=$(basename "$spec" .mtx); name=${name//,/_}
  names+=("$name")
  log=$logdir/${name//[:\/]/_}
  file=$spec dump=()
  if [ ! -f "$spec" ]; then file=$log.mtx dump=(--dump="$file"); fi
  echo "peers.sh: $name" >&2
  "${mpi[@]}" "$bench" --matrix="$spec" --algos=tpetra "${common[@]}" "${dump[@]}" "${extra[@]}" > "$log.tpetra.log" 2>&1 \
    || echo "peers.sh: trident-bench --algos=tpetra failed on $spec (see $log.tpetra.log)" >&2
  "${mpi[@]}" "$bench" --matrix="$spec" --algos=trident "${common[@]}" "${extra[@]}" > "$log.trident.log" 2>&1 \
    || echo "peers.sh: trident-bench --algos=trident failed on $spec (see $log.trident.log)" >&2
  if [ -f "$file" ]; then
    "${mpi[@]}" "$petsc" --matrix="$file" --name="$name" "${common[@]}" > "$log.petsc.log" 2>&1 \
      || echo "peers.sh: petsc-matmult failed on $file (see $log.petsc.log)" >&2
  fi
  rm -f "$log.mtx"
done
if [ -n "$csv_out" ]; then  # append, one header, as the drivers do
  mkdir -p "$(dirname "$csv_out")"
  if [ -s "$csv_out" ]; then tail -n +2 "$csv" >> "$csv_out"; else cp "$csv" "$csv_out"; fi
fi

[ -s "$csv" ] || { echo "peers.sh: no run wrote a result (logs: $logdir)" >&2; exit 1; }
echo
echo "C = A*A, P = $np (trident: $rpg ranks per group), median of $trials trials; RSS = peak MB, max over ranks"
awk -F, -v order="$(printf '%s\n' "${names[@]}")" '
function fmt(x) { return x == "" ? "-" : sprintf("%.3f", x) }
function ratio(a, b) { return (a == "" || b == "" || b <= 0) ? "-" : sprintf("%.2f", a / b) }
function cell(m, a, f) { return ((m, a) in row) ? val[m, a, f] : "" }
NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
{
  m = $c["matrix"]; a = $c["algo"]; row[m, a] = 1
  val[m, a, "t"] = $c["time_s"]; val[m, a, "nnzc"] = $c["nnz_c"]; val[m, a, "nnza"] = $c["nnz_a"]
  val[m, a, "rss"] = $c["peak_rss_mb"]; val[m, a, "check"] = $c["check"]
}
END {
  printf "%-22s %10s %11s %9s %9s %9s %8s %9s %8s %8s %9s\n", "matrix", "nnz(A)", "nnz(C)", "Tpetra s", "Trident s",
         "PETSc s", "Tri/Tpe", "Tri/PETSc", "RSS Tpe", "RSS Tri", "RSS PETSc"
  n = split(order, names, "\n")
  for (k = 1; k <= n; ++k) {
    m = names[k]; note = ""
    nnza = cell(m, "tpetra", "nnza"); if (nnza == "") nnza = cell(m, "trident", "nnza"); if (nnza == "") nnza = cell(m, "petsc", "nnza")
    nnzc = ""
    split("tpetra trident petsc", al, " ")
    for (j = 1; j <= 3; ++j) {
      x = cell(m, al[j], "nnzc"); ck = cell(m, al[j], "check")
      if (x == "") { note = note " " al[j] " missing"; continue }
      if (nnzc == "") nnzc = x; else if (x != nnzc) note = note " nnz(C) of " al[j] " is " x
      if (ck == "FAIL") note = note " " al[j] " check FAILED"
    }
    if (note != "") bad = 1
    tt = cell(m, "tpetra", "t"); tr = cell(m, "trident", "t"); tp = cell(m, "petsc", "t")
    printf "%-22s %10s %11s %9s %9s %9s %8s %9s %8s %8s %9s%s\n", m, nnza == "" ? "-" : nnza, nnzc == "" ? "-" : nnzc,
           fmt(tt), fmt(tr), fmt(tp), ratio(tr, tt), ratio(tr, tp),
           cell(m, "tpetra", "rss") == "" ? "-" : cell(m, "tpetra", "rss"),
           cell(m, "trident", "rss") == "" ? "-" : cell(m, "trident", "rss"),
           cell(m, "petsc", "rss") == "" ? "-" : cell(m, "petsc", "rss"), note == "" ? "" : "  !" note
  }
  exit bad
}' "$csv" && status=0 || status=1
echo "CSV and logs: $logdir"
exit $status
