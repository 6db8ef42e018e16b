include(CMakePackageConfigHelpers)
install(TARGETS trident trident_trilinos_deps EXPORT TridentTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY "${PROJECT_SOURCE_DIR}/src/trident" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(DIRECTORY "${PROJECT_SOURCE_DIR}/adapters/tpetra/" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
if(TARGET trident_muelu)
  install(TARGETS trident_muelu trident_muelu_deps EXPORT TridentTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY "${PROJECT_SOURCE_DIR}/adapters/muelu/" DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp")
  set(TRIDENT_HAS_MUELU ON)
else()
  set(TRIDENT_HAS_MUELU OFF)
endif()
install(EXPORT TridentTargets NAMESPACE Trident:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Trident)
configure_package_config_file("${PROJECT_SOURCE_DIR}/cmake/TridentConfig.cmake.in"
    "${PROJECT_BINARY_DIR}/TridentConfig.cmake"
    INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Trident)
write_basic_package_version_file("${PROJECT_BINARY_DIR}/TridentConfigVersion.cmake"
    COMPATIBILITY SameMinorVersion)
install(FILES "${PROJECT_BINARY_DIR}/TridentConfig.cmake" "${PROJECT_BINARY_DIR}/TridentConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/Trident)
