# loci_add_areas()
# Every folder beside the calling CMakeLists.txt that has a CMakeLists.txt of its own, as a subdirectory: tests/ and
# bench/ grow by adding an area folder, with nothing to list.
function(loci_add_areas)
  file(GLOB areas LIST_DIRECTORIES true ${CMAKE_CURRENT_SOURCE_DIR}/*)
  foreach(area ${areas})
    if(IS_DIRECTORY ${area} AND EXISTS ${area}/CMakeLists.txt)
      add_subdirectory(${area})
    endif()
  endforeach()
endfunction()
