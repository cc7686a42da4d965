// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/schedules/data_plan.hpp>

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace adlib {

namespace {

// (owner offset, local offset): what one request becomes once grouped.
using Wanted = std::pair<std::int64_t, std::int64_t>;

// Groups smaller than this are sorted by comparison; larger ones by radix.
constexpr std::size_t kRadixThreshold = 256;
constexpr int kRadixBits = 11;  // 2048 buckets: two passes cover 4 Mi elements

// Sorts [first, first + n) by owner offset, stably (requests for one element
// keep their order), with `scratch` of at least n entries.
void sort_by_owner_offset(Wanted* first, std::size_t n, std::vector<Wanted>& scratch) {
  if (n < kRadixThreshold) {
    std::stable_sort(first, first + n,
                     [](const Wanted& a, const Wanted& b) { return a.first < b.first; });
    return;
  }
  // Least significant digit first: each pass is stable, so the whole is.
  std::int64_t highest = 0;
  for (std::size_t i = 0; i < n; ++i) highest = std::max(highest, first[i].first);
  if (scratch.size() < n) scratch.resize(n);
  Wanted *from = first, *to = scratch.data();
  constexpr std::size_t buckets = std::size_t(1) << kRadixBits;
  std::vector<std::size_t> start(buckets + 1);
  for (int shift = 0; shift == 0 || (highest >> shift) > 0; shift += kRadixBits) {
    std::fill(start.begin(), start.end(), 0);
    for (std::size_t i = 0; i < n; ++i) ++start[((from[i].first >> shift) & (buckets - 1)) + 1];
    for (std::size_t b = 1; b <= buckets; ++b) start[b] += start[b - 1];
    for (std::size_t i = 0; i < n; ++i)
      to[start[(from[i].first >> shift) & (buckets - 1)]++] = from[i];
    std::swap(from, to);
  }
  if (from != first) std::copy(from, from + n, first);
}

}  // namespace

std::string check_requests(const std::vector<ElementRequest>& requests, int comm_size) {
  for (std::size_t k = 0; k < requests.size(); ++k) {
    const ElementRequest& r = requests[k];
    if (r.owner < 0 || r.owner >= comm_size)
      return "request " + std::to_string(k) + " names owner " + std::to_string(r.owner) +
             ", outside [0, " + std::to_string(comm_size) + ")";
    if (r.owner_offset < 0 || r.local_offset < 0)
      return "request " + std::to_string(k) + " has a negative offset (owner offset " +
             std::to_string(r.owner_offset) + ", local offset " + std::to_string(r.local_offset) +
             ")";
  }
  return {};
}

DataRequests plan_data_requests(const std::vector<ElementRequest>& requests, RemoteAccess access) {
  const std::size_t n = requests.size();
  // 1. Count the requests per owner.  Owners are numbered in order of first
  // appearance through a hash map of the owners named (nothing of the size
  // of the communicator); runs of one owner skip the lookup.
  std::unordered_map<int, std::size_t> group_of;
  std::vector<int> owner_of_group;
  std::vector<std::size_t> group_start;  // counts first, then starts
  int last_owner = -1;
  std::size_t last_group = 0;
  auto group_of_owner = [&](int owner) {
    if (owner != last_owner) {
      const auto found = group_of.emplace(owner, owner_of_group.size());
      if (found.second) {
        owner_of_group.push_back(owner);
        group_start.push_back(0);
      }
      last_owner = owner;
      last_group = found.first->second;
    }
    return last_group;
  };
  for (const ElementRequest& r : requests) ++group_start[group_of_owner(r.owner)];
  std::size_t total = 0, largest = 0;
  for (std::size_t& start : group_start) {
    const std::size_t count = start;
    largest = std::max(largest, count);
    start = total;
    total += count;
  }
  group_start.push_back(total);

  // 2. Group them (a stable counting sort: request order within an owner).
  std::vector<Wanted> grouped(n);
  {
    std::vector<std::size_t> next(group_start.begin(), group_start.end() - 1);
    for (const ElementRequest& r : requests)
      grouped[next[group_of_owner(r.owner)]++] = {r.owner_offset, r.local_offset};
  }

  // 3. One message per owner, in ascending owner order, its offsets ascending.
  std::vector<std::size_t> order(owner_of_group.size());
  for (std::size_t g = 0; g < order.size(); ++g) order[g] = g;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return owner_of_group[a] < owner_of_group[b]; });
  DataRequests out;
  out.to_owners.reserve(order.size());
  out.plan.exchange.recv_indices.reserve(order.size());
  std::vector<Wanted> scratch(largest >= kRadixThreshold ? largest : 0);
  for (const std::size_t g : order) {
    const std::size_t begin = group_start[g], end = group_start[g + 1];
    Wanted* first = grouped.data() + begin;
    sort_by_owner_offset(first, end - begin, scratch);
    SparseMessage<std::int64_t> message{owner_of_group[g], {}};
    PeerIndices receive{owner_of_group[g], {}};
    if (access == RemoteAccess::read) {
      // Each element once; its first requester receives it, the others copy.
      std::size_t distinct = begin < end ? 1 : 0;
      for (std::size_t i = begin + 1; i < end; ++i)
        distinct += grouped[i].first != grouped[i - 1].first;
      message.values.reserve(distinct);
      receive.offsets.reserve(distinct);
      for (std::size_t i = begin; i < end; ++i) {
        if (i > begin && grouped[i].first == grouped[i - 1].first) {
          out.plan.fan_out.push_back({grouped[i].second, receive.offsets.back()});
          continue;
        }
        message.values.push_back(grouped[i].first);
        receive.offsets.push_back(grouped[i].second);
      }
    } else {
      message.values.resize(end - begin);
      receive.offsets.resize(end - begin);
      for (std::size_t i = begin; i < end; ++i) {
        message.values[i - begin] = grouped[i].first;
        receive.offsets[i - begin] = grouped[i].second;
      }
    }
    out.to_owners.push_back(std::move(message));
    out.plan.exchange.recv_indices.push_back(std::move(receive));
  }
  return out;
}

void add_owner_side(ExchangePlan& exchange, std::vector<SparseMessage<std::int64_t>> received) {
  exchange.send_indices.reserve(exchange.send_indices.size() + received.size());
  for (SparseMessage<std::int64_t>& m : received)
    exchange.send_indices.push_back({m.peer, std::move(m.values)});
}

DataPlan negotiate_data_plan(const Comm& comm, const std::vector<ElementRequest>& requests,
                             RemoteAccess access, const char* operation,
                             const std::string& caller_error, std::uint64_t caller_fingerprint,
                             SparseExchangeStatistics* statistics) {
  std::string error = caller_error;
  if (error.empty()) error = check_requests(requests, comm.size());
  // A rank with bad input sends nothing; the exchange's agreement makes
  // every rank throw before any message is posted.
  DataRequests planned;
  if (error.empty()) planned = plan_data_requests(requests, access);
  const std::uint64_t fingerprint =
      detail::hash_mix(caller_fingerprint, static_cast<std::uint64_t>(access) + 1);
  add_owner_side(planned.plan.exchange, exchange_sparse(comm, planned.to_owners, operation,
                                                        statistics, error, fingerprint));
  return std::move(planned.plan);
}

}  // namespace adlib
