// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Pack and unpack of strided blocks (Adlib's strGather / strScatter).
///
/// @verbatim
///   pack_block<T>(space, memory, block, buffer)     buffer[0..count) <- block of memory
///   unpack_block<T>(space, memory, block, buffer)   block of memory <- buffer[0..count)
///   copy_block<T>(space, dst, dst_block, src, src_block)   equal extents
///   unpack_block<T>(space, memory, block, buffer, adlib::op::add)   memory += buffer
/// @endverbatim
///
/// All three are one operation: an element-by-element copy between two blocks
/// of equal extents, walked in C order (a pack buffer is the dense block of
/// the same extents).  They run as Kokkos kernels in `space` and do not fence
/// (the caller fences once before handing buffers to MPI).  Host execution
/// spaces walk the blocks row by row with an odometer (no integer division per
/// element; the inner loop is a plain contiguous or strided copy the compiler
/// vectorises); device spaces run one thread per element and decode the
/// multi-index.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <utility>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/detail/pack_walk.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/index_list.hpp>
#include <adlib/runtime/strided_block.hpp>

namespace adlib::detail {

// The device kernels of copy_block are named functors, not KOKKOS_LAMBDAs:
// a combine operation whose type is local to a function (a user's
// KOKKOS_LAMBDA given to op::combine) may not appear in the template
// arguments of a function that defines an extended device lambda (nvcc
// rejects it), but it may be a functor's template argument.

/// One thread per element: dst's element p combined with src's element p
/// (C order of the blocks).
template <class T, class Combine>
struct CopyBlockElement {
  T* dst;             ///< destination memory
  StridedBlock to;    ///< its block
  const T* src;       ///< source memory
  StridedBlock from;  ///< its block, of the same extents
  Combine combine;    ///< how each element is applied
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    combine(dst[detail::element_offset(to, p)], src[detail::element_offset(from, p)]);
  }
};

/// The same walked by one thread in C order of the source: a destination
/// whose elements repeat then combines every value deterministically.
template <class T, class Combine>
struct CopyBlockInOrder {
  T* dst;              ///< destination memory
  StridedBlock to;     ///< its block (not injective)
  const T* src;        ///< source memory
  StridedBlock from;   ///< its block, of the same extents
  std::int64_t count;  ///< elements
  Combine combine;     ///< how each element is applied
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t) const {
    for (std::int64_t p = 0; p < count; ++p)
      combine(dst[detail::element_offset(to, p)], src[detail::element_offset(from, p)]);
  }
};

/// Element-by-element copy between two blocks of equal extents (the blocks
/// are not normalised separately: they must keep matching dimensions), each
/// arriving element applied to its target with `combine` (runtime/
/// combine.hpp; replace by default).  The walk follows the destination's
/// memory order, so writes are sequential whatever order the blocks were
/// declared in.  Under a combining operation, a destination block whose
/// elements may repeat (a zero or overlapping stride) is walked by one
/// thread, in C order of the source, so that repeated targets combine every
/// value deterministically.
template <class T, class ExecSpace, class Combine = op::Replace>
void copy_block(const ExecSpace& space, T* dst, const StridedBlock& dst_block, const T* src,
                const StridedBlock& src_block, Combine combine = {}) {
  const std::int64_t n = src_block.count();
  if (n == 0) return;
  // Replacing needs no order (any of the repeated values is a valid
  // result), so only combining copies pay for the test.
  if (!op::is_replace<Combine>() && !dst_block.injective()) {
    Kokkos::parallel_for("adlib::copy_in_order", Kokkos::RangePolicy<ExecSpace>(space, 0, 1),
                         CopyBlockInOrder<T, Combine>{dst, dst_block, src, src_block, n, combine});
    return;
  }
  StridedBlock d = dst_block, s = src_block;
  order_together_by(d, s);
  if constexpr (detail::runs_on_host<ExecSpace>()) {
    if (s.rank == 0) {
      combine(dst[d.offset], src[s.offset]);
      return;
    }
    // The row copy is chosen once for the whole walk: contiguous rows are
    // one memcpy each with nothing else in the loop (deciding per row cost
    // about 20 ns a row: 10 us of H3D-256's 110).
    const int r = s.rank;
    const std::int64_t inner = s.extents[r - 1];
    const std::int64_t to_step = d.strides[r - 1], from_step = s.strides[r - 1];
    if constexpr (op::is_replace<Combine>()) {
      if (to_step == 1 && from_step == 1) {
        const auto bytes = static_cast<std::size_t>(inner) * sizeof(T);
        detail::walk_rows(space, dst, d, src, s, [=](T* to, const T* from) {
          std::memcpy(static_cast<void*>(to), static_cast<const void*>(from), bytes);
        });
        return;
      }
      detail::walk_rows(space, dst, d, src, s, [=](T* to, const T* from) {
        detail::copy_row(to, to_step, from, from_step, inner);
      });
    } else {
      detail::walk_rows(space, dst, d, src, s, [=](T* to, const T* from) {
        for (std::int64_t i = 0; i < inner; ++i) combine(to[i * to_step], from[i * from_step]);
      });
    }
  } else {
    Kokkos::parallel_for("adlib::copy", Kokkos::RangePolicy<ExecSpace>(space, 0, n),
                         CopyBlockElement<T, Combine>{dst, d, src, s, combine});
  }
}

