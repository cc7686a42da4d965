// SPDX-License-Identifier: BSD-3-Clause
// The planning of the remote-access schedules without MPI: DataSchedule's
// (schedules/data_plan.hpp) and BlockDataSchedule's
// (schedules/block_data_plan.hpp).
//
//  - plan_data_requests on its own: grouping by owner, ascending owners,
//    owner offsets ascending within a message with repeats in request order
//    (the radix path for large groups too), a read's fan-out of repeats, a
//    write's every repeat sent; plans in the requester's order (the same
//    pairs and fan-out, by ascending local offset), dense reads among them
//    (planned without sorting).
//  - A simulated run: for process counts P from 8 to 10^6, a handful of
//    sampled ranks are planned as negotiate_data_plan would plan them
//    (plan_data_requests, the routing exchange_sparse does: the messages
//    addressed to a rank, sorted by sender; add_owner_side), with a fixed
//    request pattern per rank (each rank asks three neighbours and itself).
//    The plans are executed element by element through a reference model,
//    and the allocations of planning one rank, counted through a replaced
//    global operator new, must be the same, count and bytes, at every P:
//    nothing in the planning is of size P.  The same for blocks
//    (plan_block_requests, add_block_owner_side), after their own tests:
//    grouping, request order, the words a block travels as.
//
// The replaced operator new (allocation_counter.cpp) serves the whole test
// program but counts only while `counting` is set, around the planning.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <new>
#include <utility>
#include <vector>

#include <adlib/runtime/error.hpp>
#include <adlib/schedules/block_data_plan.hpp>
#include <adlib/schedules/data_plan.hpp>

// ---- allocation counter -----------------------------------------------------
#include "allocation_counter.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_data_plan {

