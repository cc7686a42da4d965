// SPDX-License-Identifier: BSD-3-Clause
// Test support shared by the serial and MPI tests:
//
//  - Rng: a tiny deterministic generator (splitmix64).  std::uniform_*
//    distributions are implementation-defined, and every MPI rank must draw
//    exactly the same random configuration, so the tests use this instead.
//  - RangeSpec: an independent reference model of every Range kind, written
//    from the definitions in the headers (not from the library's code), so
//    that tests can compare the library's inquiries and the data a Remap
//    moves against ground truth computed from global indices.
//  - SideSpec / random_side: a random array layout (grid, group restriction,
//    one range per dimension, optional section) that both the serial planning
//    tests (communicator-less grids) and the MPI tests realise.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/ranges/block_cyclic_range.hpp>
#include <adlib/ranges/block_range.hpp>
#include <adlib/ranges/collapsed_range.hpp>
#include <adlib/ranges/irregular_block_range.hpp>
#include <adlib/ranges/process_grid.hpp>
#include <adlib/ranges/triplet.hpp>

namespace adlib_test {

using adlib::Index;
using adlib::Triplet;

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi] (inclusive).
  Index uniform(Index lo, Index hi) {
    return lo + static_cast<Index>(next() % static_cast<std::uint64_t>(hi - lo + 1));
  }
  bool chance(int percent) { return uniform(0, 99) < percent; }
  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(uniform(0, static_cast<Index>(v.size()) - 1))];
  }

 private:
  std::uint64_t state_;
};

enum class Kind { block, irregular, cyclic, block_cyclic, collapsed, ghost_block };
constexpr int kKindCount = 6;
inline Kind kind_at(int i) {
  return static_cast<Kind>(i % kKindCount);
}
inline const char* kind_name(Kind k) {
  switch (k) {
    case Kind::block:
      return "block";
    case Kind::irregular:
      return "irregular";
    case Kind::cyclic:
      return "cyclic";
    case Kind::block_cyclic:
      return "block-cyclic";
    case Kind::collapsed:
      return "collapsed";
    case Kind::ghost_block:
      return "ghost-block";
  }
  return "?";
}

// Reference model of one Range.  Call finish() after setting the fields.
struct RangeSpec {
  Kind kind = Kind::block;
  Index extent = 0;
  int processes = 1;         // coordinates along its grid axis (1 when collapsed)
  int axis = -1;             // grid axis; -1 when collapsed
  Index block = 1;           // tile size of block-cyclic (1 for cyclic)
  int source = 0;            // cyclic kinds: the coordinate of the first tile
  std::vector<Index> sizes;  // irregular block sizes
  Index ghost_low = 0, ghost_high = 0;
  bool periodic = false;

  std::vector<Index> starts;  // interval kinds: P + 1 interval starts

  bool interval() const { return kind != Kind::cyclic && kind != Kind::block_cyclic; }
  Index tile() const { return kind == Kind::cyclic ? 1 : block; }

  void finish() {
    if (kind == Kind::collapsed) {
      processes = 1;
      axis = -1;
    }
    starts.assign(static_cast<size_t>(processes) + 1, 0);
    for (int c = 0; c <= processes; ++c) {
      if (kind == Kind::irregular)
        starts[c] = c == 0 ? 0 : starts[c - 1] + sizes[c - 1];
      else  // block, ghost block, collapsed (P = 1): floor(c * N / P)
        starts[c] = c * extent / processes;
    }
  }

  Index local_count(int c) const {
    if (interval()) return starts[c + 1] - starts[c];
    // Tiles 0 .. T-1 of `tile()` elements, the last one possibly short;
    // coordinate c holds tiles c, c + P, c + 2P, ...
    const Index b = tile(), tiles = (extent + b - 1) / b;
    c = shifted(c);
    if (tiles <= c) return 0;
    const Index mine = (tiles - 1 - c) / processes + 1;
    Index n = mine * b;
    if ((tiles - 1) % processes == c) n -= tiles * b - extent;
    return n;
  }
  Index local_allocation(int c) const { return ghost_low + local_count(c) + ghost_high; }
  // Cyclic kinds: tiles are dealt from `source`, so coordinate c holds the
  // tiles coordinate (c - source) mod P would hold with the first tile on 0.
  int shifted(int c) const { return ((c - source) % processes + processes) % processes; }

