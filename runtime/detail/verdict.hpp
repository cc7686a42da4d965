// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Implementation detail of the agreement on arguments (agreement.hpp,
/// agree_on_errors, Comm::lease_agreed_tag): the one MPI_Allreduce that
/// carries every rank's verdict and fingerprint, and the slow path that
/// turns a failed agreement into the same adlib::Error on every rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <adlib/runtime/agreement.hpp>
#include <adlib/runtime/comm.hpp>

namespace adlib {
namespace detail {

/// The agreement every other one is made of, collective over `comm`: one
/// MPI_Allreduce, under bitwise OR, of {failed here, f, ~f} followed by
/// `extra` (replaced by its OR over the ranks: Comm::lease_agreed_tag's tag
/// window rides there; at most kMostExtraWords words).  A bit is set in both
/// OR(f) and OR(~f) exactly when some rank has a 1 there and another a 0, so
/// OR(f) & OR(~f) != 0 says "the fingerprints differ", with the same verdict
/// on every rank.  When a rank failed or the fingerprints differ, every rank
/// throws the same adlib::Error: the lowest failing rank's message, else the
/// first of `arguments` that differs (null: the fingerprint as a whole) with
/// its variants and the ranks that pass each.
void agree(const Comm& comm, const std::string& local_error, std::uint64_t fingerprint,
           const std::vector<AgreedArgument>* arguments, std::uint64_t* extra, int extra_count,
           const char* operation);

/// The most words agree() carries besides the verdict.
constexpr int kMostExtraWords = 8;

}  // namespace detail
}  // namespace adlib
