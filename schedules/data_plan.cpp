// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/schedules/data_plan.hpp>

#include <algorithm>
#include <optional>
#include <utility>

#include <adlib/runtime/owner_groups.hpp>

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

// Writes one owner's requests, sorted (owner_offset(i), local_offset(i)
// for i < n), as its message (owner offsets) and receive list (local
// offsets), and returns their length; a read sends each owner offset once
// and fans the repeats out.  `message` and `receive` may be the memory the
// requests are read from: request i is read before position i is written,
// so a caller can turn its sorted keys into the message without new memory
// (fresh pages' first touches are a third of a Gather's set-up).
template <class OwnerOffset, class LocalOffset>
std::size_t emit_group(std::size_t n, OwnerOffset owner_offset, LocalOffset local_offset,
                       RemoteAccess access, std::int64_t* message, std::int64_t* receive,
                       std::vector<FanOut>& fan_out) {
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t wanted = owner_offset(i), local = local_offset(i);
    // Sorted: a repeat follows the first request of its owner offset, whose
    // owner offset and local offset were the last ones kept.
    if (access == RemoteAccess::read && kept > 0 && wanted == message[kept - 1]) {
      fan_out.push_back({local, receive[kept - 1]});
      continue;
    }
    message[kept] = wanted;
    receive[kept] = local;
    ++kept;
  }
  return kept;
}

// A message sorted by owner offset (emit_group's), reordered by local
// offset: message[i] (owner offsets below 2^owner_bits) and receive[i]
// (local offsets below 2^local_bits, owner_bits + local_bits <= 63) become
// keys local << owner_bits | owner, sorted on their high part only (equal
// local offsets already have their owner offsets ascending).
void order_by_local_offset(std::int64_t* message, std::int64_t* receive, std::size_t n,
                           int owner_bits, int local_bits) {
  const std::int64_t owner_mask = (std::int64_t(1) << owner_bits) - 1;
  for (std::size_t i = 0; i < n; ++i) message[i] |= receive[i] << owner_bits;
  radix_sort(reinterpret_cast<std::uint64_t*>(message), n, owner_bits + local_bits, owner_bits,
             reinterpret_cast<std::uint64_t*>(receive));
  for (std::size_t i = 0; i < n; ++i) {
    receive[i] = message[i] >> owner_bits;
    message[i] &= owner_mask;
  }
}

// A read's message in the requester's order where the local offsets ascend
// in request order (Gather's requests): the first request of each owner
// offset, in request order, with the later ones fanned out from it.  A
// bitmap of the owner offsets tells a first request from a repeat without
// sorting: sorting each list by owner offset and back by local offset (four
// radix passes) was a fifth of GA1's set-up.  One bitmap serves every
// owner's list: each use clears what it set.
class FirstRequestFilter {
  // Where the first request of each of a few owner offsets arrives: open
  // addressing, at least twice as many slots as offsets.
  class ArrivalTable {
   public:
    explicit ArrivalTable(std::size_t offsets) {
      std::size_t slots = 16;
      while (slots < 2 * offsets) slots *= 2;
      slots_.assign(slots, {-1, 0});
      mask_ = slots - 1;
    }
    void insert(std::int64_t offset, std::int64_t arrival) {
      std::size_t s = slot_of(offset);
      while (slots_[s].first >= 0) s = (s + 1) & mask_;
      slots_[s] = {offset, arrival};
    }
    // The arrival of an inserted offset (-1 for one never inserted: the
    // probe ends at an empty slot, never loops).
    std::int64_t find(std::int64_t offset) const {
      std::size_t s = slot_of(offset);
      while (slots_[s].first != offset && slots_[s].first >= 0) s = (s + 1) & mask_;
      return slots_[s].first == offset ? slots_[s].second : -1;
    }

   private:
    std::size_t slot_of(std::int64_t offset) const {
      // Fibonacci hashing: neighbouring offsets land far apart.
      return static_cast<std::size_t>(
                 (static_cast<std::uint64_t>(offset) * 0x9E3779B97F4A7C15ull) >> 32) &
             mask_;
    }
    std::vector<std::pair<std::int64_t, std::int64_t>> slots_;  // (offset or -1, arrival)
    std::size_t mask_ = 0;
  };

 public:
  // Is a bitmap for owner offsets up to `highest` worth it for `requests`
  // requests: no more words than requests, so no more memory than the keys?
  static bool fits(std::int64_t highest, std::size_t requests) {
    return static_cast<std::uint64_t>(highest) / 64 < requests;
  }
  explicit FirstRequestFilter(std::int64_t highest)
      : bits_(static_cast<std::size_t>(highest) / 64 + 1, 0) {}

