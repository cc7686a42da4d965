// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// LocalBox<Rank>: the owned box or the ghost box of a process's local block,
/// per dimension, in local and in global indices (PETSc's DMDAGetCorners /
/// DMDAGetGhostCorners), for every Range kind.  A small trivially copyable
/// value: capture it in a Kokkos kernel and call its accessors there.
///
/// @code
///   const auto owned = u.owned_box();  // ghost cells excluded
///   const auto all = u.ghost_box();    // the whole local allocation
///   auto v = u.local_view();
///   Kokkos::parallel_for(
///       "init", Kokkos::MDRangePolicy<Kokkos::Rank<2>>({owned.begin(0), owned.begin(1)},
///                                                      {owned.end(0), owned.end(1)}),
///       KOKKOS_LAMBDA(adlib::Index i, adlib::Index j) {
///         v(i, j) = double(owned.global(0, i) * n + owned.global(1, j));
///       });
/// @endcode
///
/// Along dimension d, local indices begin(d) .. end(d) - 1 of local_view()
/// are in the box; global(d, l) is the global index that local index l stands
/// for.  The owned box of a contiguous range (block, irregular, collapsed) is
/// the global interval [global_begin(d), global_begin(d) + extent(d)) at local
/// indices [ghost_low, ghost_low + count); its ghost box extends it by the
/// ghost widths, with *unwrapped* global indices (below 0 or at / above the
/// extent where the ghost cells lie outside the domain: wrap them yourself
/// where the dimension is periodic).  Cyclic and block-cyclic ranges own no
/// interval: their boxes are local index ranges [0, count) whose global
/// indices are global_begin(d), then steps of global_step(d) (the process
/// count for cyclic), or for block-cyclic with tiles of b > 1 no constant step
/// (global_step(d) == 0; global(d, l) still answers).  contiguous(d) says
/// whether the box's global indices are consecutive.  An empty box (a process
/// that owns nothing along d, or holds no data at all) has begin(d) == end(d).
///
/// Boxes describe the local memory of the array's ranges; a section's boxes
/// are those of the array it is a section of.
///
/// A stencil update that overlaps the halo exchange splits the owned box in
/// local indices: interior(w) needs no ghost cell of a stencil reaching w
/// cells, and boundary_strips(w) are the 2 * Rank disjoint slabs that, with
/// it, tile the owned box (empty ones included: thin and empty boxes need
/// no special case).
///
/// @code
///   halo.start(u);
///   update(owned.interior(1));  // reads owned cells only
///   halo.finish();
///   const auto strips = owned.boundary_strips(1);
///   for (int k = 0; k < int(strips.size()); ++k) update(strips[k]);
/// @endcode
#pragma once

#include <Kokkos_Core.hpp>
#include <string>

#include <adlib/ranges/array_layout.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

template <int Rank>
/// A box of local indices of one process's allocation, with the map from local
/// to global indices per dimension (see the file overview).  Trivially copyable,
/// for use inside kernels.
struct LocalBox {
  static_assert(Rank >= 1, "LocalBox rank must be at least 1");

  Index lo[Rank] = {};      ///< first local index per dimension
  Index hi[Rank] = {};      ///< one past the last local index per dimension
  LocalMap map[Rank] = {};  ///< local-to-global map per dimension

  /// Local indices [begin(d), end(d)) of local_view() along d.
  KOKKOS_INLINE_FUNCTION Index begin(int d) const { return lo[d]; }
  /// One past the last local index along d.
  KOKKOS_INLINE_FUNCTION Index end(int d) const { return hi[d]; }
  /// Number of local indices along d.
  KOKKOS_INLINE_FUNCTION Index extent(int d) const { return hi[d] - lo[d]; }
  /// Number of local index tuples in the box.
  KOKKOS_INLINE_FUNCTION Index size() const {
    Index n = 1;
    for (int d = 0; d < Rank; ++d) n *= extent(d);
    return n;
  }
  /// No index at all (some extent is 0).
  KOKKOS_INLINE_FUNCTION bool empty() const { return size() == 0; }
  /// Is `local` within [begin(d), end(d))?
  KOKKOS_INLINE_FUNCTION bool contains(int d, Index local) const {
    return local >= lo[d] && local < hi[d];
  }

  /// The global index that local index `local` along d stands for (unwrapped
  /// for ghost cells).  Defined for every local index of the allocation.
  KOKKOS_INLINE_FUNCTION Index global(int d, Index local) const {
    const LocalMap& m = map[d];
    return m.base + (local / m.tile) * m.period + local % m.tile;
  }
  /// The local index of global index `global` along d; `global` must be one
  /// that global(d, .) gives for a local index of the allocation.
  KOKKOS_INLINE_FUNCTION Index local(int d, Index global) const {
    const LocalMap& m = map[d];
    const Index offset = global - m.base;  // >= 0 inside the allocation
    return (offset / m.period) * m.tile + offset % m.period;
  }
  /// Global index of the first local index of the box (DMDAGetCorners' x,
  /// DMDAGetGhostCorners' gx); where the box is empty, where it would start.
  KOKKOS_INLINE_FUNCTION Index global_begin(int d) const { return global(d, lo[d]); }
  /// Global index of the last local index of the box (meaningless when empty).
  KOKKOS_INLINE_FUNCTION Index global_last(int d) const { return global(d, hi[d] - 1); }
  /// Do the box's global indices along d follow each other with no gap?
  KOKKOS_INLINE_FUNCTION bool contiguous(int d) const {
    return extent(d) <= 1 || map[d].period == map[d].tile ||
           lo[d] / map[d].tile == (hi[d] - 1) / map[d].tile;
  }
  /// The constant step between the global indices of consecutive local
  /// indices of the box along d: 1 where contiguous, the process count for a
  /// cyclic range, 0 where there is none (block-cyclic over several tiles).
  KOKKOS_INLINE_FUNCTION Index global_step(int d) const {
    if (contiguous(d)) return 1;
    return map[d].tile == 1 ? map[d].period : 0;
  }

