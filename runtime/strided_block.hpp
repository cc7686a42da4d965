// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// StridedBlock: an r-dimensional strided patch of a flat local array.
///
/// This is the unit of everything the low-level schedules move: an offset into
/// local memory plus r extents and r strides, all in elements (Adlib's
/// "blocks").  Element (i_0, ..., i_{r-1}) of the block lives at
/// @verbatim
///   offset + sum_d i_d * strides[d],
/// @endverbatim
/// and the block's elements are always enumerated in C order (last index
/// fastest): that order is the order in which they travel in a message.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>

namespace adlib {

/// The most dimensions a StridedBlock has.
constexpr int kMaxBlockRank = 8;

/// An r-dimensional strided patch of a flat local array (see the file overview);
/// a plain value that kernels capture by copy.
struct StridedBlock {
  std::int64_t offset = 0;  ///< index of element (0, ..., 0), in elements
  int rank = 0;             ///< number of dimensions (0 to kMaxBlockRank; 0: one element)
  /// Extent of each dimension.  Plain arrays (not std::array) so the struct
  /// can be captured by value in device kernels of every Kokkos back end.
  std::int64_t extents[kMaxBlockRank] = {};
  /// Element stride of each dimension (any sign, 0 allowed).
  std::int64_t strides[kMaxBlockRank] = {};

  /// Build from lists of equal length (at most kMaxBlockRank).
  static StridedBlock make(std::int64_t offset, std::initializer_list<std::int64_t> extents,
                           std::initializer_list<std::int64_t> strides);

  std::int64_t count() const;  ///< number of elements (1 for a rank-0 block)

  /// The same elements in the same order, with as few dimensions as possible:
  /// extent-1 dimensions dropped, dimension pairs that continue each other
  /// (strides[d] == strides[d+1] * extents[d+1]) fused.  Rank 0 means one
  /// element; an empty block normalises to rank 1 with extent 0.
  StridedBlock normalized() const;

  /// True when the elements are consecutive in memory, in increasing order.
  bool contiguous() const;

  /// True when no two elements share a memory location.  A sufficient test
  /// (dimensions sorted by stride, each stride beyond the span of the smaller
  /// ones): a block it rejects may still be injective, and is then treated as
  /// one whose elements may repeat, which is only slower.
  bool injective() const;

  /// Smallest element offset touched (count() must be > 0).
  std::int64_t lowest_offset() const;
  /// Largest element offset touched (count() must be > 0).
  std::int64_t highest_offset() const;

  /// Adds an outer dimension (used to fuse a sequence of equal blocks).
  StridedBlock with_outer_dimension(std::int64_t extent, std::int64_t stride) const;

  /// "{offset o, extents [...], strides [...]}", for error messages.
  std::string to_string() const;
};

/// Normalises two blocks of equal extents together, so that they keep
/// matching dimensions (element k of one still pairs with element k of the
/// other): extent-1 dimensions dropped, neighbours fused only where both
/// blocks allow it.
void normalize_together(StridedBlock& a, StridedBlock& b);

/// Reorders the dimensions of two blocks of equal extents (the same
/// permutation for both, so the element pairing is unchanged) so that `order`
/// is walked with its largest absolute strides outermost, then normalises
/// them together.  Copies walk their destination this way: sequential writes.
void order_together_by(StridedBlock& order, StridedBlock& other);

/// Do walking `a` and `b` (equal extents) in the order of their largest
/// strides visit the dimensions in the same order?  Then a copy between them
/// reads and writes memory sequentially at once.
bool same_walk_order(const StridedBlock& a, const StridedBlock& b);

/// Same rank, extents and strides (offsets may differ).
bool same_shape(const StridedBlock& a, const StridedBlock& b);
/// Same rank and extents (strides and offsets may differ).
bool same_extents(const StridedBlock& a, const StridedBlock& b);

}  // namespace adlib
