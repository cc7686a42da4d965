// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Range factories: a Range described without its process-grid axis, bound to
/// the axes of an array's group by position when the array is made.
///
/// @code
///   adlib::ProcessGrid grid(comm, {2, 2});
///   adlib::DistArray<double, 2> u(grid, {adlib::block(n).ghosts(1),
///                                        adlib::block(m).ghosts(1).periodic()});
///   adlib::DistArray<double, 2> a(grid, {adlib::cyclic(n), adlib::collapsed(m)});
/// @endcode
///
/// The k-th distributed spec of an array (every kind but collapsed) is bound
/// to the k-th free axis of the group, unless it names its axis with
/// .axis(a); collapsed specs take no axis.  .on(dimension) makes the Range
/// itself (a RangePtr), for ArrayLayout or planning code.
///
/// Ghost cells are said one way: .ghosts(width) or .ghosts(low, high), plus
/// .periodic() for a dimension that wraps around.  Only the contiguous kinds
/// (block, irregular_block, collapsed) carry them; asking for ghosts on
/// cyclic or block_cyclic is an error when the spec is bound.  Any width is
/// accepted, wider than the extent included.
///
/// A new distribution format gets a spec through the public constructor:
/// @code
///   adlib::RangeSpec mine(/*distributed=*/true, [n](const std::optional<adlib::Dimension>& d,
///                                                   const adlib::Ghosts& g) -> adlib::RangePtr {
///     return std::make_shared<MyRange>(n, *d, g);
///   });
/// @endcode
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <adlib/ranges/array_layout.hpp>

namespace adlib {

/// A Range described without its grid axis (see the file overview): what the
/// factories block(), cyclic(), ... return.  A value; the modifiers return a
/// changed copy.
class RangeSpec {
 public:
  /// Makes the Range over `dimension` (std::nullopt for an undistributed
  /// spec) with the spec's ghosts.
  using Maker = std::function<RangePtr(const std::optional<Dimension>&, const Ghosts&)>;

  /// A spec that makes its ranges with `make`; `distributed` says whether it takes
  /// a grid axis, `kind` names it in error messages.
  RangeSpec(bool distributed, Maker make, std::string kind = "range");

  /// Ghost cells: `width` on both sides, or `low` below and `high` above.
  RangeSpec ghosts(Index width) const { return ghosts(width, width); }
  /// See ghosts(Index).
  RangeSpec ghosts(Index low, Index high) const;
  /// The ghosts of the first and last blocks wrap around the extent.
  RangeSpec periodic(bool on = true) const;
  /// Binds to grid axis `grid_axis` instead of the next free one.
  RangeSpec axis(int grid_axis) const;

  /// Does the spec take a grid axis?
  bool distributed() const { return distributed_; }
  /// The axis set by axis(), if any.
  const std::optional<int>& explicit_axis() const { return axis_; }
  /// The ghost widths and periodicity set so far.
  const Ghosts& ghost_widths() const { return ghosts_; }

  /// The Range over `dimension` (distributed specs) or over no dimension
  /// (collapsed specs).  Throws adlib::Error on bad parameters.
  RangePtr on(const Dimension& dimension) const;
  /// The Range of an undistributed spec (throws adlib::Error for a distributed one).
  RangePtr make() const;

 private:
  bool distributed_;
  Maker make_;
  std::string kind_;
  Ghosts ghosts_;
  std::optional<int> axis_;
};

/// Regular blocks: coordinate c of P owns [c*N/P, (c+1)*N/P) (BlockRange).
RangeSpec block(Index extent);
/// Explicit block sizes, one per coordinate, zeros allowed (IrregularBlockRange).
RangeSpec irregular_block(std::vector<Index> sizes);
/// Element g on coordinate (g + source) mod P (CyclicRange).
RangeSpec cyclic(Index extent, int source = 0);
/// Tiles of `block_size` elements dealt round-robin, the first on coordinate
/// `source` (BlockCyclicRange; ScaLAPACK's RSRC / CSRC).
RangeSpec block_cyclic(Index extent, Index block_size, int source = 0);
/// Not distributed: every process holds all N elements (CollapsedRange).
RangeSpec collapsed(Index extent);

/// Binds specs to the axes of `group` by position (see above) and makes the
/// Ranges.  Throws adlib::Error when there are more distributed specs than
/// free axes, an explicit axis is not a free axis of the group, or a spec's
/// parameters are bad.
std::vector<RangePtr> bind_ranges(const Group& group, const std::vector<RangeSpec>& specs);

}  // namespace adlib
