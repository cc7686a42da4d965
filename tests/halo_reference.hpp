// SPDX-License-Identifier: BSD-3-Clause
// What a local cell holds after a WriteHalo, from the definitions alone (the
// owned box of the layout and the boundary rules), sharing nothing with the
// halo planner: the serial reference of the halo tests.
#pragma once

#include <array>

#include <adlib/collectives/halo_plan.hpp>
#include <adlib/ranges/local_box.hpp>

namespace adlib_test {

struct HaloCell {
  bool owned = false;       // an owned cell (never written by the halo)
  bool filled = false;      // owned, or a ghost cell that the halo writes
  adlib::Index linear = 0;  // C-order linear global index of the element it holds
};

// The element that global index g (unwrapped) of a ghost cell copies along a
// dimension of extent n under `mode`, or -1 when the halo leaves it alone.
inline adlib::Index boundary_source(adlib::Index g, adlib::Index n, adlib::Boundary mode) {
  if (g >= 0 && g < n) return g;
  switch (mode) {
    case adlib::Boundary::cyclic:
      return n == 0 ? -1 : ((g % n) + n) % n;
    case adlib::Boundary::mirror: {
      const adlib::Index m = g < 0 ? -g : 2 * (n - 1) - g;
      return m >= 0 && m < n ? m : -1;
    }
    default:
      return -1;
  }
}

template <int R>
HaloCell halo_cell(const adlib::ArrayLayout& layout, const adlib::HaloWidths& halo, int rank,
                   const std::array<adlib::Index, R>& local) {
  const adlib::LocalBox<R> owned = adlib::owned_box<R>(layout, rank);
  HaloCell cell;
  int ghosts = 0;
  bool reached = true;
  for (int d = 0; d < R; ++d) {
    const adlib::Index n = layout.range(d).extent();
    adlib::Index g = owned.global(d, local[d]);  // unwrapped for ghost cells
    if (!owned.contains(d, local[d])) {
      ++ghosts;
      const bool within = local[d] < owned.begin(d) ? local[d] >= owned.begin(d) - halo.low[d]
                                                    : local[d] < owned.end(d) + halo.high[d];
      if (!within || halo.modes[d] == adlib::Boundary::skip) reached = false;
      g = boundary_source(g, n, halo.modes[d]);
      if (g < 0) reached = false;
    }
    cell.linear = cell.linear * n + (g < 0 ? 0 : g);
  }
  cell.owned = ghosts == 0;
  cell.filled = cell.owned || (reached && (halo.stencil == adlib::Stencil::box || ghosts == 1));
  return cell;
}

}  // namespace adlib_test