  // Global index stored at local position `local` of coordinate c, or -1
  // when that position is a ghost cell (or beyond the owned elements).
  Index global_at(int c, Index local) const {
    if (interval()) {
      if (local < ghost_low || local >= ghost_low + local_count(c)) return -1;
      return starts[c] + local - ghost_low;
    }
    if (local < 0 || local >= local_count(c)) return -1;
    const Index b = tile();
    return ((local / b) * processes + shifted(c)) * b + local % b;
  }

  struct Where {
    int coord;
    Index local;
  };
  Where owner(Index g) const {
    if (interval()) {
      // The coordinate whose interval [start(c), start(c+1)) holds g.
      const auto it = std::upper_bound(starts.begin(), starts.end(), g);
      const int c = static_cast<int>(it - starts.begin()) - 1;
      return {c, ghost_low + g - starts[c]};
    }
    const Index b = tile(), t = g / b;
    return {static_cast<int>((t + source) % processes), (t / processes) * b + g % b};
  }

  adlib::RangePtr make(const adlib::ProcessGrid& grid) const {
    const adlib::Ghosts ghosts{ghost_low, ghost_high, periodic};
    switch (kind) {
      case Kind::block:
        return std::make_shared<adlib::BlockRange>(extent, grid.dim(axis), ghosts);
      case Kind::ghost_block:
        return std::make_shared<adlib::BlockRange>(extent, grid.dim(axis),
                                                   adlib::Ghosts{ghost_low, ghost_high, periodic});
      case Kind::irregular:
        return std::make_shared<adlib::IrregularBlockRange>(sizes, grid.dim(axis), ghosts);
      case Kind::cyclic:
        return std::make_shared<adlib::CyclicRange>(extent, grid.dim(axis), source);
      case Kind::block_cyclic:
        return std::make_shared<adlib::BlockCyclicRange>(extent, grid.dim(axis), block, source);
      case Kind::collapsed:
        return std::make_shared<adlib::CollapsedRange>(extent, ghosts);
    }
    return nullptr;
  }

  std::string describe() const {
    std::string s = std::string(kind_name(kind)) + "(N=" + std::to_string(extent);
    if (axis >= 0) s += ", axis " + std::to_string(axis) + " P=" + std::to_string(processes);
    if (kind == Kind::block_cyclic) s += ", b=" + std::to_string(block);
    if (source) s += ", source " + std::to_string(source);
    if (kind == Kind::irregular) {
      s += ", sizes";
      for (Index z : sizes) s += " " + std::to_string(z);
    }
    if (ghost_low || ghost_high || periodic)
      s += ", ghosts " + std::to_string(ghost_low) + "/" + std::to_string(ghost_high) +
           (periodic ? "p" : "");
    return s + ")";
  }
};

// Reference model of one side of a Remap: grid, group restriction, ranges,
// and the section (in global indices of the parent, which is whole).
struct SideSpec {
  std::vector<int> grid_shape;
  std::vector<int> fixed;  // per grid axis: -1 free, else the restricted coordinate
  std::vector<RangeSpec> ranges;
  std::vector<Triplet> section;
  bool sectioned = false;

  int rank() const { return static_cast<int>(ranges.size()); }
  int grid_size() const {
    int n = 1;
    for (int e : grid_shape) n *= e;
    return n;
  }
  // Grid coordinate of `rank` along `axis`, ranks in C order.
  int grid_coordinate(int rank, int axis) const {
    int suffix = 1;
    for (size_t a = grid_shape.size(); a-- > static_cast<size_t>(axis) + 1;)
      suffix *= grid_shape[a];
    return (rank / suffix) % grid_shape[axis];
  }
  bool holds(int rank) const {
    if (rank < 0 || rank >= grid_size()) return false;
    for (size_t a = 0; a < fixed.size(); ++a)
      if (fixed[a] >= 0 && grid_coordinate(rank, static_cast<int>(a)) != fixed[a]) return false;
    return true;
  }
  int coordinate(int rank, int d) const {
    const RangeSpec& r = ranges[d];
    return r.axis < 0 ? 0 : grid_coordinate(rank, r.axis);
  }
  std::vector<Index> parent_shape() const {
    std::vector<Index> s;
    for (const auto& r : ranges) s.push_back(r.extent);
    return s;
  }
  std::vector<Index> shape() const {
    std::vector<Index> s;
    for (const auto& t : section) s.push_back(t.count());
    return s;
  }
  // Local allocation extents of `rank` (zeros outside the group).
  std::vector<Index> local_extents(int rank) const {
    std::vector<Index> e(ranges.size(), 0);
    if (!holds(rank)) return e;
    for (int d = 0; d < this->rank(); ++d) e[d] = ranges[d].local_allocation(coordinate(rank, d));
    return e;
  }
  // Section position of local position `local` along d, or -1 (ghost, or an
  // element the section does not cover).
  Index section_position(int rank, int d, Index local) const {
    const Index g = ranges[d].global_at(coordinate(rank, d), local);
    if (g < 0) return -1;
    const Triplet& t = section[d];
    if ((g - t.lo) % t.stride != 0) return -1;
    const Index k = (g - t.lo) / t.stride;
    return k >= 0 && k < t.count() ? k : -1;
  }

