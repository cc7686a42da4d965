// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The bindings of one element type: DistArray of rank 1 to 3 and the
/// schedules over it (Remap, WriteHalo, Shift, ArrayReduction), instantiated
/// by one translation unit per type.  Arrays live in Kokkos::HostSpace
/// whatever Kokkos's default space is, so `.local` is always memory numpy
/// can address.
#pragma once

#include <pybind11/complex.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <complex>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <adlib/collectives/array_reduction.hpp>
#include <adlib/collectives/remap.hpp>
#include <adlib/collectives/shift.hpp>
#include <adlib/collectives/write_halo.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/ranges/range_spec.hpp>

#include "lifetime.hpp"

namespace adlib_python {

namespace py = pybind11;

/// The memory every array of the module lives in.
using Space = Kokkos::HostSpace;

/// What every DistArray class of the module derives from (adlib.DistArrayBase).
class ArrayBase : public Releasable {
 public:
  /// Number of dimensions.
  virtual int ndim() const = 0;
};

/// A DistArray<T, Rank> owned by a Python object.
template <class T, int Rank>
class ArrayHolder : public ArrayBase {
 public:
  /// The wrapped array type.
  using array_type = adlib::DistArray<T, Rank, Space>;

  /// A new array over `group`, one spec per dimension (collective).
  ArrayHolder(const adlib::Group& group, const std::vector<adlib::RangeSpec>& specs)
      : array_(make(group, specs, true)) {}
  /// The same; `initialize` false leaves the elements unset (adlib.empty).
  ArrayHolder(const adlib::Group& group, const std::vector<adlib::RangeSpec>& specs,
              bool initialize)
      : array_(make(group, specs, initialize)) {}

  /// An array over `local`, this rank's block as a numpy array (no copy;
  /// DistArray::wrap checks it collectively): the holder keeps `local` alive.
  ArrayHolder(const adlib::Group& group, const std::vector<adlib::RangeSpec>& specs,
              py::array local)
      : array_(wrap(group, specs, local)), keep_(std::move(local)) {}

  /// An array of `like`'s layout over `local`, this rank's block as a
  /// packed C-order numpy array of exactly `like`'s local extents (no copy,
  /// no communication).  For callers whose blocks fit the layout by
  /// construction (adlib.d2o wraps its own blocks for every Remap and
  /// Gather; adlib.wrap's agreement would cost more than the schedule): a
  /// block that does not fit raises on this rank only, so memory from users
  /// goes through adlib.wrap.
  ArrayHolder(const ArrayHolder& like, py::array local)
      : array_(over(like.get(), local)), keep_(std::move(local)) {}

  /// An array made elsewhere (e.g. adlib.from_distarray's import of a DAP
  /// buffer) over memory that `keep` owns: the holder keeps it alive.
  ArrayHolder(array_type array, py::object keep)
      : array_(std::move(array)), keep_(std::move(keep)) {}

  /// The array (adlib.Error once released at exit).
  const array_type& get() const {
    if (!array_) throw released_error("DistArray");
    return *array_;
  }
  int ndim() const override { return Rank; }
  void release() override { array_.reset(); }

