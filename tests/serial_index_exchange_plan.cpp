// SPDX-License-Identifier: BSD-3-Clause
// The planning of Gather and Scatter (plan_requests, add_owner_side) for
// simulated process counts in one process: every simulated rank draws
// subscripts, its requests are routed to their owners as exchange_sparse
// would deliver them (sorted by sender), and the resulting plans are
// "executed" element by element through the reference model of
// test_layouts.hpp (SectionDecoder: local offset -> global position), never
// through the library's inquiries.  A gather must deliver subs[k] to out[k]
// (the value stored at a position is the position itself), a scatter must
// carry every contribution to every replica of its target exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include <adlib/collectives/index_exchange_plan.hpp>

#include "simulated_ranks.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_index_exchange_plan {

namespace {

using adlib::DataPlan;
using adlib::Index;
using adlib::RemoteAccess;
using adlib_test::Rng;
using adlib_test::SectionDecoder;
using adlib_test::SideSpec;

// The simulated ranks that hold a copy of section position `s` (reference model).
std::vector<int> holders(const SideSpec& spec, int P, Index s) {
  const int coord = spec.ranges[0].owner(spec.section[0].at(s)).coord;
  std::vector<int> out;
  for (int h = 0; h < P; ++h)
    if (spec.holds(h) && spec.coordinate(h, 0) == coord) out.push_back(h);
  return out;
}

// Random subscripts of rank r: empty, all held by r, or anywhere, with duplicates.
std::vector<Index> draw_subscripts(Rng& rng, const SideSpec& spec, int P, int r, Index n) {
  std::vector<Index> subs;
  if (n == 0 || rng.chance(15)) return subs;
  const Index m = rng.uniform(1, 3 * n + 2);
  std::vector<Index> mine;
  if (rng.chance(25))
    for (Index s = 0; s < n; ++s) {
      const auto h = holders(spec, P, s);
      if (std::find(h.begin(), h.end(), r) != h.end()) mine.push_back(s);
    }
  for (Index i = 0; i < m; ++i)
    subs.push_back(mine.empty() ? rng.uniform(0, n - 1) : rng.pick(mine));
  return subs;
}

// Plans of every simulated rank: requests, routing (sorted by sender, as
// exchange_sparse delivers), owner side.
std::vector<DataPlan> plan_all(const adlib::ArrayLayout& layout,
                               const std::vector<std::vector<Index>>& subs, RemoteAccess access) {
  const int P = static_cast<int>(subs.size());
  std::vector<adlib::DataRequests> requests;
  for (int r = 0; r < P; ++r) requests.push_back(adlib::plan_requests(layout, subs[r], r, access));
  std::vector<std::vector<adlib::SparseMessage<std::int64_t>>> inbox(P);
  for (int r = 0; r < P; ++r) {
    std::set<int> peers;
    for (const auto& m : requests[r].to_owners) {
      EXPECT_TRUE(m.peer >= 0 && m.peer < P) << "peer " << m.peer;
      EXPECT_TRUE(peers.insert(m.peer).second) << "two messages to " << m.peer;
      if (m.peer >= 0 && m.peer < P) inbox[m.peer].push_back({r, m.values});
    }
  }
  std::vector<DataPlan> plans;
  for (int r = 0; r < P; ++r) {
    plans.push_back(requests[r].plan);
    adlib::add_owner_side(plans.back().exchange, inbox[r]);
  }
  return plans;
}

const adlib::PeerIndices* find_peer(const std::vector<adlib::PeerIndices>& list, int peer) {
  const adlib::PeerIndices* found = nullptr;
  for (const auto& e : list)
    if (e.peer == peer) {
      EXPECT_EQ(found, nullptr) << "two index lists for peer " << peer;
      found = &e;
    }
  return found;
}

void check_gather(const SideSpec& spec, const adlib::ArrayLayout& layout, int P,
                  const std::vector<std::vector<Index>>& subs) {
  const auto plans = plan_all(layout, subs, RemoteAccess::read);
  std::vector<std::vector<Index>> out(P), source(P);
  for (int q = 0; q < P; ++q) {
    out[q].assign(subs[q].size(), -1);
    source[q].assign(subs[q].size(), -1);
  }
  for (int r = 0; r < P; ++r) {
    const SectionDecoder decode(spec, r);
    for (const auto& send : plans[r].exchange.send_indices) {
      const adlib::PeerIndices* recv = find_peer(plans[send.peer].exchange.recv_indices, r);
      ASSERT_NE(recv, nullptr) << r << " sends to " << send.peer << " who expects nothing";
      ASSERT_EQ(recv->offsets.size(), send.offsets.size());
      std::set<std::int64_t> distinct(send.offsets.begin(), send.offsets.end());
      EXPECT_EQ(distinct.size(), send.offsets.size()) << "a gather request sent twice";
      for (std::size_t i = 0; i < send.offsets.size(); ++i) {
        const Index value = decode(send.offsets[i]);
        ASSERT_GE(value, 0) << "rank " << r << " sends offset " << send.offsets[i]
                            << " that holds no element of the array";
        const std::int64_t at = recv->offsets[i];
        ASSERT_TRUE(at >= 0 && at < static_cast<std::int64_t>(out[send.peer].size()));
        EXPECT_EQ(out[send.peer][at], -1) << "position " << at << " received twice";
        out[send.peer][at] = value;
        source[send.peer][at] = r;
      }
    }
  }
  for (int q = 0; q < P; ++q) {
    // Every receive is matched by a send.
    for (const auto& recv : plans[q].exchange.recv_indices) {
      const adlib::PeerIndices* send = find_peer(plans[recv.peer].exchange.send_indices, q);
      ASSERT_NE(send, nullptr) << q << " expects from " << recv.peer << " who sends nothing";
    }
    for (const adlib::FanOut& f : plans[q].fan_out) {
      ASSERT_TRUE(f.to >= 0 && f.to < static_cast<std::int64_t>(out[q].size()));
      EXPECT_EQ(out[q][f.to], -1) << "fan-out target " << f.to << " also received";
      EXPECT_EQ(subs[q][f.to], subs[q][f.from]);
      out[q][f.to] = out[q][f.from];
      source[q][f.to] = source[q][f.from];
    }
    EXPECT_EQ(out[q], subs[q]) << "rank " << q;
    // Owner rule: itself when it holds a copy, else replica q mod replicas.
    for (std::size_t k = 0; k < subs[q].size(); ++k) {
      const auto h = holders(spec, P, subs[q][k]);
      ASSERT_FALSE(h.empty());
      const bool mine = std::find(h.begin(), h.end(), q) != h.end();
      EXPECT_EQ(source[q][k], mine ? q : h[static_cast<std::size_t>(q) % h.size()]);
    }
    // Plan size: one entry per peer touched, never per rank of P.
    std::set<int> owners(source[q].begin(), source[q].end());
    EXPECT_EQ(plans[q].exchange.recv_indices.size(), owners.size());
    EXPECT_TRUE(plans[q].exchange.sends.empty() && plans[q].exchange.recvs.empty());
  }
}

void check_scatter(const SideSpec& spec, const adlib::ArrayLayout& layout, int P,
                   const std::vector<std::vector<Index>>& subs) {
  const auto plans = plan_all(layout, subs, RemoteAccess::write);
  // (owner, requester, position) of every contribution the plans carry.
  std::map<std::tuple<int, int, Index>, int> carried;
  for (int r = 0; r < P; ++r) {
    const SectionDecoder decode(spec, r);
    EXPECT_TRUE(plans[r].fan_out.empty());
    for (const auto& send : plans[r].exchange.send_indices) {
      const adlib::PeerIndices* recv = find_peer(plans[send.peer].exchange.recv_indices, r);
      ASSERT_NE(recv, nullptr);
      ASSERT_EQ(recv->offsets.size(), send.offsets.size());
      // The owner walks its memory upwards; contributions to one target
      // keep the requester's list order (what makes combining deterministic).
      for (std::size_t i = 1; i < send.offsets.size(); ++i) {
        EXPECT_LE(send.offsets[i - 1], send.offsets[i]) << "owner offsets not ascending";
        if (send.offsets[i - 1] == send.offsets[i]) {
          EXPECT_LT(recv->offsets[i - 1], recv->offsets[i]) << "contributions out of list order";
        }
      }
      for (std::size_t i = 0; i < send.offsets.size(); ++i) {
        const Index target = decode(send.offsets[i]);
        const std::int64_t k = recv->offsets[i];
        ASSERT_TRUE(k >= 0 && k < static_cast<std::int64_t>(subs[send.peer].size()));
        EXPECT_EQ(target, subs[send.peer][k]);
        ++carried[{r, send.peer, k}];
      }
    }
  }
  std::size_t expected = 0;
  for (int q = 0; q < P; ++q)
    for (std::size_t k = 0; k < subs[q].size(); ++k)
      for (int h : holders(spec, P, subs[q][k])) {
        ++expected;
        EXPECT_EQ((carried[{h, q, static_cast<Index>(k)}]), 1)
            << "contribution " << k << " of rank " << q << " to replica " << h;
      }
  EXPECT_EQ(carried.size(), expected);
}

TEST(IndexExchangePlan, RandomLayoutsAndSubscriptsAtSimulatedProcessCounts) {
  Rng rng(20261205);
  for (int trial = 0; trial < 400; ++trial) {
    const int P = static_cast<int>(rng.uniform(1, 7));
    const Index n = rng.chance(10) ? 0 : rng.uniform(1, 40);
    const SideSpec spec = adlib_test::random_side(rng, {n}, adlib_test::random_grid(rng, P, 2),
                                                  adlib_test::kind_at(trial));
    const adlib::ProcessGrid grid(spec.grid_shape);
    const adlib::ArrayLayout layout = adlib_test::make_parent(spec, grid).section(spec.section);
    std::vector<std::vector<Index>> subs;
    for (int r = 0; r < P; ++r) subs.push_back(draw_subscripts(rng, spec, P, r, n));
    SCOPED_TRACE("trial " + std::to_string(trial) + " P=" + std::to_string(P) + " " +
                 spec.describe());
    for (int r = 0; r < P; ++r) ASSERT_EQ(adlib::check_subscripts(layout, subs[r]), "");
    check_gather(spec, layout, P, subs);
    check_scatter(spec, layout, P, subs);
  }
}

TEST(IndexExchangePlan, SubscriptsOutOfRangeAreNamed) {
  const adlib::ProcessGrid grid(std::vector<int>{3});
  const adlib::ArrayLayout layout(adlib::Group(grid),
                                  {std::make_shared<adlib::BlockRange>(10, grid.dim(0))});
  EXPECT_EQ(adlib::check_subscripts(layout, {0, 9, 3}), "");
  EXPECT_EQ(adlib::check_subscripts(layout, {}), "");
  EXPECT_EQ(adlib::check_subscripts(layout, {1, 10}),
            "subscript 10 at position 1 is outside [0, 10)");
  EXPECT_EQ(adlib::check_subscripts(layout, {-1}), "subscript -1 at position 0 is outside [0, 10)");
  const auto section = layout.section({adlib::Triplet{8, 2, -3}});  // 8, 5, 2
  EXPECT_EQ(adlib::check_subscripts(section, {2}), "");
  EXPECT_NE(adlib::check_subscripts(section, {3}), "");
}

// The plan of one rank depends on what it asks and who asks it, not on the
// number of ranks: the same requests give plans of the same size at P = 8 and
// P = 4096, entries bounded by the peers touched.
TEST(IndexExchangePlan, PlanSizeDoesNotGrowWithProcessCount) {
  for (int P : {8, 64, 4096}) {
    SCOPED_TRACE("P=" + std::to_string(P));
    const Index n = Index(P) * 100;
    const adlib::ProcessGrid grid(std::vector<int>{P});
    const adlib::ArrayLayout layout(adlib::Group(grid),
                                    {std::make_shared<adlib::BlockRange>(n, grid.dim(0))});
    // Rank 5 asks 3000 elements around its own block: owners 4, 5 and 6.
    std::vector<Index> subs;
    for (Index i = 0; i < 3000; ++i) subs.push_back(4 * 100 + (i * 7) % 300);
    for (RemoteAccess access : {RemoteAccess::read, RemoteAccess::write}) {
      const auto requests = adlib::plan_requests(layout, subs, 5, access);
      EXPECT_EQ(requests.to_owners.size(), 3u);
      EXPECT_EQ(requests.plan.exchange.recv_indices.size(), 3u);
      std::size_t offsets = 0;
      for (const auto& m : requests.to_owners) offsets += m.values.size();
      EXPECT_EQ(offsets, access == RemoteAccess::read ? 300u : 3000u);
      EXPECT_EQ(requests.plan.fan_out.size(), access == RemoteAccess::read ? 2700u : 0u);
    }
  }
}

TEST(IndexExchangePlan, GatherOwnerOfReplicatedArrays) {
  // 2 x 3 grid, block range over axis 0, replicated over axis 1.
  const adlib::ProcessGrid grid(std::vector<int>{2, 3});
  const adlib::ArrayLayout layout(adlib::Group(grid),
                                  {std::make_shared<adlib::BlockRange>(10, grid.dim(0))});
  // Element 7 lives on coordinate 1: ranks 3, 4, 5.
  EXPECT_EQ(adlib::gather_owner(layout, 7, 4), 4);  // holds a copy
  EXPECT_EQ(adlib::gather_owner(layout, 7, 0), 3);  // 0 mod 3 = 0
  EXPECT_EQ(adlib::gather_owner(layout, 7, 1), 4);  // 1 mod 3 = 1
  EXPECT_EQ(adlib::gather_owner(layout, 7, 2), 5);  // 2 mod 3 = 2
  const auto scatter = adlib::plan_requests(layout, {7, 7}, 0, RemoteAccess::write);
  ASSERT_EQ(scatter.to_owners.size(), 3u);  // every replica, both contributions
  for (const auto& m : scatter.to_owners) EXPECT_EQ(m.values.size(), 2u);
}

}  // namespace

}  // namespace serial_index_exchange_plan
