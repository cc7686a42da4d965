// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// CollapsedRange: an undistributed dimension.  Every process of the array
/// holds all N elements (possibly with ghosts, e.g. a periodic wrap).
///
/// @code
///   auto columns = std::make_shared<adlib::CollapsedRange>(n);
/// @endcode
#pragma once

#include <adlib/ranges/interval_range.hpp>

namespace adlib {

/// Not distributed: every process of the array holds all extent() indices (plus
/// ghosts, if any).
class CollapsedRange : public IntervalRange {
 public:
  /// `extent` indices, not distributed over any grid axis.
  explicit CollapsedRange(Index extent, const Ghosts& ghosts = {})
      : IntervalRange(extent, std::nullopt, ghosts) {}
  Index block_start(int coord) const override { return coord == 0 ? 0 : extent(); }
  int coord_of(Index) const override { return 0; }
  std::string describe() const override { return "collapsed(" + describe_common() + ")"; }
};

}  // namespace adlib
