// SPDX-License-Identifier: BSD-3-Clause
// BlockMessagePlan (the MPI-free half of BlockMessSchedule) for simulated
// ranks: per peer, a message's element sequence must be the concatenation of
// that peer's requests in declaration order (it is the wire format), local
// copies must pair the i-th self-sent element with the i-th self-received
// one whether paired block by block or staged, and buffer offsets, counts,
// memory requirements and argument checks must be as documented.
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include <adlib/runtime/error.hpp>
#include <adlib/schedules/block_message_plan.hpp>
#include "block_reference.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_block_message_plan {

namespace {

using adlib::BlockMessagePlan;
using adlib::StridedBlock;
using adlib_test::Offsets;

using adlib_test::offsets_of;

void append(Offsets& to, const StridedBlock& b) {
  const Offsets o = offsets_of(b);
  to.insert(to.end(), o.begin(), o.end());
}

// A random 1..3-D block inside a local array of 6 x 7 x 8 elements (strides
// 56, 8, 1), sometimes a contiguous run, sometimes empty.
StridedBlock random_block(adlib_test::Rng& rng) {
  if (rng.chance(20)) {
    const std::int64_t n = rng.uniform(1, 40);
    return StridedBlock::make(rng.uniform(0, 300 - n), {n}, {1});
  }
  const std::int64_t e0 = rng.uniform(rng.chance(10) ? 0 : 1, 3), e1 = rng.uniform(1, 3),
                     e2 = rng.uniform(1, 4);
  const std::int64_t s2 = rng.chance(50) ? 1 : 2;
  const std::int64_t sign = rng.chance(30) ? -1 : 1;
  StridedBlock b = StridedBlock::make(0, {e0, e1, e2}, {56, sign * 8, s2});
  b.offset = rng.uniform(0, 2) * 56 + (sign < 0 ? 7 * 8 - 8 : 0) + rng.uniform(0, 1);
  return b;
}

// The same element sequence as `blocks`, cut into different blocks: single
// elements and short runs (so self-pairing by extents must stage).
std::vector<StridedBlock> resplit(adlib_test::Rng& rng, const std::vector<StridedBlock>& blocks) {
  Offsets all;
  for (const auto& b : blocks) append(all, b);
  std::vector<StridedBlock> out;
  size_t i = 0;
  while (i < all.size()) {
    size_t j = i + 1;
    while (j < all.size() && all[j] == all[j - 1] + 1 && j - i < 3 && rng.chance(70)) ++j;
    out.push_back(StridedBlock::make(all[i], {static_cast<std::int64_t>(j - i)}, {1}));
    i = j;
  }
  return out;
}

TEST(SerialBlockMessagePlan, MessagesAreConcatenationsInDeclarationOrder) {
  adlib_test::Rng rng(11);
  for (int trial = 0; trial < 600; ++trial) {
    const int P = static_cast<int>(rng.uniform(1, 9));
    const int me = static_cast<int>(rng.uniform(0, P - 1));
    BlockMessagePlan plan(me, P);
    std::map<int, Offsets> want_send, want_recv;
    std::vector<StridedBlock> self_send, self_recv;
    std::int64_t send_required = 0, recv_required = 0;
    auto note = [](std::int64_t& required, const StridedBlock& b) {
      if (b.count() > 0) required = std::max(required, b.highest_offset() + 1);
    };
    const int requests = static_cast<int>(rng.uniform(0, 25));
    for (int i = 0; i < requests; ++i) {
      const int peer = static_cast<int>(rng.uniform(0, P - 1));
      const StridedBlock b = random_block(rng);
      const bool sending = rng.chance(50);
      if (peer == me) {
        (sending ? self_send : self_recv).push_back(b);
        continue;  // declared below, with matching counts
      }
      (sending ? plan.send(peer, b) : plan.recv(peer, b));
      append((sending ? want_send : want_recv)[peer], b);
      note(sending ? send_required : recv_required, b);
    }
    // Self traffic: equal totals; split identically (paired copies) or differently (staged).
    std::int64_t sent = 0, received = 0;
    for (const auto& b : self_send) sent += b.count();
    for (const auto& b : self_recv) received += b.count();
    std::vector<StridedBlock> self_recv_blocks = self_recv;
    const bool same_split = rng.chance(50);
    if (same_split) {
      // Receive blocks with the send blocks' extents at other places.
      self_recv_blocks.clear();
      for (const auto& b : self_send) {
        StridedBlock r = b;
        r.offset = b.offset + 400;
        self_recv_blocks.push_back(r);
      }
    } else if (sent != received) {
      self_recv_blocks = resplit(rng, self_send);
      for (auto& b : self_recv_blocks) b.offset += 500;
    }
    for (const auto& b : self_send) {
      plan.send(me, b);
      note(send_required, b);
    }
    for (const auto& b : self_recv_blocks) {
      plan.recv(me, b);
      note(recv_required, b);
    }
    plan.build();
    ASSERT_TRUE(plan.built());

    auto check_side = [&](const std::vector<adlib::PeerMessage>& messages,
                          const std::map<int, Offsets>& want) -> std::int64_t {
      std::map<int, Offsets> got;
      int previous = -1;
      std::int64_t total = 0;
      for (const auto& m : messages) {
        EXPECT_GT(m.peer, previous) << "one message per peer, sorted";
        EXPECT_NE(m.peer, me);
        previous = m.peer;
        Offsets seq;
        for (const auto& b : m.blocks) append(seq, b);
        EXPECT_EQ(static_cast<std::int64_t>(seq.size()), m.count);
        EXPECT_GT(m.count, 0) << "no empty messages";
        got[m.peer] = seq;
        // Direct (sent from / received into user memory) exactly when the
        // message is one consecutive run of one block.
        bool consecutive = m.blocks.size() == 1;
        for (size_t i = 1; i < seq.size(); ++i)
          consecutive = consecutive && seq[i] == seq[i - 1] + 1;
        EXPECT_EQ(m.direct, consecutive);
        total += m.count;
      }
      std::map<int, Offsets> want_non_empty;
      for (const auto& [p, o] : want)
        if (!o.empty()) want_non_empty[p] = o;
      EXPECT_EQ(got, want_non_empty);
      return total;
    };
    const auto s = check_side(plan.send_messages(), want_send);
    const auto r = check_side(plan.recv_messages(), want_recv);
    EXPECT_EQ(plan.send_count(), s);
    EXPECT_EQ(plan.recv_count(), r);
    EXPECT_EQ(plan.send_memory_required(), send_required);
    EXPECT_EQ(plan.recv_memory_required(), recv_required);

    // Local copies: element i of the self-sends goes to element i of the self-receives.
    Offsets from, to, got_from, got_to;
    for (const auto& b : self_send) append(from, b);
    for (const auto& b : self_recv_blocks) append(to, b);
    ASSERT_EQ(from.size(), to.size());
    EXPECT_EQ(plan.local_count(), static_cast<std::int64_t>(from.size()));
    if (plan.local_copies_staged()) {
      for (const auto& b : plan.local_send_blocks()) append(got_from, b);
      for (const auto& b : plan.local_recv_blocks()) append(got_to, b);
    } else {
      for (const auto& c : plan.local_copies()) {
        ASSERT_TRUE(adlib::same_extents(c.send_side, c.recv_side))
            << c.send_side.to_string() << " vs " << c.recv_side.to_string();
        append(got_from, c.send_side);
        append(got_to, c.recv_side);
      }
    }
    EXPECT_EQ(got_from, from);
    EXPECT_EQ(got_to, to);
    if (same_split && !self_send.empty()) {
      EXPECT_FALSE(plan.local_copies_staged());
    }
  }
}

TEST(SerialBlockMessagePlan, PairedLocalCopiesFuse) {
  // Rows of a matrix copied to rows of another: equal pairs advancing by
  // constant steps become one pair with an outer dimension.
  BlockMessagePlan plan(2, 4);
  for (int row = 0; row < 5; ++row) {
    plan.send(2, StridedBlock::make(row * 10, {4}, {1}));
    plan.recv(2, StridedBlock::make(3 + row * 7, {4}, {1}));
  }
  plan.build();
  EXPECT_FALSE(plan.local_copies_staged());
  ASSERT_EQ(plan.local_copies().size(), 1u);
  Offsets from, to;
  append(from, plan.local_copies()[0].send_side);
  append(to, plan.local_copies()[0].recv_side);
  ASSERT_EQ(from.size(), 20u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(from[i], (i / 4) * 10 + i % 4);
    EXPECT_EQ(to[i], 3 + (i / 4) * 7 + i % 4);
  }
  EXPECT_TRUE(plan.send_messages().empty());
  EXPECT_EQ(plan.send_memory_required(), 44);
  EXPECT_EQ(plan.recv_memory_required(), 35);
}

TEST(SerialBlockMessagePlan, RejectsInvalidRequests) {
  auto build = [](auto&& declare, int me = 0, int P = 3) {
    // Peers are checked when declared, the rest at build(): either throws.
    BlockMessagePlan plan(me, P);
    declare(plan);
    plan.build();
  };
  const auto ok = StridedBlock::make(0, {3}, {1});
  EXPECT_THROW(build([&](BlockMessagePlan& p) { p.send(3, ok); }), adlib::Error);
  EXPECT_THROW(build([&](BlockMessagePlan& p) { p.recv(-1, ok); }), adlib::Error);
  EXPECT_THROW(build([&](BlockMessagePlan& p) { p.send(1, StridedBlock::make(0, {-1}, {1})); }),
               adlib::Error);
  EXPECT_THROW(build([&](BlockMessagePlan& p) { p.send(1, StridedBlock::make(1, {3}, {-1})); }),
               adlib::Error);
  EXPECT_THROW(build([&](BlockMessagePlan& p) { p.recv(1, StridedBlock::make(-2, {2}, {1})); }),
               adlib::Error);
  // Self-sends and self-receives of different totals.
  EXPECT_THROW(build([&](BlockMessagePlan& p) {
                 p.send(0, ok);
                 p.recv(0, StridedBlock::make(0, {2}, {1}));
               }),
               adlib::Error);
  // An empty block with a wild offset touches nothing: fine.
  EXPECT_NO_THROW(
      build([&](BlockMessagePlan& p) { p.send(1, StridedBlock::make(-50, {0}, {1})); }));
  BlockMessagePlan plan(0, 2);
  plan.send(1, ok);
  plan.build();
  EXPECT_THROW(plan.send(1, ok), adlib::Error);
  EXPECT_THROW(plan.recv(1, ok), adlib::Error);
  EXPECT_THROW(plan.build(), adlib::Error);
}

}  // namespace

}  // namespace serial_block_message_plan