namespace {

using adlib::DataPlan;
using adlib::DataRequests;
using adlib::ElementRequest;
using adlib::PeerIndices;
using adlib::RemoteAccess;
using adlib::SparseMessage;
using Offsets = std::vector<std::int64_t>;

// ---- plan_data_requests on its own -----------------------------------------

std::vector<int> peers_of(const std::vector<SparseMessage<std::int64_t>>& messages) {
  std::vector<int> peers;
  for (const auto& m : messages) peers.push_back(m.peer);
  return peers;
}
std::vector<int> peers_of(const std::vector<PeerIndices>& lists) {
  std::vector<int> peers;
  for (const auto& l : lists) peers.push_back(l.peer);
  return peers;
}

// Owner 3 is asked for offsets 5, 2, 5, 2 and 9 (local 0, 1, 2, 3, 6),
// owner 1 for 4 and 4 (local 4, 7), owner 0 for 8 (local 5).
const std::vector<ElementRequest> kMixed = {{3, 5, 0}, {3, 2, 1}, {3, 5, 2}, {3, 2, 3},
                                            {1, 4, 4}, {0, 8, 5}, {3, 9, 6}, {1, 4, 7}};

TEST(PlanDataRequests, WritesGroupByAscendingOwnerAndSendEveryRepeatInRequestOrder) {
  const DataRequests w = adlib::plan_data_requests(kMixed, RemoteAccess::write);
  EXPECT_EQ(peers_of(w.to_owners), (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(peers_of(w.plan.exchange.recv_indices), (std::vector<int>{0, 1, 3}));
  ASSERT_EQ(w.to_owners.size(), 3u);
  ASSERT_EQ(w.plan.exchange.recv_indices.size(), 3u);
  EXPECT_EQ(w.to_owners[0].values, (Offsets{8}));
  EXPECT_EQ(w.plan.exchange.recv_indices[0].offsets, (Offsets{5}));
  EXPECT_EQ(w.to_owners[1].values, (Offsets{4, 4}));
  EXPECT_EQ(w.plan.exchange.recv_indices[1].offsets, (Offsets{4, 7}));
  // Ascending owner offsets; the two 2s and the two 5s in request order.
  EXPECT_EQ(w.to_owners[2].values, (Offsets{2, 2, 5, 5, 9}));
  EXPECT_EQ(w.plan.exchange.recv_indices[2].offsets, (Offsets{1, 3, 0, 2, 6}));
  EXPECT_TRUE(w.plan.fan_out.empty());
  EXPECT_TRUE(w.plan.exchange.send_indices.empty());
  EXPECT_TRUE(w.plan.exchange.sends.empty() && w.plan.exchange.recvs.empty());
}

TEST(PlanDataRequests, ReadsFetchARepeatOnceAndFanItOut) {
  // Rank 0 requests: owners 1 and 3 are other ranks, owner 0 is itself.
  const DataRequests r = adlib::plan_data_requests(kMixed, RemoteAccess::read);
  EXPECT_EQ(peers_of(r.to_owners), (std::vector<int>{0, 1, 3}));
  ASSERT_EQ(r.to_owners.size(), 3u);
  ASSERT_EQ(r.plan.exchange.recv_indices.size(), 3u);
  EXPECT_EQ(r.to_owners[1].values, (Offsets{4}));
  EXPECT_EQ(r.plan.exchange.recv_indices[1].offsets, (Offsets{4}));
  // The lowest local offset asking for each element receives it, and a
  // message to another rank follows the owner's offsets upwards.
  EXPECT_EQ(r.to_owners[2].values, (Offsets{2, 5, 9}));
  EXPECT_EQ(r.plan.exchange.recv_indices[2].offsets, (Offsets{1, 0, 6}));
  std::map<std::int64_t, std::int64_t> fan_out;
  for (const adlib::FanOut& f : r.plan.fan_out) {
    EXPECT_TRUE(fan_out.emplace(f.to, f.from).second) << "target " << f.to << " twice";
  }
  EXPECT_EQ(fan_out, (std::map<std::int64_t, std::int64_t>{{3, 1}, {2, 0}, {7, 4}}));
}

TEST(PlanDataRequests, TheRequesterOrderFollowsTheLocalOffsets) {
  const DataRequests r =
      adlib::plan_data_requests(kMixed, RemoteAccess::read, adlib::MessageOrder::requester);
  EXPECT_EQ(peers_of(r.to_owners), (std::vector<int>{0, 1, 3}));
  ASSERT_EQ(r.to_owners.size(), 3u);
  ASSERT_EQ(r.plan.exchange.recv_indices.size(), 3u);
  EXPECT_EQ(r.to_owners[1].values, (Offsets{4}));
  EXPECT_EQ(r.plan.exchange.recv_indices[1].offsets, (Offsets{4}));
  // The same repeats fetched once, by the same local offsets, but each
  // message follows the local offsets upwards.
  EXPECT_EQ(r.to_owners[2].values, (Offsets{5, 2, 9}));
  EXPECT_EQ(r.plan.exchange.recv_indices[2].offsets, (Offsets{0, 1, 6}));
  std::map<std::int64_t, std::int64_t> fan_out;
  for (const adlib::FanOut& f : r.plan.fan_out) {
    EXPECT_TRUE(fan_out.emplace(f.to, f.from).second) << "target " << f.to << " twice";
  }
  EXPECT_EQ(fan_out, (std::map<std::int64_t, std::int64_t>{{3, 1}, {2, 0}, {7, 4}}));
  // A write sends every request, in request order here (its local offsets
  // ascend).
  const DataRequests w =
      adlib::plan_data_requests(kMixed, RemoteAccess::write, adlib::MessageOrder::requester);
  EXPECT_EQ(peers_of(w.to_owners), (std::vector<int>{0, 1, 3}));
  ASSERT_EQ(w.to_owners.size(), 3u);
  EXPECT_EQ(w.to_owners[2].values, (Offsets{5, 2, 5, 2, 9}));
  EXPECT_EQ(w.plan.exchange.recv_indices[2].offsets, (Offsets{0, 1, 2, 3, 6}));
  EXPECT_EQ(w.to_owners[1].values, (Offsets{4, 4}));
  EXPECT_EQ(w.plan.exchange.recv_indices[1].offsets, (Offsets{4, 7}));
  EXPECT_TRUE(w.plan.fan_out.empty());
}

// A read's fan-out as target -> source (each target once).
std::map<std::int64_t, std::int64_t> copies_by_target(const std::vector<adlib::FanOut>& fan_out) {
  std::map<std::int64_t, std::int64_t> copies;
  for (const adlib::FanOut& f : fan_out)
    EXPECT_TRUE(copies.emplace(f.to, f.from).second) << "target " << f.to << " twice";
  return copies;
}

// A plan in the requester's order carries the same (owner offset, local
// offset) pairs and fan-out as in the owner's order, message by message,
// sorted by local offset instead (equal local offsets by owner offset).
void expect_same_plan_in_requester_order(const std::vector<ElementRequest>& requests,
                                         RemoteAccess access) {
  const DataRequests by_owner = adlib::plan_data_requests(requests, access);
  const DataRequests by_requester =
      adlib::plan_data_requests(requests, access, adlib::MessageOrder::requester);
  ASSERT_EQ(peers_of(by_requester.to_owners), peers_of(by_owner.to_owners));
  for (std::size_t m = 0; m < by_owner.to_owners.size(); ++m) {
    const Offsets& sent = by_requester.to_owners[m].values;
    const Offsets& received = by_requester.plan.exchange.recv_indices[m].offsets;
    ASSERT_EQ(sent.size(), received.size());
    std::vector<std::pair<std::int64_t, std::int64_t>> pairs, reference;
    for (std::size_t i = 0; i < sent.size(); ++i) pairs.push_back({received[i], sent[i]});
    EXPECT_TRUE(std::is_sorted(pairs.begin(), pairs.end())) << "message " << m;
    for (std::size_t i = 0; i < by_owner.to_owners[m].values.size(); ++i)
      reference.push_back(
          {by_owner.plan.exchange.recv_indices[m].offsets[i], by_owner.to_owners[m].values[i]});
    std::sort(reference.begin(), reference.end());
    EXPECT_EQ(pairs, reference) << "message " << m;
  }
  // The same copies; their order is free (each target is written once).
  EXPECT_EQ(copies_by_target(by_requester.plan.fan_out), copies_by_target(by_owner.plan.fan_out));
  EXPECT_EQ(by_requester.plan.fan_out.size(), by_owner.plan.fan_out.size());
  EXPECT_EQ(by_requester.plan.local_extent, by_owner.plan.local_extent);
}

TEST(PlanDataRequests, NoRequestsNoMessages) {
  for (RemoteAccess access : {RemoteAccess::read, RemoteAccess::write}) {
    const DataRequests none = adlib::plan_data_requests(std::vector<ElementRequest>{}, access);
    EXPECT_TRUE(none.to_owners.empty());
    EXPECT_TRUE(none.plan.exchange.recv_indices.empty());
    EXPECT_TRUE(none.plan.fan_out.empty());
  }
}

// A group large enough for the radix sort (offsets over several digits,
// many repeats) against std::stable_sort of the same pairs.
TEST(PlanDataRequests, LargeGroupsSortStablyByOwnerOffset) {
  std::vector<ElementRequest> requests;
  std::vector<std::pair<std::int64_t, std::int64_t>> reference;  // (owner offset, local)
  std::uint64_t state = 12345;
  for (std::int64_t k = 0; k < 5000; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const auto offset = static_cast<std::int64_t>((state >> 33) % (k % 3 == 0 ? 50 : 5000000));
    requests.push_back({7, offset, k});
    reference.push_back({offset, k});
  }
  std::stable_sort(reference.begin(), reference.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const DataRequests w = adlib::plan_data_requests(requests, RemoteAccess::write);
  ASSERT_EQ(w.to_owners.size(), 1u);
  ASSERT_EQ(w.to_owners[0].values.size(), reference.size());
  ASSERT_EQ(w.plan.exchange.recv_indices[0].offsets.size(), reference.size());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < reference.size(); ++i)
    wrong += w.to_owners[0].values[i] != reference[i].first ||
             w.plan.exchange.recv_indices[0].offsets[i] != reference[i].second;
  EXPECT_EQ(wrong, 0u);
  // A read sends each distinct offset once, in the owner's order (requests
  // to the requester itself too, a local copy), and fans out the rest.
  std::size_t distinct = 1;
  for (std::size_t i = 1; i < reference.size(); ++i)
    distinct += reference[i].first != reference[i - 1].first;
  const DataRequests r = adlib::plan_data_requests(requests, RemoteAccess::read);
  EXPECT_EQ(r.to_owners[0].values.size(), distinct);
  EXPECT_EQ(r.plan.fan_out.size(), reference.size() - distinct);
  const Offsets& sent = r.to_owners[0].values;
  const Offsets& received = r.plan.exchange.recv_indices[0].offsets;
  EXPECT_TRUE(std::adjacent_find(sent.begin(), sent.end(), std::greater_equal<>()) ==
              sent.end());                           // strictly ascending: each offset once
  for (std::size_t i = 0; i < received.size(); ++i)  // local offset k asked for offset of k
    EXPECT_EQ(sent[i], requests[static_cast<std::size_t>(received[i])].owner_offset);
  expect_same_plan_in_requester_order(requests, RemoteAccess::read);
  expect_same_plan_in_requester_order(requests, RemoteAccess::write);
}

// A read in the requester's order whose owner offsets are dense (at most 64
// per request: the planner finds repeats with a bitmap instead of sorting)
// and local offsets ascend (Gather's): owners asked for the same offsets
// (one bitmap serves them in turn), one with many requests and repeats
// (the bitmap cleared whole), one with a few (cleared word by word), one
// with repeats only of its first offset.
TEST(PlanDataRequests, DenseReadsInRequesterOrderKeepFirstRequests) {
  constexpr std::int64_t kSpan = 8000;
  std::vector<ElementRequest> requests;
  std::uint64_t state = 99;
  std::int64_t local = 0;
  for (std::int64_t k = 0; k < 6000; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const auto offset = static_cast<std::int64_t>((state >> 33) % kSpan);
    const int owner = k % 500 == 0 ? 1 : (k % 7 == 0 ? 5 : 3);
    requests.push_back({owner, owner == 5 ? 17 : offset, local});
    local += 1 + static_cast<std::int64_t>(k % 3 == 0);  // ascending, with gaps
  }
  const DataRequests r =
      adlib::plan_data_requests(requests, RemoteAccess::read, adlib::MessageOrder::requester);
  ASSERT_EQ(peers_of(r.to_owners), (std::vector<int>{1, 3, 5}));
  // Reference: per owner, the first request of each owner offset in request
  // order; every later one copies from where the first arrives.
  std::map<std::int64_t, std::int64_t> expected_copies;
  for (std::size_t m = 0; m < r.to_owners.size(); ++m) {
    const int owner = r.to_owners[m].peer;
    std::map<std::int64_t, std::int64_t> first_arrival;  // owner offset -> local offset
    Offsets sent, received;
    for (const ElementRequest& q : requests) {
      if (q.owner != owner) continue;
      const auto [at, first] = first_arrival.emplace(q.owner_offset, q.local_offset);
      if (first) {
        sent.push_back(q.owner_offset);
        received.push_back(q.local_offset);
      } else {
        expected_copies.emplace(q.local_offset, at->second);
      }
    }
    EXPECT_EQ(r.to_owners[m].values, sent) << "owner " << owner;
    EXPECT_EQ(r.plan.exchange.recv_indices[m].offsets, received) << "owner " << owner;
  }
  EXPECT_EQ(r.to_owners[2].values, (Offsets{17}));  // owner 5: one offset, many repeats
  EXPECT_EQ(copies_by_target(r.plan.fan_out), expected_copies);
  EXPECT_EQ(r.plan.fan_out.size(), expected_copies.size());
  expect_same_plan_in_requester_order(requests, RemoteAccess::read);
}

// The same with local offsets in no order (a permutation of 0..4999): the
// sort must then order whole (owner offset, local offset) pairs, which the
// shortcut for ascending local offsets (Gather's and Scatter's) skips.
// Owner offsets from `base` on: from 2^31 on the planner cannot pack them
// into int64 keys and keeps them as (owner offset, local offset) pairs.
void expect_sorted_by_both(std::int64_t base) {
  constexpr std::int64_t kCount = 5000;
  std::vector<ElementRequest> requests;
  std::vector<std::pair<std::int64_t, std::int64_t>> reference;  // (owner offset, local)
  std::uint64_t state = 777;
  for (std::int64_t k = 0; k < kCount; ++k) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    const auto offset =
        base + static_cast<std::int64_t>((state >> 33) % (k % 3 == 0 ? 40 : 3000000));
    const std::int64_t local = (k * 7919) % kCount;  // 7919 is prime to 5000: a permutation
    requests.push_back({2, offset, local});
    if (k % 5 == 0) requests.push_back({0, offset, kCount + k});  // a second owner
    reference.push_back({offset, local});
  }
  std::sort(reference.begin(), reference.end());
  const DataRequests w = adlib::plan_data_requests(requests, RemoteAccess::write);
  ASSERT_EQ(w.to_owners.size(), 2u);
  EXPECT_EQ(w.to_owners[0].peer, 0);
  EXPECT_EQ(w.to_owners[0].values.size(), std::size_t(kCount / 5));
  ASSERT_EQ(w.to_owners[1].peer, 2);
  ASSERT_EQ(w.to_owners[1].values.size(), reference.size());
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < reference.size(); ++i)
    wrong += w.to_owners[1].values[i] != reference[i].first ||
             w.plan.exchange.recv_indices[1].offsets[i] != reference[i].second;
  EXPECT_EQ(wrong, 0u);
  // A read: each distinct offset once, received by the lowest local offset
  // asking for it, and fanned out from there to the others.
  const DataRequests r = adlib::plan_data_requests(requests, RemoteAccess::read);
  ASSERT_EQ(r.to_owners.size(), 2u);
  const Offsets& sent = r.to_owners[1].values;
  const Offsets& received = r.plan.exchange.recv_indices[1].offsets;
  std::vector<std::int64_t> first_local_of(static_cast<std::size_t>(kCount), -1);
  std::size_t d = 0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    if (i == 0 || reference[i].first != reference[i - 1].first) {
      ASSERT_LT(d, sent.size());
      EXPECT_EQ(sent[d], reference[i].first);
      EXPECT_EQ(received[d], reference[i].second);
      ++d;
    }
    first_local_of[static_cast<std::size_t>(reference[i].second)] = received[d - 1];
  }
  EXPECT_EQ(d, sent.size());
  for (const auto& f : r.plan.fan_out) {
    if (f.to < kCount) {  // owner 0's requests have local offsets from kCount on
      EXPECT_EQ(f.from, first_local_of[static_cast<std::size_t>(f.to)]) << "fan-out to " << f.to;
    }
  }
  EXPECT_EQ(r.plan.local_extent, kCount + kCount - 5 + 1);
  expect_same_plan_in_requester_order(requests, RemoteAccess::read);
  expect_same_plan_in_requester_order(requests, RemoteAccess::write);
}