/// The most copies one copy_blocks_sharing_source() call takes.
constexpr int kMaxSharedSourceCopies = 8;

/// Several copies whose source blocks have the same extents and strides and
/// differ only in offset (a pack and a local copy reading alternate elements
/// or tiles of the same rows): the sources are walked once, in chunks that
/// stay in cache while every copy takes its part, instead of once per copy.
/// targets[k] / target_blocks[k] receive the elements of source_blocks[k].
/// At most kMaxSharedSourceCopies copies (count) at once.
template <class T, class ExecSpace>
void copy_blocks_sharing_source(const ExecSpace& space, const T* src,
                                const StridedBlock* source_blocks, T* const* targets,
                                const StridedBlock* target_blocks, int count);

/// Copies the elements of `block` of `memory` to buffer[0, block.count()), in
/// the block's C order (a message's layout).
template <class T, class ExecSpace>
void pack_block(const ExecSpace& space, const T* memory, const StridedBlock& block, T* buffer) {
  const StridedBlock b = block.normalized();
  copy_block<T>(space, buffer, detail::dense_like(b), memory, b);
}

/// The inverse of pack_block(): buffer[0, block.count()) into `block` of
/// `memory`, each element applied with `combine` (replace by default).
template <class T, class ExecSpace, class Combine = op::Replace>
void unpack_block(const ExecSpace& space, T* memory, const StridedBlock& block, const T* buffer,
                  Combine combine = {}) {
  const StridedBlock b = block.normalized();
  copy_block<T>(space, memory, b, buffer, detail::dense_like(b), combine);
}

