// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Gather and Scatter of one element type (adlib.Gather, adlib.Scatter,
/// adlib.ArrayGather, adlib.ArrayScatter), instantiated by one translation
/// unit per type (gather_scatter_<type>.cpp):
///   - the vector forms over 1-D arrays, each rank's subscripts a numpy
///     int64 array (collectives/gather.hpp, scatter.hpp), the gathered
///     values and the scattered ones numpy arrays;
///   - the array forms, subscripts and mask distributed arrays (int64 and
///     bool), for destination and source ranks 1 to 3 (array_gather.hpp,
///     array_scatter.hpp).
/// Scatters choose their combine operation at run time (combine.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <adlib/collectives/array_gather.hpp>
#include <adlib/collectives/array_scatter.hpp>
#include <adlib/collectives/gather.hpp>
#include <adlib/collectives/scatter.hpp>

#include "arrays.hpp"
#include "combine.hpp"

namespace adlib_python {

/// Every element of `subscripts` (C order), as the C++ schedules take them.
inline std::vector<adlib::Index> subscript_list(
    const py::array_t<std::int64_t, py::array::c_style>& subscripts) {
  const std::int64_t* first = subscripts.data();
  return std::vector<adlib::Index>(first, first + subscripts.size());
}

/// An unmanaged rank-1 View over a numpy array of T (C-contiguous, checked
/// by the caller's py::array_t), which the schedules check for length.
template <class T>
Kokkos::View<T*, Space, Kokkos::MemoryUnmanaged> vector_over(T* data, py::ssize_t size) {
  // An empty numpy array may have no memory; the View then gets a dummy address.
  static std::remove_const_t<T> nothing{};
  return Kokkos::View<T*, Space, Kokkos::MemoryUnmanaged>(size > 0 ? data : &nothing,
                                                          static_cast<std::size_t>(size));
}

/// The subscript array at `d` of `subscripts` (an int64 array of rank `Rank`).
template <int Rank>
adlib::DistArray<adlib::Index, Rank, Space> subscript_array(const py::sequence& subscripts,
                                                            std::size_t d) {
  return subscripts[d].cast<const ArrayHolder<std::int64_t, Rank>&>().get();
}

/// The subscript arrays of an array form: `Count` int64 arrays of rank
/// `Rank` (one per dimension of the indexed array).
template <int Rank, std::size_t Count, std::size_t... D>
std::array<adlib::DistArray<adlib::Index, Rank, Space>, Count> subscript_arrays(
    const py::sequence& subscripts, const char* operation, std::index_sequence<D...>) {
  if (subscripts.size() != Count)
    throw adlib::Error(std::to_string(subscripts.size()) +
                           " subscript arrays for an indexed array of rank " +
                           std::to_string(Count) + " (one per dimension)",
                       -1, operation);
  return {subscript_array<Rank>(subscripts, D)...};
}
template <int Rank, std::size_t Count>
std::array<adlib::DistArray<adlib::Index, Rank, Space>, Count> subscript_arrays(
    const py::sequence& subscripts, const char* operation) {
  return subscript_arrays<Rank, Count>(subscripts, operation, std::make_index_sequence<Count>{});
}

/// The vector Scatter of each combine operation.
template <class T>
struct ScatterOf {
  template <class Op>
  using type = adlib::Scatter<T, Space, Op>;
};
/// The array Scatter of each combine operation.
template <class T, int D, int S>
struct ArrayScatterOf {
  template <class Op>
  using type = adlib::ArrayScatter<T, D, S, Space, Op>;
};

/// Gather_<name> and Scatter_<name>: the vector forms.
template <class T>
void bind_vector_forms(py::module_& m, const std::string& name) {
  using Holder = ArrayHolder<T, 1>;
  using Subscripts = py::array_t<std::int64_t, py::array::c_style>;
  // The values of a scatter are only read, so pybind11 may convert them
  // (safe casts: a list, int32 into float64); a gather's `out` must be the
  // caller's own array, checked below.
  using Values = py::array_t<T, py::array::c_style>;

  using GatherHolder = ScheduleHolder<adlib::Gather<T, Space>>;
  py::class_<GatherHolder>(m, ("Gather_" + name).c_str(),
                           "A planned gather of this rank's subscripts (adlib.Gather).")
      .def(
          py::init([](const Holder& src, const Subscripts& subscripts) {
            return new GatherHolder(adlib::Gather<T, Space>(src.get(), subscript_list(subscripts)));
          }),
          py::arg("src"), py::arg("subscripts"))
      .def(
          "execute",
          [](GatherHolder& g, const Holder& src, py::object out) {
            Values values = out.is_none() ? Values(static_cast<py::ssize_t>(g.get().size()))
                                          : out.cast<Values>();
            if (!out.is_none() && !values.is(out))
              throw py::type_error("Gather.execute: out must be a C-contiguous numpy array of " +
                                   std::string(py::str(py::dtype::of<T>())));
            const auto view = vector_over(values.mutable_data(), values.size());
            {
              py::gil_scoped_release unlocked;
              g.get().execute(view, src.get());
            }
            return values;
          },
          py::arg("src"), py::arg("out") = py::none(),
          "out[k] = src[subscripts[k]] (collective); a new numpy array when out is None.")
      .def_property_readonly(
          "size", [](GatherHolder& g) { return g.get().size(); },
          "The number of subscripts of this rank.")
      .def_property_readonly(
          "repeats", [](GatherHolder& g) { return g.get().repeats(); },
          "Subscripts that repeat an earlier one (copied locally, not sent).");

  using ScatterVariant = CombineVariant<T, ScatterOf<T>::template type>;
  using ScatterHolder = ScheduleHolder<ScatterVariant>;
  py::class_<ScatterHolder>(m, ("Scatter_" + name).c_str(),
                            "A planned scatter to this rank's subscripts (adlib.Scatter).")
      .def(py::init([](const Holder& dst, const Subscripts& subscripts, adlib::op::Kind combine) {
             const std::vector<adlib::Index> list = subscript_list(subscripts);
             return with_combine<T>(combine, "Scatter", [&](auto op) {
               using Op = decltype(op);
               return new ScatterHolder(
                   ScatterVariant(adlib::Scatter<T, Space, Op>(dst.get(), list, op)));
             });
           }),
           py::arg("dst"), py::arg("subscripts"), py::arg("combine"))
      .def(
          "execute",
          [](ScatterHolder& s, const Holder& dst, const Values& values) {
            const auto view = vector_over(values.data(), values.size());
            py::gil_scoped_release unlocked;
            std::visit([&](auto& schedule) { schedule.execute(dst.get(), view); }, s.get());
          },
          py::arg("dst"), py::arg("values"),
          "dst[subscripts[k]] = combine(dst[subscripts[k]], values[k]) (collective).")
      .def_property_readonly(
          "size",
          [](ScatterHolder& s) {
            return std::visit([](auto& schedule) { return schedule.size(); }, s.get());
          },
          "The number of subscripts (values per execution) of this rank.")
      .def_property_readonly(
          "combine",
          [](ScatterHolder& s) {
            return std::visit([](auto& schedule) { return schedule.combine().kind; }, s.get());
          },
          "The combine operation.");
}

/// ArrayGather_<name>_<D>d_<S>d and ArrayScatter_<name>_<D>d_<S>d: the array
/// forms from a source of rank S into a destination of rank D.
template <class T, int D, int S>
void bind_array_forms(py::module_& m, const std::string& name) {
  using Dst = ArrayHolder<T, D>;
  using Src = ArrayHolder<T, S>;
  const std::string suffix = "_" + name + "_" + std::to_string(D) + "d_" + std::to_string(S) + "d";

  // A gather's subscripts and mask are distributed like its destination.
  using GatherSchedule = adlib::ArrayGather<T, D, S, Space>;
  using GatherHolder = ScheduleHolder<GatherSchedule>;
  py::class_<GatherHolder>(m, ("ArrayGather" + suffix).c_str(),
                           "A planned array gather (adlib.ArrayGather).")
      .def(py::init([](const Dst& dst, const Src& src, const py::sequence& subscripts,
                       const ArrayHolder<bool, D>* mask) {
             const auto arrays = subscript_arrays<D, S>(subscripts, "ArrayGather");
             return mask ? new GatherHolder(
                               GatherSchedule(dst.get(), src.get(), arrays, mask->get()))
                         : new GatherHolder(GatherSchedule(dst.get(), src.get(), arrays));
           }),
           py::arg("dst"), py::arg("src"), py::arg("subscripts"), py::arg("mask") = py::none())
      .def(
          "execute",
          [](GatherHolder& g, const Dst& dst, const Src& src) {
            g.get().execute(dst.get(), src.get());
          },
          py::arg("dst"), py::arg("src"), py::call_guard<py::gil_scoped_release>(),
          "dst[i] = src[subscripts[0][i], ...] where the mask is true (collective).")
      .def_property_readonly(
          "size", [](GatherHolder& g) { return g.get().size(); },
          "The number of destination elements this rank gathers.")
      .def_property_readonly(
          "repeats", [](GatherHolder& g) { return g.get().repeats(); },
          "Gathered elements that an earlier one already fetched (copied locally).");

  // A scatter's subscripts and mask are distributed like its source.
  using ScatterVariant = CombineVariant<T, ArrayScatterOf<T, D, S>::template type>;
  using ScatterHolder = ScheduleHolder<ScatterVariant>;
  py::class_<ScatterHolder>(m, ("ArrayScatter" + suffix).c_str(),
                            "A planned array scatter (adlib.ArrayScatter).")
      .def(py::init([](const Dst& dst, const Src& src, const py::sequence& subscripts,
                       const ArrayHolder<bool, S>* mask, adlib::op::Kind combine) {
             const auto arrays = subscript_arrays<S, D>(subscripts, "ArrayScatter");
             return with_combine<T>(combine, "ArrayScatter", [&](auto op) {
               using Schedule = adlib::ArrayScatter<T, D, S, Space, decltype(op)>;
               return mask ? new ScatterHolder(ScatterVariant(
                                 Schedule(dst.get(), src.get(), arrays, mask->get(), op)))
                           : new ScatterHolder(
                                 ScatterVariant(Schedule(dst.get(), src.get(), arrays, op)));
             });
           }),
           py::arg("dst"), py::arg("src"), py::arg("subscripts"), py::arg("mask"),
           py::arg("combine"))
      .def(
          "execute",
          [](ScatterHolder& s, const Dst& dst, const Src& src) {
            std::visit([&](auto& schedule) { schedule.execute(dst.get(), src.get()); }, s.get());
          },
          py::arg("dst"), py::arg("src"), py::call_guard<py::gil_scoped_release>(),
          "dst[subscripts[0][i], ...] = combine(dst[...], src[i]) where the mask is true "
          "(collective).")
      .def_property_readonly(
          "size",
          [](ScatterHolder& s) {
            return std::visit([](auto& schedule) { return schedule.size(); }, s.get());
          },
          "The number of contributions this rank sends.")
      .def_property_readonly(
          "combine",
          [](ScatterHolder& s) {
            return std::visit([](auto& schedule) { return schedule.combine().kind; }, s.get());
          },
          "The combine operation.");
}

/// Every schedule of this file for element type T.
template <class T>
void bind_gather_scatter(py::module_& m, const std::string& name) {
  bind_vector_forms<T>(m, name);
  bind_array_forms<T, 1, 1>(m, name);
  bind_array_forms<T, 1, 2>(m, name);
  bind_array_forms<T, 1, 3>(m, name);
  bind_array_forms<T, 2, 1>(m, name);
  bind_array_forms<T, 2, 2>(m, name);
  bind_array_forms<T, 2, 3>(m, name);
  bind_array_forms<T, 3, 1>(m, name);
  bind_array_forms<T, 3, 2>(m, name);
  bind_array_forms<T, 3, 3>(m, name);
}

}  // namespace adlib_python
