// SPDX-License-Identifier: BSD-3-Clause
// The pure steps of DepthHalo's planning, and UnstructuredLayout's own
// bookkeeping, without MPI (layouts made for planning): depth ranges
// joined per peer in depth order, columns expanded, contiguous lists turned
// into blocks, requests per depth, the unowned-id message.
#include <gtest/gtest.h>
#include <cstdint>
#include <string>
#include <vector>

#include <adlib/collectives/depth_halo_plan.hpp>
#include <adlib/ranges/unstructured_layout.hpp>

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_depth_halo_plan {

namespace {

using adlib::ExchangePlan;
using adlib::IdLocation;
using adlib::UnstructuredLayout;

std::vector<std::int64_t> offsets_of(const adlib::StridedBlock& block) {
  std::vector<std::int64_t> out;
  for (std::int64_t k = 0; k < block.count(); ++k)
    out.push_back(block.offset + k * block.strides[0]);
  return out;
}

TEST(UnstructuredLayout, OwnedThenHaloByDepth) {
  const UnstructuredLayout layout({17, 4, 9}, {{3, 12}, {}, {25}}, 5);
  EXPECT_EQ(layout.error(), "");
  EXPECT_EQ(layout.depth(), 3);
  EXPECT_EQ(layout.column(), 5);
  EXPECT_EQ(layout.owned_count(), 3);
  EXPECT_EQ(layout.halo_end(0), 3);
  EXPECT_EQ(layout.halo_end(1), 5);
  EXPECT_EQ(layout.halo_end(2), 5);
  EXPECT_EQ(layout.halo_end(3), 6);
  EXPECT_EQ(layout.halo_count(1), 2);
  EXPECT_EQ(layout.halo_count(2), 0);
  EXPECT_EQ(layout.entries(), 6);
  EXPECT_EQ(layout.local_size(), 30);
  EXPECT_EQ(layout.ids(), (std::vector<std::int64_t>{17, 4, 9, 3, 12, 25}));
  EXPECT_EQ(layout.id(5), 25);
  // Copies are the same layout; equal lists built again are not.
  const UnstructuredLayout copy = layout;
  EXPECT_EQ(copy, layout);
  EXPECT_NE(UnstructuredLayout({17, 4, 9}, {{3, 12}, {}, {25}}, 5), layout);
  EXPECT_EQ(UnstructuredLayout({1}, {{}, {}, {}}, 5).fingerprint(), layout.fingerprint());
  EXPECT_NE(UnstructuredLayout({1}, {{}, {}}, 5).fingerprint(), layout.fingerprint());
  EXPECT_NE(UnstructuredLayout({1}, {{}, {}, {}}, 4).fingerprint(), layout.fingerprint());
}

TEST(UnstructuredLayout, ErrorsAreKeptForTheCollective) {
  EXPECT_NE(UnstructuredLayout({1, 2}, {{2}}).error().find("lists the id 2 twice"),
            std::string::npos);
  EXPECT_NE(UnstructuredLayout({1, -3}).error().find("negative id -3 at position 1"),
            std::string::npos);
  EXPECT_NE(UnstructuredLayout({1}, {}, 0).error().find("a column of 0 values"), std::string::npos);
  EXPECT_EQ(UnstructuredLayout(std::vector<std::int64_t>{}, {{}}).error(), "");
}

// Owned ids ascending and a few halo ids (an LFRic local order): a repeat
// is found wherever it is, with the same message as in any other order.
TEST(UnstructuredLayout, RepeatsInALongAscendingListAreFound) {
  std::vector<std::int64_t> owned;
  for (std::int64_t id = 5; id < 30000; id += 3) owned.push_back(id);  // 5, 8, ..., 29999
  const std::vector<std::int64_t> depth1 = {1, 4, 30001}, depth2 = {2, 30000};
  EXPECT_EQ(UnstructuredLayout(owned, {depth1, depth2}).error(), "");
  EXPECT_NE(
      UnstructuredLayout(owned, {depth1, {2, 29999}}).error().find("lists the id 29999 twice"),
      std::string::npos);  // a halo id owned
  EXPECT_NE(UnstructuredLayout(owned, {depth1, {4}}).error().find("lists the id 4 twice"),
            std::string::npos);  // in two halo depths
  std::vector<std::int64_t> again = owned;
  again.insert(again.begin() + 5000, again[4999]);  // owned twice, next to each other
  EXPECT_NE(UnstructuredLayout(again, {depth1})
                .error()
                .find("lists the id " + std::to_string(again[4999]) + " twice"),
            std::string::npos);
  // A negative id at the head of the long stretch, or among the others.
  std::vector<std::int64_t> negative_first = owned;
  negative_first.front() = -7;
  EXPECT_NE(
      UnstructuredLayout(negative_first, {depth1}).error().find("negative id -7 at position 0"),
      std::string::npos);
  EXPECT_NE(UnstructuredLayout(owned, {depth1, {-2}}).error().find("negative id -2 at position"),
            std::string::npos);
  // Many stretches (owned ids in pairs of descending order): the general check.
  std::vector<std::int64_t> pairs;
  for (std::int64_t id = 0; id < 20000; id += 2) pairs.insert(pairs.end(), {id + 1, id});
  EXPECT_EQ(UnstructuredLayout(pairs, {{20000}}).error(), "");
  EXPECT_NE(UnstructuredLayout(pairs, {{777}}).error().find("lists the id 777 twice"),
            std::string::npos);
}

TEST(DepthHaloPlan, RequestsPerDepthAndUnownedIds) {
  const UnstructuredLayout layout({17, 4}, {{3, 12}, {25}}, 2);
  const std::vector<IdLocation> located = {{1, 7}, {2, 0}, {1, 3}};
  EXPECT_EQ(adlib::unowned_halo_error(layout, located), "");
  const auto depth1 = adlib::depth_requests(layout, located, 1);
  ASSERT_EQ(depth1.size(), 2u);
  EXPECT_EQ(depth1[0].owner, 1);
  EXPECT_EQ(depth1[0].owner_offset, 7);
  EXPECT_EQ(depth1[0].local_offset, 2);
  EXPECT_EQ(depth1[1].owner, 2);
  EXPECT_EQ(depth1[1].local_offset, 3);
  const auto depth2 = adlib::depth_requests(layout, located, 2);
  ASSERT_EQ(depth2.size(), 1u);
  EXPECT_EQ(depth2[0].owner_offset, 3);
  EXPECT_EQ(depth2[0].local_offset, 4);

  const std::vector<IdLocation> lost = {{1, 7}, {2, 0}, {-1, 0}};
  EXPECT_EQ(adlib::unowned_halo_error(layout, lost),
            "the halo id 25 (depth 2) is owned by no rank");
}

// Two depths in entries, as negotiate_data_plan makes them: this rank sends
// entries to peers 1 and 3 and receives its halo from peers 1 and 2.
std::vector<ExchangePlan> two_levels() {
  ExchangePlan depth1, depth2;
  depth1.send_indices = {{1, {4, 0}}, {3, {2}}};
  depth1.recv_indices = {{1, {5, 6}}, {2, {7}}};
  depth2.send_indices = {{1, {1}}};
  depth2.recv_indices = {{2, {8}}, {1, {9}}};
  return {depth1, depth2};
}

TEST(DepthHaloPlan, DepthRangesJoinPerPeerInDepthOrder) {
  const auto levels = two_levels();
  // Depths 1..2, one value per entry.
  const ExchangePlan all = adlib::depth_range_plan(levels, 0, 2, 1);
  ASSERT_EQ(all.send_indices.size(), 1u);  // peer 1: 4, 0, 1 is not contiguous
  EXPECT_EQ(all.send_indices[0].peer, 1);
  EXPECT_EQ(all.send_indices[0].offsets, (std::vector<std::int64_t>{4, 0, 1}));
  ASSERT_EQ(all.sends.size(), 1u);  // peer 3: one entry, a block
  EXPECT_EQ(all.sends[0].peer, 3);
  EXPECT_EQ(offsets_of(all.sends[0].block), (std::vector<std::int64_t>{2}));
  // Receives: peer 1 gets 5, 6 then 9 (a list), peer 2 gets 7, 8 (a block).
  ASSERT_EQ(all.recv_indices.size(), 1u);
  EXPECT_EQ(all.recv_indices[0].peer, 1);
  EXPECT_EQ(all.recv_indices[0].offsets, (std::vector<std::int64_t>{5, 6, 9}));
  ASSERT_EQ(all.recvs.size(), 1u);
  EXPECT_EQ(all.recvs[0].peer, 2);
  EXPECT_EQ(offsets_of(all.recvs[0].block), (std::vector<std::int64_t>{7, 8}));

  // Depth 2 alone (a field clean to depth 1).
  const ExchangePlan second = adlib::depth_range_plan(levels, 1, 2, 1);
  ASSERT_EQ(second.sends.size(), 1u);
  EXPECT_EQ(second.sends[0].peer, 1);
  EXPECT_TRUE(second.send_indices.empty());
  EXPECT_EQ(second.recvs.size(), 2u);  // one entry from each: blocks
  EXPECT_TRUE(second.recv_indices.empty());

  // Depth 1 alone: peer 1's receive is 5, 6, contiguous.
  const ExchangePlan first = adlib::depth_range_plan(levels, 0, 1, 1);
  EXPECT_EQ(first.recvs.size(), 2u);
  EXPECT_TRUE(first.recv_indices.empty());
}

TEST(DepthHaloPlan, ColumnsExpandToValues) {
  const auto levels = two_levels();
  const ExchangePlan plan = adlib::depth_range_plan(levels, 0, 2, 3);
  ASSERT_EQ(plan.send_indices.size(), 1u);
  EXPECT_EQ(plan.send_indices[0].offsets,
            (std::vector<std::int64_t>{12, 13, 14, 0, 1, 2, 3, 4, 5}));
  // Each column of 3 values travels as one row, not value by value.
  EXPECT_EQ(plan.send_indices[0].min_run, 3);
  const adlib::IndexList list =
      adlib::IndexList::from(plan.send_indices[0].offsets, plan.send_indices[0].min_run);
  ASSERT_EQ(list.segments.size(), 2u);  // 12..14, then 0..5 (two columns, one run)
  EXPECT_TRUE(list.segments[0].run && list.segments[1].run);
  EXPECT_TRUE(list.singles.empty());
  // One value per entry: the default rule.
  EXPECT_EQ(adlib::depth_range_plan(levels, 0, 2, 1).send_indices[0].min_run, adlib::kMinIndexRun);
  ASSERT_EQ(plan.sends.size(), 1u);  // entry 2: values 6, 7, 8
  EXPECT_EQ(offsets_of(plan.sends[0].block), (std::vector<std::int64_t>{6, 7, 8}));
  ASSERT_EQ(plan.recvs.size(), 1u);  // peer 2: entries 7, 8 -> values 21 .. 26
  EXPECT_EQ(offsets_of(plan.recvs[0].block), (std::vector<std::int64_t>{21, 22, 23, 24, 25, 26}));
  ASSERT_EQ(plan.recv_indices.size(), 1u);
  EXPECT_EQ(plan.recv_indices[0].offsets,
            (std::vector<std::int64_t>{15, 16, 17, 18, 19, 20, 27, 28, 29}));
}

TEST(DepthHaloPlan, NothingToExchange) {
  const std::vector<ExchangePlan> levels(2);
  const ExchangePlan plan = adlib::depth_range_plan(levels, 0, 2, 4);
  EXPECT_TRUE(plan.sends.empty() && plan.recvs.empty() && plan.send_indices.empty() &&
              plan.recv_indices.empty());
}

}  // namespace

}  // namespace serial_depth_halo_plan
