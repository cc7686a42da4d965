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
//   mirror  WriteHalo only (PETSc's DM_BOUNDARY_MIRROR): the ghost at global
//           index -k holds the element at k, the ghost at n-1+k the element
//           at n-1-k; ghosts whose mirror image is outside the domain too
//           are left as they are
#pragma once

namespace adlib {

enum class Boundary { edge, cyclic, none, mirror };

inline const char* boundary_name(Boundary b) {
  switch (b) {
    case Boundary::edge:
      return "edge";
    case Boundary::cyclic:
      return "cyclic";
    case Boundary::none:
      return "none";
    case Boundary::mirror:
      return "mirror";
  }
  return "?";
}

}  // namespace adlib
