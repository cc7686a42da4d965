// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// RouteCopies: the copy kernels a BlockMessSchedule runs along a route.
///
/// An execution moves elements in four ways, all here: strided-block walks
/// (packs into the send buffer and local copies, several targets per pass
/// over a source row where the route shares walks), staged local copies,
/// index lists (packed, unpacked, copied), and the merged walks, in which a
/// node's scattered index lists meet in one pass over memory.
///
/// Index lists run as host loops over the plan's own lists when a host
/// thread can address the memory and its kernels run on the host
/// (detail::host_loops_reach), and as DeviceIndexList kernels over copies
/// of the lists in the memory space otherwise (or when staging is
/// forced, which exercises those kernels on the host).  Which one is
/// decided at compile time where it can be: for memory the host loops cannot
/// reach they are never instantiated, so a device compiler sees
/// only the kernels.  The merged walks are host loops and exist only for
/// host-reachable memory (MessageRoute merges nothing elsewhere).
#pragma once

#include <Kokkos_Core.hpp>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include <adlib/runtime/detail/device_index_list.hpp>
#include <adlib/runtime/detail/index_list_kernels.hpp>
#include <adlib/runtime/detail/pack.hpp>
#include <adlib/runtime/detail/staging.hpp>
#include <adlib/schedules/block_message_plan.hpp>
#include <adlib/schedules/detail/message_route.hpp>

namespace adlib::detail {

/// The copy kernels of one schedule (see the file overview), with the
/// index lists and scratch they keep between executions.
template <class MemorySpace>
class RouteCopies {
 public:
  /// Where the kernels run.
  using execution_space = typename MemorySpace::execution_space;

  /// Makes the memory space's copies of every index list of `plan` (built),
  /// when the index kernels are to run where the memory lives: memory a
  /// host thread cannot address, or `forced` (forced staging).
  void prepare(const BlockMessagePlan& plan, bool forced) {
    if (!plan.has_indices() || (detail::host_loops_reach<MemorySpace>() && !forced)) return;
    auto add = [&](const IndexList& list) {
      if (list.count > 0) device_lists_.emplace(&list, DeviceIndexList<MemorySpace>::from(list));
    };
    for (const PeerMessage& m : plan.send_messages()) add(m.indices);
    for (const PeerMessage& m : plan.recv_messages()) add(m.indices);
    add(plan.local_index_sends());
    add(plan.local_index_recvs());
  }

  /// Waits for every kernel launched so far.
  void fence() const { space_.fence(); }

  /// One walk of the route over a source row: each copy into the send
  /// buffer (array `array`'s part of it) or into `dst`.
  template <class T, class Combine>
  void run_walk(const SourceWalk& walk, T* dst, const T* src, T* buffer, int array,
                const Combine& combine) const {
    const int n = static_cast<int>(walk.copies.size());
    auto target_of = [&](const SourceCopy& c) {
      StridedBlock target = c.target;
      if (c.into_buffer) target.offset += array * c.array_stride;
      return target;
    };
    if (n == 1) {
      const SourceCopy& c = walk.copies.front();
      if (c.into_buffer)
        copy_block<T>(space_, buffer, target_of(c), src, c.source);
      else
        copy_block<T>(space_, dst, c.target, src, c.source, combine);
      return;
    }
    // Shared walks only replace: the route keeps combining local copies apart.
    StridedBlock sources[kMaxSharedSourceCopies], targets[kMaxSharedSourceCopies];
    T* bases[kMaxSharedSourceCopies];
    for (int k = 0; k < n; ++k) {
      sources[k] = walk.copies[k].source;
      targets[k] = target_of(walk.copies[k]);
      bases[k] = walk.copies[k].into_buffer ? buffer : dst;
    }
    copy_blocks_sharing_source<T>(space_, src, sources, bases, targets, n);
  }

  /// The route's staged local copies: its local reads of `src` into `local`,
  /// then its local writes from there into `dst`.
  template <class T, class Combine>
  void copy_locally_staged(const MessageRoute& route, T* dst, const T* src, T* local,
                           const Combine& combine) const {
    std::int64_t position = 0;
    for (const auto& b : route.local_reads()) {
      pack_block<T>(space_, src, b, local + position);
      position += b.count();
    }
    position = 0;
    for (const auto& b : route.local_writes()) {
      unpack_block<T>(space_, dst, b, local + position, combine);
      position += b.count();
    }
    // The local buffer is reused by the next array of a batch.
    space_.fence();
  }

  /// `buffer` into `block` of `memory` (one block of an arrived message).
  template <class T, class Combine>
  void unpack(const StridedBlock& block, T* memory, const T* buffer, const Combine& combine) const {
    unpack_block<T>(space_, memory, block, buffer, combine);
  }

