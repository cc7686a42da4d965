// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/block_cyclic_range.hpp>

#include <algorithm>

#include <adlib/ranges/detail/index_math.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

using namespace detail::index_math;

BlockCyclicRange::BlockCyclicRange(Index extent, const Dimension& dimension, Index block,
                                   int source)
    : Range(extent, dimension), block_(block), source_(source) {
  if (block < 1)
    throw Error("block size " + std::to_string(block) + " must be at least 1", -1,
                "BlockCyclicRange");
  if (source < 0 || source >= process_count())
    throw Error("source coordinate " + std::to_string(source) + " is outside 0.." +
                    std::to_string(process_count() - 1),
                -1, "BlockCyclicRange");
}

int BlockCyclicRange::shifted(int coord) const {
  return static_cast<int>(floor_mod(coord - source_, process_count()));
}

int BlockCyclicRange::unshifted(Index shifted_coord) const {
  return static_cast<int>((shifted_coord + source_) % process_count());
}

Index BlockCyclicRange::local_count(int coord) const {
  check_coord(coord, "local_count");
  const Index cycle = block_ * process_count();
  const Index full = extent() / cycle, rest = extent() % cycle;
  return full * block_ + std::clamp<Index>(rest - shifted(coord) * block_, 0, block_);
}

Index BlockCyclicRange::local_position(Index global) const {
  const Index tile = global / block_;
  return (tile / process_count()) * block_ + global % block_;
}

Owner BlockCyclicRange::owner(Index global) const {
  check_global(global, "owner");
  return Owner{unshifted((global / block_) % process_count()), local_position(global)};
}

Index BlockCyclicRange::global_index(int coord, Index local) const {
  check_coord(coord, "global_index");
  const Index g = ((local / block_) * process_count() + shifted(coord)) * block_ + local % block_;
  if (local < 0 || g >= extent())
    throw Error("local position " + std::to_string(local) + " is not an owned element of " +
                    describe() + " at coordinate " + std::to_string(coord),
                -1, "Range::global_index");
  return g;
}

LocalMap BlockCyclicRange::local_map(int coord) const {
  check_coord(coord, "local_map");
  return LocalMap{shifted(coord) * block_, block_, block_ * process_count()};
}

bool BlockCyclicRange::per_phase(const Triplet& section) const {
  // Per tile, a block is a run of about block / |stride| elements that are
  // close in memory; per phase, a block strides over whole cycles.  Tiles win
  // whenever their runs fill a cache line (8 doubles), even if they are more
  // numerous (block fusion in the schedule merges regular tile sequences
  // again).  For short runs the fewer blocks win: about block / gcd(stride,
  // cycle) phases against the section's span in cycles.  Everything here
  // depends on the section alone, so every process makes the same choice.
  constexpr Index kShortestTileRun = 8;
  const Index s = section.stride < 0 ? -section.stride : section.stride;
  if (block_ / s >= kShortestTileRun) return false;
  const Index cycle = block_ * process_count();
  const Index n = section.count();
  const Index phases = ceil_div(block_, gcd(section.stride, cycle));
  const Index tiles = (n > 0 ? (n - 1) * s / cycle : 0) + 2;
  return phases <= tiles;
}

void BlockCyclicRange::owned_blocks(int coord, const Triplet& section, Index first, Index last,
                                    std::vector<Block>& out) const {
  first = std::max<Index>(first, 0);
  last = std::min<Index>(last, section.count() - 1);
  if (first > last) return;
  if (process_count() == 1) {
    // One process: local position == global index, a single run.
    const Index g = section.at(first);
    out.push_back(Block{last - first + 1, g, section.stride, g, section.stride});
    return;
  }
  // The private walkers deal tiles from coordinate 0: give them the shifted one.
  if (per_phase(section))
    phase_blocks(shifted(coord), section, first, last, out);
  else
    tile_blocks(shifted(coord), section, first, last, out);
}

