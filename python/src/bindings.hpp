// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The pieces of the _adlib extension module, each defined in its own
/// translation unit (one per element type for the array templates, so they
/// compile in parallel).
#pragma once

#include <pybind11/pybind11.h>

namespace adlib_python {

/// ProcessGrid, Group and the mpi4py communicator conversion.
void bind_grids(pybind11::module_& m);
/// RangeSpec and its factories (block, cyclic, ...).
void bind_ranges(pybind11::module_& m);
/// DistArrayBase and the enumerations of the schedules' options (Combine included).
void bind_options(pybind11::module_& m);
/// DistArray, Remap, WriteHalo, Shift and ArrayReduction for each element type.
void bind_float64(pybind11::module_& m);
/// See bind_float64.
void bind_float32(pybind11::module_& m);
/// See bind_float64.
void bind_int64(pybind11::module_& m);
/// See bind_float64.
void bind_complex128(pybind11::module_& m);
/// The bool arrays (masks, results of any / all): the array classes only.
void bind_bool(pybind11::module_& m);
/// Gather, Scatter, ArrayGather and ArrayScatter for each element type.
void bind_gather_scatter_float64(pybind11::module_& m);
/// See bind_gather_scatter_float64.
void bind_gather_scatter_float32(pybind11::module_& m);
/// See bind_gather_scatter_float64.
void bind_gather_scatter_int64(pybind11::module_& m);
/// See bind_gather_scatter_float64.
void bind_gather_scatter_complex128(pybind11::module_& m);
/// DimensionReduction and Broadcast for each element type.
void bind_dimensions_and_broadcast_float64(pybind11::module_& m);
/// See bind_dimensions_and_broadcast_float64.
void bind_dimensions_and_broadcast_float32(pybind11::module_& m);
/// See bind_dimensions_and_broadcast_float64.
void bind_dimensions_and_broadcast_int64(pybind11::module_& m);
/// See bind_dimensions_and_broadcast_float64.
void bind_dimensions_and_broadcast_complex128(pybind11::module_& m);
/// DistArray.__distarray__ on every array class (bound above first) and
/// _from_distarray: the Distributed Array Protocol.
void bind_dap(pybind11::module_& m);
/// D2OCore, the compiled base of adlib.d2o's distributed_data_object,
/// _d2o_configure (d2o_core.cpp) and the librarian's functions
/// (d2o_librarian.cpp).
void bind_d2o_core(pybind11::module_& m);

}  // namespace adlib_python
