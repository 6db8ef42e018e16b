# mpi-binding.sh - sourced by the perf scripts and scripts/bench.sh: sets mpi_bind, mpirun's
# binding options.
#
# Ranks bound to cores round-robin (rank r on core r mod cores, Open MPI's
# --map-by core:OVERSUBSCRIBE --bind-to core:overload-allowed). Unbound, with more ranks than
# cores (P = 4 on this project's 2-core machines), where the scheduler happened to put the ranks
# moved a whole process by up to 1.4x for all its trials: hep-th's A*A at P = 4 through Trident
# took 0.0049-0.0071 s between processes unbound, 0.0048-0.0051 bound (either layout: partners on
# one core or on two); a 9-round table then gave auto / its own plan 1.13-1.26 unbound and
# 0.97-1.03 bound (docs/benchmarks.md). TRIDENT_MPI_BIND=none: unbound.
# Where binding is refused (a container whose cpuset hwloc cannot bind to), one probe run finds
# it and the ranks run unbound, with a note on stderr.
if [ "${TRIDENT_MPI_BIND:-core}" = none ]; then
  mpi_bind=(--bind-to none)
else
  mpi_bind=(--map-by core:OVERSUBSCRIBE --bind-to core:overload-allowed)
  if ! timeout 60 mpirun --oversubscribe --allow-run-as-root "${mpi_bind[@]}" -np 2 true >/dev/null 2>&1; then
    echo "mpi-binding.sh: mpirun refused to bind ranks to cores; running them unbound" >&2
    mpi_bind=(--bind-to none)
  fi
fi
