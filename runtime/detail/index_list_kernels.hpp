// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The host kernels over IndexLists (runtime/index_list.hpp): pack, unpack,
/// local copy, and the merged walks that meet several sorted lists in one
/// pass over memory.
///
/// @code
///   adlib::detail::pack_indices<double>(space, memory, list, buffer);
///   adlib::detail::unpack_indices<double>(space, memory, list, buffer, adlib::op::add);
/// @endcode
///
/// They run in host execution spaces only (DeviceIndexList's kernels run
/// elsewhere; schedules choose between them at compile time).  Each kernel
/// is split into pieces, one per thread of the execution space and none
/// smaller than kMinIndexPieceElements (IndexPieces): on Serial, or with one
/// thread, one piece runs the whole list as one loop.  No element is
/// written by two pieces, and no element's value depends on the split, so
/// results are bitwise the same at every thread count, floating point
/// included:
/// - a pack splits the list by position (each piece fills its own stretch
///   of the buffer);
/// - an unpack or a local copy whose targets do not repeat splits by
///   position too;
/// - where targets repeat, each piece owns a range of target offsets and
///   applies, in list order, every value aimed into it: each target receives
///   its values in list order from one thread, as in the one-piece loop.  A
///   sorted list gives each piece a stretch of positions (repeats never
///   straddle two); an unsorted one gives each piece a stretch of its
///   target groups (IndexList::TargetGroups, planned with the list), or,
///   where none were planned, is read whole by every piece, each applying
///   what it owns;
/// - the merged walks split the memory they walk into ranges of offsets,
///   each piece walking its range through every list.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/detail/pack_walk.hpp>
#include <adlib/runtime/index_list.hpp>

namespace adlib::detail {

/// How many elements ahead the index-list loops ask the cache for the
/// element they will reach: a loop over scattered offsets into a block larger
/// than the core's cache otherwise waits for one line at a time.  GA1 (2^18
/// random reads from a 16 MiB block per rank) went from 1550 to 1410-1425 us
/// with it; distances from 8 to 64 measured alike.
constexpr std::int64_t kIndexPrefetchDistance = 16;

/// Asks the cache for the line holding `p`, to be read (a hint: no fault,
/// nothing on compilers without the builtin).
inline void prefetch_for_read(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p, 0);
#else
  (void)p;
#endif
}
/// As prefetch_for_read, for a line that will be written.
inline void prefetch_for_write(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
  __builtin_prefetch(p, 1);
#else
  (void)p;
#endif
}

template <class ExecSpace>
void require_host_for_indices() {
  static_assert(runs_on_host<ExecSpace>(),
                "these IndexList kernels run in host execution spaces (DeviceIndexList runs "
                "elsewhere): choose between them at compile time");
}

/// Elements below which a host index kernel is not split further: a piece
/// must outweigh finding its start (a binary search) and waking a thread.
constexpr std::int64_t kMinIndexPieceElements = kMinThreadedElements;

/// Into how many pieces a host index kernel splits (see the file overview).
struct IndexPieces {
  int count = 1;  ///< pieces, at least 1
};

/// One piece per thread of `space`, none smaller than kMinIndexPieceElements
/// of `elements`: one on Serial or a single thread.
template <class ExecSpace>
IndexPieces index_pieces(const ExecSpace& space, std::int64_t elements) {
  const std::int64_t threads = space.concurrency();
  const std::int64_t most = elements / kMinIndexPieceElements;
  return {static_cast<int>(std::max<std::int64_t>(1, std::min(threads, most)))};
}

/// Where piece k of `pieces` starts among `count` items: piece k takes
/// [piece_start(count, pieces, k), piece_start(count, pieces, k + 1)).
inline std::int64_t piece_start(std::int64_t count, int pieces, int k) {
  return count / pieces * k + std::min<std::int64_t>(k, count % pieces);
}

/// The segment of `list` that holds list position p (0 <= p < list.count).
inline std::size_t segment_holding(const IndexList& list, std::int64_t p) {
  const auto after = std::upper_bound(
      list.segments.begin(), list.segments.end(), p,
      [](std::int64_t position, const IndexList::Segment& s) { return position < s.position; });
  return static_cast<std::size_t>(after - list.segments.begin()) - 1;
}

