// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// IndexList: elements of local memory given one by one (Adlib's messages of
/// words), stored compactly for packing.
///
/// @code
///   adlib::IndexList list = adlib::IndexList::from({7, 3, 100, 101, ..., 163, 5});
///   adlib::detail::pack_indices<double>(space, memory, list, buffer);   // runtime/detail/pack.hpp
/// @endcode
///
/// The offsets keep their order (it is the order the elements travel in).
/// Runs of at least kMinIndexRun (or the caller's min_run) consecutive offsets are kept as one
/// segment (copied as one row, and costing no plan memory per element); the other offsets are kept
/// as they are, 8 bytes each, in stretches.  Packing and unpacking walk the segments in one loop.
/// An offset may repeat (a gather that reads an element twice, a scatter whose contributions
/// combine); repeats() says so, and combining unpacks then keep the list's order.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace adlib {

/// Runs of consecutive offsets at least this long become one segment.
constexpr std::int64_t kMinIndexRun = 8;

/// A list of element offsets in message order (see the file overview).
struct IndexList {
  /// A stretch of the list: a run of `count` consecutive offsets from
  /// `first` (a run), or `count` single offsets at singles[first...] (not a
  /// run).
  struct Segment {
    std::int64_t first = 0;     ///< memory offset (a run) or position in singles
    std::int64_t count = 0;     ///< elements
    std::int64_t position = 0;  ///< list position of its first element
    bool run = false;           ///< consecutive offsets
  };
  std::vector<Segment> segments;      ///< the list, in order
  std::vector<std::int64_t> singles;  ///< offsets of the elements outside runs
  std::int64_t count = 0;             ///< elements in the list
  std::int64_t lowest = 0;            ///< smallest offset (count > 0)
  std::int64_t highest = -1;          ///< largest offset (count > 0)
  bool repeats = false;               ///< some offset occurs more than once
  bool sorted = true;                 ///< the offsets never decrease along the list
  /// Only single offsets (no run), in one stretch: singles is the whole list.
  bool all_singles() const { return segments.size() == 1 && !segments.front().run; }

  /// The list of `offsets`, in that order (offsets must be >= 0).  Pass the
  /// vector by std::move when it is not needed afterwards: its memory then
  /// becomes the list's.  Runs of at least `min_run` consecutive offsets
  /// become rows (kMinIndexRun unless the caller knows its elements come in
  /// shorter units, such as columns of a few values; at least 2).
  static IndexList from(std::vector<std::int64_t> offsets, std::int64_t min_run = kMinIndexRun);
  /// from() for a literal list.
  static IndexList from(std::initializer_list<std::int64_t> offsets) {
    return from(std::vector<std::int64_t>(offsets));
  }
  /// The offsets, in order (expanded: for tests and inspection).
  std::vector<std::int64_t> offsets() const;
  /// Bytes of plan memory held (segments and singles).
  std::size_t bytes() const {
    return segments.capacity() * sizeof(Segment) + singles.capacity() * sizeof(std::int64_t);
  }
};

}  // namespace adlib
