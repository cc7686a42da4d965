// Boundary: what happens at the ends of a dimension, for halos and shifts.
//
//   edge    not periodic: ghost cells outside the domain (or destination
//           elements that nothing shifts into) are left as they are
//   cyclic  periodic: indices wrap around the extent
//   none    nothing is exchanged across this dimension's boundaries
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

}  // namespace adlib
