// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The complex128 arrays and schedules (see arrays.hpp).
#include "arrays.hpp"
#include "bindings.hpp"

namespace adlib_python {

void bind_complex128(pybind11::module_& m) {
  bind_element_type<std::complex<double>>(m, "complex128");
}

}  // namespace adlib_python