 private:
  static array_type make(const adlib::Group& group, const std::vector<adlib::RangeSpec>& specs,
                         bool initialize) {
    if (static_cast<int>(specs.size()) != Rank)
      throw adlib::Error(std::to_string(specs.size()) + " range specs for an array of rank " +
                             std::to_string(Rank),
                         -1, "DistArray");
    if (!initialize)
      return array_type(group, fixed(specs, std::make_index_sequence<Rank>{}),
                        adlib::uninitialized);
    return array_type(group, fixed(specs, std::make_index_sequence<Rank>{}));
  }
  static array_type wrap(const adlib::Group& group, const std::vector<adlib::RangeSpec>& specs,
                         py::array local) {
    if (static_cast<int>(specs.size()) != Rank)
      throw adlib::Error(std::to_string(specs.size()) + " range specs for an array of rank " +
                             std::to_string(Rank),
                         -1, "DistArray::wrap");
    const adlib::ArrayLayout layout(group, adlib::bind_ranges(group, specs));
    // What numpy alone can tell is agreed on first, so every rank raises it;
    // DistArray::wrap then checks the extents and strides against the layout.
    const int me = group.grid().comm().rank();
    std::string error;
    if (local.ndim() != Rank)
      error = "a local block of rank " + std::to_string(local.ndim()) + " for an array of rank " +
              std::to_string(Rank);
    else if (!local.dtype().is(py::dtype::of<T>()))
      error = "the local block's element type is not the array's";
    else if (!local.writeable())
      error = "the local block is read-only";
    // An empty block needs no memory: numpy's strides then say nothing (0).
    const bool empty = local.size() == 0;
    for (int d = 0; error.empty() && !empty && d < Rank; ++d)
      if (local.shape(d) > 1 &&
          (local.strides(d) <= 0 || local.strides(d) % static_cast<py::ssize_t>(sizeof(T)) != 0))
        error = "the local block's stride " + std::to_string(local.strides(d)) + " in dimension " +
                std::to_string(d) + " is not a positive multiple of the " + "element size";
    if (!error.empty()) error = "rank " + std::to_string(me) + ": " + error;
    adlib::agree_on_errors(group.grid().comm(), error, layout.fingerprint(), "DistArray::wrap");
    // numpy's stride of an extent-1 dimension, or of any dimension of an
    // empty block, says nothing (it may be 0): those get packed C-order strides.
    Kokkos::LayoutStride strided;
    for (int d = Rank - 1; d >= 0; --d) {
      strided.dimension[d] = static_cast<std::size_t>(local.shape(d));
      const std::size_t packed =
          d == Rank - 1
              ? 1
              : strided.stride[d + 1] * std::max<std::size_t>(strided.dimension[d + 1], 1);
      strided.stride[d] = local.shape(d) > 1 && !empty
                              ? static_cast<std::size_t>(local.strides(d)) / sizeof(T)
                              : packed;
    }
    using Unmanaged = Kokkos::View<typename adlib::detail::add_pointers<T, Rank>::type,
                                   Kokkos::LayoutStride, Space, Kokkos::MemoryUnmanaged>;
    return array_type::wrap(layout, Unmanaged(static_cast<T*>(local.mutable_data()), strided));
  }
  static array_type over(const array_type& like, py::array local) {
    const auto& storage = like.local_view();
    std::string error;
    if (local.ndim() != Rank)
      error = "a local block of rank " + std::to_string(local.ndim());
    else if (!local.dtype().is(py::dtype::of<T>()))
      error = "the local block's element type is not the array's";
    else if (!local.writeable() || !(local.flags() & py::array::c_style))
      error = "the local block is read-only or not C-contiguous";
    for (int d = 0; error.empty() && d < Rank; ++d)
      if (static_cast<std::size_t>(local.shape(d)) != storage.extent(d))
        error = "the local block's extent " + std::to_string(local.shape(d)) + " in dimension " +
                std::to_string(d) + " is not the layout's " + std::to_string(storage.extent(d));
    if (!error.empty())
      throw adlib::Error(error + " (rank " + std::to_string(like.process_rank()) + ")", -1,
                         "DistArray._over");
    return array_type(like, adopt(static_cast<T*>(local.mutable_data()), storage,
                                  std::make_index_sequence<Rank>{}));
  }
  template <std::size_t... I>
  static typename array_type::view_type adopt(T* data, const typename array_type::view_type& like,
                                              std::index_sequence<I...>) {
    return typename array_type::view_type(data, like.extent(I)...);
  }
  template <std::size_t... I>
  static std::array<adlib::RangeSpec, Rank> fixed(const std::vector<adlib::RangeSpec>& specs,
                                                  std::index_sequence<I...>) {
    return {specs[I]...};
  }
  std::optional<array_type> array_;
  py::object keep_;  ///< what a wrapped array's memory belongs to (numpy array, DAP buffer)
};

/// A schedule owned by a Python object (released at exit like arrays).
template <class Schedule>
class ScheduleHolder : public Releasable {
 public:
  /// Takes the planned schedule.
  explicit ScheduleHolder(Schedule&& s) : schedule_(std::move(s)) {}
  /// The schedule (adlib.Error once released at exit).
  Schedule& get() {
    if (!schedule_) throw released_error("schedule");
    return *schedule_;
  }
  void release() override { schedule_.reset(); }

