// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/detail/huge_pages.hpp>

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace adlib::detail {

void advise_huge_pages(const void* data, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (data == nullptr || bytes < kHugePageAdviceBytes) return;
  constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHugePage - 1);
  if (first >= last) return;
  // The result is ignored on purpose: a kernel without transparent huge
  // pages refuses (EINVAL), and the memory works as before.
  (void)madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace adlib::detail
