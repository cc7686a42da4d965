// SPDX-License-Identifier: BSD-3-Clause
// The all-reduce and broadcast plans, simulated for every member of groups of
// 1 to 40 members in one process: messages travel through FIFO channels per
// (sender, receiver) pair, as MPI matches them, and a round in which no
// member can move is a deadlock.  Elements are words (the list of members
// whose contributions they hold), combined by concatenation, which is
// associative but not commutative: plans that promise rank order must
// produce "0 1 2 ... P-1" for every element; the others must hold every
// member exactly once.  Every member must end with the same words.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/node_topology.hpp>
#include <adlib/schedules/collective_plan.hpp>

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_collective_plan {

namespace {

using adlib::Arrival;
using adlib::BroadcastAlgorithm;
using adlib::CollectivePlan;
using adlib::CollectiveStep;
using adlib::NodeTopology;
using adlib::ReductionAlgorithm;

using Words = std::vector<std::string>;

// Runs every member's plan; returns the members' final vectors.
std::vector<Words> simulate(const std::vector<CollectivePlan>& plans, std::vector<Words> data) {
  const int P = static_cast<int>(plans.size());
  // Each message with its sender's CollectiveStep::send_combined.
  std::map<std::pair<int, int>, std::deque<std::pair<Words, bool>>> channels;
  std::vector<std::size_t> next(P, 0);
  std::vector<bool> sent(P, false);
  for (;;) {
    bool moved = false, done = true;
    for (int r = 0; r < P; ++r) {
      if (next[r] == plans[r].steps.size()) continue;
      done = false;
      const CollectiveStep& step = plans[r].steps[next[r]];
      if (!sent[r]) {
        if (step.send_count > 0) {
          EXPECT_GE(step.send_peer, 0);
          EXPECT_LT(step.send_peer, P);
          Words message(data[r].begin() + step.send_begin,
                        data[r].begin() + step.send_begin + step.send_count);
          channels[{r, step.send_peer}].emplace_back(std::move(message), step.send_combined);
        }
        sent[r] = true;
        moved = true;
      }
      if (step.receive_count > 0) {
        auto& channel = channels[{step.receive_peer, r}];
        if (channel.empty()) continue;
        const Words arrived = std::move(channel.front().first);
        const bool sent_as_combined = channel.front().second;
        channel.pop_front();
        // The executor cuts a message into pieces on both ends only when
        // the sender's flag says the receiver combines it.
        EXPECT_EQ(sent_as_combined, step.arrival != Arrival::replace)
            << "member " << r << " step " << next[r] << " from " << step.receive_peer;
        EXPECT_EQ(static_cast<std::int64_t>(arrived.size()), step.receive_count)
            << "member " << r << " step " << next[r];
        for (std::size_t i = 0; i < arrived.size(); ++i) {
          std::string& part = data[r][step.receive_begin + static_cast<std::int64_t>(i)];
          if (step.arrival == Arrival::replace)
            part = arrived[i];
          else if (step.arrival == Arrival::combine_from_lower)
            part = arrived[i] + part;
          else
            part = part + arrived[i];
        }
      }
      ++next[r];
      sent[r] = false;
      moved = true;
    }
    if (done) break;
    if (!moved) {
      ADD_FAILURE() << "deadlock";
      break;
    }
  }
  for (const auto& channel : channels)
    EXPECT_TRUE(channel.second.empty())
        << "unreceived message " << channel.first.first << " -> " << channel.first.second;
  return data;
}

std::string word(int member) {
  return "<" + std::to_string(member) + ">";
}
std::string in_order(int P) {
  std::string all;
  for (int r = 0; r < P; ++r) all += word(r);
  return all;
}
// The members named in a word, sorted.
std::vector<int> members_in(const std::string& w) {
  std::vector<int> found;
  std::istringstream in(w);
  char open, close;
  int member;
  while (in >> open >> member >> close) found.push_back(member);
  std::sort(found.begin(), found.end());
  return found;
}

// Nodes of the members as member r sees them: node = r % node_count (ranks
// interleaved), for plans over nodes that are not consecutive.
NodeTopology interleaved_nodes(int rank, int size, int node_count) {
  NodeTopology nodes;
  node_count = std::min(node_count, size);
  for (int r = rank % node_count; r < size; r += node_count) nodes.node_members.push_back(r);
  for (int n = 0; n < node_count; ++n) nodes.leaders.push_back(n);
  nodes.node_index = rank % node_count;
  nodes.largest_node = (size + node_count - 1) / node_count;
  return nodes;
}

void check_allreduce(ReductionAlgorithm algorithm, int P, std::int64_t count, bool rank_order,
                     int ranks_per_node, int interleaved = 0) {
  std::vector<CollectivePlan> plans;
  std::vector<Words> data;
  for (int r = 0; r < P; ++r) {
    const NodeTopology nodes = interleaved ? interleaved_nodes(r, P, interleaved)
                                           : adlib::consecutive_nodes(r, P, ranks_per_node);
    plans.push_back(adlib::plan_allreduce(algorithm, r, P, count, nodes));
    data.push_back(Words(static_cast<std::size_t>(count), word(r)));
  }
  const std::vector<Words> result = simulate(plans, data);
  std::vector<int> everyone(P);
  for (int r = 0; r < P; ++r) everyone[r] = r;
  for (int r = 0; r < P; ++r)
    for (std::int64_t i = 0; i < count; ++i) {
      const std::string& w = result[r][i];
      SCOPED_TRACE(std::string(adlib::algorithm_name(algorithm)) + " P=" + std::to_string(P) +
                   " count=" + std::to_string(count) + " member " + std::to_string(r) +
                   " element " + std::to_string(i));
      if (rank_order)
        ASSERT_EQ(w, in_order(P));
      else
        ASSERT_EQ(members_in(w), everyone);
      ASSERT_EQ(w, result[0][i]) << "members disagree";
    }
}

TEST(CollectivePlan, RecursiveDoublingCombinesInRankOrder) {
  for (int P = 1; P <= 40; ++P)
    for (std::int64_t count : {0, 1, 5})
      check_allreduce(ReductionAlgorithm::recursive_doubling, P, count, true, 1);
}

TEST(CollectivePlan, ReduceScatterAllgatherCombinesInRankOrder) {
  for (int P = 1; P <= 40; ++P)
    for (std::int64_t count : {0, 1, 3, 7, 64, 101})
      check_allreduce(ReductionAlgorithm::reduce_scatter_allgather, P, count, true, 1);
}

TEST(CollectivePlan, RingHoldsEveryMemberOnce) {
  for (int P = 1; P <= 40; ++P)
    for (std::int64_t count : {0, 1, 3, 40, 97})
      check_allreduce(ReductionAlgorithm::ring, P, count, false, 1);
}

TEST(CollectivePlan, NodeAwareOverConsecutiveNodesCombinesInRankOrder) {
  for (int P = 1; P <= 24; ++P)
    for (int per_node : {1, 2, 3, 4, 7})
      check_allreduce(ReductionAlgorithm::node_aware, P, 4, true, per_node);
}

TEST(CollectivePlan, NodeAwareOverInterleavedNodesHoldsEveryMemberOnce) {
  for (int P = 1; P <= 24; ++P)
    for (int node_count : {1, 2, 3, 5})
      check_allreduce(ReductionAlgorithm::node_aware, P, 3, false, 0, node_count);
}

void check_broadcast(BroadcastAlgorithm algorithm, int P, int root, std::int64_t count,
                     int ranks_per_node, int interleaved = 0) {
  std::vector<NodeTopology> nodes;
  for (int r = 0; r < P; ++r)
    nodes.push_back(interleaved ? interleaved_nodes(r, P, interleaved)
                                : adlib::consecutive_nodes(r, P, ranks_per_node));
  const int root_leader = nodes[root].node_members.front();
  std::vector<CollectivePlan> plans;
  std::vector<Words> data;
  for (int r = 0; r < P; ++r) {
    plans.push_back(adlib::plan_broadcast(algorithm, root, r, P, count, nodes[r], root_leader));
    data.push_back(Words(static_cast<std::size_t>(count), r == root ? "root" : "stale"));
  }
  const std::vector<Words> result = simulate(plans, data);
  for (int r = 0; r < P; ++r)
    for (std::int64_t i = 0; i < count; ++i)
      ASSERT_EQ(result[r][i], "root")
          << adlib::algorithm_name(algorithm) << " P=" << P << " root=" << root << " member " << r;
}

TEST(CollectivePlan, BinomialBroadcastReachesEveryMember) {
  for (int P = 1; P <= 40; ++P)
    for (int root = 0; root < P; root += std::max(1, P / 5))
      check_broadcast(BroadcastAlgorithm::binomial_tree, P, root, 3, 1);
}

TEST(CollectivePlan, NodeAwareBroadcastReachesEveryMember) {
  for (int P = 1; P <= 24; ++P)
    for (int root = 0; root < P; ++root) {
      for (int per_node : {1, 2, 3, 5})
        check_broadcast(BroadcastAlgorithm::node_aware, P, root, 2, per_node);
      for (int node_count : {2, 3})
        check_broadcast(BroadcastAlgorithm::node_aware, P, root, 2, 0, node_count);
    }
}

TEST(CollectivePlan, ScratchIsTheLargestCombiningArrival) {
  const NodeTopology one = adlib::consecutive_nodes(0, 8, 1);
  EXPECT_EQ(
      adlib::plan_allreduce(ReductionAlgorithm::recursive_doubling, 0, 8, 100, one).scratch_count(),
      100);
  EXPECT_EQ(adlib::plan_allreduce(ReductionAlgorithm::reduce_scatter_allgather, 0, 8, 100, one)
                .scratch_count(),
            50);
  EXPECT_EQ(adlib::plan_allreduce(ReductionAlgorithm::ring, 0, 4, 100, one).scratch_count(), 25);
}

TEST(CollectivePlan, AutomaticChoiceFollowsSizeProcessesAndNodes) {
  adlib::Configuration config;
  config.reduction_long_bytes = 4096;
  EXPECT_EQ(adlib::choose_reduction(config, 8, 8, 1, 8), ReductionAlgorithm::mpi);
  EXPECT_EQ(adlib::choose_reduction(config, 8, 8, 2, 4), ReductionAlgorithm::node_aware);
  EXPECT_EQ(adlib::choose_reduction(config, 8, 8, 8, 1), ReductionAlgorithm::mpi);
  EXPECT_EQ(adlib::choose_reduction(config, 4096, 8, 1, 8),
            ReductionAlgorithm::reduce_scatter_allgather);
  EXPECT_EQ(adlib::choose_reduction(config, 1 << 20, 6, 1, 6), ReductionAlgorithm::ring);
  EXPECT_EQ(adlib::choose_reduction(config, 8192, 6, 1, 6),
            ReductionAlgorithm::reduce_scatter_allgather);
  EXPECT_EQ(adlib::choose_reduction(config, 1 << 19, 2, 1, 2),
            ReductionAlgorithm::recursive_doubling);
  EXPECT_EQ(adlib::choose_reduction(config, 1 << 19, 3, 1, 3),
            ReductionAlgorithm::recursive_doubling);
  EXPECT_EQ(adlib::choose_reduction(config, 1 << 20, 2, 1, 2), ReductionAlgorithm::ring);
  EXPECT_EQ(adlib::choose_reduction(config, 1 << 20, 3, 1, 3), ReductionAlgorithm::ring);
  config.reduction = ReductionAlgorithm::ring;
  EXPECT_EQ(adlib::choose_reduction(config, 8, 8, 1, 8), ReductionAlgorithm::ring);
  EXPECT_EQ(adlib::choose_broadcast(config, 8, 8, 2, 4), BroadcastAlgorithm::node_aware);
  EXPECT_EQ(adlib::choose_broadcast(config, 8, 8, 1, 8), BroadcastAlgorithm::mpi);
  config.broadcast = BroadcastAlgorithm::binomial_tree;
  EXPECT_EQ(adlib::choose_broadcast(config, 8, 8, 2, 4), BroadcastAlgorithm::binomial_tree);
}

TEST(CollectivePlan, ConfigurationParsesAlgorithms) {
  auto parse = [](std::map<std::string, std::string> env) {
    return adlib::Configuration::parse([env](const char* name) -> const char* {
      auto found = env.find(name);
      return found == env.end() ? nullptr : found->second.c_str();
    });
  };
  const adlib::Configuration c = parse({{"ADLIB_REDUCTION", "Ring"},
                                        {"ADLIB_BROADCAST", "binomial_tree"},
                                        {"ADLIB_REDUCTION_LONG_BYTES", "1024"},
                                        {"ADLIB_REDUCTION_SPLIT_BYTES", "65536"},
                                        {"ADLIB_RANKS_PER_NODE", "2"},
                                        {"ADLIB_COLLECTIVE_PIECE_BYTES", "4096"}});
  EXPECT_EQ(c.reduction, ReductionAlgorithm::ring);
  EXPECT_EQ(c.broadcast, BroadcastAlgorithm::binomial_tree);
  EXPECT_EQ(c.reduction_long_bytes, 1024);
  EXPECT_EQ(c.reduction_split_bytes, 65536);
  EXPECT_EQ(c.ranks_per_node, 2);
  EXPECT_EQ(c.collective_piece_bytes, 4096);
  EXPECT_EQ(adlib::Configuration().collective_piece_bytes, 256 * 1024);
  adlib::Configuration whole = c;
  whole.collective_piece_bytes = 0;
  EXPECT_NE(whole.fingerprint(), c.fingerprint());
  EXPECT_NE(whole, c);
  adlib::Configuration split = c;
  split.reduction_split_bytes = 1;
  EXPECT_NE(split, c);  // operator== once forgot this field
  EXPECT_NE(c.fingerprint(), adlib::Configuration().fingerprint());
  EXPECT_THROW(parse({{"ADLIB_REDUCTION", "fastest"}}), adlib::Error);
  EXPECT_THROW(parse({{"ADLIB_RANKS_PER_NODE", "-1"}}), adlib::Error);
}

}  // namespace

}  // namespace serial_collective_plan
