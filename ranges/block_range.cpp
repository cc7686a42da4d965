// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/block_range.hpp>

#include <algorithm>
#include <limits>

#include <adlib/ranges/detail/index_math.hpp>

namespace adlib {

BlockRange::BlockRange(Index extent, const Dimension& dimension, const Ghosts& ghosts)
    : IntervalRange(extent, dimension, ghosts),
      narrow_(static_cast<detail::index_math::Wide>(extent + 1) * process_count() <=
              std::numeric_limits<Index>::max()),
      by_reciprocal_(static_cast<detail::index_math::Wide>(extent + 1) * process_count() <
                     detail::index_math::InvariantDivisor::kLimit),
      by_extent_(std::max<Index>(extent, 1)),
      by_processes_(process_count()),
      equal_blocks_(extent > 0 && extent % process_count() == 0),
      by_block_(equal_blocks_ ? extent / process_count() : 1) {}

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

void BlockRange::owners_of(const Index* globals, std::size_t count, Owner* out) const {
  if (!narrow_) {
    IntervalRange::owners_of(globals, count, out);
    return;
  }
  // coord_of and block_start inlined: a Gather's set-up asks this for every
  // subscript, and two virtual calls and a range check per index were most
  // of its cost.
  const Index n = extent(), p = process_count(), low = ghost_low();
  // Blocks of N / P each: one division per index.
  if (by_reciprocal_ && equal_blocks_) {
    const Index block = n / p;
    for (std::size_t i = 0; i < count; ++i) {
      const Index g = globals[i];
      if (g < 0 || g >= n) check_global(g, "owners_of");
      const Index c = by_block_.divide(g);
      out[i] = Owner{static_cast<int>(c), low + g - c * block};
    }
    return;
  }
  // Otherwise one loop, two ways to divide by N and by P: through their
  // reciprocals when both dividends stay below (N + 1) * P < 2^52, else in
  // 64 bits.
  auto resolve = [&](auto by_n, auto by_p) {
    for (std::size_t i = 0; i < count; ++i) {
      const Index g = globals[i];
      if (g < 0 || g >= n) check_global(g, "owners_of");
      const Index c = std::min<Index>(by_n((g + 1) * p - 1), p - 1);
      out[i] = Owner{static_cast<int>(c), low + g - by_p(c * n)};
    }
  };
  if (by_reciprocal_)
    resolve([&](Index x) { return by_extent_.divide(x); },
            [&](Index x) { return by_processes_.divide(x); });
  else
    resolve([n](Index x) { return x / n; }, [p](Index x) { return x / p; });
}

std::string BlockRange::describe() const {
  return "block(" + describe_common() + ")";
}

}  // namespace adlib
