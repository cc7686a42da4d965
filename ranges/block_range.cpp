// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/block_range.hpp>

#include <algorithm>
#include <limits>

#include <adlib/ranges/detail/index_math.hpp>

namespace adlib {

BlockRange::BlockRange(Index extent, const Dimension& dimension, const Ghosts& ghosts)
    : IntervalRange(extent, dimension, ghosts),
      narrow_(static_cast<detail::index_math::Wide>(extent + 1) * process_count() <=
              std::numeric_limits<Index>::max()) {}

Index BlockRange::block_start(int coord) const {
  if (narrow_) return coord * extent() / process_count();
  return static_cast<Index>(static_cast<detail::index_math::Wide>(coord) * extent() /
                            process_count());
}

int BlockRange::coord_of(Index global) const {
  // The largest c with floor(c*N/P) <= g, i.e. c*N < (g+1)*P.
  if (narrow_)
    return static_cast<int>(
        std::min<Index>(((global + 1) * process_count() - 1) / extent(), process_count() - 1));
  const detail::index_math::Wide p = process_count();
  const Index c = static_cast<Index>(((global + 1) * p - 1) / extent());
  return static_cast<int>(std::min<Index>(c, process_count() - 1));
}

std::string BlockRange::describe() const {
  return "block(" + describe_common() + ")";
}

}  // namespace adlib