TEST(PlanDataRequests, LargeGroupsWithLocalOffsetsInAnyOrderSortByBoth) {
  expect_sorted_by_both(0);
}

TEST(PlanDataRequests, OwnerOffsetsBeyond32BitsPlanTheSame) {
  expect_sorted_by_both(std::int64_t(1) << 33);
}

TEST(PlanDataRequests, OwnerOffsetsAtTheKeyLimitPlanTheSame) {
  // All below 2^31 (the highest is 2^31 - 101): keys with 45 significant bits.
  expect_sorted_by_both((std::int64_t(1) << 31) - 3000100);
  // Both sides of 2^31: the planner finds out part-way through its read.
  expect_sorted_by_both((std::int64_t(1) << 31) - 1000000);
}

// ---- a simulated run ---------------------------------------------------------

// What rank r of P owns at `offset`: the values of the reference model.
std::int64_t value_of(int rank, std::int64_t offset) {
  return 1000 * static_cast<std::int64_t>(rank) + offset;
}

// The owners rank r asks, in the order it lists them: three neighbours and
// itself (distinct for P >= 5).
std::vector<int> owners_asked(int r, int P) {
  return {(r + 1) % P, (r + P - 1) % P, (r + 3) % P, r};
}
// The ranks that ask r (the inverse of owners_asked).
std::vector<int> askers_of(int r, int P) {
  return {(r + P - 1) % P, (r + 1) % P, (r + P - 3) % P, r};
}

