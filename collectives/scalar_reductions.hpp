// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// One value per process, combined over a process grid or Group, in one
/// line (MPI_Allreduce of one element, PETSc's MPIU_Allreduce with a
/// count of 1): sum_over, min_over, max_over, and reduce_over for any
/// combine operation.
///
/// @code
///   const double residual = adlib::max_over(grid, local_change);  // every rank of the grid
///   const adlib::Index cells = adlib::sum_over(grid, owned.size());
///   const double row_total = adlib::sum_over(adlib::Group(grid).restrict(0, row), x);
///   const bool done = adlib::reduce_over(grid, converged, adlib::op::logical_and);
/// @endcode
///
/// Collective over the group's members, and only they call: a grid smaller
/// than its communicator leaves the ranks beyond it out, and a rank outside
/// the group gets an adlib::Error from group_comm without taking part.
/// Every member passes the same group (the caller's contract: members of
/// different groups share no communicator to check it on) and contributes
/// one value; a member that has nothing to contribute passes the
/// operation's identity (0 for a sum, std::numeric_limits<T>::lowest() for
/// a maximum, max() for a minimum).  Every member gets the same bits, run
/// after run, for a fixed member count and Configuration::reduction.
///
/// Under each call is a one-element reduction schedule (the core of
/// RedxSchedule, over group_comm(group), host memory).  Its construction
/// agrees on the element type, the operation and the Configuration in one
/// small MPI_Allreduce before the reduction itself, so a mismatch (one rank
/// reducing an int where the others reduce a double) is an adlib::Error on
/// every member instead of a hang.  That doubles the messages of a call: a
/// loop that reduces every iteration is better served by a RedxSchedule
/// built once (examples/cg.cpp); reports and convergence checks every few
/// steps are what these are for (examples/heat2d.cpp).
#pragma once

#include <Kokkos_Core.hpp>

#include <adlib/collectives/group_comm.hpp>
#include <adlib/ranges/process_grid.hpp>
#include <adlib/runtime/combine.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/detail/hash.hpp>
#include <adlib/schedules/redx_schedule.hpp>

namespace adlib {

namespace detail {

/// reduce_over, with the name its errors give.
template <class T, class Op>
T reduce_value_over(const Group& group, const T& value, const Op& op, const char* operation) {
  const Configuration& config = Configuration::environment();
  const AllReduce<T, Op, Kokkos::HostSpace> over_members(group_comm(group), 1, op, config,
                                                         operation, {}, hash_start());
  T result = value;
  over_members.run(&result);
  return result;
}

}  // namespace detail

/// Collective over the members of `group` (a ProcessGrid is the group of
/// all its processes): every member's `value` combined with `op` (any
/// associative and commutative operation: op::add, op::min, op::max,
/// op::product, op::logical_and, op::logical_or, op::max_location,
/// op::min_location, op::combine(f)), the same on every member.
template <class T, class Op>
T reduce_over(const Group& group, const T& value, const Op& op) {
  return detail::reduce_value_over(group, value, op, "reduce_over");
}

/// Collective over the members of `group`: the sum of every member's `value`.
template <class T>
T sum_over(const Group& group, const T& value) {
  return detail::reduce_value_over(group, value, op::add, "sum_over");
}

/// Collective over the members of `group`: the smallest member's `value`.
template <class T>
T min_over(const Group& group, const T& value) {
  return detail::reduce_value_over(group, value, op::min, "min_over");
}

/// Collective over the members of `group`: the largest member's `value`.
template <class T>
T max_over(const Group& group, const T& value) {
  return detail::reduce_value_over(group, value, op::max, "max_over");
}

}  // namespace adlib
