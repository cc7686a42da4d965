// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/version.hpp>

#include <Kokkos_Core.hpp>

#include <string>

namespace adlib {

Version version() noexcept {
  return {ADLIB_VERSION_MAJOR, ADLIB_VERSION_MINOR, ADLIB_VERSION_PATCH};
}

const char* version_string() noexcept {
  return ADLIB_VERSION_STRING;
}

// From Kokkos's own macros, so that the text describes the Kokkos this file
// was compiled against, whichever KokkosConfig.cmake the build found.
const char* kokkos_version_string() noexcept {
  static const std::string text = std::to_string(KOKKOS_VERSION / 10000) + "." +
                                  std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
                                  std::to_string(KOKKOS_VERSION % 100);
  return text.c_str();
}

namespace {

// One ", name" per enabled space, in the order of Kokkos_Core_fwd.hpp's choice
// of the default (so the first is the default unless a build overrode it);
// the leading ", " is dropped below.  A long name: the library is compiled
// in unity batches, which share one anonymous namespace per batch.
constexpr const char kKokkosExecutionSpaceList[] =
    ""
#if defined(KOKKOS_ENABLE_CUDA)
    ", Cuda"
#endif
#if defined(KOKKOS_ENABLE_OPENMPTARGET)
    ", OpenMPTarget"
#endif
#if defined(KOKKOS_ENABLE_HIP)
    ", HIP"
#endif
#if defined(KOKKOS_ENABLE_SYCL)
    ", SYCL"
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    ", OpenMP"
#endif
#if defined(KOKKOS_ENABLE_THREADS)
    ", Threads"
#endif
#if defined(KOKKOS_ENABLE_HPX)
    ", HPX"
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
    ", Serial"
#endif
    ;
static_assert(sizeof kKokkosExecutionSpaceList > 2, "Kokkos has no execution space enabled");

}  // namespace

const char* kokkos_execution_spaces() noexcept {
  return kKokkosExecutionSpaceList + 2;
}

const char* build_string() noexcept {
  static const std::string text = std::string("adlib ") + ADLIB_VERSION_STRING + ", Kokkos " +
                                  kokkos_version_string() +
                                  ", execution spaces: " + kokkos_execution_spaces() +
                                  " (default " + Kokkos::DefaultExecutionSpace::name() + ")";
  return text.c_str();
}

}  // namespace adlib
