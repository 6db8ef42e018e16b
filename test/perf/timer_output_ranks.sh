#!/usr/bin/env bash
# timer_output_ranks.sh DIR CHECKER CMD...: runs test_timer_output (CMD) and checks what it wrote:
# the timers only some ranks started are in the YAML's tree and the XML, where they ran.
set -euo pipefail
dir=$1 checker=$2
shift 2
rm -rf "$dir"
mkdir -p "$dir"
WATCHR_PERF_DIR="$dir/watchr" "$@" "$dir"
# TimeMonitor's flat part has the timers every rank ran; the stacked tree has all, where they ran.
python3 "$checker" --yaml "$dir/ranks.yaml" --name "test: outer" --name "test: inner" \
  --nest "test_timer_output>test: outer>test: inner>test: odd ranks only" \
  --nest "test_timer_output>test: outer>test: rank 0 only"
python3 "$checker" --xml "$dir"/watchr/test_timer_output_ranks_*.xml --root "test timer output ranks" \
  --nest "test: outer>test: inner>test: odd ranks only" --nest "test: outer>test: rank 0 only" \
  --nest "test: with summarize>test: after summarize"