// Rank r's requests: the same shape for every rank and every P (only the
// owners' numbers change), with repeats and unsorted offsets, owners
// interleaved; local offsets distinct.
std::vector<ElementRequest> requests_of(int r, int P) {
  const std::vector<int> owners = owners_asked(r, P);
  std::vector<ElementRequest> out;
  std::int64_t local = 0;
  for (std::int64_t k = 0; k < 6; ++k)
    for (std::size_t j = 0; j < owners.size(); ++j)
      out.push_back({owners[j], (7 * k + 3 * static_cast<std::int64_t>(j)) % 4 + 2, local++});
  return out;
}

// The messages addressed to `owner`, sorted by sender, as exchange_sparse
// delivers them (the senders' halves are planned here, not counted).
std::vector<SparseMessage<std::int64_t>> inbox_of(int owner, int P, RemoteAccess access) {
  std::vector<int> askers = askers_of(owner, P);
  std::sort(askers.begin(), askers.end());
  std::vector<SparseMessage<std::int64_t>> inbox;
  for (int q : askers) {
    const DataRequests sent = adlib::plan_data_requests(requests_of(q, P), access);
    int found = 0;
    for (const auto& m : sent.to_owners)
      if (m.peer == owner) {
        inbox.push_back({q, m.values});
        ++found;
      }
    EXPECT_EQ(found, 1) << "rank " << q << " sends " << found << " messages to " << owner;
  }
  return inbox;
}

