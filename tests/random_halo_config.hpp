// SPDX-License-Identifier: BSD-3-Clause
// Random ghost-extended layouts and halo settings for the halo tests (the
// exchange and its reverse): block, irregular with empty blocks, collapsed,
// periodic or not; widths up to the ghost extension (now and then wider than
// the extent); every boundary; both stencils.
#pragma once

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include <adlib/adlib.hpp>

namespace adlib_test {

struct Config {
  std::vector<adlib::RangePtr> ranges;
  adlib::HaloWidths halo;
};

// Splits `p` processes over `k` axes (any factorisation, random order).
inline std::vector<int> grid_shape(int p, int k, std::mt19937& rng) {
  std::vector<int> shape(k, 1);
  if (k == 0) return shape;
  int rest = p;
  for (int f = 2; f <= rest; ++f)
    while (rest % f == 0) {
      shape[std::uniform_int_distribution<int>(0, k - 1)(rng)] *= f;
      rest /= f;
    }
  return shape;
}

template <int R>
Config random_config(const adlib::ProcessGrid& grid, const std::vector<int>& axis_of,
                     std::mt19937& rng) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Config c;
  for (int d = 0; d < R; ++d) {
    const bool periodic = pick(0, 1) == 1;
    const bool irregular = axis_of[d] >= 0 && pick(0, 2) == 0;
    std::vector<adlib::Index> sizes;
    adlib::Index n = pick(1, 13);
    if (irregular) {
      sizes.resize(grid.extent(axis_of[d]));
      n = 0;
      for (auto& s : sizes) n += s = pick(0, 4);  // empty blocks included
    }
    // Ghost widths up to 3, or (one dimension in four) up to 3 beyond the extent.
    const int widest = pick(0, 3) == 0 ? int(n) + 3 : 3;
    const adlib::Ghosts ghosts{pick(0, widest), pick(0, widest), periodic};
    if (axis_of[d] < 0)
      c.ranges.push_back(std::make_shared<adlib::CollapsedRange>(n, ghosts));
    else if (irregular)
      c.ranges.push_back(
          std::make_shared<adlib::IrregularBlockRange>(sizes, grid.dim(axis_of[d]), ghosts));
    else
      c.ranges.push_back(std::make_shared<adlib::BlockRange>(n, grid.dim(axis_of[d]), ghosts));
    const adlib::Range& r = *c.ranges.back();
    c.halo.low.push_back(pick(0, int(r.ghost_low())));
    c.halo.high.push_back(pick(0, int(r.ghost_high())));
    const int mode = pick(0, 3);
    c.halo.modes.push_back(mode == 0                     ? adlib::Boundary::skip
                           : mode == 3                   ? adlib::Boundary::mirror
                           : (mode == 1 && r.periodic()) ? adlib::Boundary::cyclic
                                                         : adlib::Boundary::edge);
  }
  c.halo.stencil = pick(0, 1) == 1 ? adlib::Stencil::box : adlib::Stencil::faces;
  return c;
}

// A random halo case over `comm`: a grid (sometimes smaller than the
// communicator: those ranks hold nothing) with 0 to R distributed
// dimensions, the array of random_config's ranges, and its halo settings.
template <int R>
struct RandomHaloCase {
  adlib::DistArray<double, R> array;  ///< over the random grid
  adlib::HaloWidths halo;             ///< widths, boundaries, stencil
};

template <int R>
RandomHaloCase<R> random_halo_case(const adlib::Comm& comm, std::mt19937& rng) {
  const int distributed = std::uniform_int_distribution<int>(0, R)(rng);
  const int processes = comm.size() > 1 && std::uniform_int_distribution<int>(0, 3)(rng) == 0
                            ? comm.size() - 1
                            : comm.size();
  adlib::ProcessGrid grid(comm, grid_shape(processes, std::max(distributed, 1), rng));
  std::vector<int> axis_of(R, -1);
  for (int d = 0, a = 0; d < R && a < distributed; ++d)
    if (R - d <= distributed - a || std::uniform_int_distribution<int>(0, 1)(rng)) axis_of[d] = a++;
  const Config c = random_config<R>(grid, axis_of, rng);
  std::array<adlib::RangePtr, R> ranges;
  for (int d = 0; d < R; ++d) ranges[d] = c.ranges[d];
  return {adlib::DistArray<double, R>(grid, ranges), c.halo};
}

}  // namespace adlib_test