  // Turns one owner's keys (owner offset << 32 | local offset, local
  // offsets ascending) into its message, in place, and its receive list;
  // appends the repeats to `fan_out` and returns the message's length.
  std::size_t emit(std::int64_t* key, std::size_t n, std::int64_t* receive,
                   std::vector<FanOut>& fan_out) {
    constexpr std::int64_t kLocalMask = (std::int64_t(1) << 32) - 1;
    repeats_.clear();
    std::size_t kept = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::int64_t wanted = key[i] >> 32, local = key[i] & kLocalMask;
      if (test_and_set(wanted)) {
        repeats_.push_back({wanted, local});
        continue;
      }
      key[kept] = wanted;  // i >= kept: key i was read before position kept is written
      receive[kept] = local;
      ++kept;
    }
    clear(key, kept);
    if (repeats_.empty()) return kept;
    // Each repeat copies from where its owner offset's first request
    // arrives: the repeated offsets marked in the bitmap, one pass over the
    // message finds their first requests and notes where each arrives, in a
    // table the size of the repeats (a sort and a search per repeat cost
    // as much as the sort this filter replaces).
    ArrivalTable arrivals(repeats_.size());
    for (const auto& repeat : repeats_) test_and_set(repeat.first);
    for (std::size_t j = 0; j < kept; ++j)
      if (test(key[j])) arrivals.insert(key[j], receive[j]);
    for (const auto& repeat : repeats_) {
      fan_out.push_back({repeat.second, arrivals.find(repeat.first)});
      bits_[word_of(repeat.first)] = 0;
    }
    return kept;
  }

 private:
  static std::size_t word_of(std::int64_t offset) { return static_cast<std::size_t>(offset) / 64; }
  static std::uint64_t bit_of(std::int64_t offset) {
    return std::uint64_t(1) << (static_cast<std::uint64_t>(offset) % 64);
  }
  bool test(std::int64_t offset) const { return bits_[word_of(offset)] & bit_of(offset); }
  bool test_and_set(std::int64_t offset) {
    std::uint64_t& word = bits_[word_of(offset)];
    const std::uint64_t bit = bit_of(offset);
    const bool was = word & bit;
    word |= bit;
    return was;
  }
  // Clears the bits of `offsets[0, n)`, the only ones set: word by word
  // where they are few, the whole bitmap at once where they are many.
  void clear(const std::int64_t* offsets, std::size_t n) {
    if (n * 8 >= bits_.size()) {
      std::fill(bits_.begin(), bits_.end(), 0);
      return;
    }
    for (std::size_t j = 0; j < n; ++j) bits_[word_of(offsets[j])] = 0;
  }

  std::vector<std::uint64_t> bits_;
  std::vector<std::pair<std::int64_t, std::int64_t>> repeats_;  // (owner offset, local offset)
};

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

// Each owner's requests, in request order, in a list of their own, read
// from the source once.  Reading once matters where a source computes the
// requests (SubscriptRequests asks the Range for every owner): a second
// read was a fifth of GA1's set-up instructions.
template <class Entry>
struct GroupedRequests {
  OwnerGroups groups;                     // numbering and owner order only
  std::vector<std::vector<Entry>> lists;  // by group number
  std::int64_t highest_owner_offset = 0, highest_local_offset = -1;
  // Do the local offsets ascend in request order (Gather's and Scatter's
  // do: request k is element k)?  Then they ascend within each list too,
  // and sorting a list need only order its owner offsets.
  bool local_offsets_ascend = true;
};

// Reads `source` into `out`, each request as make(request); false, leaving
// `out` unfinished, when a request is not accepts(request).
template <class Entry, class Accepts, class Make>
bool group_in_one_read(const RequestSource& source, GroupedRequests<Entry>& out, Accepts accepts,
                       Make make) {
  bool fits = true;
  const std::size_t total = source.size();
  std::size_t seen = 0;
  for_each_request(source, [&](const ElementRequest& r) {
    fits = fits && accepts(r);
    if (!fits) return;  // the rest of the read is wasted, in this rare case only
    const std::size_t g = out.groups.number(r.owner);
    if (g == out.lists.size()) out.lists.emplace_back();
    out.lists[g].push_back(make(r));
    // After the first chunk, each list so far reserves its share of all
    // the requests, extrapolated (one eighth more), instead of doubling its
    // way there: every doubling copies the list into fresh memory, and the
    // fresh pages' first touches were a third of GA1's set-up.  The
    // reservations add up to at most 9/8 of the requests, and pages a list
    // never fills are never touched.
    if (++seen == kChunk && total > kChunk)
      for (auto& list : out.lists) {
        const std::size_t share = list.size() * (total / kChunk);
        list.reserve(share + share / 8);
      }
    out.highest_owner_offset = std::max(out.highest_owner_offset, r.owner_offset);
    out.local_offsets_ascend =
        out.local_offsets_ascend && r.local_offset >= out.highest_local_offset;
    out.highest_local_offset = std::max(out.highest_local_offset, r.local_offset);
  });
  return fits;
}

