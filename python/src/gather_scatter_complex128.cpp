// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Gather and Scatter of complex128 (see gather_scatter.hpp).
#include "bindings.hpp"
#include "gather_scatter.hpp"

namespace adlib_python {

void bind_gather_scatter_complex128(pybind11::module_& m) {
  bind_gather_scatter<std::complex<double>>(m, "complex128");
}

}  // namespace adlib_python
