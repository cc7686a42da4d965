// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/index_exchange_plan.hpp>

#include <algorithm>
#include <utility>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/detail/hash.hpp>

namespace adlib {

namespace {

// One subscript on its way to a message: the owning coordinate along the
// range's dimension, the owner-local offset and the output position.
struct Request {
  int coord;
  std::int64_t offset;
  std::int64_t position;
};

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
  // A 1-D local block is contiguous (the last dimension's stride is 1), so
  // an element's offset is its local position, ghost offset included.
  std::vector<Request> requests;
  requests.reserve(subscripts.size());
  for (std::size_t k = 0; k < subscripts.size(); ++k) {
    const Owner o = range.owner(section.at(subscripts[k]));
    requests.push_back({o.coord, o.local, static_cast<std::int64_t>(k)});
  }
  // Grouped by coordinate (one owner, or one set of replicas, each): a
  // gather's offsets ascending (duplicates adjacent, first position first),
  // a scatter's contributions in list order.
  if (access == IndexAccess::gather)
    std::sort(requests.begin(), requests.end(), [](const Request& a, const Request& b) {
      if (a.coord != b.coord) return a.coord < b.coord;
      if (a.offset != b.offset) return a.offset < b.offset;
      return a.position < b.position;
    });
  else
    std::sort(requests.begin(), requests.end(), [](const Request& a, const Request& b) {
      if (a.coord != b.coord) return a.coord < b.coord;
      return a.position < b.position;
    });

  IndexRequests out;
  const long long replicas = layout.replica_count();
  const bool holds = layout.holds_data(me);
  const int my_coord = holds ? layout.coordinate(me, 0) : -1;
  std::vector<int> coords(1, 0);
  for (std::size_t begin = 0, end = 0; begin < requests.size(); begin = end) {
    const int coord = requests[begin].coord;
    end = begin;
    while (end < requests.size() && requests[end].coord == coord) ++end;
    if (access == IndexAccess::gather) {
      // Distinct coordinates have distinct owners (they differ along the
      // range's grid axis), so this is the one message to that owner.
      const int owner =
          holds && my_coord == coord ? me : replica_of(layout, coords, coord, me % replicas);
      SparseMessage<std::int64_t> message{owner, {}};
      PeerIndices receive{owner, {}};
      for (std::size_t i = begin; i < end; ++i) {
        const Request& r = requests[i];
        if (i > begin && r.offset == requests[i - 1].offset) {
          // A repeat: fanned out from the first position that asked.
          out.plan.fan_out.push_back({r.position, receive.offsets.back()});
          continue;
        }
        message.values.push_back(r.offset);
        receive.offsets.push_back(r.position);
      }
      out.to_owners.push_back(std::move(message));
      out.plan.exchange.recv_indices.push_back(std::move(receive));
    } else {
      SparseMessage<std::int64_t> message{-1, {}};
      PeerIndices receive{-1, {}};
      for (std::size_t i = begin; i < end; ++i) {
        message.values.push_back(requests[i].offset);
        receive.offsets.push_back(requests[i].position);
      }
      // Every replica receives every contribution.
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
