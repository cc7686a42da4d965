// SPDX-License-Identifier: BSD-3-Clause
// The serial references of the halo cases (bench/README.md, H2D-N, H2DC-N,
// H3D-N, H2DA-N), computed from global coordinates alone: what every local
// cell of the scenario's storage (halo_geometry.hpp) must hold after an
// exchange or an accumulate.  Shared by the adlib and raw-MPI lines
// (halo_cases.cpp, halo_accumulate_cases.cpp) and the peers' lines
// (peer_petsc_cases.cpp), so that every line is checked against the same
// reference.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "common.hpp"
#include "halo_geometry.hpp"

namespace bench {

// ---- the exchange (H2D, H2DC, H3D) --------------------------------------------------

// Compares every local cell with the serial reference: owned cells hold
// double(g); a ghost holds double(g) if `ghosts_filled` and it lies inside
// the domain and in the stencil (star: ghost in exactly one dimension),
// else it is still poisoned.
inline void check_array(const std::string& name, const std::string& impl, const std::string& phase,
                        const Geometry& g, Stencil stencil, const double* a, bool ghosts_filled) {
  for (Index i = 0; i < g.ext[0]; ++i)
    for (Index j = 0; j < g.ext[1]; ++j)
      for (Index k = 0; k < g.ext[2]; ++k) {
        const Index l[3] = {i, j, k};
        int ghost_dims = 0;
        bool inside = true;
        for (int d = 0; d < 3; ++d) {
          ghost_dims += !g.owned(d, l[d]);
          const Index x = g.global(d, l[d]);
          inside = inside && x >= 0 && x < (g.halo[d] ? g.n : 1);
        }
        const bool filled = ghost_dims == 0 || (ghosts_filled && inside &&
                                                (stencil == Stencil::kBox || ghost_dims == 1));
        const double expected = filled ? static_cast<double>(g.global_linear(i, j, k)) : kPoison;
        const auto at = static_cast<std::size_t>(g.offset(i, j, k));
        if (a[at] != expected) verification_failed(name, impl, phase, at, a[at], expected);
      }
}

// ---- the accumulate (H2DA) ----------------------------------------------------------

// What every in-domain ghost cell holds, set once and never changed.
inline constexpr double kGhostValue = 1.0;

inline bool inside_domain(const Geometry& g, Index l0, Index l1, Index l2) {
  const Index l[3] = {l0, l1, l2};
  for (int d = 0; d < 3; ++d) {
    const Index x = g.global(d, l[d]);
    if (x < 0 || x >= (g.halo[d] ? g.n : 1)) return false;
  }
  return true;
}

inline bool owned(const Geometry& g, Index l0, Index l1, Index l2) {
  return g.owned(0, l0) && g.owned(1, l1) && g.owned(2, l2);
}

// Owned cells hold double(g); before every verified phase they start again
// from there (the ghosts are not touched).
inline void reset_owned(const Geometry& g, double* a) {
  for (Index i = g.halo[0]; i < g.halo[0] + g.count[0]; ++i)
    for (Index j = g.halo[1]; j < g.halo[1] + g.count[1]; ++j) {
      double* row = a + g.offset(i, j, 0);
      const Index first = g.global_linear(i, j, g.halo[2]);
      for (Index k = 0; k < g.count[2]; ++k) row[g.halo[2] + k] = static_cast<double>(first + k);
    }
}

// The case's local array: owned cells double(g), ghost cells inside the
// domain 1.0, ghost cells outside it the poison (they take no part).
inline std::vector<double> make_accumulate_array(const Geometry& g) {
  std::vector<double> a(g.cells, kPoison);
  for (Index i = 0; i < g.ext[0]; ++i)
    for (Index j = 0; j < g.ext[1]; ++j)
      for (Index k = 0; k < g.ext[2]; ++k)
        if (!owned(g, i, j, k) && inside_domain(g, i, j, k))
          a[static_cast<std::size_t>(g.offset(i, j, k))] = kGhostValue;
  reset_owned(g, a.data());
  return a;
}

// The serial reference, from global coordinates alone (not from the
// neighbour plan): h(g) = how many other ranks hold owned cell g as a ghost,
// i.e. how many other ranks' blocks, widened by their ghost layer, contain
// g.  After n operations an owned cell holds g + n * h(g) * 1.0; every ghost
// must still hold what make_accumulate_array put there.
inline void check_accumulated(const std::string& name, const std::string& impl,
                              const std::string& phase, const Geometry& g, const double* a,
                              long long operations) {
  // held[q][d][l]: whether local index l along d lies in rank q's widened
  // block along d (q = this rank: never counted).
  std::vector<std::array<std::vector<char>, 3>> held;
  const int dims = g.halo[0] == 0 ? 2 : 3;  // a 2-D case pads dimension 0
  for (int q = 0; q < size(); ++q) {
    if (q == rank()) continue;
    const Geometry other(dims, g.n, g.grid, q);
    std::array<std::vector<char>, 3> per_dim;
    for (int d = 0; d < 3; ++d) {
      per_dim[d].resize(static_cast<std::size_t>(g.ext[d]));
      for (Index l = 0; l < g.ext[d]; ++l) {
        const Index x = g.global(d, l);
        per_dim[d][static_cast<std::size_t>(l)] =
            x >= other.lo[d] - other.halo[d] && x < other.lo[d] + other.count[d] + other.halo[d];
      }
    }
    held.push_back(per_dim);
  }
  for (Index i = 0; i < g.ext[0]; ++i)
    for (Index j = 0; j < g.ext[1]; ++j)
      for (Index k = 0; k < g.ext[2]; ++k) {
        double expected;
        if (owned(g, i, j, k)) {
          int holders = 0;
          for (const auto& h : held)
            holders += h[0][static_cast<std::size_t>(i)] && h[1][static_cast<std::size_t>(j)] &&
                       h[2][static_cast<std::size_t>(k)];
          expected = static_cast<double>(g.global_linear(i, j, k)) +
                     static_cast<double>(operations) * holders * kGhostValue;
        } else {
          expected = inside_domain(g, i, j, k) ? kGhostValue : kPoison;
        }
        const auto at = static_cast<std::size_t>(g.offset(i, j, k));
        if (a[at] != expected) verification_failed(name, impl, phase, at, a[at], expected);
      }
}

}  // namespace bench
