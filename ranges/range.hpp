// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Range: how one array dimension is distributed (Adlib's Range hierarchy).
///
/// Every collective is written against the inquiries below and never asks
/// which kind of Range it holds, so a new distribution format works with every
/// collective by implementing them.  The subclasses:
///
/// @verbatim
///   BlockRange            ceil-free regular blocks: coordinate c owns [c*N/P, (c+1)*N/P)
///   IrregularBlockRange   explicit block sizes per process (zeros allowed)
///   CyclicRange           element g on coordinate g mod P
///   BlockCyclicRange      blocks of b elements dealt round-robin
///   CollapsedRange        not distributed: every process of the array holds all N
/// @endverbatim
///
/// Users make them with the factories of range_spec.hpp (adlib::block(n),
/// cyclic(n), ... .ghosts(w).periodic()).  Any contiguous range (block,
/// irregular, collapsed) may carry ghost widths, of any size (wider than the
/// extent too).
///
/// The central inquiry is owned_blocks(coord, section, first, last): the
/// elements of `section` (a Triplet of global indices) at positions
/// first..last that process `coord` owns, as Blocks.  Each range decomposes a
/// process's share of a section in one *canonical* way (depending on the
/// section, never on first / last, which only clip it).  This is what lets the
/// sending and the receiving side of a Remap enumerate identical pieces
/// without talking to each other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <adlib/ranges/dap_descriptor.hpp>
#include <adlib/ranges/process_grid.hpp>
#include <adlib/ranges/triplet.hpp>

namespace adlib {

/// A half-open interval [begin, end) of global indices.
struct Interval {
  Index begin = 0;  ///< first index
  Index end = 0;    ///< one past the last index
  /// Number of indices (end - begin).
  Index count() const { return end - begin; }
  /// Same begin and end.
  bool operator==(const Interval& o) const { return begin == o.begin && end == o.end; }
};

/// How local positions l = 0, 1, ... of one process map to global indices
/// along one dimension:
/// @verbatim
///   global(l) = base + (l / tile) * period + l % tile
/// @endverbatim
/// Contiguous ranges have tile = period = kNoTile (global = base + l, base =
/// first owned index - ghost_low, so ghost cells get the unwrapped global
/// indices next to the owned interval: below 0 or at / above the extent at
/// the ends of the domain); block-cyclic has tile = b, period = P * b.
struct LocalMap {
  /// The tile and period of contiguous ranges: no wrap-around.
  static constexpr Index kNoTile = Index(1) << 62;
  Index base = 0;          ///< global index of local position 0
  Index tile = kNoTile;    ///< consecutive local positions per tile
  Index period = kNoTile;  ///< global distance from one tile of this process to its next
};

/// How one array dimension is distributed (see the file overview): the abstract
/// base of every distribution format.  Immutable; shared by the layouts that use
/// it (RangePtr).
class Range {
 public:
  virtual ~Range() = default;

  /// Number of global indices 0 .. extent()-1.
  Index extent() const { return extent_; }
  /// The process dimension this range is distributed over (none: collapsed).
  const std::optional<Dimension>& dimension() const { return dimension_; }
  /// Processes along the dimension, 1 when not distributed.
  int process_count() const { return dimension_ ? dimension_->size() : 1; }

  /// Elements owned by `coord` (ghosts excluded).
  virtual Index local_count(int coord) const = 0;
  /// Ghost cells below each process's owned elements.
  Index ghost_low() const { return ghost_low_; }
  /// Ghost cells above each process's owned elements.
  Index ghost_high() const { return ghost_high_; }
  /// Do the ghost cells wrap around the ends of the domain?
  bool periodic() const { return periodic_; }
  /// Local allocation along this dimension: ghosts + owned.
  Index local_allocation(int coord) const { return ghost_low_ + local_count(coord) + ghost_high_; }

  /// Canonical blocks of `section` held by `coord`, clipped to section
  /// positions first..last, appended to `out` in increasing position of their
  /// first element.  Each block lists its elements in increasing position
  /// (global_step has the sign of section.stride).
  virtual void owned_blocks(int coord, const Triplet& section, Index first, Index last,
                            std::vector<Block>& out) const = 0;
  /// The same over every position of `section`.
  void owned_blocks(int coord, const Triplet& section, std::vector<Block>& out) const {
    owned_blocks(coord, section, 0, section.count() - 1, out);
  }