  // Per dimension d and local position l of `rank` along d (ghosts
  // included): global[d][l] = ranges[d].global_at(...) and position[d][l] =
  // section_position(rank, d, l).  A check of every local element reads
  // these instead of working them out per element (under the sanitizers,
  // at -O0, that was most of the random remap suite's time).
  struct LocalIndexTables {
    std::vector<std::vector<Index>> global, position;
  };
  LocalIndexTables local_index_tables(int rank) const {
    const std::vector<Index> extents = local_extents(rank);
    LocalIndexTables tables;
    for (int d = 0; d < this->rank(); ++d) {
      std::vector<Index> global(static_cast<size_t>(extents[d])), position(global.size());
      for (Index l = 0; l < extents[d]; ++l) {
        global[l] = ranges[d].global_at(coordinate(rank, d), l);
        position[l] = section_position(rank, d, l);
      }
      tables.global.push_back(std::move(global));
      tables.position.push_back(std::move(position));
    }
    return tables;
  }

  std::string describe() const {
    std::string s = "grid(";
    for (size_t a = 0; a < grid_shape.size(); ++a)
      s += (a ? "x" : "") + std::to_string(grid_shape[a]);
    s += ")";
    for (size_t a = 0; a < fixed.size(); ++a)
      if (fixed[a] >= 0)
        s += ".restrict(" + std::to_string(a) + "," + std::to_string(fixed[a]) + ")";
    s += " [";
    for (size_t d = 0; d < ranges.size(); ++d) {
      s += (d ? "; " : "") + ranges[d].describe();
      if (sectioned) s += " sec " + section[d].to_string();
    }
    return s + "]";
  }
};

// The whole (unsectioned) layout of a side over `grid` (whose shape must be
// spec.grid_shape); take .section(spec.section) for the remapped layout.
inline adlib::ArrayLayout make_parent(const SideSpec& spec, const adlib::ProcessGrid& grid) {
  adlib::Group group(grid);
  for (size_t a = 0; a < spec.fixed.size(); ++a)
    if (spec.fixed[a] >= 0) group = group.restrict(static_cast<int>(a), spec.fixed[a]);
  std::vector<adlib::RangePtr> ranges;
  for (const auto& r : spec.ranges) ranges.push_back(r.make(grid));
  return adlib::ArrayLayout(group, ranges);
}

struct GenOptions {
  int section_percent = 50;
  int restrict_percent = 30;
  int ghost_percent = 30;
  int source_percent = 30;  // cyclic kinds with a random first-tile coordinate
};

// A random range of `kind` and extent n over `processes` coordinates.
inline RangeSpec random_range(Rng& rng, Kind kind, Index n, int axis, int processes,
                              const GenOptions& opt) {
  RangeSpec r;
  r.kind = kind;
  r.extent = n;
  r.axis = axis;
  r.processes = processes;
  // Tiles of 8 and more elements are planned per tile for unit strides,
  // shorter ones per phase: both must appear.
  if (kind == Kind::block_cyclic) r.block = rng.pick(std::vector<Index>{2, 3, 4, 5, 8, 13, 16});
  // ScaLAPACK's RSRC / CSRC: the first tile on another coordinate than 0.
  if ((kind == Kind::block_cyclic || kind == Kind::cyclic) && rng.chance(opt.source_percent))
    r.source = static_cast<int>(rng.uniform(0, processes - 1));
  if (kind == Kind::irregular) {
    // P - 1 random cut points: zero sizes come naturally, and are forced at
    // the ends now and then (empty first / last blocks are edge cases).
    std::vector<Index> cuts;
    for (int c = 0; c + 1 < processes; ++c) cuts.push_back(rng.uniform(0, n));
    if (processes > 1 && rng.chance(25)) cuts[0] = 0;
    if (processes > 1 && rng.chance(25)) cuts.back() = n;
    std::sort(cuts.begin(), cuts.end());
    Index previous = 0;
    for (Index c : cuts) {
      r.sizes.push_back(c - previous);
      previous = c;
    }
    r.sizes.push_back(n - previous);
  }
  const bool ghosted =
      kind == Kind::ghost_block ||
      ((kind == Kind::block || kind == Kind::irregular || kind == Kind::collapsed) &&
       rng.chance(opt.ghost_percent));
  if (ghosted) {
    r.ghost_low = std::min<Index>(rng.uniform(0, 2), n);
    r.ghost_high = std::min<Index>(rng.uniform(kind == Kind::ghost_block ? 1 : 0, 2), n);
    r.periodic = rng.chance(50);
  }
  r.finish();
  return r;
}

