#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite under ctest.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${TRIDENT_BUILD_DIR:-$here/build}
bash "$here/scripts/setup.sh"
cd "$build"
# Tests oversubscribe 2 cores with up to 16 ranks: run them one at a time.
ctest --output-on-failure --timeout 900 "$@"
