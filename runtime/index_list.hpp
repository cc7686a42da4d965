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
/// combine); repeats() says so, and combining unpacks then keep the list's order.  Threads that
/// combine into an unsorted list with repeats each own a range of targets: for them the list is
/// also kept grouped by those ranges (TargetGroups, planned when the host has threads).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

namespace adlib {

/// Runs of consecutive offsets at least this long become one segment.
constexpr std::int64_t kMinIndexRun = 8;

/// Target groups (IndexList::TargetGroups) planned per host thread: two
/// gave the combining unpack of LIM-PACK-OMP's repeated targets its best
/// time at 2 threads (one group per thread: 28 ms, two: 25, three: 28, four:
/// 32, against 56 for one thread's loop; more groups narrow the memory each
/// walk writes but scatter the reads of its values).
constexpr int kTargetGroupsPerThread = 2;

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

  /// The entries of an unsorted list with repeats, grouped by equal ranges
  /// of target offsets, list order kept within a group: a thread that owns
  /// a few groups walks just their entries, and each target still receives
  /// its values in list order (one group holds all of them).  The targets
  /// are stored beside the positions so that the walk reads them in order;
  /// the values it takes from a message buffer are read by position.
  struct TargetGroups {
    std::vector<std::int64_t> starts;      ///< group g's entries are [starts[g], starts[g + 1])
    std::vector<std::int64_t> targets;     ///< the offsets, group by group
    std::vector<std::uint32_t> positions;  ///< each entry's list position
    /// Groups planned (0: none).
    int count() const { return starts.empty() ? 0 : static_cast<int>(starts.size()) - 1; }
  };
  /// Planned by from() for an unsorted list with repeats that is long
  /// enough to share among the host's threads: kTargetGroupsPerThread
  /// groups per thread of Kokkos' default host execution space (none on
  /// Serial or one thread, where one loop in list order is faster and
  /// costs no plan memory).
  TargetGroups groups;
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
  /// Plans `groups` as `group_count` groups (0 or 1: none), whatever the
  /// host's threads; from() calls it.  Lists that are sorted, do not
  /// repeat, or hold 2^32 or more elements get none (their pieces need
  /// none, or positions would not fit).
  void group_targets(int group_count);
  /// Bytes of plan memory held (segments, singles and groups).
  std::size_t bytes() const {
    return segments.capacity() * sizeof(Segment) + singles.capacity() * sizeof(std::int64_t) +
           (groups.starts.capacity() + groups.targets.capacity()) * sizeof(std::int64_t) +
           groups.positions.capacity() * sizeof(std::uint32_t);
  }
};

}  // namespace adlib
