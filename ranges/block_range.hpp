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

#include <adlib/ranges/detail/index_math.hpp>
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
  /// The owners in one loop of 64-bit arithmetic (when it fits, else
  /// owner() of each).
  void owners_of(const Index* globals, std::size_t count, Owner* out) const override;
  std::string describe() const override;

 private:
  // Whether (N + 1) * P fits in 64 bits, so that owner inquiries divide in
  // 64 bits: a 128-bit division is a library call costing about 40 ns, and
  // a Gather of 2^18 subscripts asks for 2^18 owners several times.
  bool narrow_ = false;
  // Whether (N + 1) * P < 2^52, so that owners_of divides by N and by P
  // through their reciprocals (detail::index_math::InvariantDivisor).
  bool by_reciprocal_ = false;
  detail::index_math::InvariantDivisor by_extent_, by_processes_;
  // When P divides N, every block holds N / P elements and an owner is one
  // division by that (by_block_), not two: a third of owners_of's time.
  bool equal_blocks_ = false;
  detail::index_math::InvariantDivisor by_block_;
};

}  // namespace adlib
