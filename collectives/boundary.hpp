// SPDX-License-Identifier: BSD-3-Clause
// Boundary: what happens at the ends of a dimension, for halos and shifts
// (Adlib's EDGE / CYCL / NONE; ShiftMode is the same type).
//
//   edge    not periodic: ghost cells outside the domain, or destination
//           elements that nothing shifts into, are left as they are
//   cyclic  periodic: indices wrap around the extent
//   none    WriteHalo: this dimension's ghost cells are not filled;
//           Shift: destination elements that nothing shifts into are set
//           to T{} (Fortran EOSHIFT's default boundary)
#pragma once

namespace adlib {

enum class Boundary { edge, cyclic, none };

inline const char* boundary_name(Boundary b) {
  switch (b) {
    case Boundary::edge:
      return "edge";
    case Boundary::cyclic:
      return "cyclic";
    case Boundary::none:
      return "none";
  }
  return "?";
}

// False for a value outside the enumeration (a static_cast of a wrong
// number): the collectives reject it with an adlib::Error on every rank.
inline bool is_valid_boundary(Boundary b) {
  switch (b) {
    case Boundary::edge:
    case Boundary::cyclic:
    case Boundary::none:
      return true;
  }
  return false;
}

}  // namespace adlib
