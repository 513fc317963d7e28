# loci_add_library(NAME DIR <folder> [LINK libs...] [PRIVATE_LINK libs...])
# One shared library from every .cpp below <folder>. Headers live beside sources and are included by their path
# from the project root ("datasets/spec.hpp"); they install under include/loci/ with the same path.
function(loci_add_library name)
  cmake_parse_arguments(ARG "" "DIR" "LINK;PRIVATE_LINK" ${ARGN})
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${ARG_DIR}/*.cpp)
  add_library(${name} SHARED ${sources})
  add_library(loci::${name} ALIAS ${name})
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/generated>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}/loci>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  target_link_libraries(${name} PUBLIC ${ARG_LINK} PRIVATE loci_warnings ${ARG_PRIVATE_LINK})
  set_target_properties(${name} PROPERTIES EXPORT_NAME ${name})
  install(TARGETS ${name} EXPORT lociTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${ARG_DIR}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/loci/${ARG_DIR}
          FILES_MATCHING PATTERN "*.hpp")
endfunction()
