// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/index_exchange_plan.hpp>

#include <algorithm>
#include <unordered_map>
#include <utility>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/detail/hash.hpp>

namespace adlib {

namespace {

// The replicas of one coordinate, listed without ranks_holding(): the
// layout's replica(coords, k) for k < count.
int replica_of(const ArrayLayout& layout, std::vector<int>& coords, int coord, long long k) {
  coords[0] = coord;
  return layout.replica(coords, k);
}

}  // namespace

std::string check_subscripts(const ArrayLayout& layout, const std::vector<Index>& subscripts) {
  if (layout.rank() != 1)
    return "the layout has " + std::to_string(layout.rank()) +
           " dimensions; subscript lists address 1-D arrays";
  const Index n = layout.extent(0);
  for (std::size_t k = 0; k < subscripts.size(); ++k)
    if (subscripts[k] < 0 || subscripts[k] >= n)
      return "subscript " + std::to_string(subscripts[k]) + " at position " + std::to_string(k) +
             " is outside [0, " + std::to_string(n) + ")";
  return {};
}

int gather_owner(const ArrayLayout& layout, Index subscript, int requester) {
  const int coord = layout.range(0).owner(layout.section_triplet(0).at(subscript)).coord;
  if (layout.holds_data(requester) && layout.coordinate(requester, 0) == coord) return requester;
  std::vector<int> coords(1, coord);
  return layout.replica(coords, requester % layout.replica_count());
}

IndexRequests plan_requests(const ArrayLayout& layout, const std::vector<Index>& subscripts, int me,
                            IndexAccess access) {
  const Range& range = layout.range(0);
  const Triplet& section = layout.section_triplet(0);
  const std::size_t n = subscripts.size();
  // 1. Count the subscripts per owning coordinate.  Coordinates are numbered
  // in order of first appearance (a hash map over the coordinates touched:
  // nothing of the size of the range's process count).
  std::unordered_map<int, int> group_of;
  std::vector<int> coord_of_group;
  std::vector<std::size_t> group_start;  // counts first, then starts
  int last_coord = -1, last_group = -1;
  auto group_of_coord = [&](int coord) {
    if (coord != last_coord) {  // runs of one owner are common: skip the lookup
      const auto found = group_of.emplace(coord, static_cast<int>(coord_of_group.size()));
      if (found.second) {
        coord_of_group.push_back(coord);
        group_start.push_back(0);
      }
      last_coord = coord;
      last_group = found.first->second;
    }
    return static_cast<std::size_t>(last_group);
  };
  for (std::size_t k = 0; k < n; ++k)
    ++group_start[group_of_coord(range.owner(section.at(subscripts[k])).coord)];
  std::size_t total = 0;
  for (std::size_t& start : group_start) {
    const std::size_t count = start;
    start = total;
    total += count;
  }
  group_start.push_back(total);
  // 2. (owner-local offset, position) of every subscript, grouped by owner,
  // in list order within a group (a stable counting sort; the owner is
  // computed again rather than stored: Range::owner is a few operations,
  // memory first touched is not).  A 1-D local block is contiguous (the last
  // dimension's stride is 1), so an element's offset is its local position,
  // ghost offset included.
  std::vector<std::pair<std::int64_t, std::int64_t>> grouped(n);
  {
    std::vector<std::size_t> next(group_start.begin(), group_start.end() - 1);
    for (std::size_t k = 0; k < n; ++k) {
      const Owner o = range.owner(section.at(subscripts[k]));
      grouped[next[group_of_coord(o.coord)]++] = {o.local, static_cast<std::int64_t>(k)};
    }
  }

  IndexRequests out;
  const long long replicas = layout.replica_count();
  std::vector<int> coords(1, 0);
  for (std::size_t g = 0; g < coord_of_group.size(); ++g) {
    const int coord = coord_of_group[g];
    const std::size_t begin = group_start[g], end = group_start[g + 1];
    if (access == IndexAccess::gather) {
      // Distinct coordinates have distinct owners (they differ along the
      // range's grid axis), so this is the one message to that owner.  Its
      // offsets ascend, each once; the first position that asked receives
      // the value, the others copy it (fan-out).
      const int owner =
          gather_owner(layout, subscripts[static_cast<std::size_t>(grouped[begin].second)], me);
      const auto first = grouped.begin() + static_cast<std::ptrdiff_t>(begin);
      const auto last = grouped.begin() + static_cast<std::ptrdiff_t>(end);
      std::sort(first, last);
      std::size_t distinct = begin < end ? 1 : 0;
      for (std::size_t i = begin + 1; i < end; ++i)
        distinct += grouped[i].first != grouped[i - 1].first;
      SparseMessage<std::int64_t> message{owner, {}};
      PeerIndices receive{owner, {}};
      message.values.reserve(distinct);
      receive.offsets.reserve(distinct);
      for (std::size_t i = begin; i < end; ++i) {
        if (i > begin && grouped[i].first == grouped[i - 1].first) {
          // A repeat: fanned out from the first position that asked.
          out.plan.fan_out.push_back({grouped[i].second, receive.offsets.back()});
          continue;
        }
        message.values.push_back(grouped[i].first);
        receive.offsets.push_back(grouped[i].second);
      }
      out.to_owners.push_back(std::move(message));
      out.plan.exchange.recv_indices.push_back(std::move(receive));
    } else {
      // Every contribution, in list order, to every replica.
      SparseMessage<std::int64_t> message{-1, {}};
      PeerIndices receive{-1, {}};
      message.values.reserve(end - begin);
      receive.offsets.reserve(end - begin);
      for (std::size_t i = begin; i < end; ++i) {
        message.values.push_back(grouped[i].first);
        receive.offsets.push_back(grouped[i].second);
      }
      for (long long k = 0; k < replicas; ++k) {
        const int owner = replica_of(layout, coords, coord, k);
        message.peer = receive.peer = owner;
        if (k + 1 == replicas) {
          out.to_owners.push_back(std::move(message));
          out.plan.exchange.recv_indices.push_back(std::move(receive));
        } else {
          out.to_owners.push_back(message);
          out.plan.exchange.recv_indices.push_back(receive);
        }
      }
    }
  }
  // Ascending peer (coordinates map to ranks in grid order, not rank order).
  std::sort(out.to_owners.begin(), out.to_owners.end(),
            [](const auto& a, const auto& b) { return a.peer < b.peer; });
  std::sort(out.plan.exchange.recv_indices.begin(), out.plan.exchange.recv_indices.end(),
            [](const PeerIndices& a, const PeerIndices& b) { return a.peer < b.peer; });
  return out;
}

void add_owner_side(ExchangePlan& exchange, std::vector<SparseMessage<std::int64_t>> received) {
  exchange.send_indices.reserve(exchange.send_indices.size() + received.size());
  for (SparseMessage<std::int64_t>& m : received)
    exchange.send_indices.push_back({m.peer, std::move(m.values)});
}

IndexPlan plan_index_exchange(const ArrayLayout& layout, const std::vector<Index>& subscripts,
                              IndexAccess access, const char* operation,
                              const std::string& caller_error, std::uint64_t caller_fingerprint,
                              SparseExchangeStatistics* statistics) {
  const Comm& comm = layout.group().grid().comm();
  std::string error = caller_error;
  if (error.empty()) error = check_subscripts(layout, subscripts);
  const std::uint64_t fingerprint = detail::hash_mix(
      detail::hash_mix(detail::hash_mix(detail::hash_start(), layout.fingerprint()),
                       static_cast<std::uint64_t>(access) + 1),
      caller_fingerprint);
  // Before any message: bad subscripts on one rank are an error everywhere.
  agree_on_errors(comm, error, fingerprint, operation);
  IndexRequests requests = plan_requests(layout, subscripts, comm.rank(), access);
  add_owner_side(requests.plan.exchange,
                 exchange_sparse(comm, requests.to_owners, operation, statistics));
  return std::move(requests.plan);
}

}  // namespace adlib
