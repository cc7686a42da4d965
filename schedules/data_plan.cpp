// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/schedules/data_plan.hpp>

#include <algorithm>
#include <utility>

#include <adlib/schedules/owner_groups.hpp>

namespace adlib {

namespace {

// Requests are read from their source this many at a time.
constexpr std::size_t kChunk = 4096;

// Reads every request of `source`, a chunk at a time, calling visit(request).
template <class Visit>
void for_each_request(const RequestSource& source, Visit visit) {
  const std::size_t n = source.size();
  std::vector<ElementRequest> chunk(std::min(n, kChunk));
  for (std::size_t first = 0; first < n; first += kChunk) {
    const std::size_t count = std::min(kChunk, n - first);
    source.fill(first, count, chunk.data());
    for (std::size_t i = 0; i < count; ++i) visit(chunk[i]);
  }
}

int bit_width(std::uint64_t v) {
  int bits = 0;
  while (v >> bits) ++bits;
  return bits;
}

// Sorts `keys` ascending with a least-significant-digit radix sort over
// their low `bits` bits (higher bits are zero); `scratch` holds as many.
// When the keys' low `sorted_low_bits` bits already ascend through `keys`
// wherever the bits above them are equal, the sort (stable) need only order
// the bits above: fewer passes.
void radix_sort(std::uint64_t* keys, std::size_t n, int bits, int sorted_low_bits,
                std::uint64_t* scratch) {
  if (n < 256) {
    std::sort(keys, keys + n);
    return;
  }
  // Digits of up to 13 bits (a count table of 64 KiB, in cache), as few
  // passes as the key width allows.
  const int width = std::max(1, bits - sorted_low_bits);
  const int passes = std::max(1, (width + 12) / 13);
  const int digit = (width + passes - 1) / passes;
  const std::uint64_t mask = (std::uint64_t(1) << digit) - 1;
  std::vector<std::size_t> start((std::size_t(1) << digit) + 1);
  std::uint64_t *from = keys, *to = scratch;
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = sorted_low_bits + pass * digit;
    std::fill(start.begin(), start.end(), 0);
    for (std::size_t i = 0; i < n; ++i) ++start[((from[i] >> shift) & mask) + 1];
    for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
    for (std::size_t i = 0; i < n; ++i) to[start[(from[i] >> shift) & mask]++] = from[i];
    std::swap(from, to);
  }
  if (from != keys) std::copy(from, from + n, keys);
}

// Appends one owner's requests, sorted (owner_offset(i), local_offset(i)
// for i < n), to its message and receive list; a read sends each owner
// offset once and fans the repeats out.
template <class OwnerOffset, class LocalOffset>
void emit_group(std::size_t n, OwnerOffset owner_offset, LocalOffset local_offset,
                RemoteAccess access, SparseMessage<std::int64_t>& message, PeerIndices& receive,
                std::vector<FanOut>& fan_out) {
  if (access == RemoteAccess::write) {
    message.values.resize(n);
    receive.offsets.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      message.values[i] = owner_offset(i);
      receive.offsets[i] = local_offset(i);
    }
    return;
  }
  std::size_t distinct = n > 0 ? 1 : 0;
  for (std::size_t i = 1; i < n; ++i) distinct += owner_offset(i) != owner_offset(i - 1);
  message.values.resize(distinct);
  receive.offsets.resize(distinct);
  std::size_t d = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t wanted = owner_offset(i);
    if (i > 0 && wanted == owner_offset(i - 1)) {
      fan_out.push_back({local_offset(i), receive.offsets[d - 1]});
      continue;
    }
    message.values[d] = wanted;
    receive.offsets[d] = local_offset(i);
    ++d;
  }
}

}  // namespace

std::string check_requests(const RequestSource& requests, int comm_size) {
  std::string error;
  std::size_t k = 0;
  for_each_request(requests, [&](const ElementRequest& r) {
    if (error.empty()) {
      if (r.owner < 0 || r.owner >= comm_size)
        error = "request " + std::to_string(k) + " names owner " + std::to_string(r.owner) +
                ", outside [0, " + std::to_string(comm_size) + ")";
      else if (r.owner_offset < 0 || r.local_offset < 0)
        error = "request " + std::to_string(k) + " has a negative offset (owner offset " +
                std::to_string(r.owner_offset) + ", local offset " +
                std::to_string(r.local_offset) + ")";
    }
    ++k;
  });
  return error;
}

