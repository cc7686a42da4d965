// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/index_exchange_plan.hpp>

#include <array>
#include <utility>

#include <adlib/runtime/detail/hash.hpp>

namespace adlib {

namespace {

// The serving rank of each owning coordinate, remembered in a small
// direct-mapped table (fixed size: nothing of the size of the process
// count), because ArrayLayout::replica builds coordinate vectors on every
// call and subscripts revisit the same few owners.
class ServerCache {
 public:
  template <class Compute>
  int get(int coord, Compute compute) {
    Entry& e = entries_[static_cast<std::size_t>(coord) % entries_.size()];
    if (e.coord != coord) e = {coord, compute(coord)};
    return e.rank;
  }

 private:
  struct Entry {
    int coord = -1;
    int rank = -1;
  };
  std::array<Entry, 1024> entries_{};
};

int replica_of(const ArrayLayout& layout, int coord, long long k) {
  return layout.replica(std::vector<int>(1, coord), k);
}

// The rank serving `coord` to `requester` in a gather (gather_owner's rule).
int read_server(const ArrayLayout& layout, int coord, int requester) {
  if (layout.holds_data(requester) && layout.coordinate(requester, 0) == coord) return requester;
  return replica_of(layout, coord, requester % layout.replica_count());
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
  return read_server(layout, coord, requester);
}

std::vector<ElementRequest> resolve_subscripts(const ArrayLayout& layout,
                                               const std::vector<Index>& subscripts, int me,
                                               RemoteAccess access) {
  const Range& range = layout.range(0);
  const Triplet& section = layout.section_triplet(0);
  const long long replicas = access == RemoteAccess::write ? layout.replica_count() : 1;
  std::vector<ElementRequest> requests(subscripts.size() * static_cast<std::size_t>(replicas));
  ServerCache servers;
  const auto serve = [&](int coord) { return read_server(layout, coord, me); };
  const auto first_replica = [&](int coord) { return replica_of(layout, coord, 0); };
  // A 1-D local block is contiguous (the last dimension's stride is 1), so an
  // element's offset is its local position, ghost offset included.
  std::size_t at = 0;
  for (std::size_t k = 0; k < subscripts.size(); ++k) {
    const Owner o = range.owner(section.at(subscripts[k]));
    const auto position = static_cast<std::int64_t>(k);
    if (access == RemoteAccess::read) {
      requests[at++] = {servers.get(o.coord, serve), o.local, position};
    } else if (replicas == 1) {
      requests[at++] = {servers.get(o.coord, first_replica), o.local, position};
    } else {
      for (long long r = 0; r < replicas; ++r)
        requests[at++] = {replica_of(layout, o.coord, r), o.local, position};
    }
  }
  return requests;
}

ResolvedSubscripts resolve_checked(const ArrayLayout& layout, const std::vector<Index>& subscripts,
                                   int me, RemoteAccess access, const std::string& caller_error) {
  ResolvedSubscripts out;
  out.error = caller_error.empty() ? check_subscripts(layout, subscripts) : caller_error;
  if (out.error.empty()) out.requests = resolve_subscripts(layout, subscripts, me, access);
  return out;
}

DataPlan plan_index_exchange(const ArrayLayout& layout, const std::vector<Index>& subscripts,
                             RemoteAccess access, const char* operation,
                             const std::string& caller_error, std::uint64_t caller_fingerprint,
                             SparseExchangeStatistics* statistics) {
  const Comm& comm = layout.group().grid().comm();
  const ResolvedSubscripts resolved =
      resolve_checked(layout, subscripts, comm.rank(), access, caller_error);
  return negotiate_data_plan(comm, resolved.requests, access, operation, resolved.error,
                             detail::hash_mix(layout.fingerprint(), caller_fingerprint),
                             statistics);
}

}  // namespace adlib