 private:
  std::optional<Schedule> schedule_;
};

/// std::complex is not ordered: no maxval / minval / maxloc / minloc.
template <class T>
struct is_complex : std::false_type {};
template <class T>
struct is_complex<std::complex<T>> : std::true_type {};

/// A numpy array over `view` (no copy) that keeps `owner` alive.
template <class View>
py::array numpy_over(const View& view, const py::handle& owner) {
  using T = typename View::value_type;
  constexpr int rank = static_cast<int>(View::rank);
  std::vector<py::ssize_t> shape(rank), strides(rank);
  for (int d = 0; d < rank; ++d) {
    shape[d] = static_cast<py::ssize_t>(view.extent(d));
    strides[d] = static_cast<py::ssize_t>(view.stride(d) * sizeof(T));
  }
  // An empty block may have no memory at all; numpy then gets a dummy
  // address it never reads (a null pointer would make it allocate).
  static T nothing{};
  T* data = view.data() && view.size() > 0 ? view.data() : &nothing;
  return py::array(py::dtype::of<T>(), shape, strides, data, owner);
}

/// Global indices along each dimension of the local indices [begin, end) of `box`.
template <int Rank>
py::tuple box_indices(const adlib::LocalBox<Rank>& box) {
  py::tuple out(Rank);
  for (int d = 0; d < Rank; ++d) {
    py::array_t<std::int64_t> g(box.extent(d));
    auto w = g.template mutable_unchecked<1>();
    for (adlib::Index l = box.begin(d); l < box.end(d); ++l) w(l - box.begin(d)) = box.global(d, l);
    out[d] = g;
  }
  return out;
}

/// The class DistArray_<name>_<Rank>d alone (the bool arrays of masks have
/// no schedules of their own).
template <class T, int Rank>
py::class_<ArrayHolder<T, Rank>, ArrayBase> bind_array_class(py::module_& m,
                                                             const std::string& name) {
  using Holder = ArrayHolder<T, Rank>;
  const std::string suffix = "_" + name + "_" + std::to_string(Rank) + "d";

  py::class_<Holder, ArrayBase> array(m, ("DistArray" + suffix).c_str(),
                                      "A distributed array (made by adlib.DistArray).");
  array
      .def(py::init<const adlib::Group&, const std::vector<adlib::RangeSpec>&>(), py::arg("group"),
           py::arg("specs"))
      .def(py::init<const adlib::Group&, const std::vector<adlib::RangeSpec>&, bool>(),
           py::arg("group"), py::arg("specs"), py::kw_only(), py::arg("initialize"))
      .def(py::init<const adlib::Group&, const std::vector<adlib::RangeSpec>&, py::array>(),
           py::arg("group"), py::arg("specs"), py::arg("local").noconvert())
      .def(
          "_over",
          [](const Holder& like, py::array local) {
            return std::make_unique<Holder>(like, std::move(local));
          },
          py::arg("local").noconvert(),
          "Internal (adlib.d2o): an array of this layout over `local`, this process's packed "
          "C-order block of exactly this array's local extents; no copy, no communication, "
          "so a block that does not fit raises on this process only (use adlib.wrap for "
          "memory of unknown shape).")
      .def_property_readonly(
          "is_wrapped", [](const Holder& h) { return h.get().is_wrapped(); },
          "Does the array live in memory given to adlib.wrap?")
      .def_property_readonly(
          "local",
          [](py::object self) {
            return numpy_over(self.cast<const Holder&>().get().owned_view(), self);
          },
          "This process's owned elements (ghosts excluded) as a writable numpy array over "
          "adlib's memory (no copy).")
      .def_property_readonly(
          "local_with_ghosts",
          [](py::object self) {
            return numpy_over(self.cast<const Holder&>().get().local_view(), self);
          },
          "The whole local allocation, ghost cells included (no copy).")
      .def_property_readonly(
          "global_indices", [](const Holder& h) { return box_indices<Rank>(h.get().owned_box()); },
          "Per dimension, the global index of each position of .local along it.")
      .def_property_readonly(
          "ghost_global_indices",
          [](const Holder& h) { return box_indices<Rank>(h.get().ghost_box()); },
          "Per dimension, the global index of each position of .local_with_ghosts (unwrapped: "
          "below 0 or past the extent in ghost cells outside the domain).")
      .def_property_readonly(
          "owned_slices",
          [](const Holder& h) {
            const auto box = h.get().owned_box();
            py::tuple out(Rank);
            for (int d = 0; d < Rank; ++d) out[d] = py::slice(box.begin(d), box.end(d), 1);
            return out;
          },
          "Slices of .local_with_ghosts that select .local.")
      .def_property_readonly(
          "shape",
          [](const Holder& h) {
            py::tuple out(Rank);
            for (int d = 0; d < Rank; ++d) out[d] = h.get().extent(d);
            return out;
          },
          "The global shape.")
      .def_property_readonly(
          "group", [](const Holder& h) { return h.get().layout().group(); },
          "The processes the array is distributed over.")
      .def_property_readonly("dtype", [](const Holder&) { return py::dtype::of<T>(); })
      .def_property_readonly(
          "holds_data", [](const Holder& h) { return h.get().holds_data(); },
          "Is this process in the array's group?")
      .def("__repr__", [suffix](const Holder& h) {
        return "DistArray" + suffix + "(" + h.get().layout().describe_distribution() + ")";
      });
  return array;
}

/// DistArray_<name>_<Rank>d and its schedules.
template <class T, int Rank>
void bind_rank(py::module_& m, const std::string& name) {
  using Holder = ArrayHolder<T, Rank>;
  const std::string suffix = "_" + name + "_" + std::to_string(Rank) + "d";
  auto array = bind_array_class<T, Rank>(m, name);

  using RemapHolder = ScheduleHolder<adlib::Remap<T, Rank, Space>>;
  py::class_<RemapHolder> remap(m, ("Remap" + suffix).c_str(),
                                "A planned copy between two distributions (adlib.Remap).");
  remap
      .def(py::init([](const Holder& dst, const Holder& src) {
             return new RemapHolder(adlib::Remap<T, Rank, Space>(dst.get(), src.get()));
           }),
           py::arg("dst"), py::arg("src"))
      .def(
          "execute",
          [](RemapHolder& r, const Holder& dst, const Holder& src) {
            r.get().execute(dst.get(), src.get());
          },
          py::arg("dst"), py::arg("src"), py::call_guard<py::gil_scoped_release>(),
          "dst = src (collective).")
      .def(
          "start",
          [](RemapHolder& r, const Holder& dst, const Holder& src) {
            r.get().start(dst.get(), src.get());
          },
          py::arg("dst"), py::arg("src"), py::call_guard<py::gil_scoped_release>(),
          "Posts the messages; touch neither array before finish().")
      .def(
          "finish", [](RemapHolder& r) { r.get().finish(); },
          py::call_guard<py::gil_scoped_release>(), "Completes start().")
      .def(
          "reverse",
          [](RemapHolder& r, const Holder& src, const Holder& dst) {
            r.get().reverse(src.get(), dst.get());
          },
          py::arg("src"), py::arg("dst"), py::call_guard<py::gil_scoped_release>(),
          "src[i] += dst[j] for every element execute() copies from i to j.")
      .def(
          "_execute_loop",
          [](RemapHolder& r, const Holder& dst, const Holder& src, int times) {
            for (int k = 0; k < times; ++k) r.get().execute(dst.get(), src.get());
          },
          py::call_guard<py::gil_scoped_release>(),
          "execute() `times` times in a C++ loop (the benchmarks' reference for the cost of "
          "the Python bridge).");

  using HaloHolder = ScheduleHolder<adlib::WriteHalo<T, Rank, Space>>;
  using Widths = std::array<adlib::Index, Rank>;
  using Boundaries = std::array<adlib::Boundary, Rank>;
  py::class_<HaloHolder> halo(m, ("WriteHalo" + suffix).c_str(),
                              "A planned ghost-cell exchange (adlib.WriteHalo).");
  halo.def(py::init([](const Holder& a) {
             return new HaloHolder(adlib::WriteHalo<T, Rank, Space>(a.get()));
           }),
           py::arg("array"))
      .def(py::init([](const Holder& a, const Widths& low, const Widths& high,
                       const Boundaries& boundaries, adlib::Stencil stencil) {
             return new HaloHolder(
                 adlib::WriteHalo<T, Rank, Space>(a.get(), low, high, boundaries, stencil));
           }),
           py::arg("array"), py::arg("low"), py::arg("high"), py::arg("boundaries"),
           py::arg("stencil") = adlib::Stencil::box)
      .def(
          "execute", [](HaloHolder& h, const Holder& a) { h.get().execute(a.get()); },
          py::arg("array"), py::call_guard<py::gil_scoped_release>(), "Fills a's ghost cells.")
      .def(
          "execute",
          [](HaloHolder& h, const Holder& a, const Holder& b) {
            h.get().execute(a.get(), b.get());
          },
          py::call_guard<py::gil_scoped_release>(), "Two arrays in one exchange.")
      .def(
          "_execute_loop",
          [](HaloHolder& h, const Holder& a, int times) {
            for (int k = 0; k < times; ++k) h.get().execute(a.get());
          },
          py::call_guard<py::gil_scoped_release>(),
          "execute() `times` times in a C++ loop (the benchmarks' reference).")
      .def(
          "start", [](HaloHolder& h, const Holder& a) { h.get().start(a.get()); }, py::arg("array"),
          py::call_guard<py::gil_scoped_release>(),
          "Posts the messages; ghosts are filled by finish().")
      .def(
          "finish", [](HaloHolder& h) { h.get().finish(); },
          py::call_guard<py::gil_scoped_release>(), "Completes start().");

  using ShiftHolder = ScheduleHolder<adlib::Shift<T, Rank, Space>>;
  py::class_<ShiftHolder> shift(m, ("Shift" + suffix).c_str(),
                                "A planned shift along one dimension (adlib.Shift).");
  shift
      .def(py::init([](const Holder& dst, const Holder& src, adlib::Index amount, int dim,
                       adlib::ShiftMode mode, const T& fill) {
             return new ShiftHolder(
                 adlib::Shift<T, Rank, Space>(dst.get(), src.get(), amount, dim, mode, fill));
           }),
           py::arg("dst"), py::arg("src"), py::arg("amount"), py::arg("dim"), py::arg("mode"),
           py::arg("fill") = T{})
      .def(
          "execute",
          [](ShiftHolder& s, const Holder& dst, const Holder& src) {
            s.get().execute(dst.get(), src.get());
          },
          py::arg("dst"), py::arg("src"), py::call_guard<py::gil_scoped_release>(),
          "dst[..., i, ...] = src[..., i + amount, ...] (collective).");

  using ReductionHolder = ScheduleHolder<adlib::ArrayReduction<T, Rank, Space>>;
  py::class_<ReductionHolder> reduction(m, ("ArrayReduction" + suffix).c_str(),
                                        "Whole-array reductions planned for one layout.");
  reduction
      .def(py::init([](const Holder& a) {
             return new ReductionHolder(adlib::ArrayReduction<T, Rank, Space>(a.get()));
           }),
           py::arg("like"))
      .def(
          "sum", [](ReductionHolder& r, const Holder& a) { return r.get().sum(a.get()); },
          py::call_guard<py::gil_scoped_release>(), "Sum of the elements (same on every rank).")
      .def(
          "product", [](ReductionHolder& r, const Holder& a) { return r.get().product(a.get()); },
          py::call_guard<py::gil_scoped_release>(), "Product of the elements.")
      .def(
          "dot",
          [](ReductionHolder& r, const Holder& a, const Holder& b) {
            return r.get().dot(a.get(), b.get());
          },
          py::call_guard<py::gil_scoped_release>(), "sum(conj(a) * b).");
  if constexpr (!is_complex<T>::value) {
    reduction
        .def(
            "maxval", [](ReductionHolder& r, const Holder& a) { return r.get().maxval(a.get()); },
            py::call_guard<py::gil_scoped_release>(), "Largest element.")
        .def(
            "minval", [](ReductionHolder& r, const Holder& a) { return r.get().minval(a.get()); },
            py::call_guard<py::gil_scoped_release>(), "Smallest element.");
    for (const char* which : {"maxloc", "minloc"}) {
      const bool max = std::string(which) == "maxloc";
      reduction.def(
          which,
          [max](ReductionHolder& r, const Holder& a) {
            adlib::Located<T, Rank> found;
            {
              py::gil_scoped_release unlocked;
              found = max ? r.get().maxloc(a.get()) : r.get().minloc(a.get());
            }
            py::tuple where(Rank);
            for (int d = 0; d < Rank; ++d) where[d] = found.location[d];
            return py::make_tuple(found.value, where);
          },
          "(value, index tuple) of the extreme element, the smallest index on ties.");
    }
  }

  // adlib.Remap(dst, src) and friends find the class through the array's type.
  array.attr("_Remap") = remap;
  array.attr("_WriteHalo") = halo;
  array.attr("_Shift") = shift;
  array.attr("_ArrayReduction") = reduction;
}

/// Every rank (1 to 3) of element type T, named `name` (the numpy dtype name).
template <class T>
void bind_element_type(py::module_& m, const std::string& name) {
  bind_rank<T, 1>(m, name);
  bind_rank<T, 2>(m, name);
  bind_rank<T, 3>(m, name);
}

}  // namespace adlib_python
