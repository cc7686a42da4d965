// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/environment.hpp>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <adlib/runtime/error.hpp>

namespace adlib {

int Environment::required_thread_level() {
#if defined(KOKKOS_ENABLE_OPENMP) || defined(KOKKOS_ENABLE_THREADS) || defined(KOKKOS_ENABLE_HPX)
  return MPI_THREAD_FUNNELED;
#else
  return MPI_THREAD_SINGLE;
#endif
}

const char* thread_level_name(int level) {
  if (level == MPI_THREAD_SINGLE) return "MPI_THREAD_SINGLE";
  if (level == MPI_THREAD_FUNNELED) return "MPI_THREAD_FUNNELED";
  if (level == MPI_THREAD_SERIALIZED) return "MPI_THREAD_SERIALIZED";
  if (level == MPI_THREAD_MULTIPLE) return "MPI_THREAD_MULTIPLE";
  return "an unknown thread level";
}

std::string thread_level_error(int provided, int required) {
  if (provided >= required) return {};
  return std::string("MPI provides ") + thread_level_name(provided) + ", lower than the " +
         thread_level_name(required) + " required";
}

Environment::Environment(int& argc, char**& argv)
    : Environment(argc, argv, MPI_THREAD_FUNNELED, required_thread_level()) {}

Environment::Environment(int& argc, char**& argv, int thread_level)
    : Environment(argc, argv, thread_level, thread_level) {}

Environment::Environment(int& argc, char**& argv, int requested, int required) {
  int initialized = 0;
  ADLIB_MPI(MPI_Initialized(&initialized), "Environment");
  if (!initialized) {
    ADLIB_MPI(MPI_Init_thread(&argc, &argv, requested, &provided_), "Environment");
    owns_mpi_ = true;
  } else {
    ADLIB_MPI(MPI_Query_thread(&provided_), "Environment");
  }
  if (const std::string error = thread_level_error(provided_, required); !error.empty()) {
    // Every rank of one MPI library sees the same level, so every rank throws.
    const int rank = world_rank_or_unknown();
    if (owns_mpi_) ADLIB_MPI_CLEANUP(MPI_Finalize());
    throw Error(error, rank, "Environment");
  }
  if (!Kokkos::is_initialized()) {
    Kokkos::initialize(argc, argv);
    owns_kokkos_ = true;
  }
}

Environment::~Environment() {
  // Kokkos first: its finalisation may free buffers that MPI still refers to
  // through persistent requests of schedules the user forgot to destroy.
  if (owns_kokkos_ && Kokkos::is_initialized()) Kokkos::finalize();
  int finalized = 0;
  ADLIB_MPI_CLEANUP(MPI_Finalized(&finalized));
  if (owns_mpi_ && !finalized) ADLIB_MPI_CLEANUP(MPI_Finalize());
}

}  // namespace adlib
