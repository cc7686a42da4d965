// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/tag_allocator.hpp>

#include <adlib/runtime/error.hpp>

namespace adlib {

TagAllocator::TagAllocator(int first, int upper_bound) : first_(first), upper_bound_(upper_bound) {
  if (upper_bound < first)
    throw Error(
        "tag range [" + std::to_string(first) + ", " + std::to_string(upper_bound) + "] is empty",
        -1, "TagAllocator");
}

int TagAllocator::acquire() {
  // The lowest free tag is the first gap in the (sorted) tags in use.
  long long tag = first_;
  for (auto it = in_use_.lower_bound(first_); it != in_use_.end() && *it == tag; ++it) ++tag;
  if (tag > upper_bound_)
    throw Error("all " + std::to_string(upper_bound_ - first_ + 1) +
                    " message tags are held by live schedules",
                world_rank_or_unknown(), "TagAllocator");
  in_use_.insert(static_cast<int>(tag));
  return static_cast<int>(tag);
}

void TagAllocator::take(int tag) {
  if (tag < first_ || tag > upper_bound_)
    throw Error("tag " + std::to_string(tag) + " is outside [" + std::to_string(first_) + ", " +
                    std::to_string(upper_bound_) + "]",
                world_rank_or_unknown(), "TagAllocator");
  if (!in_use_.insert(tag).second)
    throw Error("tag " + std::to_string(tag) + " is already in use", world_rank_or_unknown(),
                "TagAllocator");
}

void TagAllocator::usage_mask(int first, std::uint64_t* words, int count) const {
  for (int w = 0; w < count; ++w) words[w] = 0;
  const long long end = static_cast<long long>(first) + 64LL * count;
  for (auto it = in_use_.lower_bound(first); it != in_use_.end() && *it < end; ++it) {
    const long long bit = *it - static_cast<long long>(first);
    words[bit / 64] |= std::uint64_t{1} << (bit % 64);
  }
}

void TagAllocator::release(int tag) {
  in_use_.erase(tag);  // a tag not in use is ignored rather than corrupting the pool
}

}  // namespace adlib
