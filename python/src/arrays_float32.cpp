// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The float32 arrays and schedules (see arrays.hpp).
#include "arrays.hpp"
#include "bindings.hpp"

namespace adlib_python {

void bind_float32(pybind11::module_& m) {
  bind_element_type<float>(m, "float32");
}

}  // namespace adlib_python
