// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// ProcessGrid and Group from mpi4py communicators.
#include <mpi.h>
#include <mpi4py/mpi4py.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include <adlib/ranges/process_grid.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/error.hpp>

#include "bindings.hpp"

namespace py = pybind11;

namespace adlib_python {

namespace {

/// The MPI_Comm inside an mpi4py communicator (mpi4py's C API).
MPI_Comm to_mpi_comm(const py::object& comm) {
  MPI_Comm* handle = PyMPIComm_Get(comm.ptr());
  if (!handle) throw py::error_already_set();  // not an mpi4py.MPI.Comm: mpi4py's TypeError
  return *handle;
}

}  // namespace

void bind_grids(py::module_& m) {
  if (import_mpi4py() < 0) throw py::error_already_set();

  py::class_<adlib::ProcessGrid>(m, "ProcessGrid",
                                 "A Cartesian grid of processes over an mpi4py communicator; "
                                 "ranks fill it in C order.")
      .def(py::init([](const py::object& comm, std::vector<int> shape) {
             return adlib::ProcessGrid(to_mpi_comm(comm), std::move(shape));
           }),
           py::arg("comm"), py::arg("shape"),
           "A grid of the given shape over the first prod(shape) ranks of comm (collective).")
      .def(py::init([](const py::object& comm, std::vector<int> shape, std::vector<int> ranks) {
             return adlib::ProcessGrid(to_mpi_comm(comm), std::move(shape), std::move(ranks));
           }),
           py::arg("comm"), py::arg("shape"), py::arg("ranks"),
           "A grid whose i-th position in C order is ranks[i] (BLACS_GRIDMAP).")
      .def_static(
          "balanced",
          [](const py::object& comm, int dimensions) {
            return adlib::ProcessGrid::balanced(to_mpi_comm(comm), dimensions);
          },
          py::arg("comm"), py::arg("dimensions"),
          "Every rank of comm in `dimensions` axes, the shape chosen by MPI_Dims_create.")
      .def_property_readonly("shape", &adlib::ProcessGrid::shape, "Processes per axis.")
      .def_property_readonly("dimensions", &adlib::ProcessGrid::dimensions, "Number of axes.")
      .def_property_readonly("size", &adlib::ProcessGrid::size, "Number of grid processes.")
      .def_property_readonly("is_member", &adlib::ProcessGrid::is_member,
                             "Does the calling process belong to the grid?")
      .def_property_readonly(
          "rank", [](const adlib::ProcessGrid& g) { return g.comm().rank(); },
          "The calling process's rank in the grid's communicator.")
      .def("coordinates", &adlib::ProcessGrid::coordinates, py::arg("rank"),
           "Grid coordinates of a rank inside the grid.")
      .def("rank_of", &adlib::ProcessGrid::rank_of, py::arg("coordinates"),
           "The rank at the given coordinates.")
      .def("ranks", &adlib::ProcessGrid::ranks, "The rank at each grid position, in C order.")
      .def(
          "restrict",
          [](const adlib::ProcessGrid& g, int axis, int coordinate) {
            return adlib::Group(g).restrict(axis, coordinate);
          },
          py::arg("axis"), py::arg("coordinate"),
          "The group of the grid's processes whose coordinate along axis is coordinate.")
      .def("__repr__", &adlib::ProcessGrid::describe);

  // The agreement behind the package's own argument checks
  // (adlib/__init__.py, _agreed): every rank passes its verdict, and gets
  // back the lowest failing rank's message, or "" when every rank is fine.
  m.def(
      "_agree",
      [](const py::object& grid, const std::string& error,
         const std::string& operation) -> std::string {
        const adlib::Comm comm = grid.is_none() ? adlib::Comm(MPI_COMM_WORLD)
                                                : grid.cast<const adlib::ProcessGrid&>().comm();
        try {
          // The operation (the Python call) is agreed too (detail::agree mixes its
          // name into the fingerprint): ranks in different calls are told so
          // instead of passing each other's checks.
          adlib::agree_on_errors(comm, error, 0, operation.c_str());
        } catch (const adlib::Error& e) {
          return e.message();
        }
        return {};
      },
      py::arg("grid"), py::arg("error"), py::arg("operation"),
      "Collective over grid's communicator (MPI_COMM_WORLD for None): the lowest failing "
      "rank's error, or '' when no rank passed one; ranks in another `operation` make every "
      "rank's answer the disagreement.");

  py::class_<adlib::Group>(m, "Group",
                           "Processes of a grid with some axes fixed to one coordinate.")
      .def(py::init<const adlib::ProcessGrid&>(), py::arg("grid"))
      .def("restrict", &adlib::Group::restrict, py::arg("axis"), py::arg("coordinate"),
           "The same group with axis fixed to coordinate.")
      .def_property_readonly("grid", &adlib::Group::grid, "The grid the group is part of.")
      .def_property_readonly("size", &adlib::Group::size, "Processes in the group.")
      .def("ranks", &adlib::Group::ranks, "Ranks of the members in C order of coordinates.")
      .def("contains", &adlib::Group::contains, py::arg("rank"), "Is rank a member?")
      .def("__repr__", &adlib::Group::describe);
  py::implicitly_convertible<adlib::ProcessGrid, adlib::Group>();
}

}  // namespace adlib_python