template <class T, class ExecSpace>
void copy_blocks_sharing_source(const ExecSpace& space, const T* src,
                                const StridedBlock* source_blocks, T* const* targets,
                                const StridedBlock* target_blocks, int count) {
  if constexpr (!detail::runs_on_host<ExecSpace>()) {
    // Devices gain nothing from the shared walk: one thread per element.
    for (int k = 0; k < count; ++k)
      copy_block<T>(space, targets[k], target_blocks[k], src, source_blocks[k]);
  } else {
    if (count <= 0 || source_blocks[0].count() == 0) return;
    // One shared walk order (the source's memory order) and shared fusion:
    // the source and every target keep matching dimensions.
    StridedBlock source = source_blocks[0];
    StridedBlock target[kMaxSharedSourceCopies];
    std::int64_t source_offset[kMaxSharedSourceCopies];
    T* target_base[kMaxSharedSourceCopies];
    for (int k = 0; k < count; ++k) {
      target[k] = target_blocks[k];
      source_offset[k] = source_blocks[k].offset;
      target_base[k] = targets[k];
    }
    detail::order_all_by_first(source, target, count);
    const int r = source.rank;
    if (r == 0) {
      for (int k = 0; k < count; ++k) target_base[k][target[k].offset] = src[source_offset[k]];
      return;
    }
    const std::int64_t inner = source.extents[r - 1], sstep = source.strides[r - 1];
    const std::int64_t outer = r == 1 ? 1 : source.extents[0];
    std::int64_t rows_per_outer = 1;
    for (int d = 1; d < r - 1; ++d) rows_per_outer *= source.extents[d];
    constexpr std::int64_t kChunk = 512;  // elements per copy before the next copy's turn
    Kokkos::parallel_for("adlib::copy_shared_source",
                         Kokkos::RangePolicy<ExecSpace>(space, 0, outer), [=](std::int64_t o) {
                           std::int64_t index[kMaxBlockRank] = {};
                           std::int64_t so = r > 1 ? o * source.strides[0] : 0;
                           std::int64_t to[kMaxSharedSourceCopies];
                           for (int k = 0; k < count; ++k)
                             to[k] = target[k].offset + (r > 1 ? o * target[k].strides[0] : 0);
                           for (std::int64_t row = 0; row < rows_per_outer; ++row) {
                             for (std::int64_t c = 0; c < inner; c += kChunk) {
                               const std::int64_t n = inner - c < kChunk ? inner - c : kChunk;
                               for (int k = 0; k < count; ++k) {
                                 const std::int64_t tstep = target[k].strides[r - 1];
                                 detail::copy_row(target_base[k] + to[k] + c * tstep, tstep,
                                                  src + source_offset[k] + so + c * sstep, sstep,
                                                  n);
                               }
                             }
                             for (int d = r - 2; d >= 1; --d) {
                               so += source.strides[d];
                               for (int k = 0; k < count; ++k) to[k] += target[k].strides[d];
                               if (++index[d] < source.extents[d]) break;
                               so -= source.strides[d] * source.extents[d];
                               for (int k = 0; k < count; ++k)
                                 to[k] -= target[k].strides[d] * target[k].extents[d];
                               index[d] = 0;
                             }
                           }
                         });
  }
}

/// Index lists (runtime/index_list.hpp) are host plans: these run in host
/// execution spaces only (schedules refuse index lists over device memory).

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

/// buffer[0, list.count) <- the elements of `memory` at the list's offsets,
/// in list order: one loop over the segments (a run is one row copy).
template <class T, class ExecSpace>
void pack_indices(const ExecSpace& space, const T* memory, const IndexList& list, T* buffer) {
  detail::require_host_for_indices<ExecSpace>();
  const IndexList::Segment* segments = list.segments.data();
  const std::int64_t* singles = list.singles.data();
  const auto n = static_cast<std::int64_t>(list.segments.size());
  Kokkos::parallel_for(
      "adlib::pack_indices", Kokkos::RangePolicy<ExecSpace>(space, 0, n > 0 ? 1 : 0),
      [=](std::int64_t) {
        T* to = buffer;
        for (std::int64_t k = 0; k < n; ++k) {
          const IndexList::Segment s = segments[k];
          if (s.run) {
            std::memcpy(static_cast<void*>(to), static_cast<const void*>(memory + s.first),
                        static_cast<std::size_t>(s.count) * sizeof(T));
          } else {
            const std::int64_t* at = singles + s.first;
            const std::int64_t ahead = s.count - detail::kIndexPrefetchDistance;
            for (std::int64_t i = 0; i < s.count; ++i) {
              if (i < ahead)
                detail::prefetch_for_read(memory + at[i + detail::kIndexPrefetchDistance]);
              to[i] = memory[at[i]];
            }
          }
          to += s.count;
        }
      });
}