  /// The box without `width` local indices at each end of every dimension:
  /// the cells a stencil reaching `width` cells each way updates from this
  /// box's cells alone (an owned box's interior needs no ghost cell, so it
  /// can be updated while the halo exchange is in flight).  Along a
  /// dimension of 2 * width indices or fewer it is empty, an empty interval
  /// inside the box, so that boundary_strips() still tile the box.
  /// The maps are this box's.  `width` >= 0.
  KOKKOS_INLINE_FUNCTION LocalBox interior(Index width) const {
    Kokkos::Array<Index, Rank> widths;
    for (int d = 0; d < Rank; ++d) widths[d] = width;
    return interior(widths);
  }
  /// interior() with a width per dimension (a stencil reaching further along
  /// some dimensions than along others); each width >= 0.
  KOKKOS_INLINE_FUNCTION LocalBox interior(const Kokkos::Array<Index, Rank>& widths) const {
    LocalBox box = *this;
    for (int d = 0; d < Rank; ++d) {
      box.lo[d] = lo[d] + widths[d] < hi[d] ? lo[d] + widths[d] : hi[d];
      box.hi[d] = hi[d] - widths[d] > box.lo[d] ? hi[d] - widths[d] : box.lo[d];
    }
    return box;
  }
  /// The 2 * Rank strips of width `width` along the sides of the box, which
  /// with interior(width) tile it: every index of the box is in exactly one
  /// of them (strips_around(interior(width))).  Some are empty, all of them
  /// when the box is; a box of 2 * width indices or fewer along some
  /// dimension has an empty interior and strips that cover all of it.
  KOKKOS_INLINE_FUNCTION Kokkos::Array<LocalBox, 2 * Rank> boundary_strips(Index width) const {
    return strips_around(interior(width));
  }
  /// boundary_strips() with a width per dimension.
  KOKKOS_INLINE_FUNCTION Kokkos::Array<LocalBox, 2 * Rank> boundary_strips(
      const Kokkos::Array<Index, Rank>& widths) const {
    return strips_around(interior(widths));
  }
  /// The 2 * Rank disjoint boxes that cover this box minus `inner` (clipped
  /// to this box first, so any box of the same local indices will do):
  /// strip 2d lies below `inner` along d and strip 2d + 1 above it.  Along
  /// the dimensions before d a strip spans `inner`'s indices, along those
  /// after d this box's, which is why no index lies in two strips.  The
  /// maps are this box's.  A deep-halo time step updates a region wider than
  /// the owned box; the strips of that region around the owned interior are
  /// what is left to update once the halo has arrived (examples/heat2d.cpp).
  KOKKOS_INLINE_FUNCTION Kokkos::Array<LocalBox, 2 * Rank> strips_around(
      const LocalBox& inner) const {
    Index inner_lo[Rank], inner_hi[Rank];
    for (int d = 0; d < Rank; ++d) {
      inner_lo[d] = inner.lo[d] < lo[d] ? lo[d] : (inner.lo[d] > hi[d] ? hi[d] : inner.lo[d]);
      inner_hi[d] =
          inner.hi[d] < inner_lo[d] ? inner_lo[d] : (inner.hi[d] > hi[d] ? hi[d] : inner.hi[d]);
    }
    Kokkos::Array<LocalBox, 2 * Rank> strips;
    for (int d = 0; d < Rank; ++d) {
      LocalBox below = *this;
      for (int e = 0; e < d; ++e) {
        below.lo[e] = inner_lo[e];
        below.hi[e] = inner_hi[e];
      }
      LocalBox above = below;
      below.hi[d] = inner_lo[d];
      above.lo[d] = inner_hi[d];
      strips[2 * d] = below;
      strips[2 * d + 1] = above;
    }
    return strips;
  }
};

/// The owned box (and, below, the ghost box) of process `rank` for an array
/// of `layout` (all empty where the rank holds no data).  DistArray's
/// owned_box() / ghost_box() call these; planning code and tests call them
/// for simulated ranks.
template <int Rank>
LocalBox<Rank> owned_box(const ArrayLayout& layout, int rank) {
  if (layout.rank() != Rank)
    throw Error("layout of rank " + std::to_string(layout.rank()) + " for a LocalBox of rank " +
                    std::to_string(Rank),
                -1, "owned_box");
  LocalBox<Rank> box;
  if (!layout.holds_data(rank)) return box;
  for (int d = 0; d < Rank; ++d) {
    const Range& r = layout.range(d);
    const int c = layout.coordinate(rank, d);
    box.lo[d] = r.ghost_low();
    box.hi[d] = r.ghost_low() + r.local_count(c);
    box.map[d] = r.local_map(c);
  }
  return box;
}

template <int Rank>
/// The whole local allocation of `rank` (ghost cells included), with the maps of
/// owned_box().
LocalBox<Rank> ghost_box(const ArrayLayout& layout, int rank) {
  LocalBox<Rank> box = owned_box<Rank>(layout, rank);
  if (!layout.holds_data(rank)) return box;
  for (int d = 0; d < Rank; ++d) {
    box.lo[d] = 0;
    box.hi[d] = layout.range(d).local_allocation(layout.coordinate(rank, d));
  }
  return box;
}

}  // namespace adlib
