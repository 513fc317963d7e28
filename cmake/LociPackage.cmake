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

# The same package from the build tree: find_package(loci) with CMAKE_PREFIX_PATH (or loci_DIR) set to the build
# folder, no install needed. Headers are included as <loci/...> there too, through a link to the source tree.
export(EXPORT lociTargets NAMESPACE loci:: FILE ${PROJECT_BINARY_DIR}/lociTargets.cmake)
configure_file(${PROJECT_SOURCE_DIR}/cmake/LociPlugin.cmake ${PROJECT_BINARY_DIR}/LociPlugin.cmake COPYONLY)
# (generated/ is already on every target's build include path.)
file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/generated)
if(NOT EXISTS ${PROJECT_BINARY_DIR}/generated/loci)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}/generated/loci SYMBOLIC)
endif()
