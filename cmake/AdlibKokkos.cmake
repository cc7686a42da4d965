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

# Which Kokkos was found, and with which back ends: several may be installed
# (Debian's, with Serial only, and one of the user's own), and the first one
# CMake finds wins.  Kokkos_DEVICES is set by the KokkosConfig.cmake of 3.x
# and 4.x alike; a Kokkos added as a subproject may leave the three unset.
# Quiet in a consumer that asked find_package(Adlib ... QUIET).
if(NOT Adlib_FIND_QUIETLY)
  if(DEFINED Kokkos_VERSION)
    set(_adlib_kokkos_version "${Kokkos_VERSION}")
  else()
    set(_adlib_kokkos_version "(version unknown)")
  endif()
  if(DEFINED Kokkos_DIR)
    set(_adlib_kokkos_where "${Kokkos_DIR}")
  else()
    set(_adlib_kokkos_where "(no Kokkos_DIR: a target of this project)")
  endif()
  if(DEFINED Kokkos_DEVICES)
    list(JOIN Kokkos_DEVICES ", " _adlib_kokkos_devices)
  else()
    set(_adlib_kokkos_devices "(not reported)")
  endif()
  message(STATUS "adlib: Kokkos ${_adlib_kokkos_version} at ${_adlib_kokkos_where}, "
                 "back ends: ${_adlib_kokkos_devices}")
endif()
