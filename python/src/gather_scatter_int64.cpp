// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Gather and Scatter of int64 (see gather_scatter.hpp).
#include "bindings.hpp"
#include "gather_scatter.hpp"

namespace adlib_python {

void bind_gather_scatter_int64(pybind11::module_& m) {
  bind_gather_scatter<std::int64_t>(m, "int64");
}

}  // namespace adlib_python
