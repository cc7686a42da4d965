// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/environment.hpp>

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <adlib/runtime/error.hpp>

namespace adlib {

Environment::Environment(int& argc, char**& argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    // FUNNELED: Kokkos host back ends may run threads, but only the main
    // thread calls MPI.
    int provided = 0;
    ADLIB_MPI(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "Environment");
    owns_mpi_ = true;
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
  MPI_Finalized(&finalized);
  if (owns_mpi_ && !finalized) MPI_Finalize();
}

}  // namespace adlib
