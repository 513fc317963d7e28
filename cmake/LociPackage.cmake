# The installed CMake package: find_package(loci) gives the loci:: libraries and loci_add_plugin().
include(CMakePackageConfigHelpers)
install(EXPORT lociTargets NAMESPACE loci:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/loci)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/lociConfig.cmake.in
  ${PROJECT_BINARY_DIR}/lociConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/loci)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/lociConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/lociConfig.cmake ${PROJECT_BINARY_DIR}/lociConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/LociPlugin.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/loci)
