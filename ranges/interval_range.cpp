// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/interval_range.hpp>

#include <algorithm>

#include <adlib/ranges/detail/index_math.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

IntervalRange::IntervalRange(Index extent, std::optional<Dimension> dimension, const Ghosts& ghosts)
    : Range(extent, std::move(dimension), ghosts.low, ghosts.high, ghosts.periodic) {}

Index IntervalRange::local_count(int coord) const {
  check_coord(coord, "local_count");
  return block_start(coord + 1) - block_start(coord);
}

void IntervalRange::owned_blocks(int coord, const Triplet& section, Index first, Index last,
                                 std::vector<Block>& out) const {
  const Index begin = block_start(coord), end = block_start(coord + 1);
  if (begin == end) return;
  auto [k_first, k_last] = detail::index_math::positions_in(section, begin, end);
  k_first = std::max(k_first, first);
  k_last = std::min(k_last, last);
  if (k_first > k_last) return;
  const Index g = section.at(k_first);
  out.push_back(
      Block{k_last - k_first + 1, g, section.stride, ghost_low() + g - begin, section.stride});
}

void IntervalRange::owners(const Triplet& indices, std::vector<int>& coords) const {
  const Index n = indices.count();
  if (n == 0) return;
  int low = coord_of(indices.lo), high = coord_of(indices.last());
  if (low > high) std::swap(low, high);
  const auto before = coords.size();
  if (high - low + 1 <= n) {
    for (int c = low; c <= high; ++c) coords.push_back(c);
  } else {
    // Few indices spread over many processes: visit the indices.
    for (Index k = 0; k < n; ++k) coords.push_back(coord_of(indices.at(k)));
    std::sort(coords.begin() + before, coords.end());
    coords.erase(std::unique(coords.begin() + before, coords.end()), coords.end());
  }
}

Interval IntervalRange::owned_interval(int coord) const {
  check_coord(coord, "owned_interval");
  return Interval{block_start(coord), block_start(coord + 1)};
}

LocalMap IntervalRange::local_map(int coord) const {
  check_coord(coord, "local_map");
  return LocalMap{block_start(coord) - ghost_low(), LocalMap::kNoTile, LocalMap::kNoTile};
}

Owner IntervalRange::owner(Index global) const {
  check_global(global, "owner");
  const int c = coord_of(global);
  return Owner{c, ghost_low() + global - block_start(c)};
}

Index IntervalRange::global_index(int coord, Index local) const {
  check_coord(coord, "global_index");
  const Index g = block_start(coord) + local - ghost_low();
  if (local < ghost_low() || g >= block_start(coord + 1))
    throw Error("local position " + std::to_string(local) + " is not an owned element of " +
                    describe() + " at coordinate " + std::to_string(coord),
                -1, "Range::global_index");
  return g;
}

}  // namespace adlib
