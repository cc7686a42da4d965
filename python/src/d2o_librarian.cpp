// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The state of adlib.d2o's librarian (python/adlib/_d2o_librarian.py is
/// its interface): every distributed_data_object made gets the next index,
/// and a weak reference to it is filed under that index.  Compiled because
/// every creation pays for it (0.3 us in Python, a tenth of `a + 0` at 2^14
/// elements), and the compiled operators (d2o_core.cpp) register what they
/// make.
#include "d2o_librarian.hpp"

#include <algorithm>

namespace adlib_python {
namespace {

/// Entries of objects that are gone are swept out in place once the dict
/// has doubled since the last sweep: memory proportional to the living
/// objects at a constant cost per registration.
struct Library {
  /// The smallest size at which the dict is swept.
  static constexpr Py_ssize_t kFirstSweep = 1024;
  PyObject* objects = nullptr;  // dict: index -> weakref.ref
  long long count = 0;
  Py_ssize_t sweep_at = kFirstSweep;
};
Library library;

/// Drops the entries of objects that are gone.
int sweep_library() {
  PyObject* gone = PyList_New(0);
  if (gone == nullptr) return -1;
  Py_ssize_t position = 0;
  PyObject* index = nullptr;
  PyObject* reference = nullptr;
  while (PyDict_Next(library.objects, &position, &index, &reference))
    if (PyWeakref_GetObject(reference) == Py_None && PyList_Append(gone, index) < 0) {
      Py_DECREF(gone);
      return -1;
    }
  for (Py_ssize_t k = 0; k < PyList_GET_SIZE(gone); ++k)
    if (PyDict_DelItem(library.objects, PyList_GET_ITEM(gone, k)) < 0) {
      Py_DECREF(gone);
      return -1;
    }
  Py_DECREF(gone);
  library.sweep_at = std::max(Library::kFirstSweep, 2 * PyDict_GET_SIZE(library.objects));
  return 0;
}

}  // namespace

PyObject* register_object(PyObject* object) {
  PyObject* reference = PyWeakref_NewRef(object, nullptr);
  if (reference == nullptr) return nullptr;
  PyObject* index = PyLong_FromLongLong(library.count + 1);
  if (index == nullptr || PyDict_SetItem(library.objects, index, reference) < 0) {
    Py_XDECREF(index);
    Py_DECREF(reference);
    return nullptr;
  }
  Py_DECREF(reference);
  ++library.count;
  if (PyDict_GET_SIZE(library.objects) >= library.sweep_at && sweep_library() < 0) {
    Py_DECREF(index);
    return nullptr;
  }
  return index;
}

namespace {

/// _d2o_register(object): a raw function, as every Python-made object calls
/// it (pybind11's dispatch would cost as much as the registration).
PyObject* register_function(PyObject*, PyObject* object) {
  return register_object(object);
}

PyMethodDef librarian_functions[] = {
    {"_d2o_register", register_function, METH_O,
     "The librarian: files `object` under the next index, returned."},
    {nullptr, nullptr, 0, nullptr}};

}  // namespace

void bind_d2o_librarian(pybind11::module_& m) {
  library.objects = PyDict_New();
  if (library.objects == nullptr) throw pybind11::error_already_set();
  if (PyModule_AddFunctions(m.ptr(), librarian_functions) < 0) throw pybind11::error_already_set();
  m.def(
      "_d2o_library", [] { return pybind11::reinterpret_borrow<pybind11::dict>(library.objects); },
      "The librarian's dict (index -> weak reference), swept in place.");
  m.def(
      "_d2o_registered", [] { return library.count; }, "How many indices the librarian gave.");
}

}  // namespace adlib_python
