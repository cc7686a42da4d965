// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The rules of the Distributed Array Protocol, checked on descriptors.
///
/// A DAP descriptor is per process, so its rules split in two: those one
/// process can check alone (local_violation: the version, the keys' ranges,
/// the buffer's shape, locally unique 'u' indices) and those that compare
/// processes (global_violation, on a Summary of every process: the product of
/// the grid sizes, the C-order grid, identical dictionaries along an axis,
/// adjacent block ranges, the padding rules, 'size' against the owned
/// indices).  A Summary is a few integers per dimension, so gathering one per
/// process costs O(P * rank) numbers; dap_import.hpp does that collectively.
///
/// Every violation is one line that names the rule, the dimension and the
/// rank, e.g.
/// `DAP rule 'adjacent block ranges': dimension 0, rank 2: start 6, but grid rank 1 stops at 5`.
///
/// @code
///   std::vector<adlib::dap::Descriptor> per_rank = ...;   // one per process
///   std::string error = adlib::dap::first_violation(per_rank);  // "" when valid
/// @endcode
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <adlib/ranges/dap_descriptor.hpp>

namespace adlib::dap {

/// What global_violation needs from one process's descriptor: per
/// dimension, the resolved keys as integers (a 'u' list as its length and a
/// hash), plus the element type.  Fixed size for a given number of
/// dimensions, so it travels in one MPI_Allgather.
struct Summary {
  /// The integers of one dimension, in this order.
  enum Field {
    kEmpty,       ///< 1 for the empty dictionary
    kDistType,    ///< 'b', 'c' or 'u'
    kSize,        ///< size
    kGridSize,    ///< proc_grid_size
    kGridRank,    ///< proc_grid_rank
    kStart,       ///< start ('b', 'c')
    kStop,        ///< stop ('b')
    kPadLow,      ///< padding[0] (0 when absent)
    kPadHigh,     ///< padding[1] (0 when absent)
    kPeriodic,    ///< periodic (0 when absent)
    kBlockSize,   ///< block_size, 0 when the key is absent
    kOneToOne,    ///< one_to_one (0 when absent)
    kOwned,       ///< num_owned_indices
    kIndicesHash  ///< a hash of the 'u' indices
  };
  /// Integers per dimension in `values`.
  static constexpr int fields = kIndicesHash + 1;
  /// ndim, itemsize, hash of the format, then `fields` per dimension.
  std::vector<std::int64_t> values;

  /// Number of dimensions.
  int dimensions() const { return static_cast<int>(values.at(0)); }
  /// Field `f` of dimension `d`.
  std::int64_t at(int d, int f) const { return values.at(3 + d * fields + f); }
};

/// The summary of `descriptor` (call it only when local_violation is empty).
Summary summarize(const Descriptor& descriptor);

/// The first rule that `descriptor` breaks on its own, as a message naming
/// the rule, the dimension and `rank`; empty when none.
std::string local_violation(const Descriptor& descriptor, int rank);

/// The first rule broken across processes, from the summaries of every
/// process of the communicator in rank order (each locally valid and of the
/// same number of dimensions); empty when none.  Deterministic: every
/// process that runs it on the same summaries gets the same message.
std::string global_violation(const std::vector<Summary>& per_rank);

/// local_violation of each descriptor (lowest rank first), then
/// global_violation: the whole validation without MPI, for tests, tools and
/// the fuzzer.
std::string first_violation(const std::vector<Descriptor>& per_rank);

/// The major number of "major.minor.patch", or -1 when `version` is not of
/// that form.
int major_version(const std::string& version);

}  // namespace adlib::dap
