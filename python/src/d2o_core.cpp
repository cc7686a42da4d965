// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The compiled base of adlib.d2o's distributed_data_object: its five
/// fields, the arithmetic operators, copy() and the whole-array sum, amax
/// and amin (the librarian's state is d2o_librarian.cpp's).
///
/// A d2o call on arrays of 2^14 elements takes numpy 2-5 us; Python's own
/// cost of a method call, a new object and its attributes is 0.5-1.4 us of
/// that again, which kept `a + 0`, `a += a`, `sum` and `max` at 70-89 % of
/// numpy's speed there.  Here the common cases run without Python code:
///
/// - an operator between an object and a Python number, or two objects of
///   the same split (one Distribution), calls the numpy ufunc on the blocks
///   and makes the result here;
/// - `sum()`, `amax()`, `amin()` (and `max`, `min`) over every element of an
///   object whose elements are all on this process (one process, or
///   replicated) call the block's own numpy method;
/// - `copy()` copies the block into a new object of the same split.
///
/// Everything else (other operands, other splits, axes, more processes,
/// adlib Layout objects, subclasses) goes to the Python methods that define
/// the behaviour (`_binary`, `_inplace`, `_copy`, `_sum`, `_amax`, `_amin` in d2o.py
/// and _d2o_reductions.py), with the same arguments: a fast path gives what
/// they give.  Raw CPython API, not pybind11: its dispatch alone costs more
/// than the whole fast path.
#include <Python.h>
#include <structmember.h>

#include <pybind11/pybind11.h>

#include <array>
#include <cstddef>

#include "bindings.hpp"
#include "d2o_librarian.hpp"

