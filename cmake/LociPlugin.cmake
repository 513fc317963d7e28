# loci_add_plugin(<name> SOURCES <files...> [LINK <libraries...>])
# Builds a loci plugin: one shared library named <name>.so whose only exported symbol is its entry point
# (LOCI_PLUGIN in plugins/api/plugin.hpp). Works in the loci tree and out of tree after find_package(loci).
function(loci_add_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "loci_add_plugin(${name}): SOURCES is required")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  if(TARGET loci_plugins)
    target_link_libraries(${name} PRIVATE loci_plugins ${ARG_LINK})
  else()
    target_link_libraries(${name} PRIVATE loci::loci_plugins ${ARG_LINK})
  endif()
  set_target_properties(${name} PROPERTIES
    PREFIX ""
    CXX_STANDARD 17
    CXX_STANDARD_REQUIRED ON
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(DEFINED LOCI_PLUGIN_OUTPUT_DIR)
    set_target_properties(${name} PROPERTIES
      LIBRARY_OUTPUT_DIRECTORY ${LOCI_PLUGIN_OUTPUT_DIR}
      INSTALL_RPATH "$ORIGIN/../..")
    install(TARGETS ${name} LIBRARY DESTINATION ${LOCI_PLUGIN_INSTALL_DIR})
  endif()
endfunction()
