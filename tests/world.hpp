// SPDX-License-Identifier: BSD-3-Clause
// This process's rank and the number of ranks of MPI_COMM_WORLD, for tests
// that draw every rank's data before they make a Comm.
#pragma once

#include <mpi.h>

namespace adlib_test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int p = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

}  // namespace adlib_test
