#!/usr/bin/env bash
# Installs what Trident needs from Debian's packages (idempotent: apt-get runs only when something
# is missing), then configures and builds into build/ (or $TRIDENT_BUILD_DIR) with ccache and -j2.
# TRIDENT_CMAKE_ARGS: more configure arguments (scripts/test.sh --cuda passes -DTRIDENT_ENABLE_CUDA=ON).
# TRIDENT_WITH_PEERS=1 (or TRIDENT_WITH_PETSC=1, its older name) also installs the benchmarks'
# peers, petsc-dev and libgraphblas-dev, so that configure finds them and builds
# perf/petsc/petsc-matmult and perf/graphblas/graphblas-mxm (configure says whether it does).
# TRIDENT_TRILINOS=16: the same inside the Trilinos 16.1 root, into build-16/ (scripts/trilinos-select.sh).
# TRIDENT_SETUP_PACKAGES_ONLY=1: install what is missing, build nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
source "$here/scripts/trilinos-select.sh"
build=${TRIDENT_BUILD_DIR:-$here/build$build_suffix}

# find_package(Tpetra/MueLu) include()s configs of packages their -dev packages do not depend on
# (see ../shared/notes/trilinos-13.2-on-debian.md), so the whole set is listed.
pkgs=(cmake g++ make ccache git python3 openmpi-bin libopenmpi-dev mcl gnuplot-nox iproute2 libscotch-dev libptscotch-dev)
for p in tpetra kokkos kokkos-kernels teuchos muelu xpetra belos ifpack2 amesos2 galeri zoltan2 \
         thyra rtop epetra epetraext shylu stratimikos triutils isorropia anasazi sacado shards \
         amesos ifpack teko intrepid2 aztecoo ml zoltan trilinosss; do
  pkgs+=("libtrilinos-$p-dev")
done
# The peers of the benchmarks (perf/petsc, perf/graphblas) only when asked: petsc-dev pulls in ~45
# packages (SuperLU, hypre, SuiteSparse, ...), all built on the same libopenmpi3 as Trilinos.
if [ "${TRIDENT_WITH_PEERS:-${TRIDENT_WITH_PETSC:-0}}" = 1 ]; then pkgs+=(petsc-dev libgraphblas-dev); fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
[ "${TRIDENT_SETUP_PACKAGES_ONLY:-0}" = 1 ] && exit 0

export CCACHE_DIR=${CCACHE_DIR:-${HOME:-/root}/.ccache}
# Paths relative to the checkout, so that build/, build-cuda/ and other clones share cache entries.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$here}
mkdir -p "$build"
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=${TRIDENT_BUILD_TYPE:-Release} \
      -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_INSTALL_PREFIX="$build/install" ${TRIDENT_CMAKE_ARGS:-} \
      >"$build/configure.log"
# What was left out and why (the MueLu adapter, the peers), from the project's own messages.
sed -n 's/^-- \(Trident: .*\)/setup: \1/p' "$build/configure.log"
cmake --build "$build" -j 2
