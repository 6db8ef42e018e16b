#!/usr/bin/env bash
# Runs a command inside a Debian unstable root that has Trilinos 16.1 (libtrilinos-*-dev 16.1.0,
# Serial Kokkos, <double, int, long long>), making the root on first use:
#   scripts/trilinos-root.sh COMMAND [ARGS]     e.g. scripts/trilinos-root.sh bash scripts/test.sh
#
# The root lives in $TRIDENT_TRILINOS16_ROOT (default /var/cache/trident/trilinos16) and is kept,
# so a second run costs nothing; scripts/setup.sh, run inside it, installs whatever its package
# list gained since. The command runs in a private mount namespace (unshare): /proc, /sys, /dev
# and the checkout's parent folder (the checkout and ../shared beside it) are mounted there at the
# same paths, and vanish with the namespace however the command ends. Needs root, as CI has.
# The mirror is this machine's own (the URIs: line of its apt sources).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=${TRIDENT_TRILINOS16_ROOT:-/var/cache/trident/trilinos16}
[ $# -gt 0 ] || { echo "usage: $0 COMMAND [ARGS]" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "trilinos-root: the Trilinos 16.1 root needs root (debootstrap, chroot)" >&2; exit 1; }

make_root() {
  local mirror
  mirror=$(sed -n 's/^URIs:[[:space:]]*//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -1)
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list 2>/dev/null)
  [ -n "$mirror" ] || { echo "trilinos-root: no Debian mirror in this machine's apt sources" >&2; exit 1; }
  if ! command -v debootstrap >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null 2>&1 || {
      apt-get update -q >/dev/null
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap >/dev/null
    }
  fi
  echo "trilinos-root: making a Debian unstable root in $root (from $mirror; about 5 minutes)"
  rm -rf "$root.partial"
  mkdir -p "$(dirname "$root")"
  debootstrap --variant=minbase sid "$root.partial" "$mirror" >"$(dirname "$root")/debootstrap.log" 2>&1 ||
    { tail -20 "$(dirname "$root")/debootstrap.log"; echo "trilinos-root: debootstrap failed" >&2; exit 1; }
  # The archive is served as a snapshot whose Release file has expired.
  echo 'Acquire::Check-Valid-Until "false";' >"$root.partial/etc/apt/apt.conf.d/99trident-snapshot"
  # scripts/setup.sh and scripts/test.sh read this to know they are inside the root.
  echo 16 >"$root.partial/etc/trident-trilinos"
  mv "$root.partial" "$root"
}
[ -f "$root/etc/trident-trilinos" ] || make_root

parent=$(dirname "$here")
[ "$parent" = / ] && parent=$here
# What the command may read from the caller's environment: the project's own settings.
envs=(HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8
      TRIDENT_TRILINOS=16)
while IFS='=' read -r name _; do
  case $name in TRIDENT_TRILINOS) ;; TRIDENT_*|CTEST_*|OMPI_*|CCACHE_*) envs+=("$name=${!name}") ;; esac
done < <(env)

# Inside the namespace: mount, install what the package list lacks (quick when nothing does), run.
exec unshare --mount --propagation private bash -euo pipefail -c '
  root=$1 parent=$2 here=$3; shift 3
  # The root a mount point of its own, so that "/" inside is one (ip netns exec remounts it).
  mount --bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mkdir -p "$root$parent"
  mount --bind "$parent" "$root$parent"
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  chroot "$root" env -i "${@}"
' trident-root "$root" "$parent" "$here" "${envs[@]}" \
  bash -c 'cd "$1" && shift && TRIDENT_SETUP_PACKAGES_ONLY=1 bash scripts/setup.sh && exec "$@"' \
  trident-root-cmd "$here" "$@"