/// The elements of `memory` at the list's offsets, combined (`combine`,
/// replace by default) with buffer[0, list.count), in list order, so that
/// repeated offsets combine every value deterministically.
template <class T, class ExecSpace, class Combine = op::Replace>
void unpack_indices(const ExecSpace& space, T* memory, const IndexList& list, const T* buffer,
                    Combine combine = {}) {
  detail::require_host_for_indices<ExecSpace>();
  const IndexList::Segment* segments = list.segments.data();
  const std::int64_t* singles = list.singles.data();
  const auto n = static_cast<std::int64_t>(list.segments.size());
  Kokkos::parallel_for(
      "adlib::unpack_indices", Kokkos::RangePolicy<ExecSpace>(space, 0, n > 0 ? 1 : 0),
      [=](std::int64_t) {
        const T* from = buffer;
        for (std::int64_t k = 0; k < n; ++k) {
          const IndexList::Segment s = segments[k];
          if (s.run) {
            T* to = memory + s.first;
            if constexpr (op::is_replace<Combine>())
              std::memcpy(static_cast<void*>(to), static_cast<const void*>(from),
                          static_cast<std::size_t>(s.count) * sizeof(T));
            else
              for (std::int64_t i = 0; i < s.count; ++i) combine(to[i], from[i]);
          } else {
            const std::int64_t* at = singles + s.first;
            const std::int64_t ahead = s.count - detail::kIndexPrefetchDistance;
            for (std::int64_t i = 0; i < s.count; ++i) {
              if (i < ahead)
                detail::prefetch_for_write(memory + at[i + detail::kIndexPrefetchDistance]);
              combine(memory[at[i]], from[i]);
            }
          }
          from += s.count;
        }
      });
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
/// called inside a one-iteration kernel.
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

/// Combines (`combine`) every contribution of lists[0, count) into `memory`
/// in one walk over it: the lists take turns by stretches of target memory,
/// each list in its order within a stretch, so a target receives its
/// contributions list by list and in list order, exactly as if the lists
/// were unpacked one after the other (unpack_indices), while each line of
/// `memory` is read and written about once instead of once per list.
/// `positions` is workspace for `count` cursors.
template <class T, class ExecSpace, class Combine>
void combine_sorted_lists(const ExecSpace& space, T* memory, const SortedContributions* lists,
                          int count, std::int64_t* positions, Combine combine) {
  detail::require_host_for_indices<ExecSpace>();
  Kokkos::parallel_for(
      "adlib::combine_sorted_lists", Kokkos::RangePolicy<ExecSpace>(space, 0, count > 0 ? 1 : 0),
      [=](std::int64_t) {
        constexpr std::int64_t ahead = detail::kIndexPrefetchDistance;
        // The callbacks copy what they capture into locals before their
        // loops: a capture is a member of a closure the walk holds by
        // reference, and where the walk is not inlined, `memory` is then
        // read again through it on every element (+4 % instructions on
        // GA1's walk, measured with callgrind).
        auto offsets_of = [=](int l) {
          return detail::SortedOffsets{lists[l].targets, lists[l].count};
        };
        auto advance = [=](int l, std::int64_t i, std::int64_t limit) {
          T* const into = memory;  // locals, not the closure's members: see above
          const Combine apply = combine;
          const std::int64_t* targets = lists[l].targets;
          const T* values = static_cast<const T*>(lists[l].values);
          const std::int64_t n = lists[l].count;
          // Ascending but sparse targets (a line here, two lines further
          // on) defeat the hardware's stream prefetcher: ask for them ahead.
          for (; i < n && targets[i] < limit; ++i) {
            if (i + ahead < n) detail::prefetch_for_write(into + targets[i + ahead]);
            apply(into[targets[i]], values[i]);
          }
          return i;
        };
        detail::walk_sorted_lists(
            count, std::max<std::int64_t>(1, detail::kSortedListStretchBytes / sizeof(T)),
            positions, offsets_of, advance);
      });
}

/// One list for read_sorted_lists: memory[sources[i]] goes to to[i] (a pack:
/// to_offsets null) or combines into to[to_offsets[i]] (a local copy), the
/// sources never decreasing.  `to` points to elements of the caller's type.
struct SortedReads {
  const std::int64_t* sources = nullptr;     ///< offsets in memory, ascending
  void* to = nullptr;                        ///< a pack buffer, or the destination memory
  const std::int64_t* to_offsets = nullptr;  ///< offsets in `to` (null: to[i])
  std::int64_t count = 0;                    ///< elements
};

/// Reads every list's elements from `memory` in one walk over it, the
/// lists taking turns by stretches of it as in combine_sorted_lists: packs
/// copy, local copies combine (`combine`) into their targets.  Each line of
/// `memory` is read about once instead of once per list.  `positions` is
/// workspace for `count` cursors.
template <class T, class ExecSpace, class Combine>
void read_sorted_lists(const ExecSpace& space, const T* memory, const SortedReads* lists, int count,
                       std::int64_t* positions, Combine combine) {
  detail::require_host_for_indices<ExecSpace>();
  Kokkos::parallel_for(
      "adlib::read_sorted_lists", Kokkos::RangePolicy<ExecSpace>(space, 0, count > 0 ? 1 : 0),
      [=](std::int64_t) {
        constexpr std::int64_t ahead = detail::kIndexPrefetchDistance;
        auto offsets_of = [=](int l) {  // by value, as in combine_sorted_lists
          return detail::SortedOffsets{lists[l].sources, lists[l].count};
        };
        auto advance = [=](int l, std::int64_t i, std::int64_t limit) {
          const T* const from = memory;  // locals, as in combine_sorted_lists
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
              if (i + ahead < n) detail::prefetch_for_write(to + to_offsets[i + ahead]);
              apply(to[to_offsets[i]], from[sources[i]]);
            }
          }
          return i;
        };
        detail::walk_sorted_lists(
            count, std::max<std::int64_t>(1, detail::kSortedListStretchBytes / sizeof(T)),
            positions, offsets_of, advance);
      });
}

