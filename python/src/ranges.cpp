// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Range specs: adlib.block(n).ghosts(1).periodic(), adlib.cyclic(n), ...
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <vector>

#include <adlib/ranges/range_spec.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace adlib_python {

void bind_ranges(py::module_& m) {
  using adlib::Index;
  using adlib::RangeSpec;
  py::class_<RangeSpec>(m, "RangeSpec",
                        "A distribution of one array dimension, bound to a grid axis when "
                        "the array is made; the modifiers return a changed copy.")
      .def("ghosts", py::overload_cast<Index>(&RangeSpec::ghosts, py::const_), py::arg("width"),
           "Ghost cells: width on both sides.")
      .def("ghosts", py::overload_cast<Index, Index>(&RangeSpec::ghosts, py::const_),
           py::arg("low"), py::arg("high"), "Ghost cells: low below, high above.")
      .def("periodic", &RangeSpec::periodic, py::arg("on") = true,
           "The ghosts of the first and last blocks wrap around.")
      .def("axis", &RangeSpec::axis, py::arg("grid_axis"),
           "Binds to this grid axis instead of the next free one.")
      .def_property_readonly("distributed", &RangeSpec::distributed,
                             "Does the spec take a grid axis?");
  m.def("block", &adlib::block, py::arg("extent"),
        "Regular blocks: coordinate c of P owns [c*N/P, (c+1)*N/P).");
  m.def("irregular_block", &adlib::irregular_block, py::arg("sizes"),
        "Explicit block sizes, one per coordinate, zeros allowed.");
  m.def("cyclic", &adlib::cyclic, py::arg("extent"), py::arg("source") = 0,
        "Element g on coordinate (g + source) mod P.");
  m.def("block_cyclic", &adlib::block_cyclic, py::arg("extent"), py::arg("block_size"),
        py::arg("source") = 0, "Tiles of block_size elements dealt round-robin.");
  m.def("collapsed", &adlib::collapsed, py::arg("extent"),
        "Not distributed: every process holds all elements.");
}

}  // namespace adlib_python
