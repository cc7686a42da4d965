// SPDX-License-Identifier: BSD-3-Clause
// plan_write_halo simulated for every rank of small and large process grids
// in one process: for each (sender, receiver) pair, the global elements the
// sender's blocks read must be, in order, the global elements the receiver's
// blocks stand for (ghost positions unwrapped through the periodic wrap).
// A mismatch here would be wrong values or a hang at run time.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <random>
#include <vector>

#include <adlib/collectives/halo_plan.hpp>
#include <adlib/ranges/block_range.hpp>
#include <adlib/ranges/collapsed_range.hpp>
#include <adlib/ranges/irregular_block_range.hpp>
#include "block_reference.hpp"

namespace {

using adlib::Boundary;
using adlib::Index;

// The global linear index a local flat offset of `rank` stands for.
Index global_of(const adlib::ArrayLayout& layout, int rank, Index flat) {
  const auto extents = layout.local_extents(rank);
  std::vector<Index> local(extents.size());
  for (size_t d = extents.size(); d-- > 0;) {
    local[d] = flat % extents[d];
    flat /= extents[d];
  }
  Index linear = 0;
  for (int d = 0; d < layout.rank(); ++d) {
    const auto& r = dynamic_cast<const adlib::IntervalRange&>(layout.range(d));
    const int c = layout.coordinate(rank, d);
    const Index n = r.extent();
    const Index g = ((r.block_start(c) + local[d] - r.ghost_low()) % n + n) % n;
    linear = linear * n + g;
  }
  return linear;
}

using Streams = std::map<std::pair<int, int>, std::vector<Index>>;  // (from, to) -> globals

void check_all_pairs(const adlib::ArrayLayout& layout, const adlib::HaloWidths& halo, int P) {
  Streams sent, received;
  for (int me = 0; me < P; ++me) {
    const adlib::RemapPlan plan = adlib::plan_write_halo(layout, halo, me);
    for (const auto& b : plan.sends)
      for (Index off : adlib_test::offsets_of(b.block))
        sent[{me, b.peer}].push_back(global_of(layout, me, off));
    for (const auto& b : plan.recvs)
      for (Index off : adlib_test::offsets_of(b.block))
        received[{b.peer, me}].push_back(global_of(layout, me, off));
  }
  ASSERT_EQ(sent.size(), received.size()) << layout.describe();
  for (const auto& [pair, globals] : sent) {
    auto it = received.find(pair);
    ASSERT_NE(it, received.end()) << pair.first << "->" << pair.second;
    ASSERT_EQ(globals, it->second)
        << pair.first << "->" << pair.second << " in " << layout.describe();
  }
}

TEST(HaloPlan, SendersAndReceiversAgreeOnRandomLayouts) {
  std::mt19937 rng(2026);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 300; ++trial) {
    const std::vector<int> shape = {pick(1, 5), pick(1, 4)};
    adlib::ProcessGrid grid(shape);
    std::vector<adlib::RangePtr> ranges;
    adlib::HaloWidths halo;
    for (int d = 0; d < 2; ++d) {
      const bool periodic = pick(0, 1);
      std::vector<Index> sizes(shape[d]);
      Index n = 0;
      for (auto& s : sizes) n += s = pick(0, 4);
      if (n == 0) n += sizes[0] = 1;
      const adlib::Ghosts ghosts{std::min<Index>(pick(0, 3), n), std::min<Index>(pick(0, 3), n),
                                 periodic};
      if (pick(0, 1))
        ranges.push_back(std::make_shared<adlib::IrregularBlockRange>(sizes, grid.dim(d), ghosts));
      else
        ranges.push_back(std::make_shared<adlib::BlockRange>(n, grid.dim(d), ghosts));
      halo.low.push_back(pick(0, int(ghosts.low)));
      halo.high.push_back(pick(0, int(ghosts.high)));
      const int mode = pick(0, 2);
      halo.modes.push_back(mode == 0 ? Boundary::skip
                                     : (mode == 1 && periodic ? Boundary::cyclic : Boundary::edge));
    }
    halo.stencil = pick(0, 1) ? adlib::Stencil::box : adlib::Stencil::faces;
    const adlib::ArrayLayout layout(grid, ranges);
    ASSERT_EQ(adlib::check_halo(layout, halo), "");
    check_all_pairs(layout, halo, grid.size());
  }
}

// Regular halos plan from range arithmetic: one rank of a 1024 x 1024
// process grid plans in well under a millisecond (binary searches, no loop
// over processes), and the plan has the 8 neighbours of a box stencil.
TEST(HaloPlan, OneRankOfAMillionProcessesPlansQuickly) {
  adlib::ProcessGrid grid({1024, 1024});
  const Index n = 1 << 20;
  auto rows = std::make_shared<adlib::BlockRange>(n, grid.dim(0), adlib::Ghosts{1, 1, true});
  auto cols = std::make_shared<adlib::BlockRange>(n, grid.dim(1), adlib::Ghosts{1, 1, false});
  const adlib::ArrayLayout layout(grid, {rows, cols});
  const adlib::HaloWidths halo = adlib::full_halo(layout);
  const int me = grid.rank_of({0, 512});  // on the periodic seam
  const auto t0 = std::chrono::steady_clock::now();
  const adlib::RemapPlan plan = adlib::plan_write_halo(layout, halo, me);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::map<int, int> peers;
  for (const auto& b : plan.recvs) ++peers[b.peer];
  EXPECT_EQ(peers.size(), 8u);  // faces and corners, wrapping across the periodic seam
  EXPECT_LT(seconds, 0.05);     // generous: the design target is microseconds
}

}  // namespace
