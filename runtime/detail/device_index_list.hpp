// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// DeviceIndexList: an IndexList (runtime/index_list.hpp) laid out for
/// kernels that run where the memory lives (a GPU, or any execution space
/// with many threads), and the pack, unpack and copy kernels over it.
///
/// @code
///   auto list = adlib::detail::DeviceIndexList<MemorySpace>::from(host_list);   // once, at build
///   adlib::detail::pack_indices<double>(space, memory, list, buffer);           // one kernel
///   adlib::detail::unpack_indices<double>(space, memory, list, buffer, adlib::op::add);
/// @endcode
///
/// The host IndexList keeps runs and singles apart so that one host thread
/// copies runs as rows; a device kernel wants one thread per element
/// instead, so every offset is stored (8 bytes per element).  Offsets that
/// repeat cannot be combined by independent threads without races or an
/// arbitrary order, so a list with repeats also stores its positions grouped
/// by target (compressed rows: each distinct target, then the list positions
/// aimed at it, in list order): one thread per distinct target applies its
/// values in list order, so combining stays deterministic and parallel
/// (another 16 bytes per element at most).
///
/// Schedules use these kernels for memory a host thread cannot address, and,
/// under Configuration::force_staging, for host memory too, so that CI
/// without a GPU runs them.
#pragma once

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/index_list.hpp>

namespace adlib::detail {

/// An IndexList in MemorySpace (see the file overview).
template <class MemorySpace>
struct DeviceIndexList {
  /// A list of 64-bit offsets or positions in MemorySpace.
  using Offsets = Kokkos::View<std::int64_t*, MemorySpace>;
  Offsets offsets;         ///< every offset, in list order
  Offsets targets;         ///< repeats only: the distinct offsets, ascending
  Offsets starts;          ///< repeats only: targets(t)'s positions are [starts(t), starts(t + 1))
  Offsets positions;       ///< repeats only: list positions grouped by target, list order within
  std::int64_t count = 0;  ///< elements in the list
  std::int64_t distinct = 0;  ///< distinct offsets (count when nothing repeats)
  bool repeats = false;       ///< some offset occurs more than once

  /// The device form of `list` (allocates and copies; call once per list).
  static DeviceIndexList from(const IndexList& list) {
    DeviceIndexList out;
    out.count = list.count;
    out.repeats = list.repeats;
    const std::vector<std::int64_t> host = list.offsets();
    out.offsets = to_view(host, "adlib::DeviceIndexList::offsets");
    out.distinct = list.count;
    if (!list.repeats) return out;
    // Positions sorted by target, stably: list order within a target.
    std::vector<std::int64_t> order(host.size());
    std::iota(order.begin(), order.end(), std::int64_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return host[static_cast<std::size_t>(a)] < host[static_cast<std::size_t>(b)];
    });
    std::vector<std::int64_t> targets, starts;
    for (std::size_t i = 0; i < order.size(); ++i) {
      const std::int64_t target = host[static_cast<std::size_t>(order[i])];
      if (targets.empty() || targets.back() != target) {
        targets.push_back(target);
        starts.push_back(static_cast<std::int64_t>(i));
      }
    }
    starts.push_back(static_cast<std::int64_t>(order.size()));
    out.distinct = static_cast<std::int64_t>(targets.size());
    out.targets = to_view(targets, "adlib::DeviceIndexList::targets");
    out.starts = to_view(starts, "adlib::DeviceIndexList::starts");
    out.positions = to_view(order, "adlib::DeviceIndexList::positions");
    return out;
  }

  /// Bytes of plan memory held in MemorySpace.
  std::size_t bytes() const {
    return (offsets.span() + targets.span() + starts.span() + positions.span()) *
           sizeof(std::int64_t);
  }

 private:
  static Offsets to_view(const std::vector<std::int64_t>& values, const char* label) {
    Offsets view(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)),
                 values.size());
    Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>
        host(values.data(), values.size());
    Kokkos::deep_copy(view, host);
    return view;
  }
};

/// buffer[0, list.count) <- memory at the list's offsets, one thread per
/// element.
template <class T, class ExecSpace, class MemorySpace>
void pack_indices(const ExecSpace& space, const T* memory, const DeviceIndexList<MemorySpace>& list,
                  T* buffer) {
  const auto offsets = list.offsets;
  Kokkos::parallel_for(
      "adlib::pack_indices", Kokkos::RangePolicy<ExecSpace>(space, 0, list.count),
      KOKKOS_LAMBDA(std::int64_t i) { buffer[i] = memory[offsets(i)]; });
}

