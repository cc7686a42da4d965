// SPDX-License-Identifier: BSD-3-Clause
/// @file
/// ProcessGrid, Dimension and Group: where an array lives (Adlib's Procs).
///
/// @code
///   adlib::ProcessGrid grid(comm, {2, 2});          // 2 x 2, ranks in C order
///   adlib::ProcessGrid world(MPI_COMM_WORLD, {2, 2});        // the same from an MPI_Comm
///   adlib::ProcessGrid right(comm, {1, 2}, {5, 7}); // over ranks 5 and 7 only
///   adlib::Dimension rows = grid.dim(0);            // one axis, for a Range
///   adlib::Group row0 = adlib::Group(grid).restrict(0, 0);   // first grid row
/// @endcode
///
/// A grid of shape (p_0, ..., p_{n-1}) maps coordinates to ranks of its
/// communicator in C order (as in the DAP); ranks beyond the product are
/// outside the grid and hold nothing.  A grid over a rank list (BLACS_GRIDMAP)
/// puts the i-th grid position in C order on ranks[i] instead: several grids
/// can sit side by side on one communicator, each over its own ranks, and
/// arrays on them can be remapped into one another.  Every rank of the
/// communicator builds every grid (with the same arguments); is_member() tells
/// a rank whether it belongs to one.  A grid made without a communicator
/// describes the same mapping for planning in one process (simulated process
/// counts).  A Group is a grid with some dimensions fixed to one coordinate;
/// an array over a group is replicated over every free dimension that none of
/// its ranges is distributed over.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <adlib/runtime/comm.hpp>

namespace adlib {

class Dimension;

/// A Cartesian grid of processes (see the file overview): the shape plus, when it
/// has one, the communicator whose ranks fill it.  Copies share one immutable
/// state, so copying is cheap.
class ProcessGrid {
 public:
  /// Over a communicator; the product of `shape` may be smaller than its size.
  ProcessGrid(const Comm& comm, std::vector<int> shape);
  /// The same over the library's duplicate of `comm` (adlib::Comm(comm)).
  ProcessGrid(MPI_Comm comm, std::vector<int> shape);
  /// Over the listed ranks of `comm` (BLACS_GRIDMAP): grid position i, in C
  /// order of the coordinates, is rank ranks[i].  The list must hold exactly
  /// the product of `shape` distinct ranks of `comm`, in any order.
  ProcessGrid(const Comm& comm, std::vector<int> shape, std::vector<int> ranks);
  /// The same over the library's duplicate of `comm`.
  ProcessGrid(MPI_Comm comm, std::vector<int> shape, std::vector<int> ranks);
  /// Without MPI: only for planning (simulated ranks 0 .. product-1).
  explicit ProcessGrid(std::vector<int> shape);
  /// Without MPI, over a rank list: only for planning.
  static ProcessGrid planning(std::vector<int> shape, std::vector<int> ranks);
  /// All ranks of `comm` in `dimensions` axes, shape chosen by MPI_Dims_create.
  static ProcessGrid balanced(const Comm& comm, int dimensions);
  /// The same over the library's duplicate of `comm`.
  static ProcessGrid balanced(MPI_Comm comm, int dimensions);

  /// Number of axes.
  int dimensions() const { return static_cast<int>(state_->shape.size()); }
  /// Number of processes along `axis`.
  int extent(int axis) const { return state_->shape.at(axis); }
  /// The extent of every axis.
  const std::vector<int>& shape() const { return state_->shape; }
  /// Number of grid processes (the product of the shape).
  int size() const { return state_->size; }
  /// Axis `axis` as a Dimension to distribute a Range over.
  Dimension dim(int axis) const;

  /// Ranks are ranks of the communicator (for a grid over a rank list too).
  bool contains(int rank) const { return position(rank) >= 0; }
  /// Does the calling process belong to this grid?  (Needs a communicator.)
  bool is_member() const { return contains(comm().rank()); }
  /// Coordinates of `rank` (which must be inside the grid).
  std::vector<int> coordinates(int rank) const;
  /// Coordinate of `rank` (inside the grid) along `axis`.
  int coordinate(int rank, int axis) const;
  /// The rank at `coordinates` (one per axis, each within its extent).
  int rank_of(const std::vector<int>& coordinates) const;
  /// The rank at each grid position in C order: 0 .. size()-1 unless the
  /// grid was made over a rank list.
  std::vector<int> ranks() const;

