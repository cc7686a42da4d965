// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// IrregularBlockRange: blocks of explicit sizes, one per process (zeros
/// allowed); the extent is their sum.  Holds O(P) starts: explicit sizes
/// cannot be described in less.
///
/// @code
///   auto r = std::make_shared<adlib::IrregularBlockRange>(std::vector<adlib::Index>{5, 0, 7},
///                                                         grid.dim(0));
/// @endcode
#pragma once

#include <vector>

#include <adlib/ranges/interval_range.hpp>

namespace adlib {

/// Contiguous blocks of explicit sizes: coordinate c owns sizes[c] indices
/// following those of c - 1 (zeros allowed).
class IrregularBlockRange : public IntervalRange {
 public:
  /// One size per process of `dimension` (sizes.size() == dimension.size(), none
  /// negative); the extent is their sum.
  IrregularBlockRange(const std::vector<Index>& sizes, const Dimension& dimension,
                      const Ghosts& ghosts = {});
  Index block_start(int coord) const override { return starts_[coord]; }
  int coord_of(Index global) const override;
  std::string describe() const override;

 private:
  std::vector<Index> starts_;  ///< P + 1 entries
};

}  // namespace adlib