  /// The elements of `memory` at `list`, in list order, into `buffer`.
  template <class T>
  void pack_list(const IndexList& list, const T* memory, T* buffer) const {
    if constexpr (detail::host_loops_reach<MemorySpace>())
      if (device_lists_.empty()) return pack_indices<T>(space_, memory, list, buffer);
    pack_indices<T>(space_, memory, device_lists_.at(&list), buffer);
  }
  /// `buffer`, in list order, into the elements of `memory` at `list`.
  template <class T, class Combine>
  void unpack_list(const IndexList& list, T* memory, const T* buffer,
                   const Combine& combine) const {
    if constexpr (detail::host_loops_reach<MemorySpace>())
      if (device_lists_.empty()) return unpack_indices<T>(space_, memory, list, buffer, combine);
    unpack_indices<T>(space_, memory, device_lists_.at(&list), buffer, combine);
  }
  /// dst at `dst_list` from src at `src_list`, pairwise.
  template <class T, class Combine>
  void copy_lists(T* dst, const IndexList& dst_list, const T* src, const IndexList& src_list,
                  const Combine& combine) const {
    if constexpr (detail::host_loops_reach<MemorySpace>())
      if (device_lists_.empty())
        return copy_indices<T>(space_, dst, dst_list, src, src_list, combine);
    copy_indices<T>(space_, dst, device_lists_.at(&dst_list), src, device_lists_.at(&src_list),
                    combine);
  }

  /// The walk of MessageRoute::merges_index_arrivals() for array `array`,
  /// once every message has arrived in `incoming`: this rank's own
  /// contributions (waiting in `local` since start()) first, then each
  /// peer's in peer order, the order of the unmerged execution, into `dst`.
  template <class T, class Combine>
  void combine_merged(const MessageRoute& route, T* dst, const T* incoming, const T* local,
                      int array, const Combine& combine) {
    // Routes merge where host loops reach only (RouteMemory::host_loops):
    // the walk is a host loop, compiled for such memory alone.
    if constexpr (detail::host_loops_reach<MemorySpace>()) {
      const IndexList& own = route.local_index_writes();
      const T* waiting = local + route.merged_local_offset();
      merged_lists_.clear();
      if (own.count > 0)
        merged_lists_.push_back({own.singles.data(),
                                 waiting + static_cast<std::int64_t>(array) * own.count,
                                 own.count});
      for (const RoutedMessage& routed : route.incoming()) {
        const PeerMessage& m = *routed.message;
        merged_lists_.push_back(
            {m.indices.singles.data(),
             incoming + routed.buffer_offset + static_cast<std::int64_t>(array) * m.count,
             m.indices.count});
      }
      combine_sorted_lists<T>(space_, dst, merged_lists_.data(),
                              static_cast<int>(merged_lists_.size()), merged_combine_work_,
                              combine);
    }
  }
  /// The walk of MessageRoute::merges_index_departures() for array `array`:
  /// its packs into `buffer` and its local index copy into `dst`, in one
  /// pass over `src`.
  template <class T, class Combine>
  void read_merged(const MessageRoute& route, T* dst, const T* src, T* buffer, int array,
                   const Combine& combine) {
    if constexpr (detail::host_loops_reach<MemorySpace>()) {  // as combine_merged()
      const IndexList& reads = route.local_index_reads();
      merged_reads_.clear();
      const IndexList& writes = route.local_index_writes();
      if (reads.count > 0)
        merged_reads_.push_back(
            {reads.singles.data(), dst, writes.singles.data(), reads.count, writes.repeats});
      for (const IndexPack& pack : route.index_packs())
        merged_reads_.push_back({pack.list->singles.data(),
                                 buffer + pack.buffer_offset + array * pack.array_stride, nullptr,
                                 pack.list->count, false});
      read_sorted_lists<T>(space_, src, merged_reads_.data(),
                           static_cast<int>(merged_reads_.size()), merged_read_work_, combine);
    }
  }

 private:
  execution_space space_{};
  /// The plan's index lists in MemorySpace, by list (prepare()).
  std::unordered_map<const IndexList*, DeviceIndexList<MemorySpace>> device_lists_;
  /// The lists and workspaces of the merged walks (kept: no allocation per
  /// execution after the first).
  std::vector<SortedContributions> merged_lists_;
  std::vector<SortedReads> merged_reads_;
  SortedWalkSpace<SortedContributions> merged_combine_work_;
  SortedWalkSpace<SortedReads> merged_read_work_;
};

}  // namespace adlib::detail
