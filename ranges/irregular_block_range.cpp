// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/irregular_block_range.hpp>

#include <algorithm>
#include <numeric>

#include <adlib/runtime/error.hpp>

namespace adlib {

namespace {
Index checked_sum(const std::vector<Index>& sizes, const Dimension& dimension) {
  if (static_cast<int>(sizes.size()) != dimension.size())
    throw Error(std::to_string(sizes.size()) + " block sizes for a process dimension of " +
                    std::to_string(dimension.size()),
                -1, "IrregularBlockRange");
  for (Index s : sizes)
    if (s < 0) throw Error("negative block size " + std::to_string(s), -1, "IrregularBlockRange");
  return std::accumulate(sizes.begin(), sizes.end(), Index{0});
}
}  // namespace

IrregularBlockRange::IrregularBlockRange(const std::vector<Index>& sizes,
                                         const Dimension& dimension, const Ghosts& ghosts)
    : IntervalRange(checked_sum(sizes, dimension), dimension, ghosts), starts_(sizes.size() + 1) {
  starts_[0] = 0;
  std::partial_sum(sizes.begin(), sizes.end(), starts_.begin() + 1);
}

int IrregularBlockRange::coord_of(Index global) const {
  // The last coordinate whose interval starts at or below `global`: the
  // empty blocks before it start there too but end there.
  const auto it = std::upper_bound(starts_.begin(), starts_.end() - 1, global);
  return static_cast<int>(it - starts_.begin()) - 1;
}

std::string IrregularBlockRange::describe() const {
  std::string s = "irregular(sizes ";
  for (size_t c = 0; c + 1 < starts_.size(); ++c)
    s += (c ? "," : "") + std::to_string(starts_[c + 1] - starts_[c]);
  return s + ", " + describe_common() + ")";
}

}  // namespace adlib
