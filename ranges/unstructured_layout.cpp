// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/ranges/unstructured_layout.hpp>

#include <adlib/runtime/detail/hash.hpp>
#include <adlib/runtime/detail/huge_pages.hpp>
#include <adlib/runtime/directory.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

UnstructuredLayout::UnstructuredLayout(const Comm& comm, std::vector<std::int64_t> owned,
                                       const std::vector<std::vector<std::int64_t>>& halo,
                                       Index column)
    : UnstructuredLayout(std::move(owned), halo, column) {
  std::const_pointer_cast<State>(state_)->comm = comm;
}

UnstructuredLayout::UnstructuredLayout(std::vector<std::int64_t> owned,
                                       const std::vector<std::vector<std::int64_t>>& halo,
                                       Index column) {
  std::size_t entries = owned.size();
  for (const auto& depth : halo) entries += depth.size();
  if (owned.capacity() < entries) {
    // The halo does not fit behind the owned ids: one copy into room for
    // all, in huge pages where it is large (a first write per 4 KiB page
    // costs more than the copy).
    std::vector<std::int64_t> all;
    detail::reserve_huge(all, entries);
    all.insert(all.end(), owned.begin(), owned.end());
    owned = std::move(all);
  }
  auto state = std::make_shared<State>(State{std::nullopt, std::move(owned), {}, column, {}});
  state->depth_end.push_back(static_cast<Index>(state->ids.size()));
  for (const auto& depth : halo) {
    state->ids.insert(state->ids.end(), depth.begin(), depth.end());
    state->depth_end.push_back(static_cast<Index>(state->ids.size()));
  }
  state->error = error_of(*state);
  state_ = std::move(state);
}

UnstructuredLayout UnstructuredLayout::from_local_ids(const Comm& comm,
                                                      std::vector<std::int64_t> ids,
                                                      std::vector<Index> depth_end, Index column) {
  std::string error;
  if (depth_end.empty())
    error = "no depth ends (at least the owned count)";
  else if (depth_end.front() < 0 || depth_end.back() != static_cast<Index>(ids.size()))
    error = "depth ends from " + std::to_string(depth_end.front()) + " to " +
            std::to_string(depth_end.back()) + " for " + std::to_string(ids.size()) +
            " ids (from the owned count, at least 0, to the number of ids)";
  for (std::size_t d = 1; d < depth_end.size() && error.empty(); ++d)
    if (depth_end[d] < depth_end[d - 1])
      error = "depth " + std::to_string(d) + " ends at " + std::to_string(depth_end[d]) +
              ", before the depth before it (" + std::to_string(depth_end[d - 1]) + ")";
  if (!error.empty()) depth_end = {static_cast<Index>(ids.size())};
  auto state = std::make_shared<State>(
      State{comm, std::move(ids), std::move(depth_end), column, std::move(error)});
  if (state->error.empty()) state->error = error_of(*state);
  UnstructuredLayout layout;
  layout.state_ = std::move(state);
  return layout;
}

std::string UnstructuredLayout::error_of(const State& state) {
  if (state.column < 1)
    return "a column of " + std::to_string(state.column) + " values (at least 1 per entry)";
  return distinct_ids_error(state.ids, "the owned and halo ids of this rank");
}

const Comm& UnstructuredLayout::comm() const {
  if (!state_->comm)
    throw Error("this UnstructuredLayout was made without a communicator (for planning only)", -1,
                "UnstructuredLayout");
  return *state_->comm;
}

std::uint64_t UnstructuredLayout::fingerprint() const {
  return detail::hash_mix(
      detail::hash_mix(detail::hash_start(), static_cast<std::uint64_t>(depth())),
      static_cast<std::uint64_t>(column()));
}

std::string UnstructuredLayout::describe() const {
  return "unstructured layout with " + std::to_string(depth()) + " halo depths and columns of " +
         std::to_string(column()) + " values";
}

}  // namespace adlib
