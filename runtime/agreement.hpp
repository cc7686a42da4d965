// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Agreement on the named arguments of a collective call: when ranks pass
/// different arguments, every rank throws the same adlib::Error saying which
/// argument differs and on which ranks.
///
/// Why names: a fingerprint alone tells that something differs, not what; a
/// user who sees "arguments differ between ranks: combine: add on ranks 0,
/// 2; max on rank 1" knows where to look.  The names cost nothing when the ranks agree: the fast
/// path is the one MPI_Allreduce of agree_on_errors (comm.hpp), over a hash of every argument's
/// fingerprint.  Only a disagreement pays for finding the first argument that differs (one
/// MPI_Allgather of the fingerprints) and for the descriptions of that argument (one
/// MPI_Allgatherv), which are made then and only then.
///
/// @code
///   adlib::agree_on_arguments(comm, local_error,
///       {{"layout", layout.fingerprint(), [&] { return layout.describe(); }},
///        {"combine", op_fingerprint, [] { return std::string("add"); }}},
///       "ArrayReduction");
/// @endcode
///
/// The operation's name is agreed too, as if it were the first argument, so
/// ranks that enter different collectives on one communicator are told so
/// ("operation: ArrayReduction::sum on ranks 0, 1; ArrayReduction::maxval on
/// rank 2" after the "arguments differ between ranks: " every such message
/// starts with).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>

namespace adlib {

/// One argument of a collective call that every rank must pass alike.
struct AgreedArgument {
  /// The argument as the user knows it: "layout", "combine", "index".
  std::string name;
  /// Equal on two ranks exactly when they pass the same argument.
  std::uint64_t fingerprint = 0;
  /// How the argument reads in an error message ("add", a layout's
  /// describe()); called only when the ranks disagree on this argument.
  std::function<std::string()> describe;
};

/// The element type T as an agreed argument ("element type").
template <class T>
AgreedArgument agreed_element_type() {
  return {"element type", detail::element_fingerprint<T>(),
          [] { return detail::describe_element<T>(); }};
}

/// A combine operation, by its op::fingerprint, as an agreed argument
/// ("combine", described by op::describe: "combine: add on ranks 0, 2; max
/// on rank 1").
AgreedArgument agreed_combine(std::uint64_t fingerprint);

/// `config` as an agreed argument ("configuration").
AgreedArgument agreed_configuration(const Configuration& config);

/// Collective over `comm`: every rank passes its local verdict (empty when
/// its arguments are fine) and the arguments that must agree, in the same
/// order.  When every rank is fine and every argument agrees: one
/// MPI_Allreduce, nothing thrown.  Otherwise every rank throws the same
/// adlib::Error: the message of the lowest rank that found an error, else
/// the first argument that differs, with each variant and the ranks that
/// pass it ("arguments differ between ranks: section: ... on ranks 0,
/// 2-3; ... on rank 1").
void agree_on_arguments(const Comm& comm, const std::string& local_error,
                        const std::vector<AgreedArgument>& arguments, const char* operation);

/// The fingerprint agree_on_arguments() agrees on for `arguments` and
/// `operation`: what a caller that also needs the fingerprint (to compare
/// with a later call, say) would compute.
std::uint64_t arguments_fingerprint(const std::vector<AgreedArgument>& arguments,
                                    const char* operation);

/// "0, 2-4, 7": a sorted list of ranks, runs of three or more as ranges.
std::string describe_ranks(const std::vector<int>& ranks);

}  // namespace adlib
