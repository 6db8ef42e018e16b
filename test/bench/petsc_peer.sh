#!/usr/bin/env bash
# petsc_peer.sh WORKDIR MATRIX_DIR TRIDENT_BENCH PETSC_MATMULT MPIEXEC [MPI FLAGS...]
# The PETSc peer multiplies the same matrix trident-bench multiplies and gets the same C: on a
# generated matrix (through trident-bench --dump), a real and a pattern file, at P = 4,
# - both drivers pass --check (Trident's C against Tpetra's, PETSc's against a plain serial
#   product; same structure, values to 1e-12 relative to |A||A|),
# - nnz(A), nnz(C) and the multiply-add count agree between tpetra, trident and petsc rows,
# - for inputs whose entries are all 1.0, PETSc's sum(C) equals that multiply-add count.
set -euo pipefail
work=$1 mdir=$2 bench=$3 petsc=$4; shift 4
mpi=("$@")
fail() { echo "petsc_peer: FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
csv=$work/peers.csv
for spec in rmat:10:8 "$mdir/hep-th.mtx" "$mdir/cora.mtx"; do
  name=$(basename "$spec" .mtx)
  file=$spec dump=()
  if [ ! -f "$spec" ]; then file=$work/$name.mtx dump=(--dump="$file"); fi
  "${mpi[@]}" -np 4 "$bench" --matrix="$spec" --algos=tpetra,trident --ranks-per-group=2 --trials=1 --check \
    --csv="$csv" "${dump[@]}" > "$work/$name.bench.log" 2>&1 || { cat "$work/$name.bench.log"; fail "trident-bench on $spec"; }
  "${mpi[@]}" -np 4 "$petsc" --matrix="$file" --name="$name" --ranks-per-group=2 --trials=1 --check \
    --csv="$csv" > "$work/$name.petsc.log" 2>&1 || { cat "$work/$name.petsc.log"; fail "petsc-matmult on $file"; }
  cat "$work/$name.petsc.log"
  # sum(C) is the 7th field of the result line (algo time nnz flops RSS check sum norm).
  sum=$(awk '$1 == "petsc" && NF == 8 { print $7 }' "$work/$name.petsc.log")
  [ -n "$sum" ] || fail "no result line in $work/$name.petsc.log"
  echo "$name sum(C) $sum" >> "$work/sums"
done
cat "$csv"
awk -F, -v sums="$work/sums" '
BEGIN { while ((getline l < sums) > 0) { split(l, f, " "); sum[f[1]] = f[3] } }
NR == 1 { for (i = 1; i <= NF; ++i) c[$i] = i; next }
{
  m = $c["matrix"]; a = $c["algo"]; seen[m] = seen[m] " " a
  if ($c["check"] != (a == "tpetra" ? "ref" : "pass")) { print m ": " a " check is " $c["check"]; bad = 1 }
  key = $c["nnz_a"] " " $c["nnz_c"] " " $c["flops"]
  if (m in ref) { if (ref[m] != key) { print m ": " a " has nnz_a nnz_c flops " key ", " refalgo[m] " " ref[m]; bad = 1 } }
  else { ref[m] = key; refalgo[m] = a }
  if (a == "petsc" && m != "hep-th" && sum[m] + 0 != $c["flops"] + 0) {
    print m ": sum(C) " sum[m] " is not the multiply-add count " $c["flops"] " of a 0/1 matrix"; bad = 1
  }
}
END {
  n = 0; for (m in seen) { ++n; if (seen[m] != " tpetra trident petsc") { print m ": rows" seen[m]; bad = 1 } }
  if (n != 3) { print "expected 3 matrices, found " n; bad = 1 }
  exit bad
}' "$csv" || fail "the drivers disagree"
echo "petsc_peer: OK"
