// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// DimensionReduction and Broadcast of complex128 (see dimensions_and_broadcast.hpp).
#include "bindings.hpp"
#include "dimensions_and_broadcast.hpp"

namespace adlib_python {

void bind_dimensions_and_broadcast_complex128(pybind11::module_& m) {
  bind_dimensions_and_broadcast<std::complex<double>>(m, "complex128");
}

}  // namespace adlib_python
