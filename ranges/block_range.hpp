// SPDX-License-Identifier: BSD-3-Clause
// BlockRange: regular block distribution.  Coordinate c of P owns global
// indices [c*N/P, (c+1)*N/P) (integer division), so sizes differ by at most
// one and any N, P >= 1 work, N < P included (some blocks empty).
//
//   auto rows = std::make_shared<adlib::BlockRange>(1000, grid.dim(0));
//
// Optional ghost widths make it a ghost-extended block (see GhostBlockRange).
#pragma once

#include <adlib/ranges/interval_range.hpp>

namespace adlib {

class BlockRange : public IntervalRange {
 public:
  BlockRange(Index extent, const Dimension& dimension, const Ghosts& ghosts = {});
  Index block_start(int coord) const override;
  int coord_of(Index global) const override;
  std::string describe() const override;
};

// A BlockRange whose local blocks carry ghost cells: `low` below and `high`
// above the owned interval, filled by halo exchanges; `periodic` means the
// ghosts of the first and last blocks wrap around.
//
//   auto x = std::make_shared<adlib::GhostBlockRange>(n, grid.dim(0), 1, 1, /*periodic=*/false);
class GhostBlockRange : public BlockRange {
 public:
  GhostBlockRange(Index extent, const Dimension& dimension, Index low, Index high,
                  bool periodic = false)
      : BlockRange(extent, dimension, Ghosts{low, high, periodic}) {}
};

}  // namespace adlib
