// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// BlockCyclicRange: tiles of `block` consecutive elements dealt round-robin
/// over the P processes (ScaLAPACK's distribution): element g is in tile
/// t = g / block, on coordinate t mod P, at local position
/// (t / P) * block + g mod block.  CyclicRange is the case block = 1.
///
/// @code
///   auto rows = std::make_shared<adlib::BlockCyclicRange>(4096, grid.dim(0), 64);
/// @endcode
///
/// The first tile may live on another coordinate than 0 (ScaLAPACK's RSRC /
/// CSRC): with source s, tile t is on coordinate (t + s) mod P, and every
/// inquiry below honours it.
///
/// @code
///   auto cols = std::make_shared<adlib::BlockCyclicRange>(4096, grid.dim(1), 64, /*source=*/1);
/// @endcode
///
/// A process's share of a section is decomposed canonically either per tile
/// (one Block per tile it touches) or per phase (one strided Block per residue
/// class of the section's positions, e.g. the single run of a cyclic range);
/// the choice depends only on the section, whichever gives fewer blocks.
#pragma once

#include <adlib/ranges/range.hpp>

namespace adlib {

/// Tiles of block_size() consecutive indices dealt round-robin over the
/// processes, tile t on coordinate (t + source()) mod P (ScaLAPACK's
/// distribution).  Carries no ghost cells.
class BlockCyclicRange : public Range {
 public:
  /// `source`: the coordinate holding the first tile, 0 <= source < P.
  BlockCyclicRange(Index extent, const Dimension& dimension, Index block, int source = 0);
  /// Indices per tile.
  Index block_size() const { return block_; }
  /// Coordinate holding the first tile.
  int source() const { return source_; }

  Index local_count(int coord) const override;
  /// Keep the whole-section overload visible next to the override.
  using Range::owned_blocks;
  void owned_blocks(int coord, const Triplet& section, Index first, Index last,
                    std::vector<Block>& out) const override;
  void owners(const Triplet& indices, std::vector<int>& coords) const override;
  Owner owner(Index global) const override;
  Index global_index(int coord, Index local) const override;
  LocalMap local_map(int coord) const override;
  /// 'c' with this range's tile size (DAP `block_size`) and its source
  /// folded into `start`.
  dap::DimensionData dap_dimension(int coord) const override;
  std::string describe() const override;

 private:
  /// Tiles are dealt as if from coordinate 0 to the shifted coordinate
  /// (coord - source) mod P; these convert between the two.
  int shifted(int coord) const;
  int unshifted(Index shifted_coord) const;
  Index local_position(Index global) const;
  bool per_phase(const Triplet& section) const;
  void phase_blocks(int coord, const Triplet& section, Index first, Index last,
                    std::vector<Block>& out) const;
  void tile_blocks(int coord, const Triplet& section, Index first, Index last,
                   std::vector<Block>& out) const;
  Index block_;
  int source_;
};

/// Index g on coordinate (g + source) mod P: block-cyclic with tiles of one.
class CyclicRange : public BlockCyclicRange {
 public:
  /// `extent` indices dealt one by one over `dimension`, the first on `source`.
  CyclicRange(Index extent, const Dimension& dimension, int source = 0)
      : BlockCyclicRange(extent, dimension, 1, source) {}
  /// 'c' without `block_size` (the DAP's default of 1).
  dap::DimensionData dap_dimension(int coord) const override;
  std::string describe() const override;
};

}  // namespace adlib