  /// False for a planning grid made without MPI.
  bool has_comm() const { return state_->comm.has_value(); }
  const Comm& comm() const;  ///< throws if made without one

  /// Same shape, same rank list and the same communicator.
  bool operator==(const ProcessGrid& o) const {
    return state_ == o.state_ ||
           (state_->shape == o.state_->shape && state_->ranks == o.state_->ranks &&
            state_->comm == o.state_->comm);
  }
  /// Not operator==.
  bool operator!=(const ProcessGrid& o) const { return !(*this == o); }
  /// "grid(2x2)", with the rank list for a grid over one: identical on every rank,
  /// so it enters the cross-rank agreement of schedules.
  std::string describe() const;

  /// The shared, immutable representation behind a grid and its copies.
  struct State {
    /// Processes per axis.
    std::vector<int> shape;
    std::vector<int> suffix;  ///< rank strides of each axis
    /// Product of the shape.
    int size = 1;
    /// None for a planning grid.
    std::optional<Comm> comm;
    std::vector<int> ranks;     ///< grid position -> rank; empty: the identity
    std::vector<int> position;  ///< rank -> grid position or -1 (rank-list grids)
  };
  /// The shared representation.
  const std::shared_ptr<const State>& state() const { return state_; }

 private:
  explicit ProcessGrid(std::shared_ptr<const State> s) : state_(std::move(s)) {}
  /// Grid position (C order) of `rank`, or -1 outside the grid.
  int position(int rank) const {
    if (state_->ranks.empty()) return rank >= 0 && rank < state_->size ? rank : -1;
    return rank >= 0 && rank < static_cast<int>(state_->position.size()) ? state_->position[rank]
                                                                         : -1;
  }
  friend class Dimension;
  std::shared_ptr<const State> state_;
};

/// One axis of a process grid: what a distributed Range is distributed over.
class Dimension {
 public:
  /// Axis `axis` of `grid`; throws adlib::Error if the grid has no such axis.
  Dimension(const ProcessGrid& grid, int axis);
  /// Number of processes along the axis.
  int size() const { return grid_.extent(axis_); }
  /// The axis of the grid.
  int axis() const { return axis_; }
  /// The grid the axis belongs to.
  const ProcessGrid& grid() const { return grid_; }
  /// Same axis of the same grid.
  bool operator==(const Dimension& o) const { return axis_ == o.axis_ && grid_ == o.grid_; }
  /// Not operator==.
  bool operator!=(const Dimension& o) const { return !(*this == o); }

 private:
  ProcessGrid grid_;
  int axis_;
};

/// The processes of a grid with some axes fixed to one coordinate (Adlib's
/// Group): what an array is distributed over.  A grid converts to the group of
/// all its processes.
class Group {
 public:
  /// Every process of `grid` (implicit: every grid is the group of all its
  /// processes).
  Group(const ProcessGrid& grid);  // NOLINT: every grid is the group of all its processes
  /// The same group with dimension `axis` fixed to `coordinate`.
  Group restrict(int axis, int coordinate) const;

  /// The grid the group is part of.
  const ProcessGrid& grid() const { return grid_; }
  /// -1 where free, the coordinate where restricted.
  const std::vector<int>& fixed() const { return fixed_; }
  /// Is `axis` not restricted?
  bool is_free(int axis) const { return fixed_.at(axis) < 0; }
  /// Is `rank` (a rank of the grid's communicator) a member?
  bool contains(int rank) const;
  int size() const;  ///< processes in the group
  /// The ranks of the members (of the grid's communicator), in C order of
  /// their grid coordinates: member i of the group's communicator.
  std::vector<int> ranks() const;

  /// Same grid, same restrictions.
  bool operator==(const Group& o) const { return grid_ == o.grid_ && fixed_ == o.fixed_; }
  /// Not operator==.
  bool operator!=(const Group& o) const { return !(*this == o); }
  /// The grid's describe() followed by ".restrict(axis,coordinate)" per fixed axis.
  std::string describe() const;

 private:
  ProcessGrid grid_;
  std::vector<int> fixed_;
};

}  // namespace adlib
