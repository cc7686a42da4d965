// SPDX-License-Identifier: BSD-3-Clause
// MessageRoute, the copy program of a BlockMessSchedule, decided from the
// plan without MPI: which messages travel in place and which through a
// buffer (and where), for each kind of execution (direction, number of
// arrays, combining or not, staged or not), and how packs and local copies
// are grouped into walks.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <adlib/schedules/block_message_plan.hpp>
#include <adlib/schedules/detail/message_route.hpp>

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_message_route {

namespace {

using adlib::BlockMessagePlan;
using adlib::Direction;
using adlib::StridedBlock;
using adlib::TransferMethod;
using adlib::TransferPolicy;
using adlib::detail::MessageRoute;
using adlib::detail::RouteKind;
using adlib::detail::RouteMemory;

// Rank 1 of 3: to rank 0 a contiguous run (direct), to rank 2 a column
// (strided); from rank 0 a column, from rank 2 a contiguous run; and a
// self-copy of a row.
BlockMessagePlan three_rank_plan() {
  BlockMessagePlan plan(1, 3);
  plan.send(0, StridedBlock::make(0, {8}, {1}));
  plan.send(2, StridedBlock::make(3, {6}, {10}));
  plan.recv(0, StridedBlock::make(1, {5}, {10}));
  plan.recv(2, StridedBlock::make(50, {7}, {1}));
  plan.send(1, StridedBlock::make(20, {4}, {1}));
  plan.recv(1, StridedBlock::make(70, {4}, {1}));
  plan.build();
  return plan;
}

// Merged walks allowed: the rules of merges_index_* are what these tests
// check.
const TransferPolicy kPack{TransferMethod::pack, 16384, true};
const TransferPolicy kDatatype{TransferMethod::datatype, 16384, true};

TEST(SerialMessageRoute, ForwardSingleArrayKeepsContiguousMessagesInPlace) {
  const BlockMessagePlan plan = three_rank_plan();
  const MessageRoute r(plan, RouteKind{Direction::forward, 8, 1, false}, kPack, RouteMemory{});
  ASSERT_EQ(r.outgoing().size(), 2u);
  ASSERT_EQ(r.incoming().size(), 2u);
  EXPECT_EQ(r.outgoing()[0].message->peer, 0);
  EXPECT_TRUE(r.outgoing()[0].in_place);
  EXPECT_FALSE(r.outgoing()[1].in_place);
  EXPECT_EQ(r.outgoing()[1].buffer_offset, 0);
  EXPECT_EQ(r.outgoing_buffer_count(), 6);
  EXPECT_FALSE(r.incoming()[0].in_place);
  EXPECT_TRUE(r.incoming()[1].in_place);
  EXPECT_EQ(r.incoming_buffer_count(), 5);
  EXPECT_TRUE(r.any_incoming_in_place());
  EXPECT_TRUE(r.any_outgoing_in_place());
  // One pack (the column to rank 2) and the local copy, in their walks.
  int packs = 0, locals = 0;
  for (const auto& walk : r.walks())
    for (const auto& c : walk.copies) (c.into_buffer ? packs : locals) += 1;
  EXPECT_EQ(packs, 1);
  EXPECT_EQ(locals, 1);
}

TEST(SerialMessageRoute, BackwardSwapsTheSidesOnce) {
  const BlockMessagePlan plan = three_rank_plan();
  const MessageRoute r(plan, RouteKind{Direction::backward, 8, 1, false}, kPack, RouteMemory{});
  // Backward, the plan's receive blocks are sent and its send blocks received.
  ASSERT_EQ(r.outgoing().size(), 2u);
  EXPECT_EQ(r.outgoing()[0].message, &plan.recv_messages()[0]);
  EXPECT_EQ(r.incoming()[1].message, &plan.send_messages()[1]);
  for (const auto& walk : r.walks())
    for (const auto& c : walk.copies)
      if (!c.into_buffer) {
        EXPECT_EQ(c.source.offset, 70);  // reads the receive side
        EXPECT_EQ(c.target.offset, 20);
      }
}

TEST(SerialMessageRoute, StagedAndBatchedExecutionsBufferEveryMessage) {
  const BlockMessagePlan plan = three_rank_plan();
  for (const int arrays : {1, 3}) {
    const bool staged = arrays == 1;
    const MessageRoute r(plan, RouteKind{Direction::forward, 8, arrays, false}, kDatatype,
                         RouteMemory{staged, true});
    EXPECT_FALSE(r.any_incoming_in_place());
    EXPECT_FALSE(r.any_outgoing_in_place());
    // K copies of each message in a row, messages by peer.
    EXPECT_EQ(r.outgoing()[0].buffer_offset, 0);
    EXPECT_EQ(r.outgoing()[1].buffer_offset, 8 * arrays);
    EXPECT_EQ(r.outgoing_buffer_count(), (8 + 6) * arrays);
    EXPECT_EQ(r.incoming()[1].buffer_offset, 5 * arrays);
    EXPECT_EQ(r.incoming_buffer_count(), (5 + 7) * arrays);
    for (const auto& walk : r.walks())
      for (const auto& c : walk.copies)
        if (c.into_buffer) {
          EXPECT_EQ(c.array_stride, c.target.offset == 0 ? 8 : 6);
        }
  }
}

TEST(SerialMessageRoute, CombiningArrivalsNeverLandInPlace) {
  const BlockMessagePlan plan = three_rank_plan();
  const MessageRoute r(plan, RouteKind{Direction::forward, 8, 1, true}, kDatatype, RouteMemory{});
  for (const auto& m : r.incoming()) EXPECT_FALSE(m.in_place);
  // Departures still may: nothing combines on the sending side.
  for (const auto& m : r.outgoing()) EXPECT_TRUE(m.in_place);
  EXPECT_EQ(r.incoming_buffer_count(), 12);
}

TEST(SerialMessageRoute, DatatypesOnlyOverHostMemory) {
  const BlockMessagePlan plan = three_rank_plan();
  const MessageRoute host(plan, RouteKind{Direction::forward, 8, 1, false}, kDatatype,
                          RouteMemory{false, true});
  EXPECT_TRUE(host.outgoing()[1].datatype);
  const MessageRoute device(plan, RouteKind{Direction::forward, 8, 1, false}, kDatatype,
                            RouteMemory{false, false});
  EXPECT_FALSE(device.outgoing()[1].datatype);
  EXPECT_FALSE(device.outgoing()[1].in_place);
  EXPECT_TRUE(device.outgoing()[0].in_place);  // contiguous: direct (GPU-aware MPI)
}

TEST(SerialMessageRoute, CombiningLocalCopiesWalkAlone) {
  // Four local copies reading one shape (into targets of different
  // shapes, so the plan cannot fuse them): replacing, they share a walk;
  // combining, each has its own.
  BlockMessagePlan plan(0, 1);
  for (int k = 0; k < 4; ++k) {
    plan.send(0, StridedBlock::make(k, {3, 2}, {16, 4}));
    plan.recv(0, StridedBlock::make(100 + 30 * k, {3, 2}, {3 + k, 1}));
  }
  plan.build();
  ASSERT_FALSE(plan.local_copies_staged());
  const MessageRoute replacing(plan, RouteKind{Direction::forward, 8, 1, false}, kPack,
                               RouteMemory{});
  const MessageRoute combining(plan, RouteKind{Direction::forward, 8, 1, true}, kPack,
                               RouteMemory{});
  std::size_t copies = 0;
  for (const auto& w : combining.walks()) {
    EXPECT_EQ(w.copies.size(), 1u);
    copies += w.copies.size();
  }
  std::size_t shared = 0;
  for (const auto& w : replacing.walks()) shared += w.copies.size();
  EXPECT_EQ(copies, 4u);
  EXPECT_EQ(shared, 4u);
  EXPECT_EQ(replacing.walks().size(), 1u);
}

// A Scatter's plan as rank 1 of 3 sees it: scattered contributions to
// itself and to ranks 0 and 2, sorted by their owners' offsets.  Executed
// backward with a combine operation, the arrivals (the plan's sends) and the
// local index copy merge into one walk, only where every rule of
// MessageRoute::merges_index_arrivals holds.
BlockMessagePlan scatter_plan(bool with_run, bool unsorted) {
  BlockMessagePlan plan(1, 3);
  plan.send_indices(0, {2, 9, 9, 40});
  plan.send_indices(
      2, unsorted ? std::vector<std::int64_t>{30, 1, 70} : std::vector<std::int64_t>{1, 30, 70});
  plan.recv_indices(0, {5, 0, 7, 3});
  plan.recv_indices(2, {6, 2, 4});
  if (with_run)
    plan.send_indices(1, {10, 11, 12, 13, 14, 15, 16, 17, 18});
  else
    plan.send_indices(1, {4, 8, 50});
  plan.recv_indices(1, with_run ? std::vector<std::int64_t>{9, 1, 8, 10, 11, 12, 13, 14, 15}
                                : std::vector<std::int64_t>{9, 1, 8});
  plan.build();
  return plan;
}

TEST(SerialMessageRoute, SortedScatteredArrivalsMergeWithTheLocalCopyOnOneNode) {
  const RouteKind combining_backward{Direction::backward, 8, 1, true};
  const RouteMemory on_node{false, true, true};
  const BlockMessagePlan plan = scatter_plan(false, false);
  const MessageRoute merged(plan, combining_backward, kPack, on_node);
  EXPECT_TRUE(merged.merges_index_arrivals());
  // The local copy's values wait in the local buffer, one array's worth.
  EXPECT_EQ(merged.merged_local_offset(), 0);
  EXPECT_EQ(merged.local_buffer_count(), 3);
  const MessageRoute two_arrays(plan, RouteKind{Direction::backward, 8, 2, true}, kPack, on_node);
  EXPECT_TRUE(two_arrays.merges_index_arrivals());
  EXPECT_EQ(two_arrays.local_buffer_count(), 6);
  // Each rule that fails keeps the lists apart.
  EXPECT_FALSE(MessageRoute(plan, RouteKind{Direction::backward, 8, 1, false}, kPack, on_node)
                   .merges_index_arrivals());  // replacing
  EXPECT_FALSE(MessageRoute(plan, combining_backward, kPack, RouteMemory{false, true, false})
                   .merges_index_arrivals());  // a peer on another node
  EXPECT_FALSE(MessageRoute(plan, combining_backward, kPack, RouteMemory{true, true, true})
                   .merges_index_arrivals());  // staged
  EXPECT_FALSE(MessageRoute(plan, combining_backward, kPack, RouteMemory{false, false, true})
                   .merges_index_arrivals());  // device memory
  EXPECT_FALSE(MessageRoute(plan, combining_backward, kPack, RouteMemory{false, true, true, false})
                   .merges_index_arrivals());  // managed memory, kernels on the device
  // Forward, the arrivals are the plan's receives: not sorted.
  EXPECT_FALSE(MessageRoute(plan, RouteKind{Direction::forward, 8, 1, true}, kPack, on_node)
                   .merges_index_arrivals());
  EXPECT_FALSE(MessageRoute(scatter_plan(true, false), combining_backward, kPack, on_node)
                   .merges_index_arrivals());  // the local copy writes a run
  EXPECT_FALSE(MessageRoute(scatter_plan(false, true), combining_backward, kPack, on_node)
                   .merges_index_arrivals());  // an arrival out of order
  const MessageRoute unmerged(plan, combining_backward, kPack, RouteMemory{false, true, false});
  EXPECT_EQ(unmerged.local_buffer_count(), 0);
}

}  // namespace

}  // namespace serial_message_route
