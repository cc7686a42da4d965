// SPDX-License-Identifier: BSD-3-Clause
// PLAN-RM1-P<n> (bench/README.md): time and memory
// of one rank's Remap plan for RM1 (N = 2^22, block -> cyclic) at a simulated
// process count n, computed in one process from a grid without communicator.
// Regular schedules must plan from range arithmetic alone: no O(P) work
// beyond the peers a rank really has, no messages.
//
// Rank 0 computes; the other ranks wait at the barrier (time_op's inactive
// ranks) and take part in the host probes only.  bytes = memory of the plan,
// not data moved, so the GB/s column is "-".
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>
#include "common.hpp"

namespace bench {

namespace {

using adlib::Index;

constexpr Index kExtent = 4194304;

// f(offset) for every element of a block, in message (C) order.
template <class F>
void for_each_element(const adlib::StridedBlock& b, F&& f) {
  if (b.count() == 0) return;
  Index index[adlib::kMaxBlockRank] = {};
  while (true) {
    Index offset = b.offset;
    for (int d = 0; d < b.rank; ++d) offset += index[d] * b.strides[d];
    f(offset);
    int d = b.rank - 1;
    for (; d >= 0; --d) {
      if (++index[d] < b.extents[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

std::size_t plan_bytes(const adlib::ExchangePlan& plan) {
  return sizeof(plan) + (plan.sends.capacity() + plan.recvs.capacity()) * sizeof(adlib::PeerBlock);
}

std::size_t message_plan_bytes(const adlib::BlockMessagePlan& plan) {
  std::size_t bytes = sizeof(plan);
  for (const auto* side : {&plan.send_messages(), &plan.recv_messages()}) {
    bytes += side->capacity() * sizeof(adlib::PeerMessage);
    for (const auto& m : *side) bytes += m.blocks.capacity() * sizeof(adlib::StridedBlock);
  }
  bytes += plan.local_copies().capacity() * sizeof(adlib::LocalCopy);
  bytes += (plan.local_send_blocks().capacity() + plan.local_recv_blocks().capacity()) *
           sizeof(adlib::StridedBlock);
  return bytes;
}

int peers_of(const std::vector<adlib::PeerBlock>& blocks) {
  std::vector<int> peers;
  for (const auto& b : blocks) peers.push_back(b.peer);
  std::sort(peers.begin(), peers.end());
  return static_cast<int>(std::unique(peers.begin(), peers.end()) - peers.begin());
}

// The plan must move every element of rank `me` to its cyclic owner and
// fill every element of its cyclic share from its block owner: simulated
// with poisoned local arrays and checked against double(g).
void verify_plan(const std::string& name, const std::string& impl, const adlib::ExchangePlan& plan,
                 int processes, int me) {
  const Index lo = me * kExtent / processes, hi = (me + 1) * kExtent / processes;
  std::vector<double> sent(static_cast<std::size_t>(hi - lo), kPoison);
  for (const auto& b : plan.sends)
    for_each_element(b.block, [&](Index l) {
      const Index g = lo + l;
      // Marked with g only when it goes to the right rank.
      if (l >= 0 && l < hi - lo && g % processes == b.peer)
        sent[static_cast<std::size_t>(l)] = static_cast<double>(g);
    });
  // Coverage alone would miss an element sent twice: the counts must match too.
  auto check_count = [&](const char* what, const std::vector<adlib::PeerBlock>& blocks,
                         Index expected) {
    Index count = 0;
    for (const auto& b : blocks) count += b.block.count();
    if (count != expected)
      verification_failed(name, impl, what, 0, static_cast<double>(count),
                          static_cast<double>(expected));
  };
  check_count("elements sent", plan.sends, hi - lo);
  verify(name, impl, "sends", sent.data(), sent.size(),
         [&](std::size_t l) { return static_cast<double>(lo + Index(l)); });
  const Index mine = (kExtent - me + processes - 1) / processes;
  std::vector<double> received(static_cast<std::size_t>(mine), kPoison);
  for (const auto& b : plan.recvs)
    for_each_element(b.block, [&](Index l) {
      const Index g = l * processes + me;
      const Index owner = (g * processes + processes - 1) / kExtent;  // block owner of g
      const bool owned = owner * kExtent / processes <= g && g < (owner + 1) * kExtent / processes;
      if (l >= 0 && l < mine && owned && owner == b.peer)
        received[static_cast<std::size_t>(l)] = static_cast<double>(g);
    });
  check_count("elements received", plan.recvs, mine);
  verify(name, impl, "receives", received.data(), received.size(),
         [&](std::size_t l) { return static_cast<double>(Index(l) * processes + me); });
}

void plan_case(int processes) {
  const std::string name = "PLAN-RM1-P" + std::to_string(processes);
  const bool active = rank() == 0;
  const int me = processes / 2;
  adlib::ProcessGrid grid(std::vector<int>{processes});
  auto block = std::make_shared<adlib::BlockRange>(kExtent, grid.dim(0));
  auto cyclic = std::make_shared<adlib::CyclicRange>(kExtent, grid.dim(0));
  const adlib::ArrayLayout src(adlib::Group(grid), {block});
  const adlib::ArrayLayout dst(adlib::Group(grid), {cyclic});

  {  // plan_remap alone: the blocks rank `me` sends and receives
    adlib::ExchangePlan plan;
    if (active) {
      plan = adlib::plan_remap(dst, src, me);
      verify_plan(name, "adlib", plan, processes, me);
    }
    const Measurement m = time_op(
        [&] {
          adlib::ExchangePlan p = adlib::plan_remap(dst, src, me);
          benchmark::DoNotOptimize(p.sends.data());
          benchmark::DoNotOptimize(p.recvs.data());
        },
        {active, 1.0});
    const std::size_t bytes = active ? plan_bytes(plan) : 0;
    char note[256];
    std::snprintf(note, sizeof note,
                  "plan_remap for rank %d of %d in one process; bytes = plan memory: %zu send "
                  "blocks to %d peers, %zu receive blocks from %d peers, %zu B per block",
                  me, processes, plan.sends.size(), peers_of(plan.sends), plan.recvs.size(),
                  peers_of(plan.recvs), sizeof(adlib::PeerBlock));
    report({name, "adlib", "op", m, static_cast<double>(bytes), 0, note, false});
  }

  {  // plan_remap + BlockMessagePlan::build: what Remap's constructor computes
    std::size_t bytes = 0, messages = 0;
    if (active) {
      const adlib::ExchangePlan plan = adlib::plan_remap(dst, src, me);
      adlib::BlockMessagePlan messages_plan(me, processes);
      for (const auto& b : plan.sends) messages_plan.send(b.peer, b.block);
      for (const auto& b : plan.recvs) messages_plan.recv(b.peer, b.block);
      messages_plan.build();
      bytes = message_plan_bytes(messages_plan);
      messages = messages_plan.send_messages().size() + messages_plan.recv_messages().size();
    }
    const Measurement m = time_op(
        [&] {
          const adlib::ExchangePlan plan = adlib::plan_remap(dst, src, me);
          adlib::BlockMessagePlan messages_plan(me, processes);
          for (const auto& b : plan.sends) messages_plan.send(b.peer, b.block);
          for (const auto& b : plan.recvs) messages_plan.recv(b.peer, b.block);
          messages_plan.build();
          benchmark::DoNotOptimize(messages_plan.send_messages().data());
        },
        {active, 1.0});
    char note[256];
    std::snprintf(note, sizeof note,
                  "plan_remap + BlockMessagePlan::build (the Remap constructor's work, no MPI); "
                  "bytes = message plan memory, %zu messages",
                  messages);
    report({name, "adlib+message-plan", "op", m, static_cast<double>(bytes), 0, note, false});
  }
}

}  // namespace

void register_plan_cases() {
  for (int processes : {1000, 10000, 100000, 1000000})
    add_case("PLAN-RM1-P" + std::to_string(processes), [processes] { plan_case(processes); });
}

}  // namespace bench
