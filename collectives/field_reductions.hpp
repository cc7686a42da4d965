// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// Global sum, minimum and maximum of an UnstructuredField (LFRic's
/// get_sum / get_min / get_max): over the owned entries only, so that a value
/// held in several ranks' halos counts once, at its owner.
///
/// @code
///   const double total = adlib::global_sum(u);   // collective over the layout's comm
///   const double lowest = adlib::global_min(u);
/// @endcode
///
/// Each rank reduces its owned values in the field's execution space, then
/// a one-value reduction schedule (the core of RedxSchedule, over the
/// layout's communicator, with Configuration::reduction's algorithm)
/// combines the ranks' results, so every rank gets the same bits, run after
/// run, for a fixed process count and algorithm.  The schedule is built per
/// call: its agreement is one small MPI_Allreduce before the reduction
/// itself, so a loop that reduces every iteration is better served by a
/// RedxSchedule built once (examples/cg.cpp).  A rank owning
/// nothing contributes the operation's identity; over an empty field the
/// sum is 0, the minimum std::numeric_limits<T>::max() and the maximum
/// lowest().  The schedule's agreement covers the element type and the
/// operation; in checked mode (Configuration::checked) also the layout's
/// depths and column, so a rank passing another field fails with the others
/// instead of corrupting the reduction.
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <limits>
#include <string>
#include <type_traits>

#include <adlib/ranges/unstructured_field.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/element_type.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/redx_schedule.hpp>

namespace adlib {

namespace detail {

/// The local part of a field reduction: `fold` (op::add, op::min, op::max)
/// over the owned values.
template <class T, class Fold>
struct FoldOwned {
  const T* values;  ///< the field's memory: owned entries first
  Fold fold;        ///< how a value joins the partial result
  /// Folds value i in.
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i, T& partial) const {
    fold(partial, values[i]);
  }
};

/// `Reducer` (Kokkos::Sum, Min, Max: the identity and the join of partial
/// results) and `fold` (the same operation on one value) over this rank's
/// owned values, then `fold` over the ranks.
template <template <class, class> class Reducer, class Fold, class T, class MemorySpace>
T reduce_owned(const UnstructuredField<T, MemorySpace>& field, Fold fold, const char* operation) {
  static_assert(std::is_arithmetic<T>::value, "field reductions need arithmetic values");
  using execution_space = typename MemorySpace::execution_space;
  const UnstructuredLayout& layout = field.layout();
  const Comm& comm = layout.comm();
  const Configuration& config = Configuration::environment();
  // Collective: agrees (with the layout in checked mode) and plans.
  const AllReduce<T, Fold, Kokkos::HostSpace> over_ranks(
      comm, 1, fold, config, operation, config.checked ? layout.error() : std::string(),
      config.checked ? layout.fingerprint() : hash_start());
  const auto count = static_cast<std::size_t>(layout.owned_count() * layout.column());
  T local{};
  Kokkos::parallel_reduce(operation, Kokkos::RangePolicy<execution_space>(0, count),
                          FoldOwned<T, Fold>{field.local_view().data(), fold},
                          Reducer<T, Kokkos::HostSpace>(local));
  over_ranks.run(&local);
  return local;
}

}  // namespace detail

/// Collective: the sum of the owned values of `field` over every rank.
template <class T, class MemorySpace>
T global_sum(const UnstructuredField<T, MemorySpace>& field) {
  return detail::reduce_owned<Kokkos::Sum>(field, op::add, "global_sum");
}
/// Collective: the smallest owned value of `field` on any rank.
template <class T, class MemorySpace>
T global_min(const UnstructuredField<T, MemorySpace>& field) {
  return detail::reduce_owned<Kokkos::Min>(field, op::min, "global_min");
}
/// Collective: the largest owned value of `field` on any rank.
template <class T, class MemorySpace>
T global_max(const UnstructuredField<T, MemorySpace>& field) {
  return detail::reduce_owned<Kokkos::Max>(field, op::max, "global_max");
}

}  // namespace adlib
