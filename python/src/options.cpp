// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// What the per-type classes share: their base class and the schedule options.
#include "arrays.hpp"
#include "bindings.hpp"

#include <adlib/runtime/combine.hpp>

namespace adlib_python {

void bind_options(py::module_& m) {
  py::class_<ArrayBase>(m, "DistArrayBase",
                        "Base class of every distributed array class (make arrays with "
                        "adlib.DistArray).")
      .def_property_readonly("ndim", &ArrayBase::ndim, "Number of dimensions.");
  py::enum_<adlib::Boundary>(m, "Boundary", "What WriteHalo does at the edge of the domain.")
      .value("edge", adlib::Boundary::edge, "ghosts outside the domain are left alone")
      .value("cyclic", adlib::Boundary::cyclic, "periodic (the range must be periodic)")
      .value("skip", adlib::Boundary::skip, "this dimension's ghosts are not filled")
      .value("mirror", adlib::Boundary::mirror, "-k copies k, n-1+k copies n-1-k");
  py::enum_<adlib::Stencil>(m, "Stencil", "Which ghost cells WriteHalo fills.")
      .value("box", adlib::Stencil::box, "corners included")
      .value("faces", adlib::Stencil::faces, "ghosts along one dimension only");
  py::enum_<adlib::ShiftMode>(m, "ShiftMode", "What Shift puts where data leaves the extent.")
      .value("cyclic", adlib::ShiftMode::cyclic, "wraps around (CSHIFT)")
      .value("end_off", adlib::ShiftMode::end_off, "the fill value (EOSHIFT)")
      .value("keep", adlib::ShiftMode::keep, "the destination keeps its values");
  // The built-in operations of runtime/combine.hpp that a Scatter takes.
  py::enum_<adlib::op::Kind>(m, "Combine",
                             "How Scatter combines an arriving value into its target.")
      .value("replace", adlib::op::Kind::replace, "target = value")
      .value("add", adlib::op::Kind::add, "target += value")
      .value("min", adlib::op::Kind::min, "target = min(target, value) (not complex)")
      .value("max", adlib::op::Kind::max, "target = max(target, value) (not complex)")
      .value("product", adlib::op::Kind::product, "target *= value");
}

}  // namespace adlib_python
