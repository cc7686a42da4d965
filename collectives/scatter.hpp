// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Scatter: every rank combines a list of values into a distributed 1-D
/// array at global subscripts that only it knows (the vector form of
/// Adlib's Scatter, PETSc's VecScatter in reverse with ADD_VALUES, a finite-
/// element assembly): dst[subscripts[k]] = combine(dst[subscripts[k]],
/// values[k]) for every k of every rank.
///
/// @code
///   adlib::DistArray<double, 1> x(grid, {adlib::block(n)});
///   std::vector<adlib::Index> targets = {4, 9, 4};       // repeats combine
///   adlib::Scatter assemble(x, targets, adlib::op::add);  // negotiate once (collective)
///   Kokkos::View<double*> values("values", targets.size());
///   for (int step = 0; step < steps; ++step) {
///     ...                                                // compute values
///     assemble.execute(x, values);                       // x[targets[k]] += values[k]
///   }
///   adlib::scatter(x, targets, values, adlib::op::max);  // one-shot
/// @endcode
///
/// It is the reverse of a Gather of the same subscripts: the schedule runs
/// backwards (values travel from the requesting rank to the owner), and every
/// arriving value is combined into its target with the combine operation of
/// runtime/combine.hpp (op::add by default, op::replace, op::min, op::max,
/// op::product, or op::combine(f) for a user's f(T& target, const T& value)).
///
/// Every contribution travels: repeated subscripts are not merged on the
/// sending side (which would be right for associative operations only), so
/// the owner applies the operation to each contribution, one by one.  Order:
/// one rank's contributions are applied in list order; an owner applies its
/// own contributions first (local copies), then the other ranks' messages in
/// rank order (runtime/combine.hpp), so a combining scatter gives the same
/// result in every run, bitwise.  With op::replace (which does not combine)
/// messages are unpacked as they arrive: an element that several ranks write
/// ends up as one of those ranks' last contribution to it.  A replicated array
/// receives every contribution in every replica, so its replicas stay equal.
///
/// Construction is collective and agrees across ranks on the layout, the
/// element type, the combine operation and the configuration, and checks
/// the subscripts: a difference or a bad subscript on any rank is the same
/// adlib::Error on every rank, before any message.  That construction, the
/// layout check of an execution and the inquiries are shared with Gather
/// (collectives/subscript_list_schedule.hpp).
#pragma once

#include <Kokkos_Core.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <adlib/collectives/subscript_list_schedule.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/configuration.hpp>

namespace adlib {

/// A planned scatter of one rank's values into 1-D arrays of one layout at
/// its list of global subscripts, combining with `Combine` (see the file
/// overview): construct once (collective), execute many times.  size(),
/// layout() and negotiation() are SubscriptListSchedule's, shared with
/// Gather.
template <class T, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space,
          class Combine = op::Add>
class Scatter : public SubscriptListSchedule<T, MemorySpace> {
  static_assert(std::is_trivially_copyable<T>::value, "Scatter moves elements as bytes");

 public:
  /// The arrays it writes.
  using array_type = DistArray<T, 1, MemorySpace>;

  /// Plans the scatter to `subscripts` (positions of the array, repeats
  /// allowed; each rank its own list, possibly empty) into arrays of `dst`'s
  /// layout, combining with `combine`.  Collective; the layout, element type,
  /// operation and `config` must be the same on every rank.
  Scatter(const array_type& dst, const std::vector<Index>& subscripts, Combine combine = {},
          const Configuration& config = Configuration::environment())
      : Scatter(dst.layout(), subscripts, combine, config) {}

  /// The same from the layout alone.
  Scatter(const ArrayLayout& layout, const std::vector<Index>& subscripts, Combine combine = {},
          const Configuration& config = Configuration::environment())
      : SubscriptListSchedule<T, MemorySpace>(layout, subscripts, RemoteAccess::write, "Scatter",
                                              op::fingerprint(combine), config),
        combine_(combine) {}

  /// dst[subscripts[k]] combine= values[k] for every k: `values` is a
  /// rank-1 View of the schedule's memory space (elements may be const),
  /// unit stride, at least size() elements.
  template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
  void execute(const array_type& dst, const View& values) {
    start(dst, values);
    this->finish();
  }
  /// The same from memory of the schedule's space holding size() values
  /// (may be null when size() is 0).
  void execute(const array_type& dst, const T* values) {
    start(dst, values);
    this->finish();
  }

  /// execute() in two halves: neither `dst`'s local block nor `values` may
  /// be touched before finish().
  template <class View, class = std::enable_if_t<Kokkos::is_view<View>::value>>
  void start(const array_type& dst, const View& values) {
    static_assert(static_cast<int>(View::rank) == 1, "Scatter reads a rank-1 View");
    static_assert(std::is_same<typename View::non_const_value_type, T>::value,
                  "the View's elements must be the Scatter's element type");
    static_assert(std::is_same<typename View::memory_space, MemorySpace>::value,
                  "the View must live in the Scatter's memory space");
    start_checked(dst, values.data(),
                  detail::vector_view_error(values, this->size(), "the values View"));
  }
  /// The pointer form of start().
  void start(const array_type& dst, const T* values) {
    start_checked(dst, values,
                  this->size() > 0 && values == nullptr ? "the values are null" : std::string());
  }

  /// The combine operation.
  const Combine& combine() const { return combine_; }

 private:
  void start_checked(const array_type& dst, const T* values, std::string error) {
    this->agree_to_execute_on(dst, "destination", std::move(error), "Scatter::execute",
                              op::fingerprint(combine_));
    this->schedule_->start_write(dst.local_view().data(), dst.local_view().span(), values,
                                 this->size(), combine_);
  }

  Combine combine_;
};

/// Deduction guides: adlib::Scatter s(x, subscripts) adds; adlib::Scatter
/// s(x, subscripts, op) combines with op; T and MemorySpace from the array.
template <class T, class MemorySpace>
Scatter(const DistArray<T, 1, MemorySpace>&, const std::vector<Index>&)
    -> Scatter<T, MemorySpace, op::Add>;
/// See above.
template <class T, class MemorySpace, class Combine>
Scatter(const DistArray<T, 1, MemorySpace>&, const std::vector<Index>&, Combine)
    -> Scatter<T, MemorySpace, Combine>;
/// See above.
template <class T, class MemorySpace, class Combine>
Scatter(const DistArray<T, 1, MemorySpace>&, const std::vector<Index>&, Combine,
        const Configuration&) -> Scatter<T, MemorySpace, Combine>;

/// One-shot scatter (collective): plan, dst[subscripts[k]] combine=
/// values[k], drop the schedule.  `values`: a rank-1 View or a pointer, as
/// Scatter::execute.
template <class T, class MemorySpace, class Values, class Combine = op::Add>
void scatter(const DistArray<T, 1, MemorySpace>& dst, const std::vector<Index>& subscripts,
             const Values& values, Combine combine = {}) {
  Scatter<T, MemorySpace, Combine> schedule(dst, subscripts, combine);
  schedule.execute(dst, values);
}

}  // namespace adlib
