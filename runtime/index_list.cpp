// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/index_list.hpp>

#include <algorithm>
#include <utility>

namespace adlib {

namespace {

void add_run(IndexList& list, std::int64_t first, std::int64_t count) {
  list.segments.push_back({first, count, true});
}

bool has_repeats(const IndexList& list, const std::vector<std::int64_t>& offsets) {
  // Lists planners make are often ascending (a gather's owner side, blocks
  // listed in order): no repeat, and nothing to mark.
  const auto descends = [](std::int64_t a, std::int64_t b) { return b <= a; };
  if (std::adjacent_find(offsets.begin(), offsets.end(), descends) == offsets.end()) return false;
  // Offsets within a span of at most 64 per element (the usual case: a
  // permutation of positions): one bit each, O(n).
  const std::uint64_t span = static_cast<std::uint64_t>(list.highest - list.lowest) + 1;
  if (span / 64 <= offsets.size()) {
    std::vector<std::uint64_t> seen((span + 63) / 64, 0);
    for (const std::int64_t o : offsets) {
      const auto bit = static_cast<std::uint64_t>(o - list.lowest);
      std::uint64_t& word = seen[bit / 64];
      const std::uint64_t mask = std::uint64_t(1) << (bit % 64);
      if (word & mask) return true;
      word |= mask;
    }
    return false;
  }
  std::vector<std::int64_t> sorted = offsets;
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
}

}  // namespace

IndexList IndexList::from(std::vector<std::int64_t> offsets, std::int64_t min_run) {
  min_run = std::max<std::int64_t>(min_run, 2);
  IndexList list;
  const auto n = static_cast<std::int64_t>(offsets.size());
  list.count = n;
  if (n > 0) {
    const auto [low, high] = std::minmax_element(offsets.begin(), offsets.end());
    list.lowest = *low;
    list.highest = *high;
  }
  list.repeats = has_repeats(list, offsets);
  // The singles are compacted to the front of `offsets` itself (a single is
  // never written past the position it is read from), which then becomes
  // list.singles: a list without runs is taken over as it is, no copy.
  std::size_t kept = 0;
  std::int64_t i = 0;
  while (i < n) {
    std::int64_t j = i + 1;
    while (j < n && offsets[j] == offsets[j - 1] + 1) ++j;
    if (j - i >= min_run) {
      add_run(list, offsets[i], j - i);
    } else {
      if (list.segments.empty() || list.segments.back().run)
        list.segments.push_back({static_cast<std::int64_t>(kept), 0, false});
      list.segments.back().count += j - i;
      for (std::int64_t k = i; k < j; ++k) offsets[kept++] = offsets[k];
    }
    i = j;
  }
  offsets.resize(kept);
  list.singles = std::move(offsets);
  // Plan memory is what the schedule keeps for its life: no large slack.
  if (list.singles.capacity() > kept + kept / 4 + 64) list.singles.shrink_to_fit();
  list.segments.shrink_to_fit();
  return list;
}

std::vector<std::int64_t> IndexList::offsets() const {
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(count));
  for (const Segment& s : segments)
    for (std::int64_t k = 0; k < s.count; ++k)
      out.push_back(s.run ? s.first + k : singles[static_cast<std::size_t>(s.first + k)]);
  return out;
}

}  // namespace adlib
