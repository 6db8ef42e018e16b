#!/usr/bin/env bash
# timer_output.sh DIR CHECKER CMD...: runs the driver CMD with --timer-output=yaml (into a file)
# and with --timer-output=watchr (WATCHR_PERF_DIR=DIR/watchr, a build name with a space, as
# Trilinos's scripts set it), and checks both files with CHECKER (check_timers.py): the YAML
# parses, lists Trident's, Tpetra's and the driver's timers and nests them; the XML is
# well-formed, carries the git revision and has Trident's phases nested inside the multiply that
# ran them and Tpetra's inside its own.
set -euo pipefail
dir=$1 checker=$2
shift 2
rm -rf "$dir"
mkdir -p "$dir"
"$@" --timer-output=yaml --timer-file="$dir/timers.yaml"
python3 "$checker" --yaml "$dir/timers.yaml" \
  --name "Trident: total" --name "Trident: redistribute in" --name "Trident: local multiply" \
  --name "Trident: accumulate" --name "Trident: redistribute out" --name "Trident: redistribute out: fill complete" \
  --name "Trident: Tpetra multiply" --name "trident-bench: trident AA" --name "trident-bench: tpetra AA" \
  --name "Tpetra::Import::init" \
  --nest "trident-bench: trident AA>Trident: total>Trident: redistribute out>Trident: redistribute out: fill complete" \
  --nest "trident-bench: tpetra AA>Trident: Tpetra multiply>Tpetra::Import::init"

WATCHR_PERF_DIR="$dir/watchr" WATCHR_BUILD_NAME="ctest quick" "$@" --timer-output=watchr --watchr-name="timer output" \
  | tee "$dir/watchr.log"
xml=$(ls "$dir"/watchr/ctest_quick-timer_output_*.xml)
[ "$(echo "$xml" | wc -l)" = 1 ] || { echo "timer_output: expected one XML, found: $xml" >&2; exit 1; }
grep -q "Watchr XML written: $xml" "$dir/watchr.log" || { echo "timer_output: the driver did not report $xml" >&2; exit 1; }
python3 "$checker" --xml "$xml" --root "ctest quick: timer output" --sha \
  --nest "trident-bench: trident AA>Trident: total>Trident: redistribute in>Trident: redistribute in: tiles" \
  --nest "trident-bench: trident AA>Trident: total>Trident: Gi wait" \
  --nest "trident-bench: trident AA>Trident: total>Trident: Li allgather" \
  --nest "trident-bench: trident AA>Trident: total>Trident: local multiply" \
  --nest "trident-bench: trident AA>Trident: total>Trident: accumulate" \
  --nest "trident-bench: trident AA>Trident: total>Trident: redistribute out>Trident: redistribute out: exchange" \
  --nest "trident-bench: trident AA>Trident: total>Trident: redistribute out>Trident: redistribute out: fill complete" \
  --nest "trident-bench: tpetra AA>Trident: Tpetra multiply>Tpetra::Import::init" \
  --nest "Trident: redistribute out: fill complete>Tpetra::CrsGraph::computeGlobalConstants"

# Without WATCHR_PERF_DIR: the nested table, a note, no file, exit 0.
env -u WATCHR_PERF_DIR "$@" --timer-output=watchr > "$dir/nowatchr.log"
grep -q "WATCHR_PERF_DIR is not set: no Watchr XML written" "$dir/nowatchr.log" \
  || { echo "timer_output: no note when WATCHR_PERF_DIR is unset" >&2; exit 1; }
echo "timer_output: OK"
