// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/error.hpp>

namespace adlib {

int world_rank_or_unknown() noexcept {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return -1;
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

void check_mpi(int code, const char* call, const char* operation) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw Error(std::string(call) + " failed: " + std::string(text, length), world_rank_or_unknown(),
              operation);
}

}  // namespace adlib
