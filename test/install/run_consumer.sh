#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, builds test/install/consumer against it with
# find_package(Trident), and runs it on 2 ranks.
set -euo pipefail
build=$1 src=$2 mpiexec=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/consumer" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" -j 2 >/dev/null
"$mpiexec" --oversubscribe --allow-run-as-root -np 2 "$work/build/consumer"