namespace adlib_python {
namespace {

/// An object's fields, as d2o names them (the Python class adds a __dict__).
struct D2OCore {
  PyObject ob_base;  // PyObject_HEAD
  PyObject* distributor;
  PyObject* data;
  PyObject* dtype;
  PyObject* hermitian;
  PyObject* index;
  /// distributor.whole_here, read at the first whole-array reduction: 0 not
  /// yet (what allocation leaves), 1 false, 2 true.  A Distribution never
  /// changes; assigning another one resets it.
  unsigned char whole_here;
};

/// The operators, in the order of kUfuncNames.
enum Operator {
  kAdd,
  kSubtract,
  kMultiply,
  kTrueDivide,
  kFloorDivide,
  kRemainder,
  kPower,
  kBitwiseAnd,
  kBitwiseOr,
  kBitwiseXor,
  kLeftShift,
  kRightShift,
  kOperators
};
constexpr std::array<const char*, kOperators> kUfuncNames = {
    "add",   "subtract",    "multiply",   "true_divide", "floor_divide", "remainder",
    "power", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift",   "right_shift"};

/// What d2o.py hands over once (_d2o_configure): the class whose objects
/// take the fast paths, numpy's ufuncs.
struct Configured {
  PyTypeObject* core = nullptr;
  PyObject* object_class = nullptr;
  std::array<PyObject*, kOperators> ufuncs{};
};
Configured configured;

// Attribute and method names, interned once.
PyObject* name_binary = nullptr;
PyObject* name_inplace = nullptr;
PyObject* name_dtype = nullptr;
PyObject* name_size = nullptr;
PyObject* name_whole_here = nullptr;
PyObject* name_sum = nullptr;
PyObject* name_max = nullptr;
PyObject* name_min = nullptr;
PyObject* name_general_sum = nullptr;
PyObject* name_general_amax = nullptr;
PyObject* name_general_amin = nullptr;
PyObject* name_astype = nullptr;
PyObject* name_general_copy = nullptr;

bool is_object(PyObject* value) {
  return PyObject_TypeCheck(value, configured.core) != 0;
}

/// Is `value` an object of the fast paths' class (no subclass)?
bool is_plain_object(PyObject* value) {
  return reinterpret_cast<PyObject*>(Py_TYPE(value)) == configured.object_class;
}

D2OCore* core_of(PyObject* value) {
  return reinterpret_cast<D2OCore*>(value);
}

/// The error of an operator on a D2OCore made before adlib.d2o was imported.
PyObject* not_configured() {
  PyErr_SetString(PyExc_TypeError,
                  "D2OCore: operators need adlib.d2o (import it; make distributed_data_objects)");
  return nullptr;
}

/// A new object of `type` over `data` (a new reference, stolen): the
/// fields d2o.py's _from_local sets, and the librarian's index.
/// `whole_here`: the distributor's, if known (0 otherwise).
PyObject* make_object(PyTypeObject* type, PyObject* distributor, PyObject* data,
                      PyObject* hermitian, unsigned char whole_here) {
  PyObject* made = type->tp_alloc(type, 0);
  if (made == nullptr) {
    Py_DECREF(data);
    return nullptr;
  }
  D2OCore* result = core_of(made);
  result->distributor = Py_NewRef(distributor);
  result->whole_here = whole_here;
  result->data = data;
  result->hermitian = Py_NewRef(hermitian);
  result->dtype = PyObject_GetAttr(data, name_dtype);
  if (result->dtype == nullptr || (result->index = register_object(made)) == nullptr) {
    Py_DECREF(made);
    return nullptr;
  }
  return made;
}

/// A new object of `self`'s split over `data` (stolen), `hermitian` as given.
PyObject* new_object_like(const D2OCore* self, PyObject* data, bool hermitian) {
  return make_object(reinterpret_cast<PyTypeObject*>(configured.object_class), self->distributor,
                     data, hermitian ? Py_True : Py_False, self->whole_here);
}

/// _d2o_make(cls, distributor, data, hermitian): d2o.py's _from_local, the
/// same code as the fast paths' results.
PyObject* make_function(PyObject*, PyObject* const* arguments, Py_ssize_t count) {
  if (count != 4 || !PyType_Check(arguments[0]) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(arguments[0]), configured.core)) {
    PyErr_SetString(PyExc_TypeError,
                    "_d2o_make(cls, distributor, data, hermitian): cls must "
                    "derive from D2OCore");
    return nullptr;
  }
  return make_object(reinterpret_cast<PyTypeObject*>(arguments[0]), arguments[1],
                     Py_NewRef(arguments[2]), arguments[3], 0);
}

/// A hermitian flag's truth (false for one deleted from the object).
bool is_set(PyObject* flag) {
  return flag != nullptr && PyObject_IsTrue(flag) == 1;
}

/// Does the plain object `core` have what a fast path reads?
bool complete(const D2OCore* core) {
  return core->data != nullptr && core->distributor != nullptr;
}

/// The block to operate with when `other` is an operand of `self`'s fast
/// path (a borrowed reference), and whether it keeps a result hermitian;
/// nullptr when the Python method must decide.  `self` is complete.
PyObject* fast_operand(const D2OCore* self, PyObject* other, bool* keeps_hermitian) {
  if (PyFloat_CheckExact(other) || PyLong_CheckExact(other)) {
    *keeps_hermitian = true;  // a real scalar
    return other;
  }
  if (PyComplex_CheckExact(other)) {
    *keeps_hermitian = false;
    return other;
  }
  if (is_plain_object(other) && core_of(other)->distributor == self->distributor &&
      core_of(other)->data != nullptr) {
    *keeps_hermitian = is_set(core_of(other)->hermitian);
    return core_of(other)->data;
  }
  return nullptr;
}

/// left (operator) right, where one of them is an object (CPython calls the
/// slot for either order): d2o's rule makes the left object, if any, the
/// one whose split the result has (Python's forward method before the
/// reflected one).
PyObject* binary(PyObject* left, PyObject* right, Operator op) {
  if (configured.object_class == nullptr) return not_configured();
  PyObject* self = is_object(left) ? left : right;
  PyObject* ufunc = configured.ufuncs[op];
  if (is_plain_object(self) && complete(core_of(self))) {
    const D2OCore* core = core_of(self);
    bool keeps_hermitian = false;
    PyObject* other = fast_operand(core, self == left ? right : left, &keeps_hermitian);
    if (other != nullptr) {
      PyObject* arguments[] = {self == left ? core->data : other,
                               self == left ? other : core->data};
      PyObject* result = PyObject_Vectorcall(ufunc, arguments, 2, nullptr);
      if (result == nullptr) return nullptr;
      const bool hermitian = keeps_hermitian && is_set(core->hermitian);
      return new_object_like(core, result, hermitian);
    }
  }
  PyObject* arguments[] = {self, ufunc, left, right};
  return PyObject_VectorcallMethod(name_binary, arguments, 4, nullptr);
}

/// self (operator)= other: the ufunc writes into the block itself.
PyObject* inplace(PyObject* self, PyObject* other, Operator op) {
  if (configured.object_class == nullptr) return not_configured();
  PyObject* ufunc = configured.ufuncs[op];
  if (is_plain_object(self) && complete(core_of(self))) {
    const D2OCore* core = core_of(self);
    bool keeps_hermitian = false;
    PyObject* operand = fast_operand(core, other, &keeps_hermitian);
    if (operand != nullptr) {
      // The third positional argument of a ufunc is `out` (positional:
      // numpy parses keywords more slowly).
      PyObject* arguments[] = {core->data, operand, core->data};
      PyObject* result = PyObject_Vectorcall(ufunc, arguments, 3, nullptr);
      if (result == nullptr) return nullptr;
      Py_DECREF(result);
      return Py_NewRef(self);
    }
  }
  PyObject* arguments[] = {self, ufunc, other};
  return PyObject_VectorcallMethod(name_inplace, arguments, 3, nullptr);
}

template <Operator op>
PyObject* binary_slot(PyObject* left, PyObject* right) {
  return binary(left, right, op);
}
template <Operator op>
PyObject* inplace_slot(PyObject* self, PyObject* other) {
  return inplace(self, other, op);
}
PyObject* power_slot(PyObject* left, PyObject* right, PyObject* modulo) {
  if (modulo != Py_None) Py_RETURN_NOTIMPLEMENTED;  // pow(a, b, m): as d2o, not defined
  return binary(left, right, kPower);
}
PyObject* inplace_power_slot(PyObject* self, PyObject* other, PyObject* modulo) {
  if (modulo != Py_None) Py_RETURN_NOTIMPLEMENTED;
  return inplace(self, other, kPower);
}

/// Did a METH_FASTCALL | METH_KEYWORDS method get any argument?
bool has_arguments(Py_ssize_t positional, PyObject* keywords) {
  return positional != 0 || (keywords != nullptr && PyTuple_GET_SIZE(keywords) > 0);
}

/// self.`name`(the arguments a METH_FASTCALL | METH_KEYWORDS method got):
/// where a compiled method hands over to its Python definition.
PyObject* call_python_method(PyObject* self, PyObject* name, PyObject* const* arguments,
                             Py_ssize_t positional, PyObject* keywords) {
  PyObject* bound = PyObject_GetAttr(self, name);
  if (bound == nullptr) return nullptr;
  PyObject* result =
      PyObject_Vectorcall(bound, arguments, static_cast<std::size_t>(positional), keywords);
  Py_DECREF(bound);
  return result;
}

/// Does a reduction of every element need nothing but this block?  (A
/// plain object, no arguments, every element here.)
bool reduces_here(PyObject* self, Py_ssize_t arguments, PyObject* keywords) {
  if (has_arguments(arguments, keywords) || !is_plain_object(self)) return false;
  D2OCore* core = core_of(self);
  if (!complete(core)) return false;
  if (core->whole_here == 0) {
    PyObject* whole = PyObject_GetAttr(core->distributor, name_whole_here);
    if (whole == nullptr) {
      PyErr_Clear();
      return false;
    }
    core->whole_here = PyObject_IsTrue(whole) == 1 ? 2 : 1;
    Py_DECREF(whole);
  }
  return core->whole_here == 2;
}

/// Is this process's block empty?  (-1: an error is set.)
int block_is_empty(const D2OCore* core) {
  PyObject* size = PyObject_GetAttr(core->data, name_size);
  if (size == nullptr) return -1;
  const int empty = PyObject_Not(size);
  Py_DECREF(size);
  return empty;
}

/// A reduction of every element: the block's numpy `method` when
/// reduces_here, else the Python method `general` with the same arguments.
/// `identity`: does the reduction have one (an empty array reduces)?
PyObject* reduction(PyObject* self, PyObject* const* arguments, Py_ssize_t positional,
                    PyObject* keywords, PyObject* method, PyObject* general, bool identity) {
  if (reduces_here(self, positional, keywords)) {
    const D2OCore* core = core_of(self);
    const int empty = identity ? 0 : block_is_empty(core);
    if (empty < 0) return nullptr;
    if (empty == 0) return PyObject_CallMethodNoArgs(core->data, method);
  }
  return call_python_method(self, general, arguments, positional, keywords);
}

/// copy(): with no arguments, a copy of the block (`astype` of its own
/// dtype, as d2o.py's copy) in a new object of this split; else the Python
/// method `_copy` (another dtype or strategy).
PyObject* copy_method(PyObject* self, PyObject* const* arguments, Py_ssize_t count,
                      PyObject* keywords) {
  if (!has_arguments(count, keywords) && is_plain_object(self) && complete(core_of(self)) &&
      core_of(self)->dtype != nullptr) {
    const D2OCore* core = core_of(self);
    PyObject* block = PyObject_CallMethodOneArg(core->data, name_astype, core->dtype);
    if (block == nullptr) return nullptr;
    return new_object_like(core, block, is_set(core->hermitian));
  }
  return call_python_method(self, name_general_copy, arguments, count, keywords);
}

PyObject* sum_method(PyObject* self, PyObject* const* arguments, Py_ssize_t count,
                     PyObject* keywords) {
  return reduction(self, arguments, count, keywords, name_sum, name_general_sum, true);
}
PyObject* amax_method(PyObject* self, PyObject* const* arguments, Py_ssize_t count,
                      PyObject* keywords) {
  return reduction(self, arguments, count, keywords, name_max, name_general_amax, false);
}
PyObject* amin_method(PyObject* self, PyObject* const* arguments, Py_ssize_t count,
                      PyObject* keywords) {
  return reduction(self, arguments, count, keywords, name_min, name_general_amin, false);
}

int traverse(PyObject* self, visitproc visit, void* arg) {
  D2OCore* core = core_of(self);
  Py_VISIT(Py_TYPE(self));
  Py_VISIT(core->distributor);
  Py_VISIT(core->data);
  Py_VISIT(core->dtype);
  Py_VISIT(core->hermitian);
  Py_VISIT(core->index);
  return 0;
}

int clear(PyObject* self) {
  D2OCore* core = core_of(self);
  Py_CLEAR(core->distributor);
  Py_CLEAR(core->data);
  Py_CLEAR(core->dtype);
  Py_CLEAR(core->hermitian);
  Py_CLEAR(core->index);
  return 0;
}

void deallocate(PyObject* self) {
  PyTypeObject* type = Py_TYPE(self);
  PyObject_GC_UnTrack(self);
  clear(self);
  type->tp_free(self);
  Py_DECREF(type);  // a heap type's instances hold a reference to it
}

PyObject* get_distributor(PyObject* self, void*) {
  PyObject* distributor = core_of(self)->distributor;
  if (distributor == nullptr) {
    PyErr_SetString(PyExc_AttributeError, "distributor");
    return nullptr;
  }
  return Py_NewRef(distributor);
}

int set_distributor(PyObject* self, PyObject* value, void*) {
  D2OCore* core = core_of(self);
  Py_XINCREF(value);
  Py_XSETREF(core->distributor, value);
  core->whole_here = 0;
  return 0;
}

PyGetSetDef accessors[] = {
    {"distributor", get_distributor, set_distributor,
     "The split of the global array over the processes (shared by objects split alike).", nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr}};

// clang-format off
PyMemberDef members[] = {
    {"data", T_OBJECT_EX, offsetof(D2OCore, data), 0,
     "This process's block, a numpy array (no copy)."},
    {"dtype", T_OBJECT_EX, offsetof(D2OCore, dtype), 0, "The element type."},
    {"hermitian", T_OBJECT_EX, offsetof(D2OCore, hermitian), 0,
     "d2o's hermitian flag."},
    {"index", T_OBJECT_EX, offsetof(D2OCore, index), 0,
     "The librarian's index of this object (the same on every process)."},
    {nullptr, 0, 0, 0, nullptr}};

PyMethodDef methods[] = {
    {"copy", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(copy_method)),
     METH_FASTCALL | METH_KEYWORDS, "A copy, optionally of another dtype or strategy."},
    {"sum", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(sum_method)),
     METH_FASTCALL | METH_KEYWORDS, "The sum of the elements (over `axis`, if given). Collective."},
    {"amax", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(amax_method)),
     METH_FASTCALL | METH_KEYWORDS, "The largest element (over `axis`, if given). Collective."},
    {"max", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(amax_method)),
     METH_FASTCALL | METH_KEYWORDS, "The largest element (amax). Collective."},
    {"amin", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(amin_method)),
     METH_FASTCALL | METH_KEYWORDS, "The smallest element (over `axis`, if given). Collective."},
    {"min", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(amin_method)),
     METH_FASTCALL | METH_KEYWORDS, "The smallest element (amin). Collective."},
    {nullptr, nullptr, 0, nullptr}};
