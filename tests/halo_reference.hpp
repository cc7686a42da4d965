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

// What each local cell of `rank` holds after a WriteHalo of `layout` with
// `halo`.  The owned box and the extents are taken once, at construction:
// the tests ask for every cell of every rank, and the box costs far more
// than a cell (under the sanitizers, at -O0, it was most of a halo test's time).
template <int R>
class HaloReference {
 public:
  HaloReference(const adlib::ArrayLayout& layout, const adlib::HaloWidths& halo, int rank)
      : halo_(halo), owned_(adlib::owned_box<R>(layout, rank)) {
    for (int d = 0; d < R; ++d) extent_[d] = layout.range(d).extent();
  }

  // The cell at local index `local` (ghost cells included).
  HaloCell cell(const std::array<adlib::Index, R>& local) const {
    HaloCell cell;
    int ghosts = 0;
    bool reached = true;
    for (int d = 0; d < R; ++d) {
      const adlib::Index n = extent_[d];
      adlib::Index g = owned_.global(d, local[d]);  // unwrapped for ghost cells
      if (!owned_.contains(d, local[d])) {
        ++ghosts;
        const bool within = local[d] < owned_.begin(d) ? local[d] >= owned_.begin(d) - halo_.low[d]
                                                       : local[d] < owned_.end(d) + halo_.high[d];
        if (!within || halo_.modes[d] == adlib::Boundary::skip) reached = false;
        g = boundary_source(g, n, halo_.modes[d]);
        if (g < 0) reached = false;
      }
      cell.linear = cell.linear * n + (g < 0 ? 0 : g);
    }
    cell.owned = ghosts == 0;
    cell.filled = cell.owned || (reached && (halo_.stencil == adlib::Stencil::box || ghosts == 1));
    return cell;
  }

 private:
  adlib::HaloWidths halo_;
  adlib::LocalBox<R> owned_;
  std::array<adlib::Index, R> extent_{};
};

}  // namespace adlib_test
