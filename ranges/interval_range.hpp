// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// IntervalRange: the common base of every range in which a process owns one
/// contiguous interval of global indices (block, irregular block, collapsed),
/// optionally with ghost cells around it.  A subclass only says where each
/// interval starts and who owns an index; the inquiries follow.
#pragma once

#include <adlib/ranges/range.hpp>

namespace adlib {

/// Base of the contiguous ranges (see the file overview): implements every Range
/// inquiry from block_start() and coord_of().
class IntervalRange : public Range {
 public:
  Index local_count(int coord) const override;
  /// Keep the whole-section overload visible next to the override.
  using Range::owned_blocks;
  void owned_blocks(int coord, const Triplet& section, Index first, Index last,
                    std::vector<Block>& out) const override;
  void owners(const Triplet& indices, std::vector<int>& coords) const override;
  Owner owner(Index global) const override;
  Index global_index(int coord, Index local) const override;
  bool contiguous() const override { return true; }
  Interval owned_interval(int coord) const override;
  LocalMap local_map(int coord) const override;

  /// First global index of `coord`'s interval; block_start(process_count()) == extent().
  virtual Index block_start(int coord) const = 0;
  /// The coordinate whose interval holds `global` (0 <= global < extent()).
  virtual int coord_of(Index global) const = 0;

 protected:
  /// For subclasses: `extent` indices over `dimension` (none: collapsed) with
  /// `ghosts`.
  IntervalRange(Index extent, std::optional<Dimension> dimension, const Ghosts& ghosts);
};

}  // namespace adlib
