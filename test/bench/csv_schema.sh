#!/usr/bin/env bash
# csv_schema.sh CSV CMD...: runs CMD --csv=CSV twice on a fresh CSV and checks the columns the
# issue prescribes (names and order), one header only, and one row per algorithm per run.
set -euo pipefail
csv=$1; shift
expected='algo,matrix,op,P,ranks_per_group,permute,time_s,time_in_s,time_gi_s,time_li_s,time_local_s,time_out_s,gi_bytes_max,gi_bytes_total,li_bytes_max,li_bytes_total,nnz_a,nnz_c,flops,peak_rss_mb,check,time_wait_s'
rm -f "$csv"
"$@" --csv="$csv" --algos=tpetra,summa,trident
"$@" --csv="$csv" --algos=summa,trident --check
fail() { echo "csv_schema: FAIL: $*" >&2; exit 1; }
[ -s "$csv" ] || fail "$csv not written"
header=$(head -n1 "$csv")
[ "$header" = "$expected" ] || fail "header is '$header'"
[ "$(grep -c '^algo,' "$csv")" = 1 ] || fail "more than one header line"
rows=$(($(wc -l < "$csv") - 1))
[ "$rows" = 5 ] || fail "expected 5 rows (3 + 2), found $rows"
awk -F, -v n=22 'NF != n { printf "line %d has %d fields\n", NR, NF; bad = 1 } END { exit bad }' "$csv" \
  || fail "wrong field count"
# Row checks: algorithm names, P, numeric fields, check column.
awk -F, 'NR > 1 {
  if ($1 !~ /^(tpetra|summa|trident)$/) { print "bad algo " $1; bad = 1 }
  if ($2 != "cora" || $3 != "AA" || $4 != 4 || $5 != 2 || $6 != "none") { print "bad keys: " $0; bad = 1 }
  for (i = 7; i <= 20; ++i) if ($i !~ /^[0-9.eE+-]+$/) { print "field " i " not numeric: " $i; bad = 1 }
  if ($17 <= 0 || $18 <= 0 || $19 <= 0 || $7 <= 0) { print "zero nnz/flops/time: " $0; bad = 1 }
  if (NR <= 4 && $21 != "off") { print "check should be off: " $0; bad = 1 }
  if (NR > 4 && $21 != "pass") { print "check should be pass: " $0; bad = 1 }
  if ($22 !~ /^[0-9.eE+-]+$/) { print "time_wait_s not numeric: " $22; bad = 1 }
} END { exit bad }' "$csv" || fail "bad rows"
echo "csv_schema: OK ($rows rows)"
cat "$csv"