struct Cost {
  std::size_t allocations = 0, bytes = 0;
};

// Rank r's whole plan, as negotiate_data_plan makes it; with `cost`, the
// allocations of planning it (its own half, the received messages'
// buffers, its owner half).
DataPlan plan_rank(int r, int P, RemoteAccess access, Cost* cost = nullptr) {
  const std::vector<ElementRequest> requests = requests_of(r, P);
  const std::vector<SparseMessage<std::int64_t>> delivered = inbox_of(r, P, access);
  adlib_test::allocations = 0;
  adlib_test::allocated_bytes = 0;
  adlib_test::counting = cost != nullptr;
  DataRequests planned = adlib::plan_data_requests(requests, access);
  std::vector<SparseMessage<std::int64_t>> received;  // what the exchange's inbox allocates
  for (const auto& m : delivered) received.push_back({m.peer, m.values});
  adlib::add_owner_side(planned.plan.exchange, std::move(received));
  DataPlan plan = std::move(planned.plan);
  adlib_test::counting = false;
  if (cost) *cost = {adlib_test::allocations.load(), adlib_test::allocated_bytes.load()};
  return plan;
}

const PeerIndices* find_peer(const std::vector<PeerIndices>& lists, int peer) {
  const PeerIndices* found = nullptr;
  for (const auto& l : lists)
    if (l.peer == peer) {
      EXPECT_EQ(found, nullptr) << "two index lists for peer " << peer;
      found = &l;
    }
  return found;
}

// A read of rank r, executed element by element: every local offset must
// hold the value of the element its request named.
void check_read(int r, int P, const DataPlan& plan) {
  const std::vector<ElementRequest> requests = requests_of(r, P);
  std::vector<std::int64_t> local(requests.size(), -1);
  for (const PeerIndices& recv : plan.exchange.recv_indices) {
    const DataPlan owner = plan_rank(recv.peer, P, RemoteAccess::read);
    const PeerIndices* send = find_peer(owner.exchange.send_indices, r);
    ASSERT_NE(send, nullptr) << "rank " << recv.peer << " sends nothing to " << r;
    ASSERT_EQ(send->offsets.size(), recv.offsets.size());
    for (std::size_t i = 0; i < recv.offsets.size(); ++i) {
      const std::int64_t at = recv.offsets[i];
      ASSERT_TRUE(at >= 0 && at < static_cast<std::int64_t>(local.size()));
      EXPECT_EQ(local[at], -1) << "local offset " << at << " received twice";
      local[at] = value_of(recv.peer, send->offsets[i]);
    }
  }
  for (const adlib::FanOut& f : plan.fan_out) {
    EXPECT_EQ(local[f.to], -1) << "fan-out target " << f.to << " also received";
    local[f.to] = local[f.from];
  }
  for (const ElementRequest& q : requests)
    EXPECT_EQ(local[q.local_offset], value_of(q.owner, q.owner_offset))
        << "rank " << r << " of " << P << ", local offset " << q.local_offset;
}

