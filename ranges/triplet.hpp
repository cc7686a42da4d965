// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Triplet and Block: the small value types of the Range inquiries.
///
/// A Triplet is a strided interval of global indices, Fortran style: lo, hi
/// inclusive, stride != 0 (negative strides run downwards).  It describes an
/// array section along one dimension; position k of the section is global
/// index lo + k * stride.
///
/// A Block is what a Range answers about one process: `count` global indices
/// global_base + i * global_step held at local positions local_base + i *
/// local_step (i = 0 .. count-1).  Local positions count from the start of the
/// local allocation, ghost cells included.
#pragma once

#include <cstdint>
#include <string>

namespace adlib {

/// A global or local index, an extent or a count: 64 bits, so extents beyond
/// 2^31 work.
using Index = std::int64_t;

/// A strided interval of global indices lo:hi:stride (see the file overview).
struct Triplet {
  Index lo = 0;      ///< first index
  Index hi = -1;     ///< last bound, inclusive (reached only when stride divides hi - lo)
  Index stride = 1;  ///< nonzero; negative runs downwards

  /// Every index of an extent: 0:extent-1:1.
  static Triplet all(Index extent) { return Triplet{0, extent - 1, 1}; }
  /// No index (0:-1:1).
  static Triplet empty() { return Triplet{0, -1, 1}; }

  /// Number of indices (0 when hi lies before lo in the stride's direction).
  Index count() const {
    if (stride > 0) return hi < lo ? 0 : (hi - lo) / stride + 1;
    return lo < hi ? 0 : (lo - hi) / (-stride) + 1;
  }
  /// Global index at `position` (not checked against count()).
  Index at(Index position) const { return lo + position * stride; }
  /// The last index actually reached (count() must be > 0).
  Index last() const { return lo + (count() - 1) * stride; }
  /// The sub-triplet of positions first, first+step, ..., count of them.
  Triplet positions(Index first, Index step, Index n) const {
    return Triplet{at(first), at(first) + (n - 1) * step * stride, step * stride};
  }
  /// Same sequence of indices (so every empty triplet equals every other).
  bool operator==(const Triplet& o) const {
    const Index n = count();
    return n == o.count() && (n == 0 || (lo == o.lo && (n == 1 || stride == o.stride)));
  }
  /// Not operator==.
  bool operator!=(const Triplet& o) const { return !(*this == o); }
  /// "lo:hi:stride".
  std::string to_string() const {
    return std::to_string(lo) + ":" + std::to_string(hi) + ":" + std::to_string(stride);
  }
};

/// Elements of a section held by one process (see the file overview).
struct Block {
  Index count = 0;        ///< number of elements
  Index global_base = 0;  ///< global index of the first element
  Index global_step = 1;  ///< global index step between consecutive elements
  Index local_base = 0;   ///< local position of the first element (ghost offset included)
  Index local_step = 1;   ///< local position step between consecutive elements
};

/// Where a global index lives.
struct Owner {
  int coord = 0;    ///< process coordinate along the range's dimension
  Index local = 0;  ///< local position, ghost offset included
};

}  // namespace adlib