namespace {

// Each owner's requests as keys (owner offset << 32 | local offset), in
// request order, in a list of their own: read from the source once.
struct KeyedGroups {
  OwnerGroups groups;                            // numbering and owner order only
  std::vector<std::vector<std::uint64_t>> keys;  // by group number
  std::int64_t highest_owner_offset = 0, highest_local_offset = -1;
  bool local_offsets_ascend = true;
};

constexpr std::int64_t kKeyHalf = std::int64_t(1) << 32;

// Groups `requests` in one read when every offset is below 2^32 (as in any
// array whose local part has fewer than 2^32 elements); false when one is
// not, and the caller counts first and places after.  Reading the
// requests once matters where a source computes them (SubscriptRequests
// asks the Range for every owner): the second read was a fifth of GA1's
// set-up instructions.
bool group_in_one_read(const RequestSource& source, KeyedGroups& out) {
  bool fits = true;
  for_each_request(source, [&](const ElementRequest& r) {
    fits = fits && r.owner_offset < kKeyHalf && r.local_offset < kKeyHalf;
    if (!fits) return;  // the rest of the read is wasted, in this rare case only
    const std::size_t g = out.groups.number(r.owner);
    if (g == out.keys.size()) out.keys.emplace_back();
    out.keys[g].push_back(static_cast<std::uint64_t>(r.owner_offset) << 32 |
                          static_cast<std::uint64_t>(r.local_offset));
    out.highest_owner_offset = std::max(out.highest_owner_offset, r.owner_offset);
    out.local_offsets_ascend =
        out.local_offsets_ascend && r.local_offset >= out.highest_local_offset;
    out.highest_local_offset = std::max(out.highest_local_offset, r.local_offset);
  });
  return fits;
}

// Appends one owner's message and receive list to `out` (see emit_group).
template <class OwnerOffset, class LocalOffset>
void append_group(int owner, std::size_t n, OwnerOffset owner_offset, LocalOffset local_offset,
                  RemoteAccess access, DataRequests& out) {
  SparseMessage<std::int64_t> message{owner, {}};
  PeerIndices receive{owner, {}};
  emit_group(n, owner_offset, local_offset, access, message, receive, out.plan.fan_out);
  out.to_owners.push_back(std::move(message));
  out.plan.exchange.recv_indices.push_back(std::move(receive));
}

// The requester's half from groups read once: each group's keys repacked
// as tightly as the highest offsets allow (fewer radix digits), sorted,
// emitted by ascending owner, and freed.
DataRequests plan_keyed_groups(KeyedGroups& keyed, RemoteAccess access) {
  const int local_bits = std::max(
      1,
      bit_width(static_cast<std::uint64_t>(std::max<std::int64_t>(keyed.highest_local_offset, 0))));
  const int key_bits =
      local_bits + bit_width(static_cast<std::uint64_t>(keyed.highest_owner_offset));
  const std::uint64_t half_mask = (std::uint64_t(1) << 32) - 1;
  const std::uint64_t local_mask = (std::uint64_t(1) << local_bits) - 1;
  std::size_t largest = 0;
  for (const auto& k : keyed.keys) largest = std::max(largest, k.size());
  std::vector<std::uint64_t> scratch(largest >= 256 ? largest : 0);
  DataRequests out;
  out.plan.local_extent = keyed.highest_local_offset + 1;
  out.to_owners.reserve(keyed.keys.size());
  out.plan.exchange.recv_indices.reserve(keyed.keys.size());
  for (const std::size_t g : keyed.groups.by_ascending_owner()) {
    std::vector<std::uint64_t>& key = keyed.keys[g];
    for (std::uint64_t& k : key) k = (k >> 32) << local_bits | (k & half_mask);
    radix_sort(key.data(), key.size(), key_bits, keyed.local_offsets_ascend ? local_bits : 0,
               scratch.data());
    append_group(
        keyed.groups.owner(g), key.size(),
        [&](std::size_t i) { return static_cast<std::int64_t>(key[i] >> local_bits); },
        [&](std::size_t i) { return static_cast<std::int64_t>(key[i] & local_mask); }, access, out);
    std::vector<std::uint64_t>().swap(key);
  }
  return out;
}

}  // namespace