// A write into owner r, executed element by element: each target must see
// its contributions (sender, sender's local offset) in the order of the
// executor, own first and then by rank, each rank's in its request order.
void check_write(int r, int P, const DataPlan& plan) {
  using Contribution = std::pair<int, std::int64_t>;
  std::map<std::int64_t, std::vector<Contribution>> got, expected;
  std::vector<const PeerIndices*> sends;
  for (const PeerIndices& s : plan.exchange.send_indices) sends.push_back(&s);
  std::stable_sort(sends.begin(), sends.end(), [&](const PeerIndices* a, const PeerIndices* b) {
    return (a->peer != r) < (b->peer != r) ||
           ((a->peer != r) == (b->peer != r) && a->peer < b->peer);
  });
  for (const PeerIndices* send : sends) {
    const DataRequests asker =
        adlib::plan_data_requests(requests_of(send->peer, P), RemoteAccess::write);
    const PeerIndices* recv = find_peer(asker.plan.exchange.recv_indices, r);
    ASSERT_NE(recv, nullptr) << "rank " << send->peer << " sends nothing to " << r;
    ASSERT_EQ(send->offsets.size(), recv->offsets.size());
    for (std::size_t i = 0; i < send->offsets.size(); ++i)
      got[send->offsets[i]].push_back({send->peer, recv->offsets[i]});
  }
  std::vector<int> order = askers_of(r, P);
  std::sort(order.begin(), order.end());
  order.erase(std::remove(order.begin(), order.end(), r), order.end());
  order.insert(order.begin(), r);
  for (int q : order)
    for (const ElementRequest& e : requests_of(q, P))
      if (e.owner == r) expected[e.owner_offset].push_back({q, e.local_offset});
  EXPECT_EQ(got, expected) << "rank " << r << " of " << P;
}

TEST(DataPlanSimulated, PlansAreRightAndTheirAllocationsDoNotDependOnP) {
  const std::vector<int> process_counts = {8, 9, 100, 4096, 100000, 1000000};
  for (RemoteAccess access : {RemoteAccess::read, RemoteAccess::write}) {
    const char* name = access == RemoteAccess::read ? "read" : "write";
    Cost first{};
    bool have_first = false;
    for (int P : process_counts) {
      for (int r : {0, 1, 2, P / 2, P - 3, P - 1}) {
        SCOPED_TRACE(std::string(name) + ", rank " + std::to_string(r) + " of " +
                     std::to_string(P));
        Cost cost;
        const DataPlan plan = plan_rank(r, P, access, &cost);
        if (access == RemoteAccess::read)
          check_read(r, P, plan);
        else
          check_write(r, P, plan);
        // Four owners asked, four askers: the plan's size is the pattern's.
        EXPECT_EQ(plan.exchange.recv_indices.size(), 4u);
        EXPECT_EQ(plan.exchange.send_indices.size(), 4u);
        if (!have_first) {
          first = cost;
          have_first = true;
          std::printf("[ planning  ] %-5s one rank: %zu allocations, %zu bytes\n", name,
                      cost.allocations, cost.bytes);
        }
        EXPECT_EQ(cost.allocations, first.allocations) << "allocations depend on P or the rank";
        EXPECT_EQ(cost.bytes, first.bytes) << "allocated bytes depend on P or the rank";
      }
    }
  }
}

// ---- blocks ------------------------------------------------------------------

using adlib::BlockRequest;
using adlib::PeerBlock;
using adlib::StridedBlock;

bool same_block(const StridedBlock& a, const StridedBlock& b) {
  return a.offset == b.offset && adlib::same_shape(a, b);
}

