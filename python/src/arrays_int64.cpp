// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The int64 arrays and schedules (see arrays.hpp).
#include "arrays.hpp"
#include "bindings.hpp"

namespace adlib_python {

void bind_int64(pybind11::module_& m) {
  bind_element_type<std::int64_t>(m, "int64");
}

}  // namespace adlib_python
