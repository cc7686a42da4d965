// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// DimensionReduction (sources of rank 2 and 3) and Broadcast (ranks 1 to 3)
/// of one element type, instantiated by one translation unit per type
/// (dimensions_and_broadcast_<type>.cpp).
///   - DimensionReduction_<name>_<R>d: sum, product, maxval, minval, maxloc,
///     minloc, any, all, count along one dimension into a DistArray of rank
///     R - 1 (T, int64 or bool; make_result allocates one), masks bool
///     DistArrays (collectives/dimension_reduction.hpp).
///   - Broadcast_<name>_<R>d: a section of an array (triplets computed from
///     a numpy-style key by the Python package) from its owner to every
///     process of a group, into a numpy array (collectives/broadcast.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <adlib/collectives/broadcast.hpp>
#include <adlib/collectives/dimension_reduction.hpp>

#include "arrays.hpp"

namespace adlib_python {

/// The method `name`(result, source, mask=None) of a DimensionReduction
/// class: `run` without a mask, `run_masked` with one (nullptr: the operation
/// takes no mask).  The GIL is released while the schedule runs.
template <class T, int Rank, class Result, class Class, class Run, class RunMasked>
void def_along(Class& cls, const char* name, const char* doc, Run run, RunMasked run_masked) {
  using ReductionHolder = ScheduleHolder<adlib::DimensionReduction<T, Rank, Space>>;
  const std::string operation = name;
  cls.def(
      name,
      [run, run_masked, operation](ReductionHolder& r, const Result& result,
                                   const ArrayHolder<T, Rank>& source,
                                   const ArrayHolder<bool, Rank>* mask) {
        if constexpr (std::is_same<RunMasked, std::nullptr_t>::value) {
          if (mask)
            throw adlib::Error(operation + " along a dimension takes no mask", -1,
                               "DimensionReduction");
          py::gil_scoped_release unlocked;
          run(r.get(), result.get(), source.get());
        } else {
          py::gil_scoped_release unlocked;
          if (mask)
            run_masked(r.get(), result.get(), source.get(), mask->get());
          else
            run(r.get(), result.get(), source.get());
        }
      },
      py::arg("result"), py::arg("source"), py::arg("mask") = py::none(), doc);
}

/// DimensionReduction_<name>_<Rank>d.
template <class T, int Rank>
void bind_dimension_reduction(py::module_& m, const std::string& name) {
  using Holder = ArrayHolder<T, Rank>;
  using Schedule = adlib::DimensionReduction<T, Rank, Space>;
  using ReductionHolder = ScheduleHolder<Schedule>;
  using Values = ArrayHolder<T, Rank - 1>;
  using Locations = ArrayHolder<std::int64_t, Rank - 1>;
  using Truths = ArrayHolder<bool, Rank - 1>;
  const std::string suffix = "_" + name + "_" + std::to_string(Rank) + "d";

  py::class_<ReductionHolder> reduction(
      m, ("DimensionReduction" + suffix).c_str(),
      "Reductions along one dimension, planned for one layout (adlib.DimensionReduction).");
  reduction
      .def(py::init([](const Holder& source, int dimension) {
             return new ReductionHolder(Schedule(source.get(), dimension));
           }),
           py::arg("source"), py::arg("dimension"))
      .def(
          "make_result",
          [](ReductionHolder& r, py::object dtype) -> py::object {
            // T for sum, product, maxval, minval; int64 for maxloc, minloc,
            // count; bool for any, all.
            const py::dtype want =
                dtype.is_none() ? py::dtype::of<T>() : py::dtype::from_args(dtype);
            if (want.is(py::dtype::of<T>()))
              return py::cast(new Values(r.get().template make_result<T>(), py::none()),
                              py::return_value_policy::take_ownership);
            if (want.is(py::dtype::of<std::int64_t>()))
              return py::cast(
                  new Locations(r.get().template make_result<std::int64_t>(), py::none()),
                  py::return_value_policy::take_ownership);
            if (want.is(py::dtype::of<bool>()))
              return py::cast(new Truths(r.get().template make_result<bool>(), py::none()),
                              py::return_value_policy::take_ownership);
            throw py::type_error("make_result makes arrays of the source's type, int64 or bool");
          },
          py::arg("dtype") = py::none(),
          "A new array of the result layout (collective): dtype None (the source's type: sum, "
          "product, maxval, minval), int64 (maxloc, minloc, count) or bool (any, all).")
      .def_property_readonly(
          "dimension", [](ReductionHolder& r) { return r.get().dimension(); },
          "The dimension it reduces.")
      .def_property_readonly(
          "communicates", [](ReductionHolder& r) { return r.get().communicates(); },
          "Is the reduced dimension distributed over more than one process?");

  // One method per operation (result, source, mask=None); `any` and `all`
  // have no masked form in C++.
  using S = Schedule;
  def_along<T, Rank, Values>(
      reduction, "sum", "result = SUM(source, DIM=dimension, MASK=mask).",
      [](S& s, const auto& r, const auto& a) { s.sum(r, a); },
      [](S& s, const auto& r, const auto& a, const auto& k) { s.sum(r, a, k); });
  def_along<T, Rank, Values>(
      reduction, "product", "result = PRODUCT(source, DIM=dimension, MASK=mask).",
      [](S& s, const auto& r, const auto& a) { s.product(r, a); },
      [](S& s, const auto& r, const auto& a, const auto& k) { s.product(r, a, k); });
  def_along<T, Rank, Locations>(
      reduction, "count", "result = COUNT(source != 0, DIM=dimension, MASK=mask).",
      [](S& s, const auto& r, const auto& a) { s.count(r, a); },
      [](S& s, const auto& r, const auto& a, const auto& k) { s.count(r, a, k); });
  def_along<T, Rank, Truths>(
      reduction, "any", "result = ANY(source != 0, DIM=dimension) (no mask).",
      [](S& s, const auto& r, const auto& a) { s.any(r, a); }, nullptr);
  def_along<T, Rank, Truths>(
      reduction, "all", "result = ALL(source != 0, DIM=dimension) (no mask).",
      [](S& s, const auto& r, const auto& a) { s.all(r, a); }, nullptr);
  if constexpr (!is_complex<T>::value) {
    def_along<T, Rank, Values>(
        reduction, "maxval",
        "result = MAXVAL(source, DIM=dimension, MASK=mask) (-inf, or the lowest integer, where "
        "nothing counts).",
        [](S& s, const auto& r, const auto& a) { s.maxval(r, a); },
        [](S& s, const auto& r, const auto& a, const auto& k) { s.maxval(r, a, k); });
    def_along<T, Rank, Values>(
        reduction, "minval",
        "result = MINVAL(source, DIM=dimension, MASK=mask) (+inf, or the largest integer, "
        "where nothing counts).",
        [](S& s, const auto& r, const auto& a) { s.minval(r, a); },
        [](S& s, const auto& r, const auto& a, const auto& k) { s.minval(r, a, k); });
    def_along<T, Rank, Locations>(
        reduction, "maxloc",
        "result = the position along the dimension of the largest element (the first on "
        "ties, -1 where nothing counts).",
        [](S& s, const auto& r, const auto& a) { s.maxloc(r, a); },
        [](S& s, const auto& r, const auto& a, const auto& k) { s.maxloc(r, a, k); });
    def_along<T, Rank, Locations>(
        reduction, "minloc",
        "result = the position along the dimension of the smallest element (the first on "
        "ties, -1 where nothing counts).",
        [](S& s, const auto& r, const auto& a) { s.minloc(r, a); },
        [](S& s, const auto& r, const auto& a, const auto& k) { s.minloc(r, a, k); });
  }

  m.attr(("DistArray" + suffix).c_str()).attr("_DimensionReduction") = reduction;
}

/// A Broadcast and the section it broadcasts, as positions of the whole array.
template <class T, int Rank>
struct PlannedBroadcast {
  adlib::Broadcast<T, Rank, Space> schedule;
  std::array<adlib::Triplet, Rank> triplets;
  std::vector<py::ssize_t> shape;  ///< the numpy result's (integer subscripts dropped)

