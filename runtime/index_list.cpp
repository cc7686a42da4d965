// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/runtime/index_list.hpp>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <limits>
#include <utility>

#include <adlib/runtime/detail/pack_walk.hpp>

namespace adlib {

namespace {

void add_run(IndexList& list, std::int64_t first, std::int64_t count, std::int64_t position) {
  list.segments.push_back({first, count, position, true});
}

// Does any offset occur twice?  `ascending` (strictly) says no at once.
bool has_repeats(const IndexList& list, const std::vector<std::int64_t>& offsets, bool ascending) {
  // Lists planners make are often ascending (a gather's owner side, blocks
  // listed in order): no repeat, and nothing to mark.
  if (ascending) return false;
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

// Threads of Kokkos' default host execution space, for which from() plans
// target groups (1 before Kokkos is initialized: no threads to plan for).
int planning_threads() {
  if (!Kokkos::is_initialized()) return 1;
  return Kokkos::DefaultHostExecutionSpace().concurrency();
}

// Target groups for the threads of the default host execution space, where
// the list's pieces would need them (see IndexList::groups).
void plan_groups(IndexList& list) {
  if (!list.repeats || list.sorted || list.count < 2 * detail::kMinThreadedElements) return;
  const int threads = planning_threads();
  if (threads > 1) list.group_targets(kTargetGroupsPerThread * threads);
}

}  // namespace

void IndexList::group_targets(int group_count) {
  groups = {};
  if (group_count <= 1 || !repeats || sorted || count == 0 ||
      count > std::int64_t(std::numeric_limits<std::uint32_t>::max()))
    return;
  // A list of singles only (the usual unsorted one) is read in place; a
  // list with runs is expanded once.
  std::vector<std::int64_t> expanded;
  if (!all_singles()) expanded = offsets();
  const std::vector<std::int64_t>& all = all_singles() ? singles : expanded;
  // Group g owns offsets [lowest + g * width, lowest + (g + 1) * width).
  const std::int64_t width = (highest - lowest) / group_count + 1;
  auto group_of = [&](std::int64_t offset) {
    return static_cast<std::size_t>((offset - lowest) / width);
  };
  groups.starts.assign(static_cast<std::size_t>(group_count) + 1, 0);
  for (const std::int64_t o : all) ++groups.starts[group_of(o) + 1];
  for (std::size_t g = 1; g < groups.starts.size(); ++g) groups.starts[g] += groups.starts[g - 1];
  std::vector<std::int64_t> next(groups.starts.begin(), groups.starts.end() - 1);
  groups.targets.resize(all.size());
  groups.positions.resize(all.size());
  for (std::size_t p = 0; p < all.size(); ++p) {  // a stable counting sort by group
    const auto at = static_cast<std::size_t>(next[group_of(all[p])]++);
    groups.targets[at] = all[p];
    groups.positions[at] = static_cast<std::uint32_t>(p);
  }
}

IndexList IndexList::from(std::vector<std::int64_t> offsets, std::int64_t min_run) {
  min_run = std::max<std::int64_t>(min_run, 2);
  IndexList list;
  const auto n = static_cast<std::int64_t>(offsets.size());
  list.count = n;
  if (n == 0) return list;
  // One pass for the bounds, the order and where runs long enough to become
  // rows are: a list of scattered offsets (a gather's) usually has none, and
  // then its offsets are its singles as they are.  The pass has no branch
  // per offset: whether an offset continues the one before it is a coin
  // toss in a list of scattered offsets, where a branch on it mispredicted
  // half the time (a quarter of a Gather's set-up).  A run is noted once,
  // where its streak reaches min_run, in a chunk's table of positions that
  // every step writes and only a hit moves on.
  constexpr std::int64_t kScanChunk = 2048;
  // A hit needs min_run - 1 >= 1 continuations since the last break: at
  // most one every second position of a chunk, plus the slot written last.
  std::int64_t hits[kScanChunk / 2 + 2];
  std::int64_t lowest = offsets[0], highest = offsets[0], streak = 1;
  bool ascending = true, sorted = true;
  std::vector<std::int64_t> run_reached;  // where a run's streak reached min_run
  for (std::int64_t chunk = 1; chunk < n; chunk += kScanChunk) {
    const std::int64_t end = std::min(n, chunk + kScanChunk);
    std::size_t found = 0;
    for (std::int64_t i = chunk; i < end; ++i) {
      const std::int64_t o = offsets[i], previous = offsets[i - 1];
      lowest = std::min(lowest, o);
      highest = std::max(highest, o);
      ascending &= o > previous;
      sorted &= o >= previous;
      streak = streak * static_cast<std::int64_t>(o == previous + 1) + 1;
      hits[found] = i;
      found += static_cast<std::size_t>(streak == min_run);
    }
    run_reached.insert(run_reached.end(), hits, hits + found);
  }
  list.lowest = lowest;
  list.highest = highest;
  list.sorted = sorted;
  list.repeats = has_repeats(list, offsets, ascending);
  if (run_reached.empty()) {
    list.segments.push_back({0, n, 0, false});
    list.singles = std::move(offsets);
    if (list.singles.capacity() > static_cast<std::size_t>(n + n / 4 + 64))
      list.singles.shrink_to_fit();
    plan_groups(list);
    return list;
  }
  // Each run begins min_run - 1 positions before its streak reached min_run
  // (the offset there broke the streak before it) and goes on while the
  // offsets do; the stretches between runs are singles, compacted to the
  // front of `offsets` itself (a single is never written past the position
  // it is read from), which then becomes list.singles.
  std::size_t kept = 0;
  std::int64_t next = 0;  // the first position not yet in a segment
  auto add_singles = [&](std::int64_t end) {
    if (end == next) return;
    list.segments.push_back({static_cast<std::int64_t>(kept), end - next, next, false});
    if (kept != static_cast<std::size_t>(next))
      std::copy(offsets.begin() + next, offsets.begin() + end, offsets.begin() + kept);
    kept += static_cast<std::size_t>(end - next);
  };
  for (const std::int64_t reached : run_reached) {
    const std::int64_t first = reached - min_run + 1;
    std::int64_t end = reached + 1;
    while (end < n && offsets[end] == offsets[end - 1] + 1) ++end;
    add_singles(first);
    add_run(list, offsets[first], end - first, first);
    next = end;
  }
  add_singles(n);
  offsets.resize(kept);
  list.singles = std::move(offsets);
  // Plan memory is what the schedule keeps for its life: no large slack.
  if (list.singles.capacity() > kept + kept / 4 + 64) list.singles.shrink_to_fit();
  list.segments.shrink_to_fit();
  plan_groups(list);
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
