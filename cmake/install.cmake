# What `cmake --install` adds beyond the targets' own install rules (proto/, client/): the
# CMake package, so that find_package(capplan CONFIG) gives capplan::client, and capplan.pc.
include(CMakePackageConfigHelpers)

set(CAPPLAN_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/capplan)

install(EXPORT capplanTargets NAMESPACE capplan:: FILE capplanTargets.cmake
        DESTINATION ${CAPPLAN_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/capplanConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/capplanConfig.cmake
                              INSTALL_DESTINATION ${CAPPLAN_INSTALL_CMAKEDIR}
                              PATH_VARS CAPPLAN_INSTALL_INCLUDEDIR)
# 0.x: a minor release may change the API, so only the same major.minor satisfies a request.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/capplanConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/capplanConfig.cmake
              ${PROJECT_BINARY_DIR}/capplanConfigVersion.cmake
        DESTINATION ${CAPPLAN_INSTALL_CMAKEDIR})

# capplan.pc is written at install time, so that its prefix is the one installed to
# (`cmake --install --prefix` overrides the configured CMAKE_INSTALL_PREFIX); file(INSTALL)
# honours DESTDIR and records the file in install_manifest.txt.
install(CODE "
  set(CAPPLAN_PC_VERSION \"${PROJECT_VERSION}\")
  set(CAPPLAN_PC_LIBDIR \"${CMAKE_INSTALL_LIBDIR}\")
  set(CAPPLAN_PC_INCLUDEDIR \"${CAPPLAN_INSTALL_INCLUDEDIR}\")
  configure_file(\"${CMAKE_CURRENT_LIST_DIR}/capplan.pc.in\" \"${PROJECT_BINARY_DIR}/capplan.pc\"
                 @ONLY)
  file(INSTALL \"${PROJECT_BINARY_DIR}/capplan.pc\"
       DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig\")
")