// Appends one owner's message and receive list to `out`: the first `kept`
// entries of `message` and `receive` (emit_group's).
void append_group(int owner, std::vector<std::int64_t>&& message,
                  std::vector<std::int64_t>&& receive, std::size_t kept, DataRequests& out) {
  message.resize(kept);
  receive.resize(kept);
  out.to_owners.push_back({owner, std::move(message)});
  out.plan.exchange.recv_indices.push_back({owner, std::move(receive)});
}

// The requester's half: one message per owner, by ascending owner;
// sort_and_append(owner, list, out) sorts one owner's list and appends it;
// each list is freed once used.
template <class Entry, class SortAndAppend>
DataRequests plan_grouped(GroupedRequests<Entry>& grouped, SortAndAppend sort_and_append) {
  DataRequests out;
  out.plan.local_extent = grouped.highest_local_offset + 1;
  out.to_owners.reserve(grouped.lists.size());
  out.plan.exchange.recv_indices.reserve(grouped.lists.size());
  for (const std::size_t g : grouped.groups.by_ascending_owner()) {
    sort_and_append(grouped.groups.owner(g), grouped.lists[g], out);
    std::vector<Entry>().swap(grouped.lists[g]);
  }
  return out;
}

// The keyed path's bounds: owner offsets below 2^31 keep every key below
// 2^63, local offsets below 2^32 fit its low half.
constexpr std::int64_t kOwnerKeyLimit = std::int64_t(1) << 31;
constexpr std::int64_t kLocalKeyLimit = std::int64_t(1) << 32;

}  // namespace

