# SPDX-License-Identifier: BSD-3-Clause
# Install rules: headers under <prefix>/include/adlib, the library, the CMake
# package (Adlib::adlib, with its MPI and Kokkos dependencies found again in
# the consumer) and a pkg-config file for Makefile builds.
include(CMakePackageConfigHelpers)

install(TARGETS adlib EXPORT AdlibTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY runtime ranges schedules collectives
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/adlib FILES_MATCHING PATTERN "*.hpp"
  PATTERN instances EXCLUDE)
install(FILES adlib.hpp ${ADLIB_BUILD_INCLUDE_DIR}/adlib/version.hpp
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/adlib)
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# ---- CMake package ------------------------------------------------------------
# The Kokkos adlib was compiled against is recorded: a consumer that finds
# another Kokkos (another version, another build) would link two ABIs.
set(ADLIB_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Adlib)
set(ADLIB_KOKKOS_VERSION "${Kokkos_VERSION}")
set(ADLIB_KOKKOS_DIR "${Kokkos_DIR}")
install(EXPORT AdlibTargets NAMESPACE Adlib:: DESTINATION ${ADLIB_CMAKE_DIR})
configure_package_config_file(cmake/AdlibConfig.cmake.in
  ${PROJECT_BINARY_DIR}/AdlibConfig.cmake INSTALL_DESTINATION ${ADLIB_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/AdlibConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/AdlibConfig.cmake
  ${PROJECT_BINARY_DIR}/AdlibConfigVersion.cmake
  cmake/AdlibKokkos.cmake
  DESTINATION ${ADLIB_CMAKE_DIR})

# ---- pkg-config -----------------------------------------------------------------
# pkg-config knows nothing of CMake targets, so the flags of adlib's
# dependencies are spelled out: MPI's from FindMPI, Kokkos's from its target
# (libraries, include folders and compile options, followed through the
# targets it links).  A pkg-config consumer compiles and links C++, so the
# flags Kokkos gives C++ only (`$<$<COMPILE_LANGUAGE:CXX>:-fopenmp>`, and the
# same for linking) are written out plainly; other generator expressions
# (device back ends) cannot be written to a .pc file and are left out: such
# builds use the CMake package.
# Appends each value of a target property, with `prefix` in front, to the
# list `out_var`; generator expressions other than the C++-only ones are
# left out.
function(_adlib_append_property target property prefix out_var)
  set(out "${${out_var}}")
  get_target_property(values ${target} ${property})
  if(NOT values)
    return()
  endif()
  string(REGEX REPLACE "\\$<\\$<(COMPILE|LINK)_LANGUAGE:CXX>:([^<>]*)>" "\\2" values "${values}")
  foreach(value IN LISTS values)
    if(value AND NOT value MATCHES "\\$<")
      list(APPEND out "${prefix}${value}")
    endif()
  endforeach()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

function(_adlib_flatten_target target cflags_var libs_var)
  set(cflags "${${cflags_var}}")
  set(libs "${${libs_var}}")
  _adlib_append_property(${target} INTERFACE_INCLUDE_DIRECTORIES "-I" cflags)
  _adlib_append_property(${target} INTERFACE_COMPILE_OPTIONS "" cflags)
  _adlib_append_property(${target} INTERFACE_LINK_OPTIONS "" libs)
  get_target_property(type ${target} TYPE)
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(location ${target} LOCATION)
    if(location)
      list(APPEND libs "${location}")
    endif()
  endif()
  get_target_property(links ${target} INTERFACE_LINK_LIBRARIES)
  foreach(item IN LISTS links)
    if(NOT item OR item MATCHES "\\$<")
      continue()
    elseif(TARGET ${item})
      _adlib_flatten_target(${item} cflags libs)
    elseif(item MATCHES "^-D")
      list(APPEND cflags "${item}")  # Trilinos puts a definition among its libraries
    elseif(item MATCHES "^-" OR IS_ABSOLUTE "${item}")
      list(APPEND libs "${item}")
    else()
      list(APPEND libs "-l${item}")
    endif()
  endforeach()
  set(${cflags_var} "${cflags}" PARENT_SCOPE)
  set(${libs_var} "${libs}" PARENT_SCOPE)
endfunction()

set(_adlib_pc_cflags "")
set(_adlib_pc_libs "")
_adlib_flatten_target(Kokkos::kokkos _adlib_pc_cflags _adlib_pc_libs)
if(Kokkos_LIBRARY_DIRS)
  foreach(dir IN LISTS Kokkos_LIBRARY_DIRS)
    get_filename_component(dir "${dir}" REALPATH)
    list(PREPEND _adlib_pc_libs "-L${dir}")
  endforeach()
endif()
foreach(dir IN LISTS MPI_C_INCLUDE_DIRS)
  list(APPEND _adlib_pc_cflags "-I${dir}")
endforeach()
list(APPEND _adlib_pc_libs ${MPI_C_LIBRARIES})
list(REMOVE_DUPLICATES _adlib_pc_cflags)
list(REMOVE_DUPLICATES _adlib_pc_libs)
list(JOIN _adlib_pc_cflags " " ADLIB_PC_CFLAGS)
list(JOIN _adlib_pc_libs " " ADLIB_PC_LIBS)
# Relocatable: the prefix is found from where the .pc file lies.
file(RELATIVE_PATH ADLIB_PC_PREFIX_FROM_PCFILEDIR /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" ADLIB_PC_PREFIX_FROM_PCFILEDIR "${ADLIB_PC_PREFIX_FROM_PCFILEDIR}")
configure_file(cmake/adlib.pc.in ${PROJECT_BINARY_DIR}/adlib.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/adlib.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