/// dst at dst_list's offsets, combined with src at src_list's offsets
/// (lists of equal count), element k with element k, in list order: a
/// local index-list copy.
template <class T, class ExecSpace, class Combine = op::Replace>
void copy_indices(const ExecSpace& space, T* dst, const IndexList& dst_list, const T* src,
                  const IndexList& src_list, Combine combine = {}) {
  detail::require_host_for_indices<ExecSpace>();
  const IndexList::Segment *dseg = dst_list.segments.data(), *sseg = src_list.segments.data();
  const std::int64_t *dsingles = dst_list.singles.data(), *ssingles = src_list.singles.data();
  const auto dn = static_cast<std::int64_t>(dst_list.segments.size());
  const std::int64_t count = std::min(dst_list.count, src_list.count);
  const auto sn = static_cast<std::int64_t>(src_list.segments.size());
  Kokkos::parallel_for(
      "adlib::copy_indices", Kokkos::RangePolicy<ExecSpace>(space, 0, count > 0 ? 1 : 0),
      [=](std::int64_t) {
        // The two lists are walked together, a stretch at a time: a stretch
        // ends where either list's segment does, so within it each side is
        // either a run or a list of singles (four plain loops, no per-element
        // cursor).
        std::int64_t ds = 0, ss = 0;  // segments
        std::int64_t dk = 0, sk = 0;  // elements done within them
        while (ds < dn && ss < sn) {
          const IndexList::Segment d = dseg[ds], s = sseg[ss];
          const std::int64_t n = std::min(d.count - dk, s.count - sk);
          if (d.run && s.run) {
            T* to = dst + d.first + dk;
            const T* from = src + s.first + sk;
            for (std::int64_t i = 0; i < n; ++i) combine(to[i], from[i]);
          } else if (d.run) {
            T* to = dst + d.first + dk;
            const std::int64_t* from = ssingles + s.first + sk;
            for (std::int64_t i = 0; i < n; ++i) combine(to[i], src[from[i]]);
          } else if (s.run) {
            const std::int64_t* to = dsingles + d.first + dk;
            const T* from = src + s.first + sk;
            for (std::int64_t i = 0; i < n; ++i) combine(dst[to[i]], from[i]);
          } else {
            const std::int64_t* to = dsingles + d.first + dk;
            const std::int64_t* from = ssingles + s.first + sk;
            const std::int64_t ahead = n - detail::kIndexPrefetchDistance;
            for (std::int64_t i = 0; i < n; ++i) {
              if (i < ahead) {
                detail::prefetch_for_read(src + from[i + detail::kIndexPrefetchDistance]);
                detail::prefetch_for_write(dst + to[i + detail::kIndexPrefetchDistance]);
              }
              combine(dst[to[i]], src[from[i]]);
            }
          }
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
      });
}

}  // namespace adlib::detail
