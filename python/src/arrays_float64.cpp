// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The float64 arrays and schedules (see arrays.hpp).
#include "arrays.hpp"
#include "bindings.hpp"

namespace adlib_python {

void bind_float64(pybind11::module_& m) {
  bind_element_type<double>(m, "float64");
}

}  // namespace adlib_python
