// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// adlib.d2o's librarian, compiled (d2o_librarian.cpp).
#pragma once

#include <Python.h>

#include <pybind11/pybind11.h>

namespace adlib_python {

/// Files `object` under the librarian's next index and returns the index
/// (a new reference; nullptr with an exception set on failure).
PyObject* register_object(PyObject* object);

/// _d2o_register, _d2o_library and _d2o_registered (what
/// python/adlib/_d2o_librarian.py reads).
void bind_d2o_librarian(pybind11::module_& m);

}  // namespace adlib_python
