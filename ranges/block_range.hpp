// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// BlockRange: regular block distribution.  Coordinate c of P owns global
/// indices [c*N/P, (c+1)*N/P) (integer division), so sizes differ by at most
/// one and any N, P >= 1 work, N < P included (some blocks empty).
///
/// @code
///   auto rows = std::make_shared<adlib::BlockRange>(1000, grid.dim(0));
/// @endcode
///
/// Optional ghost widths make it a ghost-extended block.  Users write
/// adlib::block(n).ghosts(w) (range_spec.hpp), the one public spelling.
#pragma once

#include <adlib/ranges/interval_range.hpp>

namespace adlib {

/// Regular blocks: coordinate c of P owns [c*N/P, (c+1)*N/P), so block sizes
/// differ by at most one and no block is empty unless N < P.
class BlockRange : public IntervalRange {
 public:
  /// `extent` indices over the processes of `dimension`, with `ghosts`.
  BlockRange(Index extent, const Dimension& dimension, const Ghosts& ghosts = {});
  Index block_start(int coord) const override;
  int coord_of(Index global) const override;
  std::string describe() const override;
};

/// A BlockRange whose local blocks carry ghost cells: `low` below and `high`
/// above the owned interval, filled by halo exchanges; `periodic` means the
/// ghosts of the first and last blocks wrap around.  Kept so that existing
/// code compiles; new code writes adlib::block(n).ghosts(low, high).periodic().
class GhostBlockRange : public BlockRange {
 public:
  /// The BlockRange with ghost widths `low`, `high` and `periodic`.
  GhostBlockRange(Index extent, const Dimension& dimension, Index low, Index high,
                  bool periodic = false)
      : BlockRange(extent, dimension, Ghosts{low, high, periodic}) {}
};

}  // namespace adlib
