# FindNIfTI2: Debian's libnifti2-dev (the NIfTI-1/NIfTI-2 C library), as the imported target NIfTI::nifti2.
# Debian 12 ships /usr/share/cmake/NIFTI/NIFTIConfig.cmake, but it points at /usr/lib/libznz.so.3.0.0 instead of the
# multiarch folder and stops configuration with "references the file ... but this file does not exist"; the package
# has no pkg-config file either. So the header and the two libraries (nifti2 and its compressed-I/O layer znz) are
# found here directly.
find_path(NIfTI2_INCLUDE_DIR nifti2_io.h PATH_SUFFIXES nifti)
find_library(NIfTI2_LIBRARY nifti2)
find_library(NIfTI2_ZNZ_LIBRARY znz)

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(NIfTI2 REQUIRED_VARS NIfTI2_LIBRARY NIfTI2_ZNZ_LIBRARY NIfTI2_INCLUDE_DIR)

if(NIfTI2_FOUND AND NOT TARGET NIfTI::nifti2)
  add_library(NIfTI::nifti2 UNKNOWN IMPORTED)
  set_target_properties(NIfTI::nifti2 PROPERTIES
    IMPORTED_LOCATION "${NIfTI2_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${NIfTI2_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES "${NIfTI2_ZNZ_LIBRARY};m")
endif()
mark_as_advanced(NIfTI2_INCLUDE_DIR NIfTI2_LIBRARY NIfTI2_ZNZ_LIBRARY)
