// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// DimensionReduction and Broadcast of float32 (see dimensions_and_broadcast.hpp).
#include "bindings.hpp"
#include "dimensions_and_broadcast.hpp"

namespace adlib_python {

void bind_dimensions_and_broadcast_float32(pybind11::module_& m) {
  bind_dimensions_and_broadcast<float>(m, "float32");
}

}  // namespace adlib_python
