// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Boundary: what a halo exchange (WriteHalo) does along one dimension, at
/// the ends of the domain (Adlib's EDGE / CYCL; Shift has its own ShiftMode,
/// in shift.hpp).
///
/// @verbatim
///   edge    not periodic: ghost cells that fall outside the domain are left
///           as they are (they can hold a boundary condition)
///   cyclic  periodic: indices wrap around the extent
///   skip    this dimension is not exchanged at all: none of its ghost cells
///           is filled, inside the domain or outside
///   mirror  (PETSc's DM_BOUNDARY_MIRROR): the ghost at global index -k holds
///           the element at k, the ghost at n-1+k the element at n-1-k;
///           ghosts whose mirror image is outside the domain too are left as
///           they are
/// @endverbatim
#pragma once

namespace adlib {

/// What a halo exchange does at the ends of the domain along one dimension:
/// edge, cyclic, skip or mirror (see the file overview).
enum class Boundary { edge, cyclic, skip, mirror };

/// "edge", "cyclic", "skip" or "mirror"; "?" for a value outside the enumeration.
inline const char* boundary_name(Boundary b) {
  switch (b) {
    case Boundary::edge:
      return "edge";
    case Boundary::cyclic:
      return "cyclic";
    case Boundary::skip:
      return "skip";
    case Boundary::mirror:
      return "mirror";
  }
  return "?";
}

/// False for a value outside the enumeration (a static_cast of a wrong
/// number): the collectives reject it with an adlib::Error on every rank.
inline bool is_valid_boundary(Boundary b) {
  switch (b) {
    case Boundary::edge:
    case Boundary::cyclic:
    case Boundary::skip:
    case Boundary::mirror:
      return true;
  }
  return false;
}

}  // namespace adlib
