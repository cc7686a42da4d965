// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Gather and Scatter of float64 (see gather_scatter.hpp).
#include "bindings.hpp"
#include "gather_scatter.hpp"

namespace adlib_python {

void bind_gather_scatter_float64(pybind11::module_& m) {
  bind_gather_scatter<double>(m, "float64");
}

}  // namespace adlib_python
