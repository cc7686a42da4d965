// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/negotiated_remap_plan.hpp>

#include <unordered_map>
#include <utility>

#include <adlib/collectives/remap_plan.hpp>
#include <adlib/runtime/error.hpp>

namespace adlib {

RemapRequests negotiated_remap_requests(const ArrayLayout& dst, const ArrayLayout& src,
                                        const Comm& comm) {
  RemapRequests out;
  const int me = comm.rank(), rank = dst.rank();
  if (src.has_padding())
    out.error =
        "the source is padded; a Remap planned by negotiation (an unstructured layout) computes "
        "the owners' offsets from their allocations and needs packed sources";

  // Step 1: per dimension, the positions held here and their source owners.
  std::vector<std::vector<std::pair<Index, Index>>> axes(static_cast<std::size_t>(rank));
  bool holds = out.error.empty() && dst.holds_data(me);
  for (int d = 0; d < rank && holds; ++d) {
    axes[static_cast<std::size_t>(d)] = dst.held_along(me, d);
    holds = !axes[static_cast<std::size_t>(d)].empty();
  }
  std::vector<std::vector<Owner>> owners(static_cast<std::size_t>(rank));
  for (int d = 0; d < rank; ++d) {
    // Every rank takes part, for every dimension, holding something or not.
    std::vector<Index> globals;
    if (holds)
      for (const auto& held : axes[static_cast<std::size_t>(d)])
        globals.push_back(src.section_triplet(d).at(held.first));
    owners[static_cast<std::size_t>(d)] = src.range(d).locate(globals);
  }
  if (!holds) return out;

  // Step 2: one request per element, C order of the held positions.  The
  // serving rank and its strides are cached by owner coordinates, numbered
  // in mixed radix (less than the grid's size: ranges use distinct axes).
  const std::vector<Index> local_strides = dst.local_strides(me);
  std::vector<int> mine;
  if (src.holds_data(me))
    for (int d = 0; d < rank; ++d) mine.push_back(src.coordinate(me, d));
  const long long replicas = src.replica_count();
  struct Server {
    int rank;
    std::vector<Index> strides;
  };
  std::unordered_map<long long, Server> servers;
  std::vector<int> coords(static_cast<std::size_t>(rank));
  std::vector<std::size_t> at(static_cast<std::size_t>(rank), 0);
  std::size_t elements = 1;
  for (const auto& a : axes) elements *= a.size();
  out.requests.reserve(elements);
  while (true) {
    Index local = 0;
    long long key = 0, scale = 1;
    for (int d = 0; d < rank; ++d) {
      const auto k = static_cast<std::size_t>(d);
      local += axes[k][at[k]].second * local_strides[k];
      coords[k] = owners[k][at[k]].coord;
      key += coords[k] * scale;
      scale *= src.range(d).process_count();
    }
    auto it = servers.find(key);
    if (it == servers.end()) {
      const int server = coords == mine ? me : src.replica(coords, me % replicas);
      it = servers.emplace(key, Server{server, src.local_strides(server)}).first;
    }
    Index owner_offset = 0;
    for (int d = 0; d < rank; ++d) {
      const auto k = static_cast<std::size_t>(d);
      owner_offset += owners[k][at[k]].local * it->second.strides[k];
    }
    out.requests.push_back({it->second.rank, owner_offset, local});
    int d = rank - 1;
    for (; d >= 0; --d) {
      const auto k = static_cast<std::size_t>(d);
      if (++at[k] < axes[k].size()) break;
      at[k] = 0;
    }
    if (d < 0) break;
  }
  return out;
}

ExchangePlan negotiate_remap_plan(const ArrayLayout& dst, const ArrayLayout& src, const Comm& comm,
                                  const std::string& caller_error,
                                  std::uint64_t caller_fingerprint) {
  RemapRequests mine = negotiated_remap_requests(dst, src, comm);
  const std::string error = caller_error.empty() ? mine.error : caller_error;
  if (!error.empty()) mine.requests.clear();
  DataPlan plan = negotiate_data_plan(comm, StoredRequests(mine.requests), RemoteAccess::read,
                                      "Remap", error, caller_fingerprint);
  // A remap reads each source element once per destination copy: a read
  // fetched twice (which would need a fan-out) cannot come from it.
  if (!plan.fan_out.empty())
    throw Error("internal: a negotiated remap requested an element twice", comm.rank(), "Remap");
  return std::move(plan.exchange);
}

ExchangePlan remap_exchange_plan(const ArrayLayout& dst, const ArrayLayout& src, const Comm& comm) {
  if (dst.plannable_locally() && src.plannable_locally()) return plan_remap(dst, src, comm.rank());
  return negotiate_remap_plan(dst, src, comm);
}

}  // namespace adlib
