// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// adlib::Error: the one exception type of the library.
///
/// Why one type: users of a communication library want to know *what* went wrong,
/// *where* (which rank, which operation) and to be sure that every rank of the
/// collective saw the same verdict.  Argument checks therefore run before any
/// message is posted and are agreed over the communicator (see agree_on_errors),
/// so a bad call throws on every rank instead of deadlocking some of them.
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace adlib {

/// The exception every adlib failure throws: the message, the rank that found
/// the error and the library operation, all three also in what().
class Error : public std::runtime_error {
 public:
  /// `rank` -1 leaves the rank out of what().
  Error(const std::string& message, int rank, std::string operation)
      : std::runtime_error("adlib: " + operation + ": " + message +
                           (rank >= 0 ? " [rank " + std::to_string(rank) + "]" : "")),
        message_(message),
        rank_(rank),
        operation_(std::move(operation)) {}

  /// The message without the operation and rank decoration.
  const std::string& message() const noexcept { return message_; }
  /// Rank in the library communicator that detected the error (-1: not known).
  int rank() const noexcept { return rank_; }
  /// Name of the library operation that failed, e.g. "Remap".
  const std::string& operation() const noexcept { return operation_; }

 private:
  std::string message_;
  int rank_;
  std::string operation_;
};

/// Rank in MPI_COMM_WORLD, or -1 when MPI is not (or no longer) initialised.
/// Used only to decorate messages, so it must work without MPI (planning code
/// runs in one process for simulated process counts).
int world_rank_or_unknown() noexcept;

/// Throws adlib::Error when an MPI call returned anything but MPI_SUCCESS: the
/// message names the MPI function and carries MPI's error string, the error
/// carries the rank (in MPI_COMM_WORLD) and the library operation.  MPI
/// returns error codes instead of aborting on the library's communicator
/// (Comm sets MPI_ERRORS_RETURN on its duplicate).
void check_mpi(int code, const char* call, const char* operation);
/// "MPI_Isend failed: <MPI's error string>", or empty for MPI_SUCCESS.
std::string mpi_error_message(int code, const char* call);
/// For calls in destructors and cleanup paths, which must not throw: a failure
/// is reported on stderr.
void check_mpi_noexcept(int code, const char* call) noexcept;

}  // namespace adlib

/// Every MPI call adlib makes goes through one of these.
/// ADLIB_MPI(MPI_Isend(...), "BlockMessSchedule"): throws adlib::Error.
#define ADLIB_MPI(call, operation) ::adlib::check_mpi((call), #call, operation)
/// ADLIB_MPI_CLEANUP(MPI_Type_free(&t)): in destructors; reports, never throws.
#define ADLIB_MPI_CLEANUP(call) ::adlib::check_mpi_noexcept((call), #call)
