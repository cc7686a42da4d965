# SPDX-License-Identifier: BSD-3-Clause
# Finds Kokkos and repairs Debian's packaging, where Kokkos::kokkos points at
# an include directory that does not exist (/usr/lib/include) although the
# headers are in Kokkos_INCLUDE_DIRS.  Used by the build and by the installed
# AdlibConfig.cmake, so consumers get the same fix.
if(NOT TARGET Kokkos::kokkos)
  find_package(Kokkos REQUIRED)
endif()
get_target_property(_adlib_kokkos_includes Kokkos::kokkos INTERFACE_INCLUDE_DIRECTORIES)
set(_adlib_kokkos_broken FALSE)
if(NOT _adlib_kokkos_includes)
  set(_adlib_kokkos_broken TRUE)
else()
  foreach(_dir IN LISTS _adlib_kokkos_includes)
    if(NOT _dir MATCHES "^\\$<" AND NOT EXISTS "${_dir}")
      set(_adlib_kokkos_broken TRUE)
    endif()
  endforeach()
endif()
if(_adlib_kokkos_broken AND DEFINED Kokkos_INCLUDE_DIRS)
  get_filename_component(_adlib_kokkos_real "${Kokkos_INCLUDE_DIRS}" REALPATH)
  set_target_properties(Kokkos::kokkos PROPERTIES INTERFACE_INCLUDE_DIRECTORIES
                                                  "${_adlib_kokkos_real}")
  message(STATUS "adlib: Kokkos include directory repaired -> ${_adlib_kokkos_real}")
endif()
