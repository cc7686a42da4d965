// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Implementation detail of the agreement on arguments (agreement.hpp,
/// Comm::lease_agreed_tag): the one MPI_Allreduce that carries every rank's
/// verdict and fingerprint, and the slow path that turns a failed agreement
/// into the same adlib::Error on every rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/comm.hpp>

namespace adlib {
namespace detail {

/// What the ranks found, the same on every rank.
struct Verdict {
  bool failed = false;    ///< some rank found an error in its arguments
  bool mismatch = false;  ///< the fingerprints differ between ranks
  bool fine() const { return !failed && !mismatch; }
};

/// One MPI_Allreduce, under bitwise OR, of {failed here, f, ~f} followed by
/// `extra` (replaced by its OR over the ranks).  A bit is set in both OR(f)
/// and OR(~f) exactly when some rank has a 1 there and another a 0, so
/// OR(f) & OR(~f) != 0 says "the fingerprints differ", with the same
/// verdict on every rank.
Verdict reduce_verdict(const Comm& comm, bool failed_here, std::uint64_t fingerprint,
                       std::uint64_t* extra, int extra_count, const char* operation);

/// Collective, after a verdict that is not fine: every rank throws the same
/// adlib::Error.  With a failure, the lowest failing rank's message; with a
/// mismatch, the first of `arguments` that differs (null: the fingerprint
/// as a whole) with its variants and the ranks that pass each.
[[noreturn]] void throw_verdict(const Comm& comm, const Verdict& verdict,
                                const std::string& local_error,
                                const std::vector<AgreedArgument>* arguments,
                                std::uint64_t fingerprint, const char* operation);

}  // namespace detail
}  // namespace adlib
