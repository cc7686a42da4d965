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
/// one MPI_Allreduce combines the ranks' results, so every rank gets the
/// same bits, run after run, for a fixed process count.  A rank owning
/// nothing contributes the operation's identity; over an empty field the
/// sum is 0, the minimum std::numeric_limits<T>::max() and the maximum
/// lowest().  In checked mode (Configuration::checked) the ranks first agree
/// on the element type and the layout's depths and column, so a rank passing
/// another field fails with the others instead of corrupting the reduction.
/// (The reductions issue will put these on adlib's own reduction schedules.)
#pragma once

#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstddef>
#include <limits>
#include <type_traits>

#include <adlib/ranges/unstructured_field.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/element_type.hpp>
#include <adlib/runtime/error.hpp>

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
/// owned values, then `op` over the ranks.
template <template <class, class> class Reducer, class Fold, class T, class MemorySpace>
T reduce_owned(const UnstructuredField<T, MemorySpace>& field, Fold fold, MPI_Op op,
               const char* operation) {
  static_assert(std::is_arithmetic<T>::value, "field reductions need arithmetic values");
  using execution_space = typename MemorySpace::execution_space;
  const UnstructuredLayout& layout = field.layout();
  const Comm& comm = layout.comm();
  if (Configuration::environment().checked)
    agree_on_errors(comm, layout.error(), hash_mix(layout.fingerprint(), element_fingerprint<T>()),
                    operation);
  const auto count = static_cast<std::size_t>(layout.owned_count() * layout.column());
  T local{};
  Kokkos::parallel_reduce(operation, Kokkos::RangePolicy<execution_space>(0, count),
                          FoldOwned<T, Fold>{field.local_view().data(), fold},
                          Reducer<T, Kokkos::HostSpace>(local));
  T global{};
  ADLIB_MPI(MPI_Allreduce(&local, &global, 1, predefined_datatype<T>(), op, comm.get()), operation);
  return global;
}

}  // namespace detail

/// Collective: the sum of the owned values of `field` over every rank.
template <class T, class MemorySpace>
T global_sum(const UnstructuredField<T, MemorySpace>& field) {
  return detail::reduce_owned<Kokkos::Sum>(field, op::add, MPI_SUM, "global_sum");
}
/// Collective: the smallest owned value of `field` on any rank.
template <class T, class MemorySpace>
T global_min(const UnstructuredField<T, MemorySpace>& field) {
  return detail::reduce_owned<Kokkos::Min>(field, op::min, MPI_MIN, "global_min");
}
/// Collective: the largest owned value of `field` on any rank.
template <class T, class MemorySpace>
T global_max(const UnstructuredField<T, MemorySpace>& field) {
  return detail::reduce_owned<Kokkos::Max>(field, op::max, MPI_MAX, "global_max");
}

}  // namespace adlib
