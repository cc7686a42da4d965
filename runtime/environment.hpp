// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// adlib::Environment: initialise MPI and Kokkos in the right order, or adopt
/// them when the application already did.
///
/// @code
///   int main(int argc, char** argv) {
///     adlib::Environment env(argc, argv);   // MPI_Init_thread, then Kokkos::initialize
///     ...                                   // schedules, arrays
///   }                                       // Kokkos::finalize, then MPI_Finalize
/// @endcode
///
/// Only what this guard initialised is finalised, so a code that owns MPI (or
/// Kokkos) itself can still create an Environment inside it.
///
/// Thread level: adlib calls MPI from the thread that calls the schedules, so
/// it needs MPI_THREAD_FUNNELED when the Kokkos host back end runs threads
/// (OpenMP, Threads, HPX) and MPI_THREAD_SINGLE otherwise
/// (required_thread_level()).  The Environment asks MPI_Init_thread for
/// MPI_THREAD_FUNNELED (or the level passed), or, adopting an initialised MPI,
/// asks MPI_Query_thread what it provides; a level below the required one
/// throws adlib::Error naming both levels, before Kokkos is initialised (MPI,
/// if this guard initialised it, is finalised first).
#pragma once

#include <string>

namespace adlib {

/// Scope guard that initialises (or adopts) MPI and Kokkos and finalises what it
/// initialised (see the file overview); not copyable.
class Environment {
 public:
  /// Asks for MPI_THREAD_FUNNELED and requires required_thread_level().
  Environment(int& argc, char**& argv);
  /// Requests (and requires) `thread_level`, e.g. MPI_THREAD_MULTIPLE for an
  /// application that calls MPI from several threads itself.
  Environment(int& argc, char**& argv, int thread_level);
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
  ~Environment();

  /// Did this guard initialise MPI (and so finalise it on destruction)?
  bool owns_mpi() const { return owns_mpi_; }
  /// Did this guard initialise Kokkos (and so finalise it on destruction)?
  bool owns_kokkos() const { return owns_kokkos_; }
  /// The thread level MPI provides (MPI_THREAD_SINGLE ... MPI_THREAD_MULTIPLE).
  int thread_level() const { return provided_; }
  /// The level adlib needs with this build's Kokkos host back end.
  static int required_thread_level();

 private:
  Environment(int& argc, char**& argv, int requested, int required);
  bool owns_mpi_ = false;
  bool owns_kokkos_ = false;
  int provided_ = 0;
};

/// "MPI_THREAD_FUNNELED" for MPI_THREAD_FUNNELED, etc.
const char* thread_level_name(int level);

/// Empty when `provided` satisfies `required`, else the message Environment
/// throws.
std::string thread_level_error(int provided, int required);

}  // namespace adlib
