// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The _adlib extension module: errors, the Kokkos lifetime, and the parts
/// defined in the other translation units.
#include <pybind11/pybind11.h>

#include <memory>

#include <adlib/runtime/environment.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/version.hpp>

#include "bindings.hpp"
#include "lifetime.hpp"

namespace py = pybind11;

namespace {

/// MPI is initialised by mpi4py (imported by the adlib package first); the
/// Environment adopts it and initialises Kokkos if nobody did.
std::unique_ptr<adlib::Environment>& environment() {
  static std::unique_ptr<adlib::Environment> env;
  return env;
}

/// At exit: the Views of live objects first, then Kokkos (see lifetime.hpp).
/// MPI is left to mpi4py, which finalises it after the interpreter's atexit
/// handlers.
void finalize() {
  adlib_python::Releasable::release_all();
  environment().reset();
}

}  // namespace

PYBIND11_MODULE(_adlib, m) {
  m.doc() = "adlib: distributed arrays and communication schedules (compiled part)";
  // adlib::Error -> adlib.Error (a RuntimeError) with adlib's message.
  py::register_exception<adlib::Error>(m, "Error", PyExc_RuntimeError);

  int argc = 0;
  char* no_arguments[] = {nullptr};
  char** argv = no_arguments;
  environment() = std::make_unique<adlib::Environment>(argc, argv);
  m.def("_finalize", &finalize, "Releases live arrays and schedules, then finalises Kokkos.");
  py::module_::import("atexit").attr("register")(m.attr("_finalize"));

  m.attr("__version__") = ADLIB_VERSION_STRING;

  adlib_python::bind_grids(m);
  adlib_python::bind_ranges(m);
  adlib_python::bind_options(m);
  adlib_python::bind_float64(m);
  adlib_python::bind_float32(m);
  adlib_python::bind_int64(m);
  adlib_python::bind_complex128(m);
  adlib_python::bind_bool(m);
  adlib_python::bind_gather_scatter_float64(m);
  adlib_python::bind_gather_scatter_float32(m);
  adlib_python::bind_gather_scatter_int64(m);
  adlib_python::bind_gather_scatter_complex128(m);
  adlib_python::bind_dimensions_and_broadcast_float64(m);
  adlib_python::bind_dimensions_and_broadcast_float32(m);
  adlib_python::bind_dimensions_and_broadcast_int64(m);
  adlib_python::bind_dimensions_and_broadcast_complex128(m);
  adlib_python::bind_dap(m);
  adlib_python::bind_d2o_core(m);
}
