// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Transparent huge pages for the large buffers of a set-up: fresh memory
/// costs a page fault per page at its first write, and on virtual machines
/// a fault costs 5-10 us, so that the 4 KiB pages of a 16 MiB buffer cost
/// more than the work done in it.  Advised before the first write, the
/// kernel backs the buffer with 2 MiB pages where it can, 512 times fewer
/// faults (UH-2048-d2's Directory on the reference VM: 120-240 ms with
/// 4 KiB pages, 27 ms with huge ones).
///
/// @code
///   std::vector<std::int64_t> ids;
///   adlib::detail::reserve_huge(ids, n);  // reserve, then advise, before any write
///   for (...) ids.push_back(...);
/// @endcode
///
/// A hint: where the kernel does not offer transparent huge pages (not
/// Linux, or /sys/kernel/mm/transparent_hugepage/enabled set to never), or
/// for buffers below kHugePageAdviceBytes, nothing happens.
#pragma once

#include <cstddef>
#include <vector>

namespace adlib::detail {

/// Buffers below this size are not advised: at most a few huge pages'
/// worth, where the rounding to whole 2 MiB pages would waste a share of
/// memory and the faults saved are few.
constexpr std::size_t kHugePageAdviceBytes = std::size_t(4) << 20;

/// Asks for huge pages over the whole 2 MiB pages inside [data, data +
/// bytes) (madvise MADV_HUGEPAGE where the system has it), before the
/// memory is first written.  Never fails: an advice refused is ignored.
void advise_huge_pages(const void* data, std::size_t bytes);

/// Reserves room for `count` elements in `v` and advises huge pages for it
/// while it is still untouched (a vector that already has the room keeps
/// its memory, advised or not).
template <class T, class Allocator>
void reserve_huge(std::vector<T, Allocator>& v, std::size_t count) {
  if (v.capacity() >= count) return;
  v.reserve(count);
  advise_huge_pages(v.data(), count * sizeof(T));
}

}  // namespace adlib::detail
