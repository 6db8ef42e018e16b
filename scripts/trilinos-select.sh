# Sourced by setup.sh, test.sh, bench.sh and perf/check-shared.sh (with $here set to the
# checkout): which Trilinos to build against, from TRIDENT_TRILINOS:
#   13 (default)  Debian 12's Trilinos 13.2, installed on this machine by setup.sh; builds in build/
#   16            Debian unstable's Trilinos 16.1, in the root that scripts/trilinos-root.sh makes
#                 and keeps; the calling script runs again inside it; builds in build-16/
# With a Trilinos of your own (spack, modules), configure directly instead (docs/install.md).
trilinos=${TRIDENT_TRILINOS:-13}
case $trilinos in
  13) build_suffix= ;;
  16) build_suffix=-16 ;;
  *) echo "TRIDENT_TRILINOS=$trilinos: 13 (Debian 12's Trilinos 13.2) or 16 (Debian unstable's 16.1)" >&2
     exit 2 ;;
esac
if [ "$trilinos" = 16 ] && [ "$(cat /etc/trident-trilinos 2>/dev/null)" != 16 ]; then
  exec bash "$here/scripts/trilinos-root.sh" bash "$(readlink -f "$0")" "$@"
fi
