// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/process_grid.hpp>

#include <mpi.h>

#include <algorithm>
#include <cstdint>

#include <adlib/runtime/detail/hash.hpp>
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

// Checks and records a rank list (BLACS_GRIDMAP) on a fresh state.
void set_ranks(ProcessGrid::State& state, std::vector<int> ranks) {
  const int rank = state.comm ? state.comm->rank() : -1;
  if (static_cast<long long>(ranks.size()) != state.size)
    throw Error("a grid of " + std::to_string(state.size) + " processes needs " +
                    std::to_string(state.size) + " ranks, not " + std::to_string(ranks.size()),
                rank, "ProcessGrid");
  int highest = -1;
  for (int r : ranks) {
    if (r < 0 || (state.comm && r >= state.comm->size()))
      throw Error("rank " + std::to_string(r) + " is not a rank of the communicator" +
                      (state.comm ? " (size " + std::to_string(state.comm->size()) + ")" : ""),
                  rank, "ProcessGrid");
    highest = std::max(highest, r);
  }
  state.position.assign(static_cast<size_t>(highest) + 1, -1);
  for (size_t i = 0; i < ranks.size(); ++i) {
    if (state.position[ranks[i]] >= 0)
      throw Error("rank " + std::to_string(ranks[i]) + " appears twice in the grid's rank list",
                  rank, "ProcessGrid");
    state.position[ranks[i]] = static_cast<int>(i);
  }
  // The identity list is the plain grid: one description, equal grids.
  bool identity = true;
  for (size_t i = 0; i < ranks.size() && identity; ++i) identity = ranks[i] == static_cast<int>(i);
  if (identity) {
    state.position.clear();
    return;
  }
  state.ranks = std::move(ranks);
}

}  // namespace

ProcessGrid::ProcessGrid(const Comm& comm, std::vector<int> shape)
    : state_(make_state(std::move(shape), comm)) {
  if (state_->size > comm.size())
    throw Error("grid of " + std::to_string(state_->size) + " processes does not fit in " +
                    std::to_string(comm.size()) + " ranks",
                comm.rank(), "ProcessGrid");
}

ProcessGrid::ProcessGrid(MPI_Comm comm, std::vector<int> shape)
    : ProcessGrid(Comm(comm), std::move(shape)) {}

ProcessGrid::ProcessGrid(const Comm& comm, std::vector<int> shape, std::vector<int> ranks) {
  auto state = make_state(std::move(shape), comm);
  set_ranks(*state, std::move(ranks));
  state_ = std::move(state);
}

ProcessGrid::ProcessGrid(MPI_Comm comm, std::vector<int> shape, std::vector<int> ranks)
    : ProcessGrid(Comm(comm), std::move(shape), std::move(ranks)) {}

ProcessGrid::ProcessGrid(std::vector<int> shape) : state_(make_state(std::move(shape), {})) {}

ProcessGrid ProcessGrid::planning(std::vector<int> shape, std::vector<int> ranks) {
  auto state = make_state(std::move(shape), {});
  set_ranks(*state, std::move(ranks));
  return ProcessGrid(std::shared_ptr<const State>(std::move(state)));
}

ProcessGrid ProcessGrid::balanced(const Comm& comm, int dimensions) {
  std::vector<int> shape(dimensions, 0);
  ADLIB_MPI(MPI_Dims_create(comm.size(), dimensions, shape.data()), "ProcessGrid");
  return ProcessGrid(comm, shape);
}

ProcessGrid ProcessGrid::balanced(MPI_Comm comm, int dimensions) {
  return balanced(Comm(comm), dimensions);
}

Dimension ProcessGrid::dim(int axis) const {
  return Dimension(*this, axis);
}

namespace {

[[noreturn]] void not_in_grid(int rank, const ProcessGrid& grid) {
  throw Error("rank " + std::to_string(rank) + " is not a process of " + grid.describe(), -1,
              "ProcessGrid");
}

}  // namespace

std::vector<int> ProcessGrid::coordinates(int rank) const {
  const int p = position(rank);
  if (p < 0) not_in_grid(rank, *this);
  std::vector<int> c(state_->shape.size());
  for (size_t a = 0; a < c.size(); ++a) c[a] = (p / state_->suffix[a]) % state_->shape[a];
  return c;
}

int ProcessGrid::coordinate(int rank, int axis) const {
  const int p = position(rank);
  if (p < 0) not_in_grid(rank, *this);
  return (p / state_->suffix[axis]) % state_->shape[axis];
}

int ProcessGrid::rank_of(const std::vector<int>& coordinates) const {
  int p = 0;
  for (size_t a = 0; a < coordinates.size(); ++a) p += coordinates[a] * state_->suffix[a];
  return state_->ranks.empty() ? p : state_->ranks[p];
}

std::vector<int> ProcessGrid::ranks() const {
  if (!state_->ranks.empty()) return state_->ranks;
  std::vector<int> r(static_cast<size_t>(state_->size));
  for (int i = 0; i < state_->size; ++i) r[i] = i;
  return r;
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
  if (!state_->ranks.empty()) {
    // Every rank of a short list; a long one by its ends and a fingerprint
    // (describe() feeds the cross-rank agreement, so all of it must count).
    constexpr size_t kListed = 16;
    const auto& r = state_->ranks;
    s += " on ranks ";
    for (size_t i = 0; i < r.size() && (i < kListed || r.size() <= kListed); ++i)
      s += (i ? "," : "") + std::to_string(r[i]);
    if (r.size() > kListed) {
      std::uint64_t h = detail::hash_start();
      for (int x : r) h = detail::hash_mix(h, static_cast<std::uint64_t>(static_cast<unsigned>(x)));
      s += ",... (" + std::to_string(r.size()) + " ranks, list hash " + std::to_string(h) + ")";
    }
  }
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

std::vector<int> Group::ranks() const {
  // An odometer over the free axes, the fixed ones held at their coordinate.
  const int axes = grid_.dimensions();
  std::vector<int> at(static_cast<size_t>(axes)), members;
  for (int a = 0; a < axes; ++a) at[a] = is_free(a) ? 0 : fixed_[a];
  members.reserve(static_cast<size_t>(size()));
  for (;;) {
    members.push_back(grid_.rank_of(at));
    int a = axes - 1;
    for (; a >= 0; --a) {
      if (!is_free(a)) continue;
      if (++at[a] < grid_.extent(a)) break;
      at[a] = 0;
    }
    if (a < 0) break;
  }
  return members;
}

std::string Group::describe() const {
  std::string s = grid_.describe();
  for (size_t a = 0; a < fixed_.size(); ++a)
    if (fixed_[a] >= 0)
      s += ".restrict(" + std::to_string(a) + "," + std::to_string(fixed_[a]) + ")";
  return s;
}

}  // namespace adlib
