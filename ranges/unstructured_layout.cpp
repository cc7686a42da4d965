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
  if (column < 1)
    state->error = "a column of " + std::to_string(column) + " values (at least 1 per entry)";
  else
    state->error = distinct_ids_error(state->ids, "the owned and halo ids of this rank");
  state_ = std::move(state);
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
