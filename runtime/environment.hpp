// SPDX-License-Identifier: BSD-3-Clause
// adlib::Environment: initialise MPI and Kokkos in the right order, or adopt
// them when the application already did.
//
//   int main(int argc, char** argv) {
//     adlib::Environment env(argc, argv);   // MPI_Init_thread, then Kokkos::initialize
//     ...                                   // schedules, arrays
//   }                                       // Kokkos::finalize, then MPI_Finalize
//
// Only what this guard initialised is finalised, so a code that owns MPI (or
// Kokkos) itself can still create an Environment inside it.
#pragma once

namespace adlib {

class Environment {
 public:
  Environment(int& argc, char**& argv);
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;
  ~Environment();

  bool owns_mpi() const { return owns_mpi_; }
  bool owns_kokkos() const { return owns_kokkos_; }

 private:
  bool owns_mpi_ = false;
  bool owns_kokkos_ = false;
};

}  // namespace adlib
