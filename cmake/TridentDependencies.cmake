# Trilinos's TriBITS-style configs (13.2 to 16.x) give plain variables: <Pkg>_LIBRARIES names
# non-namespaced targets in 13.2 (trilinos_tpetra, ...), <Pkg>::all_libs in 16. Wrap them into
# interface targets so the rest of the build (and downstream users through TridentConfig.cmake)
# link one name. Trilinos headers are SYSTEM to silence their deprecations.
# Only MPI's C++ component: the code calls MPI's C API, which MPI::MPI_CXX carries (mpi.h and
# libmpi), and FindMPI refuses the C component in projects that do not enable C, which is what
# most Trilinos users write and what TridentConfig.cmake has to work in.
find_package(MPI REQUIRED COMPONENTS CXX)
find_package(Tpetra REQUIRED)
find_package(KokkosKernels REQUIRED)
find_package(Teuchos REQUIRED)

if(NOT TARGET Trident::trilinos_deps)
  add_library(trident_trilinos_deps INTERFACE)
  add_library(Trident::trilinos_deps ALIAS trident_trilinos_deps)
  target_include_directories(trident_trilinos_deps SYSTEM INTERFACE
      ${Tpetra_INCLUDE_DIRS} ${Tpetra_TPL_INCLUDE_DIRS})
  target_link_libraries(trident_trilinos_deps INTERFACE
      ${Tpetra_LIBRARIES} ${Tpetra_TPL_LIBRARIES} MPI::MPI_CXX)
  set_target_properties(trident_trilinos_deps PROPERTIES EXPORT_NAME trilinos_deps)
endif()

# The core's own: Teuchos and KokkosKernels without Tpetra.
if(NOT TARGET Trident::core_deps)
  add_library(trident_core_deps INTERFACE)
  add_library(Trident::core_deps ALIAS trident_core_deps)
  target_include_directories(trident_core_deps SYSTEM INTERFACE
      ${KokkosKernels_INCLUDE_DIRS} ${KokkosKernels_TPL_INCLUDE_DIRS} ${Teuchos_INCLUDE_DIRS})
  target_link_libraries(trident_core_deps INTERFACE
      ${KokkosKernels_LIBRARIES} ${KokkosKernels_TPL_LIBRARIES} ${Teuchos_LIBRARIES} MPI::MPI_CXX)
  set_target_properties(trident_core_deps PROPERTIES EXPORT_NAME core_deps)
endif()

if(TRIDENT_ENABLE_MUELU)
  find_package(MueLu QUIET)
  find_package(Belos QUIET)
  if(MueLu_FOUND AND Belos_FOUND)
    if(NOT TARGET Trident::muelu_deps)
      add_library(trident_muelu_deps INTERFACE)
      add_library(Trident::muelu_deps ALIAS trident_muelu_deps)
      target_include_directories(trident_muelu_deps SYSTEM INTERFACE
          ${MueLu_INCLUDE_DIRS} ${MueLu_TPL_INCLUDE_DIRS} ${Belos_INCLUDE_DIRS})
      target_link_libraries(trident_muelu_deps INTERFACE
          ${MueLu_LIBRARIES} ${MueLu_TPL_LIBRARIES} ${Belos_LIBRARIES} trident_trilinos_deps)
      set_target_properties(trident_muelu_deps PROPERTIES EXPORT_NAME muelu_deps)
    endif()
  else()
    message(STATUS "Trident: MueLu/Belos not found, the MueLu adapter is not built")
    set(TRIDENT_ENABLE_MUELU OFF)
  endif()
endif()

if(TRIDENT_ENABLE_CUDA)
  include(TridentCuda)   # nvcc, CUDAToolkit (cudart, cuSPARSE), NCCL
endif()
