// SPDX-License-Identifier: BSD-3-Clause
// plan_remap for simulated process counts, all ranks in one process on
// communicator-less grids.  For every rank the plan's blocks are decoded back
// (through the independent reference model, not the library's inquiries) to
// positions of the remapped section, and then:
//
//  - for every pair (r, q), the element sequence r sends to q equals, element
//    by element, the sequence q expects from r (the message layout is never
//    negotiated, so this is what makes a Remap correct);
//  - the same holds after BlockMessagePlan has merged, fused and paired the
//    blocks (what actually goes on the wire and into local copies);
//  - every element a destination rank holds (every replica) is received
//    exactly once, and nothing else is written; every element sent is an
//    owned (non-ghost) element of the source section.
//
// Since source and destination positions are compared, a pass means every
// destination element receives exactly the right global index.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <vector>

#include <adlib/collectives/remap_plan.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/block_message_plan.hpp>
#include "sanitizer_scale.hpp"
#include "simulated_ranks.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_remap_plan {

namespace {

using adlib::Index;
using adlib::StridedBlock;
using adlib_test::Kind;
using adlib_test::random_grid;
using adlib_test::random_shape;
using adlib_test::Rng;
using adlib_test::SectionDecoder;
using adlib_test::SideSpec;

using PairKey = std::pair<int, int>;  // (sender, receiver)
using Sequences = std::map<PairKey, std::vector<Index>>;

// Calls f(offset) for every element of a block, in C order.
template <class F>
void for_each_offset(const StridedBlock& b, F&& f) {
  if (b.count() == 0) return;
  std::int64_t index[adlib::kMaxBlockRank] = {};
  while (true) {
    std::int64_t o = b.offset;
    for (int d = 0; d < b.rank; ++d) o += index[d] * b.strides[d];
    f(o);
    int d = b.rank - 1;
    for (; d >= 0; --d) {
      if (++index[d] < b.extents[d]) break;
      index[d] = 0;
    }
    if (d < 0) return;
  }
}

// Everything a simulation found wrong, reported once per configuration.
struct Verdict {
  std::vector<std::string> problems;
  void fail(const std::string& what) {
    if (problems.size() < 8) problems.push_back(what);
  }
  bool ok() const { return problems.empty(); }
};

struct SimulationStats {
  std::size_t blocks = 0, elements = 0;
};

// Simulates every rank 0..P-1 of a Remap from `src` to `dst`.
Verdict simulate(const SideSpec& dst, const SideSpec& src, int P,
                 SimulationStats* stats = nullptr) {
  Verdict v;
  const adlib::ProcessGrid dst_grid(dst.grid_shape), src_grid(src.grid_shape);
  const adlib::ArrayLayout dst_layout = adlib_test::make_parent(dst, dst_grid).section(dst.section);
  const adlib::ArrayLayout src_layout = adlib_test::make_parent(src, src_grid).section(src.section);
  const std::string check = adlib::check_remap_layouts(dst_layout, src_layout);
  if (!check.empty()) {
    v.fail("check_remap_layouts refused a valid pair: " + check);
    return v;
  }
  Sequences sent, received, wire_sent, wire_received;
  for (int r = 0; r < P; ++r) {
    const adlib::ExchangePlan plan = adlib::plan_remap(dst_layout, src_layout, r);
    const SectionDecoder from(src, r), to(dst, r);
    adlib::BlockMessagePlan wire(r, P);
    auto decode = [&](const SectionDecoder& decoder, const StridedBlock& b, std::vector<Index>& out,
                      const char* what, int peer) {
      for_each_offset(b, [&](std::int64_t o) {
        const Index k = decoder(o);
        if (k < 0) {
          std::ostringstream s;
          s << "rank " << r << " " << what << " peer " << peer << ": block " << b.to_string()
            << " touches offset " << o << ", not an element of its section";
          v.fail(s.str());
        }
        out.push_back(k);
      });
    };
    for (const auto& pb : plan.sends) {
      if (pb.peer < 0 || pb.peer >= P) {
        v.fail("rank " + std::to_string(r) + " sends to peer " + std::to_string(pb.peer));
        return v;
      }
      decode(from, pb.block, sent[{r, pb.peer}], "sends to", pb.peer);
      wire.send(pb.peer, pb.block);
    }
    for (const auto& pb : plan.recvs) {
      if (pb.peer < 0 || pb.peer >= P) {
        v.fail("rank " + std::to_string(r) + " receives from peer " + std::to_string(pb.peer));
        return v;
      }
      decode(to, pb.block, received[{pb.peer, r}], "receives from", pb.peer);
      wire.recv(pb.peer, pb.block);
    }
    if (stats) stats->blocks += plan.sends.size() + plan.recvs.size();
    if (!v.ok()) return v;
    try {
      wire.build();
    } catch (const adlib::Error& e) {
      v.fail("rank " + std::to_string(r) + ": BlockMessagePlan::build: " + e.what());
      return v;
    }
    for (const auto& m : wire.send_messages())
      for (const auto& b : m.blocks) decode(from, b, wire_sent[{r, m.peer}], "wire send", m.peer);
    for (const auto& m : wire.recv_messages())
      for (const auto& b : m.blocks) decode(to, b, wire_received[{m.peer, r}], "wire recv", m.peer);
    if (wire.local_copies_staged()) {
      for (const auto& b : wire.local_send_blocks()) decode(from, b, wire_sent[{r, r}], "self", r);
      for (const auto& b : wire.local_recv_blocks())
        decode(to, b, wire_received[{r, r}], "self", r);
    } else {
      for (const auto& c : wire.local_copies()) {
        if (!adlib::same_extents(c.send_side, c.recv_side))
          v.fail("rank " + std::to_string(r) + ": local copy pairs blocks of different extents");
        decode(from, c.send_side, wire_sent[{r, r}], "self copy", r);
        decode(to, c.recv_side, wire_received[{r, r}], "self copy", r);
      }
    }
    if (!v.ok()) return v;
  }
  for (auto* seqs : {&sent, &received, &wire_sent, &wire_received})
    for (auto it = seqs->begin(); it != seqs->end();)
      it = it->second.empty() ? seqs->erase(it) : std::next(it);

  // Pairwise: what r sends to q is, element by element, what q expects from r.
  auto compare = [&](const Sequences& a, const Sequences& b, const char* what) {
    for (const auto& [key, seq] : a) {
      const auto it = b.find(key);
      std::ostringstream s;
      s << what << " " << key.first << " -> " << key.second << ": ";
      if (it == b.end()) {
        v.fail(s.str() + std::to_string(seq.size()) + " elements on one side, none on the other");
      } else if (it->second.size() != seq.size()) {
        v.fail(s.str() + std::to_string(seq.size()) + " vs " + std::to_string(it->second.size()) +
               " elements");
      } else if (it->second != seq) {
        size_t i = 0;
        while (seq[i] == it->second[i]) ++i;
        s << "element " << i << " is position " << seq[i] << " on one side and " << it->second[i]
          << " on the other";
        v.fail(s.str());
      }
    }
    for (const auto& [key, seq] : b)
      if (!a.count(key))
        v.fail(std::string(what) + " " + std::to_string(key.first) + " -> " +
               std::to_string(key.second) + ": only one side has " + std::to_string(seq.size()) +
               " elements");
  };
  compare(sent, received, "sent vs received");
  compare(wire_sent, sent, "wire vs planned (send side)");
  compare(wire_received, received, "wire vs planned (receive side)");

  // Coverage: every element each destination rank holds arrives exactly
  // once (sorted lists, so the cost is the number of elements, not P times
  // the array size).
  std::map<int, std::vector<Index>> got;
  for (const auto& [key, seq] : received) {
    auto& g = got[key.second];
    g.insert(g.end(), seq.begin(), seq.end());
  }
  for (int q = 0; q < P; ++q) {
    std::vector<Index> want;
    const SectionDecoder held(dst, q);
    for (Index o = 0; o < held.size(); ++o)
      if (const Index k = held(o); k >= 0) want.push_back(k);
    std::vector<Index>& g = got[q];
    std::sort(want.begin(), want.end());
    std::sort(g.begin(), g.end());
    if (g != want) {
      size_t i = 0;
      while (i < g.size() && i < want.size() && g[i] == want[i]) ++i;
      v.fail("rank " + std::to_string(q) + " receives " + std::to_string(g.size()) +
             " elements but holds " + std::to_string(want.size()) + "; first difference: " +
             (i < g.size() ? "received position " + std::to_string(g[i]) : "nothing received") +
             " vs " +
             (i < want.size() ? "held position " + std::to_string(want[i]) : "nothing held"));
    }
    if (stats) stats->elements += want.size();
  }
  return v;
}

std::string describe(const SideSpec& dst, const SideSpec& src, int P) {
  return "P=" + std::to_string(P) + "\n  dst " + dst.describe() + "\n  src " + src.describe();
}

TEST(SerialRemapPlan, HandWorkedBlockToCyclic) {
  // 1-D, N = 7 block on 2 ranks ({0..2}, {3..6}) to cyclic on 2 ranks:
  // rank 0 sends 1 to rank 1 and keeps 0, 2; rank 1 sends 3, 5 to rank 0.
  SideSpec src, dst;
  src.grid_shape = dst.grid_shape = {2};
  src.fixed = dst.fixed = {-1};
  adlib_test::RangeSpec b;
  b.kind = Kind::block;
  b.extent = 7;
  b.axis = 0;
  b.processes = 2;
  b.finish();
  adlib_test::RangeSpec c = b;
  c.kind = Kind::cyclic;
  c.finish();
  src.ranges = {b};
  dst.ranges = {c};
  src.section = dst.section = {adlib::Triplet::all(7)};
  const Verdict v = simulate(dst, src, 2);
  for (const auto& p : v.problems) ADD_FAILURE() << p;
  const adlib::ProcessGrid grid({2});
  const auto dl = adlib_test::make_parent(dst, grid), sl = adlib_test::make_parent(src, grid);
  const auto plan0 = adlib::plan_remap(dl, sl, 0);
  Index to_one = 0, to_self = 0;
  for (const auto& pb : plan0.sends) (pb.peer == 1 ? to_one : to_self) += pb.block.count();
  EXPECT_EQ(to_one, 1);
  EXPECT_EQ(to_self, 2);
  const auto plan1 = adlib::plan_remap(dl, sl, 1);
  Index from_zero = 0;
  for (const auto& pb : plan1.recvs)
    if (pb.peer == 0) from_zero += pb.block.count();
  EXPECT_EQ(from_zero, 1);
  // A simulated rank outside both grids plans nothing.
  const auto plan5 = adlib::plan_remap(dl, sl, 5);
  EXPECT_TRUE(plan5.sends.empty());
  EXPECT_TRUE(plan5.recvs.empty());
}

TEST(SerialRemapPlan, EveryKindPairOneDimension) {
  // Each (source kind, destination kind) pair, with and without sections, at
  // several process counts including N < P and grids smaller than P.
  Rng rng(2024);
  int configs = 0;
  for (int P : {1, 2, 3, 4, 5, 7})
    for (int s = 0; s < adlib_test::kKindCount; ++s)
      for (int d = 0; d < adlib_test::kKindCount; ++d)
        for (int rep = 0; rep < 4; ++rep) {
          adlib_test::GenOptions opt;
          opt.section_percent = rep < 2 ? 0 : 100;
          const std::vector<Index> shape{rep == 0 ? rng.uniform(0, P) : rng.uniform(1, 23)};
          const SideSpec src = adlib_test::random_side(rng, shape, random_grid(rng, P, 2),
                                                       adlib_test::kind_at(s), opt);
          const SideSpec dst = adlib_test::random_side(rng, shape, random_grid(rng, P, 2),
                                                       adlib_test::kind_at(d), opt);
          const Verdict v = simulate(dst, src, P);
          ++configs;
          if (!v.ok()) {
            std::string all;
            for (const auto& p : v.problems) all += "\n    " + p;
            ADD_FAILURE() << describe(dst, src, P) << all;
          }
        }
  EXPECT_EQ(configs, 6 * 36 * 4);
}

TEST(SerialRemapPlan, RandomLayoutsSmallProcessCounts) {
  // Random kinds in every dimension, 1-D to 4-D, sections with strides
  // +-1..+-3 (and 4, -5), ghosts, restricted groups and replication on both
  // sides.
  Rng rng(77);
  int failures = 0;
  // How often each feature was exercised: the generator must keep
  // producing them (a silent regression there would hollow this test out).
  std::map<std::string, int> seen;
  auto note = [&](const SideSpec& s, int P) {
    bool replicated = false, restricted = false, negative = false, strided = false, empty = false,
         ghosts = false, zero = false;
    for (size_t a = 0; a < s.grid_shape.size(); ++a) {
      bool used = false;
      for (const auto& r : s.ranges) used = used || r.axis == static_cast<int>(a);
      replicated = replicated || (!used && s.fixed[a] < 0 && s.grid_shape[a] > 1);
      restricted = restricted || (s.fixed[a] >= 0 && s.grid_shape[a] > 1);
    }
    for (int d = 0; d < s.rank(); ++d) {
      const auto& t = s.section[d];
      negative = negative || (t.count() > 1 && t.stride < 0);
      strided = strided || (t.count() > 1 && (t.stride > 1 || t.stride < -1));
      zero = zero || t.count() == 0;
      ghosts = ghosts || s.ranges[d].ghost_low > 0 || s.ranges[d].ghost_high > 0;
      for (int c = 0; c < s.ranges[d].processes; ++c)
        empty = empty || s.ranges[d].local_count(c) == 0;
    }
    seen["replicated"] += replicated;
    seen["restricted"] += restricted;
    seen["negative stride"] += negative;
    seen["stride >= 2"] += strided;
    seen["zero extent"] += zero;
    seen["ghosts"] += ghosts;
    seen["empty local block"] += empty;
    seen["grid smaller than P"] += s.grid_size() < P;
    seen["multi-axis grid"] += s.grid_shape.size() > 1;
  };
  for (int trial = 0; trial < 3000 && failures < 10; ++trial) {
    const int P = static_cast<int>(rng.uniform(1, 9));
    const int rank = static_cast<int>(rng.uniform(1, 4));
    const Index max_extent = (rank == 1   ? 40
                              : rank == 2 ? 12
                              : rank == 3 ? 6
                                          : 4) *
                             (rng.chance(10) ? 8 : 1);
    const auto shape = random_shape(rng, rank, max_extent);
    const SideSpec src = adlib_test::random_side(rng, shape, random_grid(rng, P, 3), std::nullopt);
    const SideSpec dst =
        rng.chance(5) ? src
                      : adlib_test::random_side(rng, shape, random_grid(rng, P, 3), std::nullopt);
    note(src, P);
    note(dst, P);
    // Under the sanitizer every third trial is simulated (19 s for all of
    // them there); the layouts are still drawn, so the trials and the
    // feature counts are the same in both passes.
    if (!adlib_test::visit_case(static_cast<std::size_t>(trial), 3)) continue;
    const Verdict v = simulate(dst, src, P);
    if (!v.ok()) {
      ++failures;
      std::string all;
      for (const auto& p : v.problems) all += "\n    " + p;
      ADD_FAILURE() << "trial " << trial << " " << describe(dst, src, P) << all;
    }
  }
  for (const auto& [feature, count] : seen) EXPECT_GE(count, 150) << feature;
  EXPECT_EQ(seen.size(), 9u);
}

TEST(SerialRemapPlan, LargeSimulatedProcessCounts) {
  // Up to 4096 simulated ranks.  Extents are a few elements per rank so the
  // whole simulation stays small; the point is process-count arithmetic
  // (N not divisible by P, empty blocks, big grids, replication over a
  // 64-wide axis, grids smaller than P).
  Rng rng(4096);
  struct Case {
    int P;
    std::vector<int> src_grid, dst_grid;
    std::vector<Index> shape;
    Kind src_kind, dst_kind;
    int section_percent;
  };
  const std::vector<Case> cases{
      {64, {64}, {64}, {200}, Kind::block, Kind::cyclic, 0},
      {257, {257}, {256}, {1000}, Kind::block_cyclic, Kind::irregular, 50},
      {1000, {1000}, {10, 100}, {2500}, Kind::cyclic, Kind::block, 100},
      {1000, {8, 125}, {1000}, {60, 70}, Kind::ghost_block, Kind::block_cyclic, 50},
      {4096, {4096}, {4096}, {10000}, Kind::block, Kind::cyclic, 0},
      {4096, {4096}, {4093}, {9001}, Kind::irregular, Kind::block, 100},
      {4096, {64, 64}, {4096}, {130, 150}, Kind::block, Kind::cyclic, 50},
      {4096, {4096, 1}, {64, 64}, {300}, Kind::block_cyclic, Kind::block, 100},  // replicated dst
      {4096, {16, 16, 16}, {4096}, {20, 20, 20}, Kind::block, Kind::block, 50},
  };
  for (const Case& c : cases) {
    // Under the sanitizer the 4096-rank cases are left out (minutes each).
    if (adlib_test::kUnderSanitizer && c.P > 1000) continue;
    adlib_test::GenOptions opt;
    opt.section_percent = c.section_percent;
    opt.restrict_percent = 0;
    // Only the first dimension's kind is forced.  A collapsed range in
    // another dimension would put that whole dimension on thousands of
    // ranks, which is O(P^2) to simulate and no planning concern: redraw.
    SideSpec src, dst;
    for (int attempt = 0; attempt < 100; ++attempt) {
      src = adlib_test::random_side(rng, c.shape, c.src_grid, c.src_kind, opt);
      dst = adlib_test::random_side(rng, c.shape, c.dst_grid, c.dst_kind, opt);
      bool collapsed = false;
      for (const auto* side : {&src, &dst})
        for (const auto& r : side->ranges) collapsed = collapsed || r.kind == Kind::collapsed;
      if (!collapsed) break;
    }
    const auto begin = std::chrono::steady_clock::now();
    SimulationStats stats;
    const Verdict v = simulate(dst, src, c.P, &stats);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (!v.ok()) {
      std::string all;
      for (const auto& p : v.problems) all += "\n    " + p;
      ADD_FAILURE() << describe(dst, src, c.P) << all;
    }
    EXPECT_GT(stats.elements, 0u) << describe(dst, src, c.P);
    RecordProperty("P" + std::to_string(c.P) + "_seconds", std::to_string(seconds));
  }
}

TEST(SerialRemapPlan, ReplicatedSourcePlansInTimeIndependentOfReplicas) {
  // Planning must not do O(P) work per peer: a source replicated over all
  // 16384 simulated ranks sending to a destination replicated 128 times.
  // Choosing the serving replica used to list all 16384 replicas for every
  // (receiver, block) pair, about a second per rank here; now it is
  // computed from coordinates.
  const int P = 16384;
  SideSpec src, dst;
  src.grid_shape = {P};
  src.fixed = {-1};
  adlib_test::RangeSpec whole;
  whole.kind = Kind::collapsed;
  whole.extent = 300;
  whole.finish();
  src.ranges = {whole};
  src.section = {adlib::Triplet::all(300)};
  dst.grid_shape = {128, 128};
  dst.fixed = {-1, -1};
  adlib_test::RangeSpec block;
  block.kind = Kind::block;
  block.extent = 300;
  block.axis = 1;
  block.processes = 128;
  block.finish();
  dst.ranges = {block};
  dst.section = {adlib::Triplet::all(300)};
  const adlib::ProcessGrid src_grid(src.grid_shape), dst_grid(dst.grid_shape);
  const auto src_layout = adlib_test::make_parent(src, src_grid);
  const auto dst_layout = adlib_test::make_parent(dst, dst_grid);
  const auto begin = std::chrono::steady_clock::now();
  std::size_t sent = 0, received = 0;
  for (int r : {0, 1, 129, P / 2, P - 1}) {
    const auto plan = adlib::plan_remap(dst_layout, src_layout, r);
    for (const auto& pb : plan.sends) sent += static_cast<std::size_t>(pb.block.count());
    for (const auto& pb : plan.recvs) {
      received += static_cast<std::size_t>(pb.block.count());
      // Every rank holds the whole source: it serves itself.
      EXPECT_EQ(pb.peer, r);
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  // Each rank receives its block of 2 or 3 elements from itself only.
  EXPECT_EQ(sent, received);
  EXPECT_GT(received, 0u);
  // A guard against planning in time proportional to the replicas (minutes
  // at this P), not a speed target: generous, and more so under the
  // sanitizer, which slows this code about 20 times.
  const double limit = adlib_test::kUnderSanitizer ? 30.0 : 1.0;
  EXPECT_LT(seconds, limit) << "planning 5 ranks took " << seconds << " s";
}

}  // namespace

}  // namespace serial_remap_plan
