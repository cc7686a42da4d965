// SPDX-License-Identifier: BSD-3-Clause
// BlockCyclicRange: tiles of `block` consecutive elements dealt round-robin
// over the P processes (ScaLAPACK's distribution): element g is in tile
// t = g / block, on coordinate t mod P, at local position
// (t / P) * block + g mod block.  CyclicRange is the case block = 1.
//
//   auto rows = std::make_shared<adlib::BlockCyclicRange>(4096, grid.dim(0), 64);
//
// A process's share of a section is decomposed canonically either per tile
// (one Block per tile it touches) or per phase (one strided Block per residue
// class of the section's positions, e.g. the single run of a cyclic range);
// the choice depends only on the section, whichever gives fewer blocks.
#pragma once

#include <adlib/ranges/range.hpp>

namespace adlib {

class BlockCyclicRange : public Range {
 public:
  BlockCyclicRange(Index extent, const Dimension& dimension, Index block);
  Index block_size() const { return block_; }

  Index local_count(int coord) const override;
  // Keep the whole-section overload visible next to the override.
  using Range::owned_blocks;
  void owned_blocks(int coord, const Triplet& section, Index first, Index last,
                    std::vector<Block>& out) const override;
  void owners(const Triplet& indices, std::vector<int>& coords) const override;
  Owner owner(Index global) const override;
  Index global_index(int coord, Index local) const override;
  LocalMap local_map(int coord) const override;
  std::string describe() const override;

 private:
  Index local_position(Index global) const;
  bool per_phase(const Triplet& section) const;
  void phase_blocks(int coord, const Triplet& section, Index first, Index last,
                    std::vector<Block>& out) const;
  void tile_blocks(int coord, const Triplet& section, Index first, Index last,
                   std::vector<Block>& out) const;
  Index block_;
};

class CyclicRange : public BlockCyclicRange {
 public:
  CyclicRange(Index extent, const Dimension& dimension) : BlockCyclicRange(extent, dimension, 1) {}
  std::string describe() const override;
};

}  // namespace adlib
