// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// plan_write_halo: the message list of one rank for a WriteHalo, from the
/// layout alone (no MPI), so it can be computed for simulated process counts.
///
/// Along each dimension with a halo, a process's local allocation holds three
/// regions: the low ghost cells (unwrapped global indices start-w_low ..
/// start-1), the owned interval, and the high ghost cells (end ..
/// end+w_high-1).  The boundary maps each unwrapped index to the element it
/// copies, piecewise linearly: cyclic wraps around the extent (as often as
/// the widths need), mirror reflects (-k copies k, n-1+k copies n-1-k), and
/// edge copies nothing outside the domain.  For an owner o and a holder h the
/// pieces along a dimension are the holder's regions intersected with the
/// preimages of the owner's interval, sorted by (region, position in the
/// holder): both ends compute the same list.  A block of a message is a
/// product of one piece per dimension in which at least one piece is a ghost
/// region (exactly one with Stencil::faces); owned x owned is the holder's own
/// data and never moves.  Only Range inquiries are used (contiguous(),
/// owned_interval(), ghost widths), so any contiguous Range works; holders
/// are found by binary search on the owned intervals, so a rank's plan costs
/// O(neighbours * log P).
#pragma once

#include <string>
#include <vector>

#include <adlib/collectives/boundary.hpp>
#include <adlib/ranges/array_layout.hpp>
#include <adlib/schedules/exchange_plan.hpp>

namespace adlib {

/// Which ghost cells a halo exchange fills, by how many dimensions they are a
/// ghost along:
/// @verbatim
///   box    every ghost cell within the widths, corners (and edges in 3-D)
///          included: what a 9-point (box) stencil reads
///   faces  only the cells that are a ghost along exactly one dimension: what
///          a 5-point (star) stencil reads, with fewer neighbours to talk to
/// @endverbatim
enum class Stencil { box, faces };

/// "box" or "faces"; "?" for a value outside the enumeration.
inline const char* stencil_name(Stencil s) {
  switch (s) {
    case Stencil::box:
      return "box";
    case Stencil::faces:
      return "faces";
  }
  return "?";
}

/// Which ghost cells a halo exchange fills: widths and boundary per dimension
/// (each width at most the range's ghost width) and the stencil.
struct HaloWidths {
  std::vector<Index> low;          ///< ghost cells filled below, per dimension
  std::vector<Index> high;         ///< ghost cells filled above, per dimension
  std::vector<Boundary> modes;     ///< the boundary per dimension
  Stencil stencil = Stencil::box;  ///< corners included (box) or not (faces)
};

/// The ghost widths and boundaries of the ranges themselves: every ghost cell,
/// cyclic where the range is periodic, edge elsewhere, box stencil.
HaloWidths full_halo(const ArrayLayout& layout);

/// Empty when the halo is valid for the layout, else the reason.
std::string check_halo(const ArrayLayout& layout, const HaloWidths& halo);

/// The blocks rank `me` sends (of its owned cells) and receives (into its
/// ghost cells); sends and receives address the same local memory.
ExchangePlan plan_write_halo(const ArrayLayout& layout, const HaloWidths& halo, int me);

}  // namespace adlib
