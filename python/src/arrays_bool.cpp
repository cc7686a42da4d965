// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The bool arrays: masks of ArrayGather, ArrayScatter and the dimension
/// reductions, and the results of any / all along a dimension.  They have
/// the array class only (no schedules of their own).
#include "arrays.hpp"
#include "bindings.hpp"

namespace adlib_python {

void bind_bool(pybind11::module_& m) {
  bind_array_class<bool, 1>(m, "bool");
  bind_array_class<bool, 2>(m, "bool");
  bind_array_class<bool, 3>(m, "bool");
}

}  // namespace adlib_python
