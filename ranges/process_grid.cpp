// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/process_grid.hpp>

#include <mpi.h>

#include <adlib/runtime/error.hpp>

namespace adlib {

namespace {

std::shared_ptr<ProcessGrid::State> make_state(std::vector<int> shape, std::optional<Comm> comm) {
  auto state = std::make_shared<ProcessGrid::State>();
  if (shape.empty()) throw Error("a process grid needs at least one axis", -1, "ProcessGrid");
  state->suffix.assign(shape.size(), 1);
  long long size = 1;
  for (size_t a = shape.size(); a-- > 0;) {
    if (shape[a] < 1)
      throw Error("grid extent " + std::to_string(shape[a]) + " on axis " + std::to_string(a) +
                      " must be at least 1",
                  comm ? comm->rank() : -1, "ProcessGrid");
    state->suffix[a] = static_cast<int>(size);
    size *= shape[a];
    if (size > (1LL << 31) - 1) throw Error("grid has too many processes", -1, "ProcessGrid");
  }
  state->size = static_cast<int>(size);
  state->shape = std::move(shape);
  state->comm = std::move(comm);
  return state;
}

}  // namespace

ProcessGrid::ProcessGrid(const Comm& comm, std::vector<int> shape)
    : state_(make_state(std::move(shape), comm)) {
  if (state_->size > comm.size())
    throw Error("grid of " + std::to_string(state_->size) + " processes does not fit in " +
                    std::to_string(comm.size()) + " ranks",
                comm.rank(), "ProcessGrid");
}

ProcessGrid::ProcessGrid(std::vector<int> shape) : state_(make_state(std::move(shape), {})) {}

ProcessGrid ProcessGrid::balanced(const Comm& comm, int dimensions) {
  std::vector<int> shape(dimensions, 0);
  ADLIB_MPI(MPI_Dims_create(comm.size(), dimensions, shape.data()), "ProcessGrid");
  return ProcessGrid(comm, shape);
}

Dimension ProcessGrid::dim(int axis) const {
  return Dimension(*this, axis);
}

std::vector<int> ProcessGrid::coordinates(int rank) const {
  std::vector<int> c(state_->shape.size());
  for (size_t a = 0; a < c.size(); ++a) c[a] = (rank / state_->suffix[a]) % state_->shape[a];
  return c;
}

int ProcessGrid::coordinate(int rank, int axis) const {
  return (rank / state_->suffix[axis]) % state_->shape[axis];
}

int ProcessGrid::rank_of(const std::vector<int>& coordinates) const {
  int rank = 0;
  for (size_t a = 0; a < coordinates.size(); ++a) rank += coordinates[a] * state_->suffix[a];
  return rank;
}

const Comm& ProcessGrid::comm() const {
  if (!state_->comm)
    throw Error("this grid was made without a communicator (planning only)", -1, "ProcessGrid");
  return *state_->comm;
}

std::string ProcessGrid::describe() const {
  std::string s = "grid(";
  for (size_t a = 0; a < state_->shape.size(); ++a)
    s += (a ? "x" : "") + std::to_string(state_->shape[a]);
  return s + ")";
}

Dimension::Dimension(const ProcessGrid& grid, int axis) : grid_(grid), axis_(axis) {
  if (axis < 0 || axis >= grid.dimensions())
    throw Error("axis " + std::to_string(axis) + " is not an axis of " + grid.describe(), -1,
                "Dimension");
}

Group::Group(const ProcessGrid& grid) : grid_(grid), fixed_(grid.dimensions(), -1) {}

Group Group::restrict(int axis, int coordinate) const {
  if (axis < 0 || axis >= grid_.dimensions())
    throw Error("axis " + std::to_string(axis) + " is not an axis of " + grid_.describe(), -1,
                "Group::restrict");
  if (!is_free(axis))
    throw Error("axis " + std::to_string(axis) + " is already restricted", -1, "Group::restrict");
  if (coordinate < 0 || coordinate >= grid_.extent(axis))
    throw Error("coordinate " + std::to_string(coordinate) + " is outside axis " +
                    std::to_string(axis) + " of " + grid_.describe(),
                -1, "Group::restrict");
  Group g = *this;
  g.fixed_[axis] = coordinate;
  return g;
}

bool Group::contains(int rank) const {
  if (!grid_.contains(rank)) return false;
  for (size_t a = 0; a < fixed_.size(); ++a)
    if (fixed_[a] >= 0 && grid_.coordinate(rank, static_cast<int>(a)) != fixed_[a]) return false;
  return true;
}

int Group::size() const {
  int n = 1;
  for (size_t a = 0; a < fixed_.size(); ++a)
    if (fixed_[a] < 0) n *= grid_.extent(static_cast<int>(a));
  return n;
}

std::string Group::describe() const {
  std::string s = grid_.describe();
  for (size_t a = 0; a < fixed_.size(); ++a)
    if (fixed_[a] >= 0)
      s += ".restrict(" + std::to_string(a) + "," + std::to_string(fixed_[a]) + ")";
  return s;
}

}  // namespace adlib