  /// The section of `array` (which must have the planned array's layout:
  /// Broadcast checks the section's).
  adlib::DistArray<T, Rank, Space> section(const ArrayHolder<T, Rank>& array) const {
    return array.get().section(triplets);
  }
};

/// A `View` over `data` with `extents` (one per dimension).
template <class View, std::size_t... I>
View make_destination(typename View::pointer_type data, const std::vector<py::ssize_t>& extents,
                      std::index_sequence<I...>) {
  return View(data, static_cast<std::size_t>(extents[I])...);
}

/// Broadcast_<name>_<Rank>d.
template <class T, int Rank>
void bind_broadcast(py::module_& m, const std::string& name) {
  using Holder = ArrayHolder<T, Rank>;
  using Planned = PlannedBroadcast<T, Rank>;
  using BroadcastHolder = ScheduleHolder<Planned>;
  using Triplets = std::vector<std::array<adlib::Index, 3>>;
  const std::string suffix = "_" + name + "_" + std::to_string(Rank) + "d";

  py::class_<BroadcastHolder> broadcast(
      m, ("Broadcast" + suffix).c_str(),
      "A planned broadcast of a section from its owner (adlib.Broadcast).");
  broadcast
      .def(py::init([](const Holder& array, const Triplets& given, std::vector<py::ssize_t> shape,
                       std::optional<adlib::Group> group) {
             if (given.size() != static_cast<std::size_t>(Rank))
               throw adlib::Error(std::to_string(given.size()) + " triplets for an array of rank " +
                                      std::to_string(Rank),
                                  -1, "Broadcast");
             std::array<adlib::Triplet, Rank> triplets;
             for (int d = 0; d < Rank; ++d)
               triplets[d] = adlib::Triplet{given[d][0], given[d][1], given[d][2]};
             const auto section = array.get().section(triplets);
             auto schedule = group ? adlib::Broadcast<T, Rank, Space>(section, *group)
                                   : adlib::Broadcast<T, Rank, Space>(section);
             return new BroadcastHolder(Planned{std::move(schedule), triplets, std::move(shape)});
           }),
           py::arg("array"), py::arg("triplets"), py::arg("shape"), py::arg("group") = py::none())
      .def(
          "execute",
          [](BroadcastHolder& b, const Holder& array) -> py::object {
            const Planned& planned = b.get();
            const auto section = planned.section(array);
            std::vector<py::ssize_t> extents(Rank);
            for (int d = 0; d < Rank; ++d) extents[d] = section.extent(d);
            py::array_t<T, py::array::c_style> out(extents);
            // The destination View lies over the numpy array (C order: LayoutRight).
            using Destination = Kokkos::View<typename adlib::detail::add_pointers<T, Rank>::type,
                                             Kokkos::LayoutRight, Space, Kokkos::MemoryUnmanaged>;
            static T nothing{};
            T* data = out.size() > 0 ? out.mutable_data() : &nothing;
            Destination destination =
                make_destination<Destination>(data, extents, std::make_index_sequence<Rank>{});
            {
              py::gil_scoped_release unlocked;
              planned.schedule.execute(section, destination);
            }
            if (!planned.schedule.member()) return py::none();
            return out.attr("reshape")(py::tuple(py::cast(planned.shape)));
          },
          py::arg("array"),
          "The section of `array` (of the planned layout) on every process of the group, as a "
          "new numpy array (None outside the group); collective.")
      .def(
          "value",
          [](BroadcastHolder& b, const Holder& array) {
            const Planned& planned = b.get();
            const auto element = planned.section(array);
            py::gil_scoped_release unlocked;
            return planned.schedule.value(element);
          },
          py::arg("array"), "The one element of the section on every process of the group.")
      .def_property_readonly(
          "owner", [](BroadcastHolder& b) { return b.get().schedule.owner(); },
          "Does this process send the section?")
      .def_property_readonly(
          "member", [](BroadcastHolder& b) { return b.get().schedule.member(); },
          "Is this process in the group that receives it?")
      .def_property_readonly(
          "sends_in_place", [](BroadcastHolder& b) { return b.get().schedule.sends_in_place(); },
          "Does the owner send straight from the array's memory (no pack)?");

  m.attr(("DistArray" + suffix).c_str()).attr("_Broadcast") = broadcast;
}

/// Every schedule of this file for element type T.
template <class T>
void bind_dimensions_and_broadcast(py::module_& m, const std::string& name) {
  bind_dimension_reduction<T, 2>(m, name);
  bind_dimension_reduction<T, 3>(m, name);
  bind_broadcast<T, 1>(m, name);
  bind_broadcast<T, 2>(m, name);
  bind_broadcast<T, 3>(m, name);
}

}  // namespace adlib_python