// clang-format on

PyType_Slot slots[] = {
    {Py_tp_doc,
     const_cast<char*>("What every distributed_data_object is (adlib.d2o): its fields, and the "
                       "operators and whole-array reductions that need no Python code.")},
    {Py_tp_members, members},
    {Py_tp_getset, accessors},
    {Py_tp_methods, methods},
    {Py_tp_traverse, reinterpret_cast<void*>(traverse)},
    {Py_tp_clear, reinterpret_cast<void*>(clear)},
    {Py_tp_dealloc, reinterpret_cast<void*>(deallocate)},
    {Py_nb_add, reinterpret_cast<void*>(binary_slot<kAdd>)},
    {Py_nb_subtract, reinterpret_cast<void*>(binary_slot<kSubtract>)},
    {Py_nb_multiply, reinterpret_cast<void*>(binary_slot<kMultiply>)},
    {Py_nb_true_divide, reinterpret_cast<void*>(binary_slot<kTrueDivide>)},
    {Py_nb_floor_divide, reinterpret_cast<void*>(binary_slot<kFloorDivide>)},
    {Py_nb_remainder, reinterpret_cast<void*>(binary_slot<kRemainder>)},
    {Py_nb_power, reinterpret_cast<void*>(power_slot)},
    {Py_nb_and, reinterpret_cast<void*>(binary_slot<kBitwiseAnd>)},
    {Py_nb_or, reinterpret_cast<void*>(binary_slot<kBitwiseOr>)},
    {Py_nb_xor, reinterpret_cast<void*>(binary_slot<kBitwiseXor>)},
    {Py_nb_lshift, reinterpret_cast<void*>(binary_slot<kLeftShift>)},
    {Py_nb_rshift, reinterpret_cast<void*>(binary_slot<kRightShift>)},
    {Py_nb_inplace_add, reinterpret_cast<void*>(inplace_slot<kAdd>)},
    {Py_nb_inplace_subtract, reinterpret_cast<void*>(inplace_slot<kSubtract>)},
    {Py_nb_inplace_multiply, reinterpret_cast<void*>(inplace_slot<kMultiply>)},
    {Py_nb_inplace_true_divide, reinterpret_cast<void*>(inplace_slot<kTrueDivide>)},
    {Py_nb_inplace_floor_divide, reinterpret_cast<void*>(inplace_slot<kFloorDivide>)},
    {Py_nb_inplace_remainder, reinterpret_cast<void*>(inplace_slot<kRemainder>)},
    {Py_nb_inplace_power, reinterpret_cast<void*>(inplace_power_slot)},
    {Py_nb_inplace_and, reinterpret_cast<void*>(inplace_slot<kBitwiseAnd>)},
    {Py_nb_inplace_or, reinterpret_cast<void*>(inplace_slot<kBitwiseOr>)},
    {Py_nb_inplace_xor, reinterpret_cast<void*>(inplace_slot<kBitwiseXor>)},
    {Py_nb_inplace_lshift, reinterpret_cast<void*>(inplace_slot<kLeftShift>)},
    {Py_nb_inplace_rshift, reinterpret_cast<void*>(inplace_slot<kRightShift>)},
    {0, nullptr}};

