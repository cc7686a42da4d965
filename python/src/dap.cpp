// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The Distributed Array Protocol in Python: DistArray.__distarray__() and
/// adlib.from_distarray.  Both go through the C++ model (ranges/dap_*.hpp),
/// so the mapping between Ranges and dimension dictionaries and the
/// protocol's rules live in one place; this file only converts between
/// Python dicts / PEP-3118 buffers and adlib::dap::Descriptor.
#include <mpi.h>
#include <mpi4py/mpi4py.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include <adlib/ranges/dap_export.hpp>
#include <adlib/ranges/dap_import.hpp>

#include "arrays.hpp"
#include "bindings.hpp"

namespace adlib_python {

namespace {

/// The element types of the module, in the order of their dispatch code.
enum class Element { float64, float32, int64, complex128, unsupported };

/// The dimension dictionary `d` as the spec's Python dict ({} for the empty
/// alias; 'u' indices as a numpy int64 array).
py::dict to_python(const adlib::dap::DimensionData& d) {
  py::dict out;
  if (d.empty) return out;
  out["dist_type"] = std::string(1, d.dist_type);
  out["size"] = d.size;
  out["proc_grid_size"] = d.proc_grid_size;
  out["proc_grid_rank"] = d.proc_grid_rank;
  if (d.dist_type == 'b') {
    out["start"] = d.start;
    out["stop"] = d.stop;
    if (d.padding) out["padding"] = py::make_tuple((*d.padding)[0], (*d.padding)[1]);
    if (d.periodic) out["periodic"] = *d.periodic;
  } else if (d.dist_type == 'c') {
    out["start"] = d.start;
    if (d.block_size) out["block_size"] = *d.block_size;
  } else {
    py::array_t<std::int64_t> indices(static_cast<py::ssize_t>(d.indices.size()));
    std::copy(d.indices.begin(), d.indices.end(), indices.mutable_data());
    out["indices"] = indices;
    if (d.one_to_one) out["one_to_one"] = *d.one_to_one;
  }
  return out;
}

/// DistArray.__distarray__ for DistArray<T, Rank>: the descriptor that
/// dap::describe makes, its buffer as a numpy array over the whole local
/// allocation (padding included, no copy) whose base is `self`.
template <class T, int Rank>
py::dict distarray_interface(const py::object& self) {
  const auto& array = self.cast<const ArrayHolder<T, Rank>&>().get();
  const adlib::dap::Descriptor d = adlib::dap::describe(array);  // adlib::Error if refused
  std::vector<py::ssize_t> shape(d.buffer.shape.begin(), d.buffer.shape.end());
  std::vector<py::ssize_t> strides(d.buffer.strides.begin(), d.buffer.strides.end());
  // An empty block may have no memory at all; numpy then gets a dummy
  // address it never reads (a null pointer would make it allocate).
  static T nothing{};
  std::int64_t elements = 1;
  for (auto n : d.buffer.shape) elements *= n;
  T* data = d.buffer.data && elements > 0 ? static_cast<T*>(d.buffer.data) : &nothing;
  py::dict out;
  out["__version__"] = d.version;
  out["buffer"] = py::array(py::dtype::of<T>(), shape, strides, data, self);
  py::tuple dims(d.dim_data.size());
  for (std::size_t i = 0; i < d.dim_data.size(); ++i) dims[i] = to_python(d.dim_data[i]);
  out["dim_data"] = dims;
  return out;
}

/// DistArray_<name>_<Rank>d.__distarray__ (the class is bound already).
template <class T, int Rank>
void add_distarray_method(py::module_& m, const char* name) {
  py::object cls =
      m.attr(("DistArray_" + std::string(name) + "_" + std::to_string(Rank) + "d").c_str());
  cls.attr("__distarray__") = py::cpp_function(
      &distarray_interface<T, Rank>, py::name("__distarray__"), py::is_method(cls),
      "The Distributed Array Protocol's dict of this process: '__version__', 'buffer' (a numpy "
      "array over the whole local allocation, ghost cells included, no copy) and 'dim_data' "
      "(one dict per dimension).  adlib.Error for what the DAP cannot describe (sections, "
      "arrays over part of the communicator, ...).");
}

/// __distarray__ on the arrays of element type T, of every rank.
template <class T>
void add_distarray_methods(py::module_& m, const char* name) {
  add_distarray_method<T, 1>(m, name);
  add_distarray_method<T, 2>(m, name);
  add_distarray_method<T, 3>(m, name);
}

/// A Python dict / buffer that does not convert: the message becomes the
/// agreed error (every rank raises it).
struct Malformed {
  std::string message;
};

/// operator.index(value): Python and numpy integers, nothing else.
std::int64_t to_integer(const py::object& value, const std::string& key) {
  PyObject* index = PyNumber_Index(value.ptr());
  if (!index) {
    PyErr_Clear();
    throw Malformed{key + " is not an integer"};
  }
  const long long v = PyLong_AsLongLong(index);
  Py_DECREF(index);
  if (v == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    throw Malformed{key + " does not fit in 64 bits"};
  }
  return v;
}

/// A Python or numpy bool (a string or a number is not taken as a truth value).
bool to_bool(const py::object& value, const std::string& key) {
  const bool is_bool = PyBool_Check(value.ptr()) ||
                       py::isinstance(value, py::module_::import("numpy").attr("bool_"));
  if (!is_bool) throw Malformed{key + " is not a boolean"};
  return PyObject_IsTrue(value.ptr()) != 0;
}

/// One dimension dictionary; the keys a dist_type requires must be there,
/// optional ones keep their absence.  Values are checked by the C++ rules.
adlib::dap::DimensionData dimension_from_python(const py::handle& item, std::size_t dim) {
  const std::string where = "dim_data[" + std::to_string(dim) + "]: ";
  if (!py::isinstance<py::dict>(item)) throw Malformed{where + "not a dict"};
  const auto dict = py::reinterpret_borrow<py::dict>(item);
  if (dict.size() == 0) return adlib::dap::DimensionData::undistributed();
  auto required = [&](const char* key) -> py::object {
    if (!dict.contains(key)) throw Malformed{where + "the key '" + key + "' is missing"};
    return dict[key];
  };
  adlib::dap::DimensionData d;
  const py::object type = required("dist_type");
  if (!py::isinstance<py::str>(type) || type.cast<std::string>().size() != 1)
    throw Malformed{where + "'dist_type' is not a one-letter string"};
  d.dist_type = type.cast<std::string>()[0];
  d.size = to_integer(required("size"), where + "'size'");
  d.proc_grid_size = to_integer(required("proc_grid_size"), where + "'proc_grid_size'");
  d.proc_grid_rank = to_integer(required("proc_grid_rank"), where + "'proc_grid_rank'");
  if (d.dist_type == 'b') {
    d.start = to_integer(required("start"), where + "'start'");
    d.stop = to_integer(required("stop"), where + "'stop'");
    if (dict.contains("padding")) {
      const py::object padding = dict["padding"];
      if (!py::isinstance<py::sequence>(padding) || py::len(padding) != 2)
        throw Malformed{where + "'padding' is not a pair of integers"};
      const auto pair = py::reinterpret_borrow<py::sequence>(padding);
      d.padding = std::array<std::int64_t, 2>{to_integer(pair[0], where + "'padding'"),
                                              to_integer(pair[1], where + "'padding'")};
    }
    if (dict.contains("periodic")) d.periodic = to_bool(dict["periodic"], where + "'periodic'");
  } else if (d.dist_type == 'c') {
    d.start = to_integer(required("start"), where + "'start'");
    if (dict.contains("block_size"))
      d.block_size = to_integer(dict["block_size"], where + "'block_size'");
  } else if (d.dist_type == 'u') {
    const py::array indices = py::module_::import("numpy").attr("asarray")(required("indices"));
    if (indices.ndim() != 1) throw Malformed{where + "'indices' is not a one-dimensional sequence"};
    const char kind = indices.dtype().kind();
    if (indices.size() > 0 && kind != 'i' && kind != 'u')
      throw Malformed{where + "'indices' are not integers"};
    const auto as_int64 = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>(
        indices.attr("astype")("int64"));
    d.indices.assign(as_int64.data(), as_int64.data() + as_int64.size());
    if (dict.contains("one_to_one"))
      d.one_to_one = to_bool(dict["one_to_one"], where + "'one_to_one'");
  }
  // Any other letter: the C++ rules name it.
  return d;
}

/// What this process read from its producer: the descriptor, the Python
/// objects that own its memory, and which class of the module it becomes.
struct Converted {
  adlib::dap::Descriptor descriptor;
  py::object keep;  ///< (buffer object, memoryview): the memory stays exported
  Element element = Element::unsupported;
};

/// The module's element type that a buffer holds (format and itemsize, as
/// import_array will check them).
Element element_of(const adlib::dap::Buffer& b) {
  using adlib::dap::ElementFormat;
  using adlib::dap::format_matches;
  auto is = [&](auto tag) {
    using T = decltype(tag);
    return format_matches(b.format, b.itemsize, ElementFormat<T>::format(),
                          ElementFormat<T>::itemsize());
  };
  if (is(double{})) return Element::float64;
  if (is(float{})) return Element::float32;
  if (is(std::int64_t{})) return Element::int64;
  if (is(std::complex<double>{})) return Element::complex128;
  return Element::unsupported;
}

/// The DAP dict of `producer` (itself, or what its __distarray__() returns)
/// as a Descriptor over the memory of its buffer (PEP-3118, no copy).
Converted convert(const py::object& producer) {
  Converted c;
  py::object dap = producer;
  if (!py::isinstance<py::dict>(producer)) {
    if (!py::hasattr(producer, "__distarray__"))
      throw Malformed{std::string("an object of type ") + Py_TYPE(producer.ptr())->tp_name +
                      " has no __distarray__() and is not a DAP dict"};
    dap = producer.attr("__distarray__")();
    if (!py::isinstance<py::dict>(dap)) throw Malformed{"__distarray__() did not return a dict"};
  }
  const auto dict = py::reinterpret_borrow<py::dict>(dap);
  for (const char* key : {"__version__", "buffer", "dim_data"})
    if (!dict.contains(key)) throw Malformed{std::string("the key '") + key + "' is missing"};
  if (!py::isinstance<py::str>(dict["__version__"]))
    throw Malformed{"'__version__' is not a string"};
  c.descriptor.version = dict["__version__"].cast<std::string>();

  // The memoryview holds the buffer export for as long as the array lives,
  // so the producer cannot resize or free the memory under it.
  const py::object buffer = dict["buffer"];
  PyObject* view_object = PyMemoryView_FromObject(buffer.ptr());
  if (!view_object) {
    PyErr_Clear();
    throw Malformed{std::string("'buffer' (a ") + Py_TYPE(buffer.ptr())->tp_name +
                    ") does not support the buffer protocol"};
  }
  const auto view = py::reinterpret_steal<py::object>(view_object);
  const Py_buffer* info = PyMemoryView_GET_BUFFER(view_object);
  if (info->readonly) throw Malformed{"'buffer' is read-only"};
  adlib::dap::Buffer& b = c.descriptor.buffer;
  b.data = info->buf;
  b.format = info->format ? info->format : "B";
  b.itemsize = info->itemsize;
  for (int d = 0; d < info->ndim; ++d) {
    b.shape.push_back(info->shape[d]);
    b.strides.push_back(info->strides ? info->strides[d] : 0);
  }
  if (!info->strides)  // C-contiguous without strides given: pack them
    for (int d = info->ndim - 1; d >= 0; --d)
      b.strides[d] = d == info->ndim - 1 ? info->itemsize : b.strides[d + 1] * b.shape[d + 1];
  c.keep = py::make_tuple(buffer, view);

  const py::object dims = dict["dim_data"];
  if (!py::isinstance<py::sequence>(dims) || py::isinstance<py::str>(dims))
    throw Malformed{"'dim_data' is not a sequence of dicts"};
  const auto sequence = py::reinterpret_borrow<py::sequence>(dims);
  for (std::size_t d = 0; d < sequence.size(); ++d)
    c.descriptor.dim_data.push_back(dimension_from_python(sequence[d], d));

  c.element = element_of(b);
  if (c.element == Element::unsupported)
    throw Malformed{"the buffer's format '" + b.format + "' (itemsize " +
                    std::to_string(b.itemsize) +
                    ") is none of the module's element types (float64, float32, int64, "
                    "complex128)"};
  if (info->ndim < 1 || info->ndim > 3)
    throw Malformed{"the Python module imports buffers of 1 to 3 dimensions, not " +
                    std::to_string(info->ndim)};
  return c;
}

/// The collective import as DistArray<T, Rank>, owned by a Python object
/// that keeps the buffer exported.
template <class T, int Rank>
py::object import_as(const Converted& c, const adlib::Comm& comm) {
  auto array = [&] {
    py::gil_scoped_release unlocked;  // collective: other threads may run meanwhile
    return adlib::dap::import_array<T, Rank, Space>(c.descriptor, comm);
  }();
  return py::cast(new ArrayHolder<T, Rank>(std::move(array), c.keep),
                  py::return_value_policy::take_ownership);
}

/// import_as for the buffer's number of dimensions (1 to 3, agreed).
template <class T>
py::object import_rank(const Converted& c, const adlib::Comm& comm, int rank) {
  switch (rank) {
    case 1:
      return import_as<T, 1>(c, comm);
    case 2:
      return import_as<T, 2>(c, comm);
    default:
      return import_as<T, 3>(c, comm);
  }
}

/// adlib.from_distarray's compiled part (collective over `comm_object`).
py::object from_distarray(const py::object& producer, const py::object& comm_object) {
  MPI_Comm* handle = PyMPIComm_Get(comm_object.ptr());
  if (!handle) throw py::error_already_set();  // not an mpi4py.MPI.Comm: mpi4py's TypeError
  const adlib::Comm comm(*handle);
  const char* operation = "adlib.from_distarray";
  Converted c;
  std::string error;
  // No rank may leave before the agreement, whatever its dict holds: every
  // conversion error, Python's included, becomes this rank's verdict.
  try {
    c = convert(producer);
  } catch (const Malformed& e) {
    error = e.message;
  } catch (py::error_already_set& e) {
    error = std::string("reading the DAP dict raised ") + e.what();
  } catch (const std::exception& e) {  // a pybind11 cast, memory
    error = std::string("reading the DAP dict failed: ") + e.what();
  }
  adlib::agree_on_errors(comm, error, 0, operation);
  // Every rank converted: the class (element type, rank) must be the same
  // everywhere before the collective import of that class runs.
  const int rank = static_cast<int>(c.descriptor.buffer.shape.size());
  long long key[2] = {static_cast<long long>(c.element) * 4 + rank, 0};
  key[1] = -key[0];
  MPI_Allreduce(MPI_IN_PLACE, key, 2, MPI_LONG_LONG, MPI_MAX, comm.get());
  if (key[0] != -key[1])
    throw adlib::Error(
        "the buffers of the processes differ in element type or number of dimensions", -1,
        operation);
  switch (c.element) {
    case Element::float64:
      return import_rank<double>(c, comm, rank);
    case Element::float32:
      return import_rank<float>(c, comm, rank);
    case Element::int64:
      return import_rank<std::int64_t>(c, comm, rank);
    default:
      return import_rank<std::complex<double>>(c, comm, rank);
  }
}

}  // namespace

void bind_dap(py::module_& m) {
  if (import_mpi4py() < 0) throw py::error_already_set();
  add_distarray_methods<double>(m, "float64");
  add_distarray_methods<float>(m, "float32");
  add_distarray_methods<std::int64_t>(m, "int64");
  add_distarray_methods<std::complex<double>>(m, "complex128");
  m.def("_from_distarray", &from_distarray, py::arg("producer"), py::arg("comm"),
        "A DistArray over the memory of a DAP producer's buffer (no copy), collective over comm; "
        "see adlib.from_distarray.");
}

}  // namespace adlib_python
