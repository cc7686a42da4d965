// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// ArrayLayout: everything about a distributed array except its data and its
/// element type: the group it lives on, one Range per dimension, and the
/// section of those ranges it covers (the whole range unless it is a section).
///
/// Planning code (Remap and the other collectives) works on layouts, not on
/// arrays, so a schedule can be planned for simulated process counts without
/// allocating anything, and one schedule serves every array of its layouts.
///
/// Local memory of a process is a C-order array of local_extents(rank)
/// (allocation sizes with ghosts), and local position p along dimension d is
/// at offset p * local_strides(rank)[d].  A layout may record that one rank's
/// memory is padded (with_storage: a leading dimension larger than the local
/// extent, as ScaLAPACK's LLD); its strides are then those of the padded
/// extents, and every schedule planned from the layout uses them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <adlib/ranges/process_grid.hpp>
#include <adlib/ranges/range.hpp>
#include <adlib/runtime/agreement.hpp>

namespace adlib {

/// How layouts hold their ranges: shared and immutable.
using RangePtr = std::shared_ptr<const Range>;

/// The distribution of an array without its data: the group it lives on, one
/// Range per dimension and the section of those ranges it covers (see the file
/// overview).  A value; copies share the ranges.
class ArrayLayout {
 public:
  /// Validates: each distributed range's dimension is a free axis of the
  /// group's grid, no two ranges share an axis.  Throws adlib::Error.
  ArrayLayout(Group group, std::vector<RangePtr> ranges);

  /// A section: triplets of positions of *this* layout's index space (so
  /// sections of sections compose).  Bounds are checked.
  ArrayLayout section(const std::vector<Triplet>& triplets) const;

  /// Number of array dimensions.
  int rank() const { return static_cast<int>(ranges_.size()); }
  /// The processes the array lives on.
  const Group& group() const { return group_; }
  /// The Range of dimension `d`.
  const Range& range(int d) const { return *ranges_.at(d); }
  /// The same as a shared pointer.
  const RangePtr& range_ptr(int d) const { return ranges_.at(d); }
  /// Global indices of range(d) that this layout covers.
  const Triplet& section_triplet(int d) const { return section_.at(d); }
  /// Does some dimension cover less than its whole range?
  bool is_section() const;
  /// Number of indices of dimension `d` (of the section).
  Index extent(int d) const { return section_.at(d).count(); }
  /// extent(d) of every dimension.
  std::vector<Index> shape() const;
  Index size() const;  ///< number of elements

  /// Does process `rank` (of the grid's communicator) hold a copy of the data?
  bool holds_data(int rank) const { return group_.contains(rank); }
  /// Its coordinate along range(d)'s dimension (0 for collapsed ranges).
  int coordinate(int rank, int d) const;
  /// Allocation per dimension, ghosts included (all 0 outside the group).
  std::vector<Index> local_extents(int rank) const;
  /// Extents of the memory of `rank`: local_extents, or the padded extents
  /// recorded by with_storage() for that rank.
  std::vector<Index> storage_extents(int rank) const;
  std::vector<Index> local_strides(int rank) const;  ///< C order of storage_extents

  /// The same layout with the memory of `rank` padded to `extents` (each at
  /// least local_extents(rank)[d]; C order, so padding dimension d > 0 widens
  /// the stride of dimension d - 1).  Padding is local: it takes no part in
  /// describe_distribution() or fingerprint(), so ranks with different
  /// padding still agree, but a padded and an unpadded layout are different
  /// layouts (operator==), as their local strides differ.
  ArrayLayout with_storage(int rank, std::vector<Index> extents) const;
  /// Was the layout made by with_storage()?
  bool has_padding() const { return storage_rank_ >= 0; }

  /// Section position and local position (ghost offset included) of each
  /// element `rank` holds along dimension `d`, in increasing position (empty
  /// when `rank` holds no data).
  std::vector<std::pair<Index, Index>> held_along(int rank, int d) const;
  /// Can the layout's ranges answer for every process without communication
  /// (Range::plannable_locally() of every dimension)?  Planners that
  /// enumerate other processes' elements need it.
  bool plannable_locally() const;

  /// Grid axes that no range uses and the group leaves free: the array is
  /// replicated over them.
  std::vector<int> replicated_axes() const;
  /// Every rank holding the elements whose owners along each dimension are
  /// coords[d] (all replicas, in C order of the replicated axes).
  std::vector<int> ranks_holding(const std::vector<int>& coords) const;
  /// How many ranks hold each element (the size of every ranks_holding()).
  long long replica_count() const;
  /// The k-th rank of ranks_holding(coords) without listing them
  /// (0 <= k < replica_count()).
  int replica(const std::vector<int>& coords, long long k) const;

  /// For two sections of the same ranges: do they share at least one element?
  bool overlaps(const ArrayLayout& o) const;

  /// Exactly the same layout: group, ranges (same distribution) and section.
  bool operator==(const ArrayLayout& o) const;
  /// Not operator==.
  bool operator!=(const ArrayLayout& o) const { return !(*this == o); }
  std::string describe() const;               ///< describe_distribution() and the padding
  std::string describe_distribution() const;  ///< identical on every rank
  std::uint64_t fingerprint() const;  ///< of describe_distribution(): for cross-rank agreement

 private:
  Group group_;
  std::vector<RangePtr> ranges_;
  std::vector<Triplet> section_;
  int storage_rank_ = -1;       ///< the rank whose memory is padded, -1: none
  std::vector<Index> storage_;  ///< its padded extents
};

/// FNV-1a, the hash behind fingerprints.
std::uint64_t fingerprint_of(const std::string& text);

/// `layout` as an argument every rank must pass alike (agree_on_arguments),
/// under `name` ("layout", "the mask's layout"); it refers to `layout`,
/// which must outlive the agreement.
AgreedArgument agreed_layout(const std::string& name, const ArrayLayout& layout);

}  // namespace adlib