// A raw function: every object the Python methods make goes through it.
PyMethodDef core_functions[] = {
    {"_d2o_make", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(make_function)),
     METH_FASTCALL, "_d2o_make(cls, distributor, data, hermitian): a new object over data."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Spec spec = {"adlib._adlib.D2OCore", sizeof(D2OCore), 0,
                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, slots};

/// d2o.py, once its class exists: the class of the fast paths, and numpy
/// (for its ufuncs).
void configure(pybind11::object object_class, pybind11::module_ numpy) {
  if (!PyType_Check(object_class.ptr()) ||
      !PyType_IsSubtype(reinterpret_cast<PyTypeObject*>(object_class.ptr()), configured.core))
    throw pybind11::type_error("_d2o_configure: the class must derive from D2OCore");
  Py_XSETREF(configured.object_class, object_class.release().ptr());
  for (int op = 0; op < kOperators; ++op)
    Py_XSETREF(configured.ufuncs[op],
               pybind11::object(numpy.attr(kUfuncNames[op])).release().ptr());
}

}  // namespace

void bind_d2o_core(pybind11::module_& m) {
  PyObject* type = PyType_FromSpec(&spec);
  if (type == nullptr) throw pybind11::error_already_set();
  configured.core = reinterpret_cast<PyTypeObject*>(type);
  name_binary = PyUnicode_InternFromString("_binary");
  name_inplace = PyUnicode_InternFromString("_inplace");
  name_dtype = PyUnicode_InternFromString("dtype");
  name_size = PyUnicode_InternFromString("size");
  name_whole_here = PyUnicode_InternFromString("whole_here");
  name_sum = PyUnicode_InternFromString("sum");
  name_max = PyUnicode_InternFromString("max");
  name_min = PyUnicode_InternFromString("min");
  name_general_sum = PyUnicode_InternFromString("_sum");
  name_general_amax = PyUnicode_InternFromString("_amax");
  name_general_amin = PyUnicode_InternFromString("_amin");
  name_astype = PyUnicode_InternFromString("astype");
  name_general_copy = PyUnicode_InternFromString("_copy");
  m.attr("D2OCore") = pybind11::reinterpret_steal<pybind11::object>(type);
  Py_INCREF(type);  // configured.core keeps one
  bind_d2o_librarian(m);
  if (PyModule_AddFunctions(m.ptr(), core_functions) < 0) throw pybind11::error_already_set();
  m.def("_d2o_configure", &configure, pybind11::arg("object_class"), pybind11::arg("numpy"),
        "adlib.d2o hands over its class and numpy.");
}

}  // namespace adlib_python