void BlockCyclicRange::phase_blocks(int coord, const Triplet& section, Index first, Index last,
                                    std::vector<Block>& out) const {
  const Index cycle = block_ * process_count();
  const Index s = section.stride;
  const Index g = gcd(s, cycle);
  const Index period = cycle / g;  // positions after which the phase repeats
  const Index inverse = inverse_mod(floor_div(s, g), period);
  const Index global_step = period * s;  // a multiple of the cycle
  const Index local_step = (global_step / cycle) * block_;
  const auto before = out.size();
  // Residues (global index mod cycle) that belong to `coord` and that the
  // section can reach (congruent to lo modulo g).
  Index residue = coord * block_ + floor_mod(section.lo - coord * block_, g);
  for (; residue < (coord + 1) * block_; residue += g) {
    const Index d = floor_mod(residue - section.lo, cycle) / g;
    const Index k0 = mul_mod(d, inverse, period);  // first position in this phase
    const Index k = k0 + std::max<Index>(0, ceil_div(first - k0, period)) * period;
    if (k > last) continue;
    const Index count = (last - k) / period + 1;
    const Index global = section.at(k);
    out.push_back(Block{count, global, global_step, local_position(global), local_step});
  }
  std::sort(out.begin() + before, out.end(), [&](const Block& a, const Block& b) {
    return (a.global_base - section.lo) / s < (b.global_base - section.lo) / s;
  });
}

void BlockCyclicRange::tile_blocks(int coord, const Triplet& section, Index first, Index last,
                                   std::vector<Block>& out) const {
  const Index P = process_count();
  const Index s = section.stride;
  const Index g_first = section.at(first), g_last = section.at(last);
  const Index low = std::min(g_first, g_last), high = std::max(g_first, g_last);
  Index t_low = low / block_, t_high = high / block_;
  // Tiles of this coordinate: t == coord (mod P).
  t_low += floor_mod(coord - t_low, P);
  t_high -= floor_mod(t_high - coord, P);
  auto emit = [&](Index tile) {
    auto [k_first, k_last] = positions_in(section, tile * block_, (tile + 1) * block_);
    k_first = std::max(k_first, first);
    k_last = std::min(k_last, last);
    if (k_first > k_last) return;
    const Index global = section.at(k_first);
    out.push_back(Block{k_last - k_first + 1, global, s, local_position(global), s});
  };
  // Increasing position: ascending tiles for s > 0, descending otherwise.
  if (s > 0)
    for (Index t = t_low; t <= t_high; t += P) emit(t);
  else
    for (Index t = t_high; t >= t_low; t -= P) emit(t);
}

void BlockCyclicRange::owners(const Triplet& indices, std::vector<int>& coords) const {
  const Index n = indices.count();
  if (n == 0) return;
  const auto before = coords.size();
  if (n < process_count()) {
    for (Index k = 0; k < n; ++k)
      coords.push_back(unshifted((indices.at(k) / block_) % process_count()));
    std::sort(coords.begin() + before, coords.end());
    coords.erase(std::unique(coords.begin() + before, coords.end()), coords.end());
  } else {
    for (int c = 0; c < process_count(); ++c) coords.push_back(c);
  }
}

dap::DimensionData BlockCyclicRange::dap_dimension(int coord) const {
  dap::DimensionData out;
  out.dist_type = 'c';
  out.size = extent();
  out.proc_grid_size = process_count();
  out.proc_grid_rank = coord;
  // The first index of the first tile dealt to coord (extent() when none).
  const Index n = extent(), p = process_count();
  const Index tile = ((coord - source()) % p + p) % p;
  out.start = tile > n / block_size() ? n : std::min(tile * block_size(), n);
  out.block_size = block_size();
  return out;
}

dap::DimensionData CyclicRange::dap_dimension(int coord) const {
  dap::DimensionData out = BlockCyclicRange::dap_dimension(coord);
  out.block_size.reset();
  return out;
}

std::string BlockCyclicRange::describe() const {
  return "block-cyclic(b=" + std::to_string(block_) + ", " + describe_common() +
         (source_ ? ", source " + std::to_string(source_) : "") + ")";
}

std::string CyclicRange::describe() const {
  return "cyclic(" + describe_common() + (source() ? ", source " + std::to_string(source()) : "") +
         ")";
}

}  // namespace adlib
