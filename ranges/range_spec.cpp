// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/range_spec.hpp>

#include <adlib/ranges/block_cyclic_range.hpp>
#include <adlib/ranges/block_range.hpp>
#include <adlib/ranges/collapsed_range.hpp>
#include <adlib/ranges/irregular_block_range.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

namespace {
void no_ghosts(const char* kind, const Ghosts& g) {
  if (g.low != 0 || g.high != 0 || g.periodic)
    throw Error(std::string(kind) +
                    " ranges carry no ghost cells (only block, irregular_block and collapsed do)",
                -1, "RangeSpec");
}
}  // namespace

RangeSpec::RangeSpec(bool distributed, Maker make, std::string kind)
    : distributed_(distributed), make_(std::move(make)), kind_(std::move(kind)) {}

RangeSpec RangeSpec::ghosts(Index low, Index high) const {
  RangeSpec s = *this;
  s.ghosts_.low = low;
  s.ghosts_.high = high;
  return s;
}

RangeSpec RangeSpec::periodic(bool on) const {
  RangeSpec s = *this;
  s.ghosts_.periodic = on;
  return s;
}

RangeSpec RangeSpec::axis(int grid_axis) const {
  if (!distributed_)
    throw Error("a " + kind_ + " range is not distributed over a grid axis", -1, "RangeSpec");
  RangeSpec s = *this;
  s.axis_ = grid_axis;
  return s;
}

RangePtr RangeSpec::on(const Dimension& dimension) const {
  if (!distributed_)
    throw Error("a " + kind_ + " range is not distributed over a grid axis", -1, "RangeSpec");
  return make_(dimension, ghosts_);
}

RangePtr RangeSpec::make() const {
  if (distributed_)
    throw Error("a " + kind_ + " range needs a grid axis: use on(grid.dim(a))", -1, "RangeSpec");
  return make_(std::nullopt, ghosts_);
}

RangeSpec block(Index extent) {
  return RangeSpec(
      true,
      [extent](const std::optional<Dimension>& d, const Ghosts& g) -> RangePtr {
        return std::make_shared<BlockRange>(extent, *d, g);
      },
      "block");
}

RangeSpec irregular_block(std::vector<Index> sizes) {
  return RangeSpec(
      true,
      [sizes = std::move(sizes)](const std::optional<Dimension>& d, const Ghosts& g) -> RangePtr {
        return std::make_shared<IrregularBlockRange>(sizes, *d, g);
      },
      "irregular_block");
}

RangeSpec cyclic(Index extent, int source) {
  return RangeSpec(
      true,
      [extent, source](const std::optional<Dimension>& d, const Ghosts& g) -> RangePtr {
        no_ghosts("cyclic", g);
        return std::make_shared<CyclicRange>(extent, *d, source);
      },
      "cyclic");
}

RangeSpec block_cyclic(Index extent, Index block_size, int source) {
  return RangeSpec(
      true,
      [extent, block_size, source](const std::optional<Dimension>& d, const Ghosts& g) -> RangePtr {
        no_ghosts("block_cyclic", g);
        return std::make_shared<BlockCyclicRange>(extent, *d, block_size, source);
      },
      "block_cyclic");
}

RangeSpec collapsed(Index extent) {
  return RangeSpec(
      false,
      [extent](const std::optional<Dimension>&, const Ghosts& g) -> RangePtr {
        return std::make_shared<CollapsedRange>(extent, g);
      },
      "collapsed");
}

std::vector<RangePtr> bind_ranges(const Group& group, const std::vector<RangeSpec>& specs) {
  const ProcessGrid& grid = group.grid();
  std::vector<bool> taken(grid.dimensions(), false);
  for (const RangeSpec& s : specs) {
    if (!s.explicit_axis()) continue;
    const int a = *s.explicit_axis();
    if (a < 0 || a >= grid.dimensions() || !group.is_free(a))
      throw Error("axis " + std::to_string(a) + " is not a free axis of " + group.describe(), -1,
                  "bind_ranges");
    if (taken[a]) throw Error("two ranges name axis " + std::to_string(a), -1, "bind_ranges");
    taken[a] = true;
  }
  std::vector<RangePtr> out;
  int next = 0;
  for (const RangeSpec& s : specs) {
    if (!s.distributed()) {
      out.push_back(s.make());
      continue;
    }
    int a = s.explicit_axis() ? *s.explicit_axis() : -1;
    if (a < 0) {
      while (next < grid.dimensions() && (taken[next] || !group.is_free(next))) ++next;
      if (next == grid.dimensions())
        throw Error("more distributed ranges than free axes of " + group.describe(), -1,
                    "bind_ranges");
      a = next;
      taken[a] = true;
    }
    out.push_back(s.on(grid.dim(a)));
  }
  return out;
}

}  // namespace adlib