TEST(PlanBlockRequests, GroupByAscendingOwnerKeepRequestOrderAndDropEmptyBlocks) {
  const StridedBlock column = StridedBlock::make(2, {4}, {4});
  const StridedBlock patch = StridedBlock::make(5, {2, 2}, {4, 1});
  const StridedBlock row = StridedBlock::make(0, {1, 4}, {4, 1});  // normalises to {4}, {1}
  const std::vector<BlockRequest> requests = {
      {3, column, StridedBlock::make(0, {4}, {1})},
      {1, patch, StridedBlock::make(4, {4}, {-1})},
      {3, row, StridedBlock::make(8, {2, 2}, {1, 2})},
      {0, StridedBlock::make(0, {0}, {1}), StridedBlock::make(0, {0, 3}, {3, 1})},
      {3, StridedBlock::make(7, {}, {}), StridedBlock::make(12, {}, {})}};
  ASSERT_EQ(adlib::check_block_requests(requests, 4), "");
  const adlib::BlockDataRequests planned = adlib::plan_block_requests(requests);
  EXPECT_EQ(peers_of(planned.to_owners), (std::vector<int>{1, 3}));  // owner 0: empty only
  ASSERT_EQ(planned.plan.recvs.size(), 4u);
  const int peers[] = {1, 3, 3, 3};
  const std::size_t local[] = {1, 0, 2, 4};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(planned.plan.recvs[i].peer, peers[i]) << "receive " << i;
    EXPECT_TRUE(same_block(planned.plan.recvs[i].block, requests[local[i]].local_block))
        << "receive " << i;
  }
  // The owner reads the blocks back in request order, normalised.
  adlib::ExchangePlan owner;
  adlib::add_block_owner_side(owner, {{5, planned.to_owners[1].values}});
  ASSERT_EQ(owner.sends.size(), 3u);
  for (const PeerBlock& b : owner.sends) EXPECT_EQ(b.peer, 5);
  EXPECT_TRUE(same_block(owner.sends[0].block, column));
  EXPECT_TRUE(same_block(owner.sends[1].block, StridedBlock::make(0, {4}, {1})));
  EXPECT_TRUE(same_block(owner.sends[2].block, StridedBlock::make(7, {}, {})));
  EXPECT_EQ(planned.to_owners[1].values.size(), 4u + 4u + 2u);  // 2 + 2 rank words each
}

TEST(PlanBlockRequests, WordsRoundTripAndMalformedWordsThrow) {
  std::vector<std::int64_t> words;
  const StridedBlock b = StridedBlock::make(9, {2, 3, 4}, {-30, 5, 1});
  adlib::append_block_words(words, b);
  adlib::append_block_words(words, StridedBlock::make(3, {}, {}));
  std::size_t position = 0;
  EXPECT_TRUE(same_block(adlib::read_block_words(words, position), b));
  EXPECT_TRUE(same_block(adlib::read_block_words(words, position), StridedBlock::make(3, {}, {})));
  EXPECT_EQ(position, words.size());
  std::vector<std::int64_t> cut(words.begin(), words.begin() + 5);
  position = 0;
  EXPECT_THROW(adlib::read_block_words(cut, position), adlib::Error);
  std::vector<std::int64_t> bad_rank = {0, 9};
  position = 0;
  EXPECT_THROW(adlib::read_block_words(bad_rank, position), adlib::Error);
}

TEST(PlanBlockRequests, CheckNamesTheFirstBadRequest) {
  const StridedBlock two = StridedBlock::make(0, {2}, {1});
  EXPECT_NE(adlib::check_block_requests({{4, two, two}}, 4).find("names owner 4"),
            std::string::npos);
  EXPECT_NE(
      adlib::check_block_requests({{0, two, two}, {0, two, StridedBlock::make(0, {3}, {1})}}, 4)
          .find("block request 1 pairs 2 elements of the owner with 3 local elements"),
      std::string::npos);
  EXPECT_NE(adlib::check_block_requests({{0, StridedBlock::make(1, {3}, {-1}), two}}, 4)
                .find("reaches below the start of local memory"),
            std::string::npos);
  StridedBlock too_deep = two;
  too_deep.rank = 9;
  EXPECT_NE(adlib::check_block_requests({{0, too_deep, two}}, 4).find("block rank 9"),
            std::string::npos);
}

// Rank r's block requests in a simulated run: the same shapes for every rank
// and P, owners interleaved; local blocks of distinct elements.
std::vector<BlockRequest> block_requests_of(int r, int P) {
  const std::vector<int> owners = owners_asked(r, P);
  std::vector<BlockRequest> out;
  std::int64_t local = 0;
  for (int k = 0; k < 3; ++k)
    for (std::size_t j = 0; j < owners.size(); ++j) {
      const auto step = static_cast<std::int64_t>(j);
      const StridedBlock owned = k == 0   ? StridedBlock::make(step, {3}, {4})
                                 : k == 1 ? StridedBlock::make(step + 8, {2, 2}, {-4, 1})
                                          : StridedBlock::make(3, {2}, {0});
      out.push_back(
          {owners[j], owned, StridedBlock::make(local + owned.count() - 1, {owned.count()}, {-1})});
      local += owned.count();
    }
  return out;
}

std::vector<std::int64_t> elements_of(const StridedBlock& b) {
  std::vector<std::int64_t> out;
  for (std::int64_t p = 0; p < b.count(); ++p) {
    std::int64_t rest = p, offset = b.offset;
    for (int d = b.rank; d-- > 0;) {
      offset += (rest % b.extents[d]) * b.strides[d];
      rest /= b.extents[d];
    }
    out.push_back(offset);
  }
  return out;
}