// A random side whose section has `shape`, over a grid of `grid_shape`.
// `first_kind` forces the kind of dimension 0 (distributed whenever the kind
// is, so kind pairs can be covered systematically).
inline SideSpec random_side(Rng& rng, const std::vector<Index>& shape,
                            const std::vector<int>& grid_shape, std::optional<Kind> first_kind,
                            const GenOptions& opt = {}) {
  SideSpec s;
  s.grid_shape = grid_shape;
  s.fixed.assign(grid_shape.size(), -1);
  std::vector<int> unused;
  for (int a = 0; a < static_cast<int>(grid_shape.size()); ++a) unused.push_back(a);
  const int rank = static_cast<int>(shape.size());
  std::vector<Kind> kinds(rank);
  std::vector<int> axes(rank, -1);
  for (int d = 0; d < rank; ++d) {
    kinds[d] = d == 0 && first_kind ? *first_kind : kind_at(static_cast<int>(rng.uniform(0, 5)));
    if (kinds[d] == Kind::collapsed) continue;
    if (unused.empty()) {
      kinds[d] = Kind::collapsed;
      continue;
    }
    const auto at = static_cast<size_t>(rng.uniform(0, static_cast<Index>(unused.size()) - 1));
    axes[d] = unused[at];
    unused.erase(unused.begin() + static_cast<std::ptrdiff_t>(at));
  }
  // Axes no range uses: replicated, or restricted to one coordinate.
  for (int a : unused)
    if (rng.chance(opt.restrict_percent))
      s.fixed[a] = static_cast<int>(rng.uniform(0, grid_shape[a] - 1));
  for (int d = 0; d < rank; ++d) {
    const Index n = shape[d];
    Index parent = n;
    Triplet t = Triplet::all(n);
    if (rng.chance(opt.section_percent)) {
      s.sectioned = true;
      const Index stride =
          rng.pick(std::vector<Index>{1, -1, 2, -2, 3, -3, 1, -1, 2, -2, 3, -3, 5, -4});
      const Index step = stride < 0 ? -stride : stride;
      if (n == 0) {
        parent = rng.uniform(0, 5);
        const Index lo = rng.uniform(0, 3);
        t = stride > 0 ? Triplet{lo, lo - 1 - rng.uniform(0, 2), stride}
                       : Triplet{lo, lo + 1 + rng.uniform(0, 2), stride};
      } else {
        const Index span = (n - 1) * step + 1;
        parent = span + rng.uniform(0, 4);
        const Index offset = rng.uniform(0, parent - span);
        const Index lo = stride > 0 ? offset : offset + span - 1;
        const Index last = lo + (n - 1) * stride;
        // Fortran semantics: hi may overshoot the last element by < |stride|.
        const Index over = rng.uniform(0, step - 1);
        t = Triplet{lo, stride > 0 ? last + over : last - over, stride};
      }
    }
    s.section.push_back(t);
    const int processes = axes[d] < 0 ? 1 : grid_shape[axes[d]];
    s.ranges.push_back(random_range(rng, kinds[d], parent, axes[d], processes, opt));
  }
  return s;
}

// Section triplets normalised the way ArrayLayout stores them (count-0
// sections become Triplet::empty()); positions of the parent are global
// indices because parents are whole.
inline std::vector<Triplet> normalized_section(const SideSpec& s) {
  std::vector<Triplet> out;
  for (const auto& t : s.section)
    out.push_back(t.count() == 0 ? Triplet::empty() : Triplet{t.lo, t.last(), t.stride});
  return out;
}

// Linear (C-order) index of a multi-index in a box of `shape`.
inline Index linear_index(const std::vector<Index>& shape, const std::vector<Index>& index) {
  Index l = 0;
  for (size_t d = 0; d < shape.size(); ++d) l = l * shape[d] + index[d];
  return l;
}

}  // namespace adlib_test
