// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/tag_allocator.hpp>

#include <adlib/runtime/error.hpp>

namespace adlib {

TagAllocator::TagAllocator(int first, int upper_bound)
    : first_(first), upper_bound_(upper_bound), next_fresh_(first) {
  if (upper_bound < first)
    throw Error(
        "tag range [" + std::to_string(first) + ", " + std::to_string(upper_bound) + "] is empty",
        -1, "TagAllocator");
}

int TagAllocator::acquire() {
  int tag;
  if (!released_.empty()) {
    tag = *released_.begin();
    released_.erase(released_.begin());
  } else {
    if (next_fresh_ > upper_bound_)
      throw Error("all " + std::to_string(upper_bound_ - first_ + 1) +
                      " message tags are held by live schedules",
                  world_rank_or_unknown(), "TagAllocator");
    tag = next_fresh_++;
  }
  in_use_.insert(tag);
  return tag;
}

void TagAllocator::release(int tag) {
  if (in_use_.erase(tag) == 0) return;  // not ours: ignore rather than corrupt the pool
  released_.insert(tag);
}

}  // namespace adlib
