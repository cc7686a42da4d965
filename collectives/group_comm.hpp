// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// The communicator of a process Group: what reductions and broadcasts over
/// an array's group (or over one process dimension of it) run on.
///
/// @code
///   adlib::Group row = adlib::Group(grid).restrict(0, my_row);
///   adlib::Comm members = adlib::group_comm(row);   // collective over the row only
///   adlib::RedxSchedule<double> sum(members, n);
/// @endcode
///
/// Member i is Group::ranks()[i].  The communicator is created once per
/// group (Comm::subset: collective over the group's members only) and kept
/// with the grid's communicator, so schedules built every iteration cost no
/// communicator creation.  The whole grid over the whole communicator is the
/// grid's communicator itself.
#pragma once

#include <adlib/ranges/process_grid.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

/// Collective over the members of `group` (the caller must be one): the
/// library communicator of its members, in Group::ranks() order.
inline Comm group_comm(const Group& group) {
  const Comm& comm = group.grid().comm();
  if (!group.contains(comm.rank()))
    throw Error("rank " + std::to_string(comm.rank()) + " is not a member of " + group.describe(),
                comm.rank(), "group_comm");
  return comm.subset(group.ranks());
}

/// The group of the processes that differ from `rank` only along `axis` of
/// `group`'s grid (the others fixed at rank's coordinates): the members a
/// reduction along a dimension distributed over `axis` combines.
inline Group axis_group(const Group& group, int rank, int axis) {
  Group line = group;
  const ProcessGrid& grid = group.grid();
  for (int a = 0; a < grid.dimensions(); ++a)
    if (a != axis && line.is_free(a)) line = line.restrict(a, grid.coordinate(rank, a));
  return line;
}

}  // namespace adlib