  /// Coordinates owning at least one of the global indices in `indices`
  /// (possibly a few more), sorted and unique, appended to `coords`.  Costs
  /// O(min(indices.count(), coordinates spanned)).
  virtual void owners(const Triplet& indices, std::vector<int>& coords) const = 0;

  /// Global-to-owner-and-local map: the coordinate owning `global` and its
  /// local position there.
  virtual Owner owner(Index global) const = 0;
  /// owner() of each of globals[0, count) into out[0, count): the batch form
  /// for planners that resolve many indices (a Gather's subscripts), one
  /// virtual call per batch, so that a range given by a formula can answer
  /// in a tight loop.  Each global must be in [0, extent()) (checked).
  virtual void owners_of(const Index* globals, std::size_t count, Owner* out) const;
  /// Local-to-global map: the global index at local position `local` of
  /// `coord`.  `local` is a local position (ghost offset included) of an owned
  /// element.
  virtual Index global_index(int coord, Index local) const = 0;

  /// Contiguity: does every coordinate own one interval of consecutive global
  /// indices, the intervals in increasing coordinate order (block, irregular
  /// block, collapsed)?  Only such ranges carry ghost cells, and halo
  /// exchanges plan through owned_interval() alone.
  virtual bool contiguous() const { return false; }
  /// The global indices [begin, end) that `coord` owns (begin == end when it
  /// owns nothing; end of coord == begin of coord + 1).  Throws unless
  /// contiguous().
  virtual Interval owned_interval(int coord) const;

  /// The closed form of global_index(coord, .) over the whole local
  /// allocation of `coord` (ghosts included, see LocalMap): what owned and
  /// ghost boxes evaluate inside kernels.
  virtual LocalMap local_map(int coord) const = 0;

  /// Can every inquiry above be answered for every coordinate without
  /// communication?  True for the ranges given by a formula; false for an
  /// UnstructuredRange, which knows its own coordinate's indices and finds
  /// other processes' through the collective locate().  Planners that
  /// enumerate what other processes hold (Remap's regular plan, Shift,
  /// WriteHalo) need it; the negotiated paths (Remap's, Gather's) do not.
  virtual bool plannable_locally() const { return true; }
  /// The owner of each of `globals` (each in [0, extent())), in order.
  /// Collective over the range's communicator when !plannable_locally():
  /// every process of it calls, with its own list (possibly empty); bad
  /// input on any process is the same adlib::Error on every process.
  /// Otherwise owner() of each, without communication.
  virtual std::vector<Owner> locate(const std::vector<Index>& globals) const;

  /// This range's dimension dictionary in the Distributed Array Protocol
  /// (ranges/dap_descriptor.hpp) at coordinate `coord`: each kind says how
  /// the DAP names it, so dap::describe asks instead of casting.  Here:
  /// contiguous ranges as 'b' (ghost cells as padding, the ones at the
  /// domain's ends as boundary padding: DAP index = index + ghost_low()), an
  /// undistributed range without ghosts as the empty dictionary; the cyclic
  /// kinds answer 'c', UnstructuredRange 'u'.  A range the DAP cannot name is
  /// an adlib::Error.
  virtual dap::DimensionData dap_dimension(int coord) const;

  /// A one-line description that identifies the distribution exactly.
  virtual std::string describe() const = 0;
  /// Same distribution (kind, parameters, dimension).
  bool same_distribution(const Range& other) const {
    return this == &other || (dimension_ == other.dimension_ && describe() == other.describe());
  }

 protected:
  /// For subclasses: validates the extent and ghost widths (adlib::Error).
  Range(Index extent, std::optional<Dimension> dimension, Index ghost_low = 0, Index ghost_high = 0,
        bool periodic = false);
  std::string describe_common() const;  ///< dimension, ghosts: for describe()
  /// Throws adlib::Error unless 0 <= coord < process_count().
  void check_coord(int coord, const char* operation) const;
  /// Throws adlib::Error unless 0 <= global < extent().
  void check_global(Index global, const char* operation) const;

 private:
  Index extent_;
  std::optional<Dimension> dimension_;
  Index ghost_low_, ghost_high_;
  bool periodic_;
};

/// Ghost widths of a block-like range.
struct Ghosts {
  Index low = 0;          ///< ghost cells below the owned elements
  Index high = 0;         ///< ghost cells above the owned elements
  bool periodic = false;  ///< ghost cells wrap around the ends of the domain
};

}  // namespace adlib