// Rank r's block plan, as negotiate_block_data_plan makes it; with `cost`,
// the allocations of planning it.
adlib::ExchangePlan plan_blocks_of_rank(int r, int P, Cost* cost = nullptr) {
  const std::vector<BlockRequest> requests = block_requests_of(r, P);
  std::vector<int> askers = askers_of(r, P);
  std::sort(askers.begin(), askers.end());
  std::vector<SparseMessage<std::int64_t>> delivered;
  for (int q : askers)
    for (const auto& m : adlib::plan_block_requests(block_requests_of(q, P)).to_owners)
      if (m.peer == r) delivered.push_back({q, m.values});
  adlib_test::allocations = 0;
  adlib_test::allocated_bytes = 0;
  adlib_test::counting = cost != nullptr;
  adlib::BlockDataRequests planned = adlib::plan_block_requests(requests);
  std::vector<SparseMessage<std::int64_t>> received;
  for (const auto& m : delivered) received.push_back({m.peer, m.values});
  adlib::add_block_owner_side(planned.plan, received);
  adlib::ExchangePlan plan = std::move(planned.plan);
  adlib_test::counting = false;
  if (cost) *cost = {adlib_test::allocations.load(), adlib_test::allocated_bytes.load()};
  return plan;
}

// Rank r's read, element by element: the blocks one peer sends and the
// blocks the other receives, concatenated in plan order, pair up.
void check_block_read(int r, int P, const adlib::ExchangePlan& plan) {
  const std::vector<BlockRequest> requests = block_requests_of(r, P);
  std::int64_t local_size = 0;
  for (const BlockRequest& q : requests) local_size += q.local_block.count();
  std::vector<std::int64_t> local(static_cast<std::size_t>(local_size), -1);
  std::vector<int> owners;
  for (const PeerBlock& b : plan.recvs)
    if (std::find(owners.begin(), owners.end(), b.peer) == owners.end()) owners.push_back(b.peer);
  for (int o : owners) {
    std::vector<std::int64_t> from, to;
    for (const PeerBlock& b : plan_blocks_of_rank(o, P).sends)
      if (b.peer == r)
        for (std::int64_t e : elements_of(b.block)) from.push_back(e);
    for (const PeerBlock& b : plan.recvs)
      if (b.peer == o)
        for (std::int64_t e : elements_of(b.block)) to.push_back(e);
    ASSERT_EQ(from.size(), to.size()) << "the message from " << o;
    for (std::size_t i = 0; i < to.size(); ++i) {
      EXPECT_EQ(local[to[i]], -1) << "local element " << to[i] << " received twice";
      local[to[i]] = value_of(o, from[i]);
    }
  }
  for (const BlockRequest& q : requests) {
    const auto from = elements_of(q.owner_block), to = elements_of(q.local_block);
    for (std::size_t i = 0; i < to.size(); ++i)
      EXPECT_EQ(local[to[i]], value_of(q.owner, from[i])) << "local element " << to[i];
  }
}

TEST(BlockPlanSimulated, PlansAreRightAndTheirAllocationsDoNotDependOnP) {
  Cost first{};
  bool have_first = false;
  for (int P : {8, 9, 100, 4096, 100000, 1000000}) {
    for (int r : {0, 1, 2, P / 2, P - 3, P - 1}) {
      SCOPED_TRACE("rank " + std::to_string(r) + " of " + std::to_string(P));
      Cost cost;
      const adlib::ExchangePlan plan = plan_blocks_of_rank(r, P, &cost);
      check_block_read(r, P, plan);
      EXPECT_EQ(plan.recvs.size(), 12u);
      EXPECT_EQ(plan.sends.size(), 12u);
      if (!have_first) {
        first = cost;
        have_first = true;
        std::printf("[ planning  ] blocks one rank: %zu allocations, %zu bytes\n", cost.allocations,
                    cost.bytes);
      }
      EXPECT_EQ(cost.allocations, first.allocations) << "allocations depend on P or the rank";
      EXPECT_EQ(cost.bytes, first.bytes) << "allocated bytes depend on P or the rank";
    }
  }
}

// The counter itself: a test that cannot fail is a defect.
TEST(DataPlanSimulated, TheCounterSeesAllocations) {
  adlib_test::counting = true;
  adlib_test::allocations = 0;
  adlib_test::allocated_bytes = 0;
  auto* p = new std::vector<std::int64_t>(100);
  adlib_test::counting = false;
  delete p;
  EXPECT_EQ(adlib_test::allocations.load(), 2u);
  EXPECT_EQ(adlib_test::allocated_bytes.load(),
            sizeof(std::vector<std::int64_t>) + 100 * sizeof(std::int64_t));
}

}  // namespace

}  // namespace serial_data_plan