/// The offset at list position p (0 <= p < list.count).
inline std::int64_t offset_at(const IndexList& list, std::int64_t p) {
  const IndexList::Segment& s = list.segments[segment_holding(list, p)];
  const std::int64_t within = p - s.position;
  return s.run ? s.first + within : list.singles[static_cast<std::size_t>(s.first + within)];
}

/// Where piece k starts in a sorted list whose offsets repeat: piece_start()
/// moved past the repeats of the offset before it, so that all of one
/// target's positions fall in one piece.
inline std::int64_t piece_start_keeping_repeats(const IndexList& list, int pieces, int k) {
  std::int64_t low = piece_start(list.count, pieces, k);
  if (low == 0 || low >= list.count) return low;
  const std::int64_t before = offset_at(list, low - 1);
  std::int64_t high = list.count;  // the first position past `before`'s repeats is in [low, high]
  while (low < high) {
    const std::int64_t middle = low + (high - low) / 2;
    if (offset_at(list, middle) == before)
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

/// Where piece k's range of owned offsets starts when `pieces` pieces share
/// the offsets of `list` (unsorted with repeats): equal ranges of
/// [list.lowest, list.highest].
inline std::int64_t owned_offsets_start(const IndexList& list, int pieces, int k) {
  if (k == pieces) return list.highest + 1;
  return list.lowest + piece_start(list.highest - list.lowest + 1, pieces, k);
}

/// Every target offset: the pieces that split by position.
struct EveryTarget {
  constexpr bool operator()(std::int64_t) const { return true; }
};
/// The target offsets a piece owns: [low, high).
struct TargetsBetween {
  std::int64_t low = 0;   ///< first owned offset
  std::int64_t high = 0;  ///< first offset past them
  bool operator()(std::int64_t offset) const { return offset >= low && offset < high; }
};

/// buffer[begin, end) <- memory at list positions [begin, end): one loop
/// over the segments (a run is one row copy).
template <class T>
void pack_positions(const T* memory, const IndexList& list, T* buffer, std::int64_t begin,
                    std::int64_t end) {
  const IndexList::Segment* segments = list.segments.data();
  const std::int64_t* singles = list.singles.data();
  std::size_t k = begin == 0 ? 0 : segment_holding(list, begin);
  T* to = buffer + begin;
  for (std::int64_t p = begin; p < end; ++k) {
    const IndexList::Segment s = segments[k];
    const std::int64_t skip = p - s.position;
    const std::int64_t n = std::min(s.count - skip, end - p);
    if (s.run) {
      std::memcpy(static_cast<void*>(to), static_cast<const void*>(memory + s.first + skip),
                  static_cast<std::size_t>(n) * sizeof(T));
    } else {
      const std::int64_t* at = singles + s.first + skip;
      const std::int64_t ahead = n - kIndexPrefetchDistance;
      for (std::int64_t i = 0; i < n; ++i) {
        if (i < ahead) prefetch_for_read(memory + at[i + kIndexPrefetchDistance]);
        to[i] = memory[at[i]];
      }
    }
    to += n;
    p += n;
  }
}

/// memory at list positions [begin, end) combined with buffer[begin, end),
/// in list order, where `owned` accepts the target (every target, or a
/// piece's range of them).
template <class T, class Combine, class Owned>
void unpack_positions(T* memory, const IndexList& list, const T* buffer, std::int64_t begin,
                      std::int64_t end, const Combine& combine, const Owned& owned) {
  constexpr bool every = std::is_same_v<Owned, EveryTarget>;
  const IndexList::Segment* segments = list.segments.data();
  const std::int64_t* singles = list.singles.data();
  std::size_t k = begin == 0 ? 0 : segment_holding(list, begin);
  const T* from = buffer + begin;
  for (std::int64_t p = begin; p < end; ++k) {
    const IndexList::Segment s = segments[k];
    const std::int64_t skip = p - s.position;
    const std::int64_t n = std::min(s.count - skip, end - p);
    if (s.run) {
      T* to = memory + s.first + skip;
      if constexpr (every && op::is_replace<Combine>()) {
        std::memcpy(static_cast<void*>(to), static_cast<const void*>(from),
                    static_cast<std::size_t>(n) * sizeof(T));
      } else {
        for (std::int64_t i = 0; i < n; ++i)
          if (owned(s.first + skip + i)) combine(to[i], from[i]);
      }
    } else {
      const std::int64_t* at = singles + s.first + skip;
      const std::int64_t ahead = n - kIndexPrefetchDistance;
      for (std::int64_t i = 0; i < n; ++i) {
        // Only owned lines are asked for: a line another piece writes would
        // bounce between the cores.
        if (i < ahead && owned(at[i + kIndexPrefetchDistance]))
          prefetch_for_write(memory + at[i + kIndexPrefetchDistance]);
        if (owned(at[i])) combine(memory[at[i]], from[i]);
      }
    }
    from += n;
    p += n;
  }
}

/// Where piece k of `pieces` starts among the entries of `groups`: at the
/// group boundary nearest above an equal share of the entries, so that
/// pieces carry about equal work and no group is split.
inline std::int64_t group_piece_start(const IndexList::TargetGroups& groups, int pieces, int k) {
  const std::int64_t total = groups.starts.back();
  const std::int64_t share = piece_start(total, pieces, k);
  return *std::lower_bound(groups.starts.begin(), groups.starts.end(), share);
}

/// Memory at the grouped entries [begin, end) of `list` combined with the
/// buffer's values at their positions: the entries' targets in group order,
/// list order within a target.
template <class T, class Combine>
void unpack_grouped(T* memory, const IndexList::TargetGroups& groups, const T* buffer,
                    std::int64_t begin, std::int64_t end, const Combine& combine) {
  const std::int64_t* targets = groups.targets.data();
  const std::uint32_t* positions = groups.positions.data();
  const std::int64_t ahead = end - kIndexPrefetchDistance;
  for (std::int64_t j = begin; j < end; ++j) {
    // The values are read by position, a scattered walk: ask for them ahead.
    if (j < ahead) {
      prefetch_for_read(buffer + positions[j + kIndexPrefetchDistance]);
      prefetch_for_write(memory + targets[j + kIndexPrefetchDistance]);
    }
    combine(memory[targets[j]], buffer[positions[j]]);
  }
}

/// A source list whose offset at a list position is found without a
/// search: all singles, or one run (a local copy's source usually is one or
/// the other).
inline bool offsets_by_position(const IndexList& list) {
  return list.all_singles() || (list.segments.size() == 1 && list.segments.front().run);
}

/// dst at the grouped entries [begin, end) of dst_list combined with src at
/// src_list's same positions (offsets_by_position(src_list)).
template <class T, class Combine>
void copy_grouped(T* dst, const IndexList::TargetGroups& groups, const T* src,
                  const IndexList& src_list, std::int64_t begin, std::int64_t end,
                  const Combine& combine) {
  const std::int64_t* targets = groups.targets.data();
  const std::uint32_t* positions = groups.positions.data();
  if (src_list.all_singles()) {
    const std::int64_t* sources = src_list.singles.data();
    for (std::int64_t j = begin; j < end; ++j) combine(dst[targets[j]], src[sources[positions[j]]]);
  } else {
    const T* from = src + src_list.segments.front().first;
    for (std::int64_t j = begin; j < end; ++j) combine(dst[targets[j]], from[positions[j]]);
  }
}

/// dst at dst_list's positions [begin, end) combined with src at src_list's
/// same positions, where `owned` accepts the target: the two lists are
/// walked together a stretch at a time, a stretch ending where either
/// list's segment does, so that within it each side is either a run or a
/// list of singles (four plain loops, no per-element cursor).
template <class T, class Combine, class Owned>
void copy_positions(T* dst, const IndexList& dst_list, const T* src, const IndexList& src_list,
                    std::int64_t begin, std::int64_t end, const Combine& combine,
                    const Owned& owned) {
  const IndexList::Segment *dseg = dst_list.segments.data(), *sseg = src_list.segments.data();
  const std::int64_t *dsingles = dst_list.singles.data(), *ssingles = src_list.singles.data();
  std::size_t ds = begin == 0 ? 0 : segment_holding(dst_list, begin);
  std::size_t ss = begin == 0 ? 0 : segment_holding(src_list, begin);
  std::int64_t dk = begin - dseg[ds].position;  // elements of the segments before `begin`
  std::int64_t sk = begin - sseg[ss].position;
  for (std::int64_t p = begin; p < end;) {
    const IndexList::Segment d = dseg[ds], s = sseg[ss];
    const std::int64_t n = std::min({d.count - dk, s.count - sk, end - p});
    if (d.run && s.run) {
      T* to = dst + d.first + dk;
      const T* from = src + s.first + sk;
      for (std::int64_t i = 0; i < n; ++i)
        if (owned(d.first + dk + i)) combine(to[i], from[i]);
    } else if (d.run) {
      T* to = dst + d.first + dk;
      const std::int64_t* from = ssingles + s.first + sk;
      for (std::int64_t i = 0; i < n; ++i)
        if (owned(d.first + dk + i)) combine(to[i], src[from[i]]);
    } else if (s.run) {
      const std::int64_t* to = dsingles + d.first + dk;
      const T* from = src + s.first + sk;
      for (std::int64_t i = 0; i < n; ++i)
        if (owned(to[i])) combine(dst[to[i]], from[i]);
    } else {
      const std::int64_t* to = dsingles + d.first + dk;
      const std::int64_t* from = ssingles + s.first + sk;
      const std::int64_t ahead = n - kIndexPrefetchDistance;
      for (std::int64_t i = 0; i < n; ++i) {
        if (i < ahead && owned(to[i + kIndexPrefetchDistance])) {
          prefetch_for_read(src + from[i + kIndexPrefetchDistance]);
          prefetch_for_write(dst + to[i + kIndexPrefetchDistance]);
        }
        if (owned(to[i])) combine(dst[to[i]], src[from[i]]);
      }
    }
    p += n;
    dk += n;
    sk += n;
    if (dk == d.count) {
      ++ds;
      dk = 0;
    }
    if (sk == s.count) {
      ++ss;
      sk = 0;
    }
  }
}

/// buffer[0, list.count) <- the elements of `memory` at the list's offsets,
/// in list order, in `pieces` pieces by position.
template <class T, class ExecSpace>
void pack_indices(const ExecSpace& space, const T* memory, const IndexList& list, T* buffer,
                  IndexPieces pieces) {
  require_host_for_indices<ExecSpace>();
  const IndexList* l = &list;
  const int n = list.count > 0 ? pieces.count : 0;
  host_for("adlib::pack_indices", space, n, list.count, [=](int k) {
    pack_positions(memory, *l, buffer, piece_start(l->count, n, k),
                   piece_start(l->count, n, k + 1));
  });
}
/// pack_indices() in one piece per thread of `space`.
template <class T, class ExecSpace>
void pack_indices(const ExecSpace& space, const T* memory, const IndexList& list, T* buffer) {
  pack_indices<T>(space, memory, list, buffer, index_pieces(space, list.count));
}

/// The elements of `memory` at the list's offsets combined (`combine`) with
/// buffer[0, list.count): each target receives its values in list order, so
/// that repeated offsets combine every value deterministically, in `pieces`
/// pieces (see the file overview).
template <class T, class ExecSpace, class Combine>
void unpack_indices(const ExecSpace& space, T* memory, const IndexList& list, const T* buffer,
                    Combine combine, IndexPieces pieces) {
  require_host_for_indices<ExecSpace>();
  const IndexList* l = &list;
  const int n = list.count > 0 ? pieces.count : 0;
  if (!list.repeats || list.sorted || n <= 1) {
    host_for("adlib::unpack_indices", space, n, list.count, [=](int k) {
      const bool keep = l->repeats;  // sorted: a target's repeats stay in one piece
      const std::int64_t begin =
          keep ? piece_start_keeping_repeats(*l, n, k) : piece_start(l->count, n, k);
      const std::int64_t end =
          keep ? piece_start_keeping_repeats(*l, n, k + 1) : piece_start(l->count, n, k + 1);
      unpack_positions(memory, *l, buffer, begin, end, combine, EveryTarget{});
    });
    return;
  }
  if (list.groups.count() > 1) {
    const int grouped = std::min(n, list.groups.count());
    host_for("adlib::unpack_indices", space, grouped, list.count, [=](int k) {
      unpack_grouped(memory, l->groups, buffer, group_piece_start(l->groups, grouped, k),
                     group_piece_start(l->groups, grouped, k + 1), combine);
    });
    return;
  }
  host_for("adlib::unpack_indices", space, n, list.count, [=](int k) {
    const TargetsBetween owned{owned_offsets_start(*l, n, k), owned_offsets_start(*l, n, k + 1)};
    unpack_positions(memory, *l, buffer, 0, l->count, combine, owned);
  });
}
/// unpack_indices() in one piece per thread of `space` (replace by default).
template <class T, class ExecSpace, class Combine = op::Replace>
void unpack_indices(const ExecSpace& space, T* memory, const IndexList& list, const T* buffer,
                    Combine combine = {}) {
  unpack_indices<T>(space, memory, list, buffer, combine, index_pieces(space, list.count));
}

/// dst at dst_list's offsets combined with src at src_list's offsets
/// (lists of equal count), element k with element k, each target receiving
/// its values in list order: a local index-list copy, in `pieces` pieces
/// (split as unpack_indices, by dst_list).
template <class T, class ExecSpace, class Combine>
void copy_indices(const ExecSpace& space, T* dst, const IndexList& dst_list, const T* src,
                  const IndexList& src_list, Combine combine, IndexPieces pieces) {
  require_host_for_indices<ExecSpace>();
  const IndexList *to = &dst_list, *from = &src_list;
  const std::int64_t count = std::min(dst_list.count, src_list.count);
  // The split follows dst_list's positions, which fit src_list's only when
  // the counts are equal (the plans make them so): otherwise one piece.
  const int n = count == 0 ? 0 : dst_list.count == src_list.count ? pieces.count : 1;
  if (!dst_list.repeats || dst_list.sorted || n <= 1) {
    const bool keep = dst_list.repeats;  // sorted: a target's repeats stay in one piece
    host_for("adlib::copy_indices", space, n, count, [=](int k) {
      const std::int64_t begin =
          keep ? piece_start_keeping_repeats(*to, n, k) : piece_start(count, n, k);
      const std::int64_t end =
          keep ? piece_start_keeping_repeats(*to, n, k + 1) : piece_start(count, n, k + 1);
      // One piece over lists of unequal counts: dst_list's count may pass src_list's.
      copy_positions(dst, *to, src, *from, std::min(begin, count), std::min(end, count), combine,
                     EveryTarget{});
    });
    return;
  }
  if (dst_list.groups.count() > 1 && offsets_by_position(src_list)) {
    const int grouped = std::min(n, dst_list.groups.count());
    host_for("adlib::copy_indices", space, grouped, count, [=](int k) {
      copy_grouped(dst, to->groups, src, *from, group_piece_start(to->groups, grouped, k),
                   group_piece_start(to->groups, grouped, k + 1), combine);
    });
    return;
  }
  host_for("adlib::copy_indices", space, n, count, [=](int k) {
    const TargetsBetween owned{owned_offsets_start(*to, n, k), owned_offsets_start(*to, n, k + 1)};
    copy_positions(dst, *to, src, *from, 0, count, combine, owned);
  });
}
/// copy_indices() in one piece per thread of `space` (replace by default).
template <class T, class ExecSpace, class Combine = op::Replace>
void copy_indices(const ExecSpace& space, T* dst, const IndexList& dst_list, const T* src,
                  const IndexList& src_list, Combine combine = {}) {
  copy_indices<T>(space, dst, dst_list, src, src_list, combine,
                  index_pieces(space, std::min(dst_list.count, src_list.count)));
}

/// One list of contributions for combine_sorted_lists: values[i] combines
/// into memory[targets[i]], the targets never decreasing.  `values` points
/// to elements of the caller's type.
struct SortedContributions {
  const std::int64_t* targets = nullptr;  ///< offsets in memory, ascending
  const void* values = nullptr;           ///< count values, in list order
  std::int64_t count = 0;                 ///< contributions
};

/// Bytes of target memory combine_sorted_lists covers before it moves to the
/// next list: small enough that the lines one list brought in are still in
/// the core's cache when the next list combines into them (measured alike
/// from 4 to 32 KiB; 256 KiB gave back a quarter of the gain).
constexpr std::int64_t kSortedListStretchBytes = 32 * 1024;

/// The ascending offsets of one list in a walk_sorted_lists.
struct SortedOffsets {
  const std::int64_t* offsets = nullptr;  ///< ascending
  std::int64_t count = 0;                 ///< entries
};

/// The walk combine_sorted_lists and read_sorted_lists share: `count` lists
/// of ascending offsets into one memory (`offsets_of(l)`) take turns by
/// stretches of `stretch` elements of it, each list from its cursor until
/// its next offset reaches the stretch's end (`advance(l, i, limit)` does
/// list l's entries from i while their offsets are below `limit`, and
/// returns where it stopped).  `positions` holds the cursors.  Host code,
/// called inside a kernel, once per piece.
template <class OffsetsOf, class Advance>
void walk_sorted_lists(int count, std::int64_t stretch, std::int64_t* positions,
                       const OffsetsOf& offsets_of, const Advance& advance) {
  constexpr std::int64_t none = std::numeric_limits<std::int64_t>::max();
  std::int64_t next = none;
  for (int l = 0; l < count; ++l) {
    positions[l] = 0;
    const SortedOffsets list = offsets_of(l);
    if (list.count > 0) next = std::min(next, list.offsets[0]);
  }
  while (next != none) {
    const std::int64_t limit = next + stretch;
    next = none;
    for (int l = 0; l < count; ++l) {
      const SortedOffsets list = offsets_of(l);
      const std::int64_t i = advance(l, positions[l], limit);
      positions[l] = i;
      if (i < list.count) next = std::min(next, list.offsets[i]);
    }
  }
}

/// What a merged walk works in, kept by its caller between executions so
/// that no execution allocates: per piece, its part of each list and that
/// part's cursor.  It grows to the largest walk it has served.
template <class List>
struct SortedWalkSpace {
  std::vector<List> parts;            ///< piece k's parts are [k * lists, (k + 1) * lists)
  std::vector<std::int64_t> cursors;  ///< the same, one cursor per part
  /// Room for `pieces` pieces over `lists` lists.
  void fit(int pieces, int lists) {
    const auto n = static_cast<std::size_t>(std::max(pieces, 1)) *
                   static_cast<std::size_t>(std::max(lists, 0));
    if (parts.size() < n) parts.resize(n);
    if (cursors.size() < n) cursors.resize(n);
  }
};

/// Elements in `count` lists (each with a `count` member).
template <class List>
std::int64_t total_elements(const List* lists, int count) {
  std::int64_t elements = 0;
  for (int l = 0; l < count; ++l) elements += lists[l].count;
  return elements;
}

/// Where the pieces of a merged walk split memory: piece k walks the
/// offsets in [sorted_piece_bound(k), sorted_piece_bound(k + 1)), the
/// bounds taken at equal steps through the longest list so that pieces
/// carry about equal work.
inline std::int64_t sorted_piece_bound(const SortedOffsets& longest, int pieces, int k) {
  if (k == 0) return std::numeric_limits<std::int64_t>::min();
  if (k == pieces) return std::numeric_limits<std::int64_t>::max();
  return longest.offsets[piece_start(longest.count, pieces, k)];
}

/// The entries of an ascending list whose offsets lie in [low, high): the
/// first, and one past the last.
inline std::pair<std::int64_t, std::int64_t> entries_between(const SortedOffsets& list,
                                                             std::int64_t low, std::int64_t high) {
  const std::int64_t* last = list.offsets + list.count;
  return {std::lower_bound(list.offsets, last, low) - list.offsets,
          std::lower_bound(list.offsets, last, high) - list.offsets};
}

/// Runs `walk(k, low, high)` for each piece k of a merged walk over `count`
/// lists of ascending offsets (`offsets_of(l)`) holding `elements` in all:
/// piece k walks the offsets in [low, high).  One piece walks everything.
template <class ExecSpace, class OffsetsOf, class Walk>
void run_sorted_pieces(const ExecSpace& space, const char* name, int count, int pieces,
                       std::int64_t elements, const OffsetsOf& offsets_of, const Walk& walk) {
  SortedOffsets longest;
  for (int l = 0; l < count; ++l)
    if (offsets_of(l).count > longest.count) longest = offsets_of(l);
  if (longest.count == 0) pieces = 1;  // nothing to split by
  host_for(name, space, count > 0 ? pieces : 0, elements, [=](int k) {
    walk(k, sorted_piece_bound(longest, pieces, k), sorted_piece_bound(longest, pieces, k + 1));
  });
}

/// combine_sorted_lists() in one piece: the walk over all of `lists`.
template <class T, class Combine>
void combine_sorted_walk(T* memory, const SortedContributions* lists, int count,
                         std::int64_t* positions, const Combine& combine) {
  constexpr std::int64_t ahead = kIndexPrefetchDistance;
  // The callbacks copy what they capture into locals before their loops: a
  // capture is a member of a closure the walk holds by reference, and where
  // the walk is not inlined, `memory` is then read again through it on
  // every element (+4 % instructions on GA1's walk, measured with
  // callgrind).
  auto offsets_of = [=](int l) { return SortedOffsets{lists[l].targets, lists[l].count}; };
  auto advance = [=](int l, std::int64_t i, std::int64_t limit) {
    T* const into = memory;  // locals, not the closure's members: see above
    const Combine apply = combine;
    const std::int64_t* targets = lists[l].targets;
    const T* values = static_cast<const T*>(lists[l].values);
    const std::int64_t n = lists[l].count;
    // Ascending but sparse targets (a line here, two lines further on)
    // defeat the hardware's stream prefetcher: ask for them ahead.
    for (; i < n && targets[i] < limit; ++i) {
      if (i + ahead < n) prefetch_for_write(into + targets[i + ahead]);
      apply(into[targets[i]], values[i]);
    }
    return i;
  };
  walk_sorted_lists(count, std::max<std::int64_t>(1, kSortedListStretchBytes / sizeof(T)),
                    positions, offsets_of, advance);
}

/// Combines (`combine`) every contribution of lists[0, count) into `memory`
/// in one walk over it: the lists take turns by stretches of target memory,
/// each list in its order within a stretch, so a target receives its
/// contributions list by list and in list order, exactly as if the lists
/// were unpacked one after the other (unpack_indices), while each line of
/// `memory` is read and written about once instead of once per list.
/// `work` is the caller's workspace (kept between calls); pieces split
/// `memory` into ranges of offsets.
template <class T, class ExecSpace, class Combine>
void combine_sorted_lists(const ExecSpace& space, T* memory, const SortedContributions* lists,
                          int count, SortedWalkSpace<SortedContributions>& work, Combine combine,
                          IndexPieces pieces) {
  require_host_for_indices<ExecSpace>();
  work.fit(pieces.count, count);
  if (pieces.count <= 1) {
    // One piece: on the calling thread.
    if (count > 0) combine_sorted_walk(memory, lists, count, work.cursors.data(), combine);
    return;
  }
  SortedContributions* parts = work.parts.data();
  std::int64_t* cursors = work.cursors.data();
  run_sorted_pieces(
      space, "adlib::combine_sorted_lists", count, pieces.count, total_elements(lists, count),
      [=](int l) {
        return SortedOffsets{lists[l].targets, lists[l].count};
      },
      [=](int k, std::int64_t low, std::int64_t high) {
        SortedContributions* part = parts + static_cast<std::ptrdiff_t>(k) * count;
        for (int l = 0; l < count; ++l) {
          const auto [first, end] =
              entries_between(SortedOffsets{lists[l].targets, lists[l].count}, low, high);
          part[l] = {lists[l].targets + first, static_cast<const T*>(lists[l].values) + first,
                     end - first};
        }
        combine_sorted_walk(memory, part, count, cursors + static_cast<std::ptrdiff_t>(k) * count,
                            combine);
      });
}
/// combine_sorted_lists() in one piece per thread of `space`.
template <class T, class ExecSpace, class Combine>
void combine_sorted_lists(const ExecSpace& space, T* memory, const SortedContributions* lists,
                          int count, SortedWalkSpace<SortedContributions>& work, Combine combine) {
  combine_sorted_lists<T>(space, memory, lists, count, work, combine,
                          index_pieces(space, total_elements(lists, count)));
}

/// One list for read_sorted_lists: memory[sources[i]] goes to to[i] (a pack:
/// to_offsets null) or combines into to[to_offsets[i]] (a local copy), the
/// sources never decreasing.  `to` points to elements of the caller's type.
struct SortedReads {
  const std::int64_t* sources = nullptr;     ///< offsets in memory, ascending
  void* to = nullptr;                        ///< a pack buffer, or the destination memory
  const std::int64_t* to_offsets = nullptr;  ///< offsets in `to` (null: to[i])
  std::int64_t count = 0;                    ///< elements
  bool to_repeats = false;  ///< to_offsets repeat (the walk then runs as one piece)
};

/// read_sorted_lists() in one piece: the walk over all of `lists`.
template <class T, class Combine>
void read_sorted_walk(const T* memory, const SortedReads* lists, int count, std::int64_t* positions,
                      const Combine& combine) {
  constexpr std::int64_t ahead = kIndexPrefetchDistance;
  auto offsets_of = [=](int l) {  // by value, as in combine_sorted_walk
    return SortedOffsets{lists[l].sources, lists[l].count};
  };
  auto advance = [=](int l, std::int64_t i, std::int64_t limit) {
    const T* const from = memory;  // locals, as in combine_sorted_walk
    const Combine apply = combine;
    const std::int64_t* sources = lists[l].sources;
    T* to = static_cast<T*>(lists[l].to);
    const std::int64_t* to_offsets = lists[l].to_offsets;
    const std::int64_t n = lists[l].count;
    if (to_offsets == nullptr) {
      for (; i < n && sources[i] < limit; ++i) to[i] = from[sources[i]];
    } else {
      // The targets are scattered: ask for them ahead.
      for (; i < n && sources[i] < limit; ++i) {
        if (i + ahead < n) prefetch_for_write(to + to_offsets[i + ahead]);
        apply(to[to_offsets[i]], from[sources[i]]);
      }
    }
    return i;
  };
  walk_sorted_lists(count, std::max<std::int64_t>(1, kSortedListStretchBytes / sizeof(T)),
                    positions, offsets_of, advance);
}

/// Reads every list's elements from `memory` in one walk over it, the
/// lists taking turns by stretches of it as in combine_sorted_lists: packs
/// copy, local copies combine (`combine`) into their targets.  Each line of
/// `memory` is read about once instead of once per list.  `work` is the
/// caller's workspace (kept between calls).  Pieces split `memory`; a
/// local copy whose targets repeat keeps the walk in one piece (its
/// targets would be shared between pieces).
template <class T, class ExecSpace, class Combine>
void read_sorted_lists(const ExecSpace& space, const T* memory, const SortedReads* lists, int count,
                       SortedWalkSpace<SortedReads>& work, Combine combine, IndexPieces pieces) {
  require_host_for_indices<ExecSpace>();
  bool shared_targets = false;
  for (int l = 0; l < count; ++l) shared_targets = shared_targets || lists[l].to_repeats;
  if (pieces.count <= 1 || shared_targets) {
    // One piece: on the calling thread.
    work.fit(1, count);
    if (count > 0) read_sorted_walk(memory, lists, count, work.cursors.data(), combine);
    return;
  }
  work.fit(pieces.count, count);
  SortedReads* parts = work.parts.data();
  std::int64_t* cursors = work.cursors.data();
  run_sorted_pieces(
      space, "adlib::read_sorted_lists", count, pieces.count, total_elements(lists, count),
      [=](int l) {
        return SortedOffsets{lists[l].sources, lists[l].count};
      },
      [=](int k, std::int64_t low, std::int64_t high) {
        SortedReads* part = parts + static_cast<std::ptrdiff_t>(k) * count;
        for (int l = 0; l < count; ++l) {
          const auto [first, end] =
              entries_between(SortedOffsets{lists[l].sources, lists[l].count}, low, high);
          part[l] = lists[l];
          part[l].sources += first;
          part[l].count = end - first;
          if (part[l].to_offsets != nullptr)
            part[l].to_offsets += first;
          else
            part[l].to = static_cast<T*>(part[l].to) + first;
        }
        read_sorted_walk(memory, part, count, cursors + static_cast<std::ptrdiff_t>(k) * count,
                         combine);
      });
}
/// read_sorted_lists() in one piece per thread of `space`.
template <class T, class ExecSpace, class Combine>
void read_sorted_lists(const ExecSpace& space, const T* memory, const SortedReads* lists, int count,
                       SortedWalkSpace<SortedReads>& work, Combine combine) {
  read_sorted_lists<T>(space, memory, lists, count, work, combine,
                       index_pieces(space, total_elements(lists, count)));
}

}  // namespace adlib::detail