// The combining kernels are named functors, not KOKKOS_LAMBDAs: a combine
// operation whose type is local to a function (a user's KOKKOS_LAMBDA given
// to op::combine) may not appear in the template arguments of a function
// that defines an extended device lambda (nvcc rejects it), but it may be a
// functor's template argument.

/// The values a kernel combines into its targets: values[i] (a message
/// buffer) ...
template <class T>
struct ValuesInOrder {
  const T* values;  ///< one per list position
  KOKKOS_INLINE_FUNCTION const T& operator()(std::int64_t i) const { return values[i]; }
};
/// ... or memory[offsets(i)] (a local copy's source list).
template <class T, class Offsets>
struct ValuesAtOffsets {
  const T* memory;  ///< the source memory
  Offsets offsets;  ///< the source list's offsets
  KOKKOS_INLINE_FUNCTION const T& operator()(std::int64_t i) const { return memory[offsets(i)]; }
};

/// One thread per list position: memory[targets(i)] combined with
/// values(i).  For lists whose offsets do not repeat.
template <class T, class Offsets, class Values, class Combine>
struct CombineEachPosition {
  T* memory;        ///< the target memory
  Offsets targets;  ///< the target list's offsets
  Values values;    ///< what position i contributes
  Combine combine;  ///< how it is applied
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t i) const {
    combine(memory[targets(i)], values(i));
  }
};

/// One thread per distinct target t: memory[targets(t)] combined with the
/// values of its positions [starts(t), starts(t + 1)), in list order, so that
/// repeated targets combine deterministically without atomics.
template <class T, class Offsets, class Values, class Combine>
struct CombineEachTarget {
  T* memory;          ///< the target memory
  Offsets targets;    ///< the distinct target offsets
  Offsets starts;     ///< where each target's positions start
  Offsets positions;  ///< list positions grouped by target
  Values values;      ///< what each list position contributes
  Combine combine;    ///< how it is applied
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t) const {
    T& target = memory[targets(t)];
    for (std::int64_t p = starts(t); p < starts(t + 1); ++p) combine(target, values(positions(p)));
  }
};

/// memory at `list`'s offsets combined (`combine`) with values(0 ..
/// count): one thread per element, or, when offsets repeat, one per
/// distinct offset applying its values in list order.
template <class T, class ExecSpace, class MemorySpace, class Values, class Combine>
void combine_into_list(const ExecSpace& space, const char* name, T* memory,
                       const DeviceIndexList<MemorySpace>& list, std::int64_t count,
                       const Values& values, const Combine& combine) {
  using Offsets = typename DeviceIndexList<MemorySpace>::Offsets;
  if (!list.repeats) {
    Kokkos::parallel_for(
        name, Kokkos::RangePolicy<ExecSpace>(space, 0, count),
        CombineEachPosition<T, Offsets, Values, Combine>{memory, list.offsets, values, combine});
    return;
  }
  Kokkos::parallel_for(name, Kokkos::RangePolicy<ExecSpace>(space, 0, list.distinct),
                       CombineEachTarget<T, Offsets, Values, Combine>{
                           memory, list.targets, list.starts, list.positions, values, combine});
}

/// memory at the list's offsets combined (`combine`, replace by default)
/// with buffer[0, list.count): one thread per element, or, when offsets
/// repeat, one per distinct offset applying its values in list order.
template <class T, class ExecSpace, class MemorySpace, class Combine = op::Replace>
void unpack_indices(const ExecSpace& space, T* memory, const DeviceIndexList<MemorySpace>& list,
                    const T* buffer, Combine combine = {}) {
  combine_into_list<T>(space, "adlib::unpack_indices", memory, list, list.count,
                       ValuesInOrder<T>{buffer}, combine);
}

/// dst at dst_list's offsets combined with src at src_list's offsets
/// (lists of equal count), element k with element k: a local index-list
/// copy, ordered per target as unpack_indices.
template <class T, class ExecSpace, class MemorySpace, class Combine = op::Replace>
void copy_indices(const ExecSpace& space, T* dst, const DeviceIndexList<MemorySpace>& dst_list,
                  const T* src, const DeviceIndexList<MemorySpace>& src_list,
                  Combine combine = {}) {
  using Offsets = typename DeviceIndexList<MemorySpace>::Offsets;
  combine_into_list<T>(space, "adlib::copy_indices", dst, dst_list,
                       std::min(dst_list.count, src_list.count),
                       ValuesAtOffsets<T, Offsets>{src, src_list.offsets}, combine);
}

}  // namespace adlib::detail
