# Installs the libraries with their Trident:: targets and one header layout: everything under
# include/trident/. The core keeps its folders (trident/core/Errors.hpp, ...); the adapters' and
# applications' headers (Trident_MatrixMatrix.hpp, Trident_CreatePreconditioner.hpp,
# Trident_MCL.hpp, ...) sit directly in include/trident/. Trident::trident exports both include/
# and include/trident/, so consumers write #include <Trident_MatrixMatrix.hpp> as in the build
# tree (or <trident/Trident_MatrixMatrix.hpp>).
include(CMakePackageConfigHelpers)
set(TRIDENT_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/trident)
set(TRIDENT_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Trident)

install(TARGETS trident trident_core trident_trilinos_deps trident_core_deps trident_device trident_mmio
        EXPORT TridentTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
# Only the public headers: the API's entry headers (the drop-in, MultiplyPlan, conversions,
# Matrix Market, generators, errors) and what they include; run_consumer.sh checks that every
# installed header's includes are installed too.
function(trident_install_core_headers)
  foreach(h ${ARGN})
    get_filename_component(dir "${h}" DIRECTORY)
    install(FILES "${PROJECT_SOURCE_DIR}/src/trident/${h}" DESTINATION ${TRIDENT_INSTALL_INCLUDEDIR}/${dir})
  endforeach()
endfunction()
trident_install_core_headers(core/Errors.hpp grid/TileGrid.hpp local/Csr.hpp partition/Layout.hpp
    partition/LocalRows.hpp partition/Permutation.hpp partition/Redistribute.hpp partition/Triplets.hpp
    stats/MultiplyStats.hpp)
set(TRIDENT_PUBLIC_TPETRA_HEADERS Trident_MatrixMatrix.hpp Trident_MultiplyPlan.hpp Trident_MultiplyOptions.hpp
    Trident_TpetraConversion.hpp Trident_MatrixMarket.hpp Trident_Generators.hpp Trident_TpetraTypes.hpp
    Trident_TpetraCompat.hpp Trident_TpetraComm.hpp)
list(TRANSFORM TRIDENT_PUBLIC_TPETRA_HEADERS PREPEND "${PROJECT_SOURCE_DIR}/adapters/tpetra/"
     OUTPUT_VARIABLE _tpetra_headers)
install(FILES ${_tpetra_headers} DESTINATION ${TRIDENT_INSTALL_INCLUDEDIR})

if(TARGET trident_muelu)
  install(TARGETS trident_muelu trident_muelu_deps EXPORT TridentTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES "${PROJECT_SOURCE_DIR}/adapters/muelu/Trident_CreatePreconditioner.hpp"
                "${PROJECT_SOURCE_DIR}/adapters/muelu/Trident_MueLuRAPFactory.hpp"
                "${PROJECT_SOURCE_DIR}/adapters/muelu/Trident_MueLuSolve.hpp"
          DESTINATION ${TRIDENT_INSTALL_INCLUDEDIR})
  set(TRIDENT_HAS_MUELU ON)
else()
  set(TRIDENT_HAS_MUELU OFF)
endif()

if(TARGET trident_mcl)
  install(TARGETS trident_mcl EXPORT TridentTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES "${PROJECT_SOURCE_DIR}/apps/mcl/Trident_MCL.hpp" DESTINATION ${TRIDENT_INSTALL_INCLUDEDIR})
endif()

if(TARGET trident_cuda)
  install(TARGETS trident_cuda EXPORT TridentTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  trident_install_core_headers(cuda/CudaDevice.hpp device/MemorySpace.hpp)
  set(TRIDENT_HAS_CUDA ON)
else()
  set(TRIDENT_HAS_CUDA OFF)
endif()

install(EXPORT TridentTargets NAMESPACE Trident:: DESTINATION ${TRIDENT_INSTALL_CMAKEDIR})
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/TridentConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/TridentConfig.cmake"
    INSTALL_DESTINATION ${TRIDENT_INSTALL_CMAKEDIR})
write_basic_package_version_file("${PROJECT_BINARY_DIR}/TridentConfigVersion.cmake"
    COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/TridentConfig.cmake" "${PROJECT_BINARY_DIR}/TridentConfigVersion.cmake"
        DESTINATION ${TRIDENT_INSTALL_CMAKEDIR})