DataRequests plan_data_requests(const RequestSource& requests, RemoteAccess access,
                                MessageOrder order) {
  // Every message is sorted by owner offset (then local offset) to find a
  // read's repeats.  In MessageOrder::owner it is sent in that order: the
  // owner reads (a read's pack) or combines into (a write's unpack) its
  // memory upwards, and the merged walks of MessageRoute can serve every
  // list of one array, the local copy included.  In MessageOrder::requester
  // it is sorted back by local offset (a write whose local offsets ascend in
  // request order, Scatter's, is not sorted at all): the owner's accesses
  // jump and the requester's go upwards, which wins on CPUs where scattered
  // stores cost more than scattered loads (the EPYC VMs of this project:
  // GA1 20-40 %, SC1 about 10 % faster).  The extra sort orders the local
  // offsets alone.  Either way, the contributions of one requester to one
  // target arrive in increasing order of their local offsets.  A read in
  // the requester's order whose local offsets ascend in request order
  // (Gather's) is not sorted at all where its owner offsets are dense enough
  // for a bitmap (FirstRequestFilter): its message is the first request of
  // each owner offset, in request order, as the two sorts would give it.
  //
  // Owner offsets below 2^31 and local offsets below 2^32 (local parts of
  // fewer than 2^31 elements): keys owner offset << 32 | local offset, which
  // stay below 2^63 and so are int64 like the message they become, repacked
  // per owner as tightly as the highest offsets allow (fewer radix digits)
  // and radix-sorted.  Each owner's sorted keys then become its message in
  // place, and the sort's scratch its receive list: no other memory.
  GroupedRequests<std::int64_t> keyed;
  if (group_in_one_read(
          requests, keyed,
          [](const ElementRequest& r) {
            return r.owner_offset < kOwnerKeyLimit && r.local_offset < kLocalKeyLimit;
          },
          [](const ElementRequest& r) { return r.owner_offset << 32 | r.local_offset; })) {
    const int local_bits = std::max(1, bit_width(static_cast<std::uint64_t>(
                                           std::max<std::int64_t>(keyed.highest_local_offset, 0))));
    const int key_bits =
        local_bits + bit_width(static_cast<std::uint64_t>(keyed.highest_owner_offset));
    const std::int64_t half_mask = kLocalKeyLimit - 1;
    const std::int64_t local_mask = (std::int64_t(1) << local_bits) - 1;
    const int sorted_low_bits = keyed.local_offsets_ascend ? local_bits : 0;
    const int owner_bits =
        std::max(1, bit_width(static_cast<std::uint64_t>(keyed.highest_owner_offset)));
    std::optional<FirstRequestFilter> first_requests;
    if (access == RemoteAccess::read && order == MessageOrder::requester &&
        keyed.local_offsets_ascend &&
        FirstRequestFilter::fits(keyed.highest_owner_offset, requests.size()))
      first_requests.emplace(keyed.highest_owner_offset);
    return plan_grouped(keyed, [&](int owner, std::vector<std::int64_t>& key, DataRequests& out) {
      std::vector<std::int64_t> receive(key.size());
      if (first_requests) {
        const std::size_t kept =
            first_requests->emit(key.data(), key.size(), receive.data(), out.plan.fan_out);
        append_group(owner, std::move(key), std::move(receive), kept, out);
        return;
      }
      if (access == RemoteAccess::write && order == MessageOrder::requester &&
          keyed.local_offsets_ascend) {
        // Request order is already the requester's order, and a write sends
        // every request: nothing to sort.
        const std::size_t n = key.size();
        for (std::size_t i = 0; i < n; ++i) {
          receive[i] = key[i] & half_mask;
          key[i] >>= 32;
        }
        append_group(owner, std::move(key), std::move(receive), n, out);
        return;
      }
      for (std::int64_t& k : key) k = (k >> 32) << local_bits | (k & half_mask);
      // The keys are non-negative: their unsigned view sorts the same.
      radix_sort(reinterpret_cast<std::uint64_t*>(key.data()), key.size(), key_bits,
                 sorted_low_bits, reinterpret_cast<std::uint64_t*>(receive.data()));
      const std::size_t kept = emit_group(
          key.size(), [&](std::size_t i) { return key[i] >> local_bits; },
          [&](std::size_t i) { return key[i] & local_mask; }, access, key.data(), receive.data(),
          out.plan.fan_out);
      if (order == MessageOrder::requester)
        order_by_local_offset(key.data(), receive.data(), kept, owner_bits, local_bits);
      append_group(owner, std::move(key), std::move(receive), kept, out);
    });
  }
  // Larger offsets: (owner offset, local offset) pairs, sorted as pairs.
  using Pair = std::pair<std::int64_t, std::int64_t>;
  GroupedRequests<Pair> paired;
  group_in_one_read(
      requests, paired, [](const ElementRequest&) { return true; },
      [](const ElementRequest& r) {
        return Pair{r.owner_offset, r.local_offset};
      });
  return plan_grouped(paired, [&](int owner, std::vector<Pair>& list, DataRequests& out) {
    std::sort(list.begin(), list.end());
    std::vector<std::int64_t> message(list.size()), receive(list.size());
    const std::size_t kept = emit_group(
        list.size(), [&](std::size_t i) { return list[i].first; },
        [&](std::size_t i) { return list[i].second; }, access, message.data(), receive.data(),
        out.plan.fan_out);
    if (order == MessageOrder::requester) {
      list.resize(kept);
      for (std::size_t i = 0; i < kept; ++i) list[i] = {receive[i], message[i]};
      std::sort(list.begin(), list.end());
      for (std::size_t i = 0; i < kept; ++i) {
        receive[i] = list[i].first;
        message[i] = list[i].second;
      }
    }
    append_group(owner, std::move(message), std::move(receive), kept, out);
  });
}

void add_owner_side(ExchangePlan& exchange, std::vector<SparseMessage<std::int64_t>> received) {
  exchange.send_indices.reserve(exchange.send_indices.size() + received.size());
  for (SparseMessage<std::int64_t>& m : received)
    exchange.send_indices.push_back({m.peer, std::move(m.values)});
}

DataPlan negotiate_data_plan(const Comm& comm, const RequestSource& requests, RemoteAccess access,
                             const char* operation, const std::string& caller_error,
                             std::uint64_t caller_fingerprint, SparseExchangeStatistics* statistics,
                             MessageOrder order) {
  std::string error = caller_error;
  if (error.empty() && !requests.valid_by_construction())
    error = check_requests(requests, comm.size());
  // A rank with bad input sends nothing; the exchange's agreement makes
  // every rank throw before any message is posted.
  DataRequests planned;
  if (error.empty()) planned = plan_data_requests(requests, access, order);
  const std::uint64_t fingerprint =
      detail::hash_mix(caller_fingerprint, static_cast<std::uint64_t>(access) + 1);
  add_owner_side(planned.plan.exchange, exchange_sparse(comm, std::move(planned.to_owners),
                                                        operation, statistics, error, fingerprint));
  return std::move(planned.plan);
}

}  // namespace adlib