DataRequests plan_data_requests(const RequestSource& requests, RemoteAccess access) {
  {
    KeyedGroups keyed;
    if (group_in_one_read(requests, keyed)) return plan_keyed_groups(keyed, access);
  }
  // Offsets of 2^32 or more: read the requests twice, counting first.
  // 1. Count the requests per owner (schedules/owner_groups.hpp).
  OwnerGroups groups;
  std::int64_t highest_owner_offset = 0, highest_local_offset = -1;
  // Do the local offsets ascend in the order the requests come (Gather's and
  // Scatter's do: request k is element k)?  Then so do they within each
  // owner's group, which the grouping keeps in that order, and sorting a
  // group need only order its owner offsets.
  bool local_offsets_ascend = true;
  for_each_request(requests, [&](const ElementRequest& r) {
    groups.count(r.owner);
    highest_owner_offset = std::max(highest_owner_offset, r.owner_offset);
    local_offsets_ascend = local_offsets_ascend && r.local_offset >= highest_local_offset;
    highest_local_offset = std::max(highest_local_offset, r.local_offset);
  });
  groups.close_counting();
  const std::size_t total = groups.total(), largest = groups.largest();

  // 2. Group them by owner (a counting sort), as packed keys when they fit.
  const int local_bits = std::max(
      1, bit_width(static_cast<std::uint64_t>(std::max<std::int64_t>(highest_local_offset, 0))));
  const int key_bits = local_bits + bit_width(static_cast<std::uint64_t>(highest_owner_offset));
  const bool packed = key_bits <= 64;
  std::vector<std::uint64_t> keys(packed ? total : 0);
  std::vector<std::pair<std::int64_t, std::int64_t>> pairs(packed ? 0 : total);
  for_each_request(requests, [&](const ElementRequest& r) {
    const std::size_t at = groups.place(r.owner);
    if (packed)
      keys[at] = static_cast<std::uint64_t>(r.owner_offset) << local_bits |
                 static_cast<std::uint64_t>(r.local_offset);
    else
      pairs[at] = {r.owner_offset, r.local_offset};
  });

  // 3. One message per owner, in ascending owner order, sorted by owner
  // offset (then local offset) to find repeats, and sent in that order: the
  // owner reads (a read's pack) or combines into (a write's unpack) its
  // memory upwards.  For a read, the requester's order instead would need a
  // second sort per message; GA1 at 2 ranks measured no faster with it.  A
  // read's requests to `self`, a local copy, keep the owner's order too: the
  // executor then reads them in the same walk over the owner's memory as the
  // packs (MessageRoute::merges_index_departures).
  const std::vector<std::size_t> order = groups.by_ascending_owner();
  DataRequests out;
  out.plan.local_extent = highest_local_offset + 1;
  out.to_owners.reserve(order.size());
  out.plan.exchange.recv_indices.reserve(order.size());
  std::vector<std::uint64_t> scratch(packed && largest >= 256 ? largest : 0);
  for (const std::size_t g : order) {
    const std::size_t begin = groups.begin(g), n = groups.end(g) - begin;
    if (packed) {
      std::uint64_t* key = keys.data() + begin;
      radix_sort(key, n, key_bits, local_offsets_ascend ? local_bits : 0, scratch.data());
      const std::uint64_t local_mask = (std::uint64_t(1) << local_bits) - 1;
      append_group(
          groups.owner(g), n,
          [&](std::size_t i) { return static_cast<std::int64_t>(key[i] >> local_bits); },
          [&](std::size_t i) { return static_cast<std::int64_t>(key[i] & local_mask); }, access,
          out);
    } else {
      const auto first = pairs.begin() + static_cast<std::ptrdiff_t>(begin);
      std::sort(first, first + static_cast<std::ptrdiff_t>(n));
      append_group(
          groups.owner(g), n,
          [&](std::size_t i) { return first[static_cast<std::ptrdiff_t>(i)].first; },
          [&](std::size_t i) { return first[static_cast<std::ptrdiff_t>(i)].second; }, access, out);
    }
  }
  return out;
}

void add_owner_side(ExchangePlan& exchange, std::vector<SparseMessage<std::int64_t>> received) {
  exchange.send_indices.reserve(exchange.send_indices.size() + received.size());
  for (SparseMessage<std::int64_t>& m : received)
    exchange.send_indices.push_back({m.peer, std::move(m.values)});
}

DataPlan negotiate_data_plan(const Comm& comm, const RequestSource& requests, RemoteAccess access,
                             const char* operation, const std::string& caller_error,
                             std::uint64_t caller_fingerprint,
                             SparseExchangeStatistics* statistics) {
  std::string error = caller_error;
  if (error.empty() && !requests.valid_by_construction())
    error = check_requests(requests, comm.size());
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
