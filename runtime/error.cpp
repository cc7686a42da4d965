// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/error.hpp>

#include <cstdio>

namespace adlib {

// The raw calls here are the error path's own: they cannot throw, and their
// failure only loses the rank decoration.
int world_rank_or_unknown() noexcept {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return -1;
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

std::string mpi_error_message(int code, const char* call) {
  if (code == MPI_SUCCESS) return {};
  // The function's name: the wrapped expression up to its argument list.
  std::string name(call);
  name = name.substr(0, name.find('('));
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  // On the error path itself: a failure here leaves the text empty.
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) length = 0;
  return name + " failed: " +
         (length > 0 ? std::string(text, length) : "MPI error code " + std::to_string(code));
}

void check_mpi(int code, const char* call, const char* operation) {
  if (code == MPI_SUCCESS) return;
  throw Error(mpi_error_message(code, call), world_rank_or_unknown(), operation);
}

void check_mpi_noexcept(int code, const char* call) noexcept {
  if (code == MPI_SUCCESS) return;
  try {
    std::fprintf(stderr, "adlib: %s [rank %d] (in cleanup, ignored)\n",
                 mpi_error_message(code, call).c_str(), world_rank_or_unknown());
  } catch (...) {
  }
}

}  // namespace adlib
