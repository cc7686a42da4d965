// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/collectives/index_exchange_plan.hpp>

#include <algorithm>
#include <utility>

#include <adlib/runtime/detail/hash.hpp>

namespace adlib {

namespace {

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

SubscriptRequests::SubscriptRequests(const ArrayLayout& layout,
                                     const std::vector<Index>& subscripts, int me,
                                     RemoteAccess access)
    : layout_(layout),
      subscripts_(subscripts),
      me_(me),
      access_(access),
      replicas_(access == RemoteAccess::write ? static_cast<std::size_t>(layout.replica_count())
                                              : 1),
      servers_(kServers) {
  if (layout.plannable_locally()) return;
  std::vector<Index> globals;
  globals.reserve(subscripts.size());
  if (layout.rank() == 1)
    for (const Index k : subscripts) globals.push_back(layout.section_triplet(0).at(k));
  located_ = layout.range(0).locate(globals);
}

int SubscriptRequests::cache_server(int coord) const {
  CachedServer& cached = servers_[static_cast<std::size_t>(coord) % kServers];
  cached = {coord, access_ == RemoteAccess::read ? read_server(layout_, coord, me_)
                                                 : replica_of(layout_, coord, 0)};
  return cached.rank;
}

void SubscriptRequests::fill(std::size_t first, std::size_t count, ElementRequest* out) const {
  // A 1-D local block is contiguous (the last dimension's stride is 1), so an
  // element's offset is its local position, ghost offset included.  Owners
  // are asked a batch of subscripts at a time (Range::owners_of).
  constexpr std::size_t kBatch = 256;
  Index globals[kBatch];
  Owner owners[kBatch];
  const Triplet section = layout_.section_triplet(0);
  const Range& range = layout_.range(0);
  const std::size_t end = first + count;
  for (std::size_t k = first / replicas_; k * replicas_ < end;) {
    const std::size_t batch = std::min(kBatch, (end + replicas_ - 1) / replicas_ - k);
    if (located_.empty()) {
      for (std::size_t i = 0; i < batch; ++i) globals[i] = section.at(subscripts_[k + i]);
      range.owners_of(globals, batch, owners);
    } else {
      std::copy(located_.begin() + static_cast<std::ptrdiff_t>(k),
                located_.begin() + static_cast<std::ptrdiff_t>(k + batch), owners);
    }
    for (std::size_t i = 0; i < batch; ++i) {
      const Owner o = owners[i];
      const auto position = static_cast<std::int64_t>(k + i);
      if (replicas_ == 1) {
        // The cache is asked for every subscript: random subscripts change
        // owner at random, and a test of "same owner as the last one"
        // mispredicted at every second subscript of GA1.
        out[k + i - first] = {server(o.coord), o.local, position};
        continue;
      }
      for (std::size_t replica = 0; replica < replicas_; ++replica) {
        const std::size_t request = (k + i) * replicas_ + replica;
        if (request >= first && request < end)
          out[request - first] = {replica_of(layout_, o.coord, static_cast<long long>(replica)),
                                  o.local, position};
      }
    }
    k += batch;
  }
}

std::vector<ElementRequest> resolve_subscripts(const ArrayLayout& layout,
                                               const std::vector<Index>& subscripts, int me,
                                               RemoteAccess access) {
  const SubscriptRequests source(layout, subscripts, me, access);
  std::vector<ElementRequest> requests(source.size());
  source.fill(0, requests.size(), requests.data());
  return requests;
}

std::string subscript_error(const ArrayLayout& layout, const std::vector<Index>& subscripts,
                            const std::string& caller_error) {
  return caller_error.empty() ? check_subscripts(layout, subscripts) : caller_error;
}

const std::vector<Index>& subscripts_to_resolve(const std::string& error,
                                                const std::vector<Index>& subscripts) {
  static const std::vector<Index> none;
  return error.empty() ? subscripts : none;
}

DataPlan plan_index_exchange(const ArrayLayout& layout, const std::vector<Index>& subscripts,
                             RemoteAccess access, const char* operation,
                             const std::string& caller_error, std::uint64_t caller_fingerprint,
                             SparseExchangeStatistics* statistics) {
  const Comm& comm = layout.group().grid().comm();
  const std::string error = subscript_error(layout, subscripts, caller_error);
  return negotiate_data_plan(
      comm,
      SubscriptRequests(layout, subscripts_to_resolve(error, subscripts), comm.rank(), access),
      access, operation, error, detail::hash_mix(layout.fingerprint(), caller_fingerprint),
      statistics);
}

}  // namespace adlib
