// SPDX-License-Identifier: BSD-3-Clause
// plan_write_halo simulated for every rank of small and large process grids
// in one process, against the serial reference of halo_reference.hpp: every
// ghost cell the halo fills is received once and nothing else; for each
// (sender, receiver) pair the global elements the sender's blocks read are,
// in order, the global elements the receiver's cells copy (through the
// periodic wrap or the mirror).  Edge, cyclic and mirror boundaries, ghosts
// wider than the extent, empty blocks.  A mismatch here would be wrong
// values or a hang at run time.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <random>
#include <set>
#include <vector>

#include <adlib/collectives/halo_plan.hpp>
#include <adlib/ranges/block_range.hpp>
#include <adlib/ranges/collapsed_range.hpp>
#include <adlib/ranges/irregular_block_range.hpp>
#include <adlib/ranges/range_spec.hpp>
#include "block_reference.hpp"
#include "custom_range.hpp"
#include "halo_reference.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_halo_plan {

namespace {

using adlib::Boundary;
using adlib::Index;

// The local index of C-order offset `flat` in a block of `extents`.
template <int R>
std::array<Index, R> local_of(const std::vector<Index>& extents, Index flat) {
  std::array<Index, R> local{};
  for (int d = R - 1; d >= 0; --d) {
    local[d] = flat % extents[d];
    flat /= extents[d];
  }
  return local;
}

using Streams = std::map<std::pair<int, int>, std::vector<Index>>;  // (from, to) -> globals

// Every rank's plan against the serial reference (halo_reference.hpp): each
// rank receives exactly the ghost cells the halo fills, each once; it sends
// owned cells only; and for each (sender, receiver) pair the elements sent
// are, in order, the elements the receiving cells stand for.
template <int R>
void check_all_pairs(const adlib::ArrayLayout& layout, const adlib::HaloWidths& halo, int P) {
  Streams sent, received;
  for (int me = 0; me < P; ++me) {
    const adlib::ExchangePlan plan = adlib::plan_write_halo(layout, halo, me);
    const adlib_test::HaloReference<R> reference(layout, halo, me);
    const std::vector<Index> extents = layout.local_extents(me);
    for (const auto& b : plan.sends)
      for (Index off : adlib_test::offsets_of(b.block)) {
        const auto cell = reference.cell(local_of<R>(extents, off));
        ASSERT_TRUE(cell.owned) << "rank " << me << " sends non-owned cell " << off;
        sent[{me, b.peer}].push_back(cell.linear);
      }
    std::set<Index> got;
    for (const auto& b : plan.recvs)
      for (Index off : adlib_test::offsets_of(b.block)) {
        const auto cell = reference.cell(local_of<R>(extents, off));
        ASSERT_TRUE(cell.filled && !cell.owned)
            << "rank " << me << " receives into cell " << off << " in " << layout.describe();
        ASSERT_TRUE(got.insert(off).second)
            << "rank " << me << " receives cell " << off << " twice";
        received[{b.peer, me}].push_back(cell.linear);
      }
    Index expected = 0;
    if (layout.holds_data(me)) {
      Index total = 1;
      for (Index e : extents) total *= e;
      for (Index off = 0; off < total; ++off) {
        const auto cell = reference.cell(local_of<R>(extents, off));
        expected += cell.filled && !cell.owned;
      }
    }
    ASSERT_EQ(Index(got.size()), expected) << "rank " << me << " in " << layout.describe();
  }
  ASSERT_EQ(sent.size(), received.size()) << layout.describe();
  for (const auto& [pair, globals] : sent) {
    auto it = received.find(pair);
    ASSERT_NE(it, received.end()) << pair.first << "->" << pair.second;
    ASSERT_EQ(globals, it->second)
        << pair.first << "->" << pair.second << " in " << layout.describe();
  }
}

Boundary random_mode(int pick, bool periodic) {
  switch (pick) {
    case 0:
      return Boundary::skip;
    case 1:
      return periodic ? Boundary::cyclic : Boundary::edge;
    case 2:
      return Boundary::mirror;
    default:
      return Boundary::edge;
  }
}

TEST(HaloPlan, SendersAndReceiversAgreeOnRandomLayouts) {
  std::mt19937 rng(2026);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 400; ++trial) {
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
      // Ghosts up to 3, or (one trial in four) wider than the extent.
      const int widest = pick(0, 3) == 0 ? int(n) + 3 : 3;
      const adlib::Ghosts ghosts{pick(0, widest), pick(0, widest), periodic};
      if (pick(0, 1))
        ranges.push_back(std::make_shared<adlib::IrregularBlockRange>(sizes, grid.dim(d), ghosts));
      else
        ranges.push_back(std::make_shared<adlib::BlockRange>(n, grid.dim(d), ghosts));
      halo.low.push_back(pick(0, int(ghosts.low)));
      halo.high.push_back(pick(0, int(ghosts.high)));
      halo.modes.push_back(random_mode(pick(0, 3), periodic));
    }
    halo.stencil = pick(0, 1) ? adlib::Stencil::box : adlib::Stencil::faces;
    const adlib::ArrayLayout layout(grid, ranges);
    ASSERT_EQ(adlib::check_halo(layout, halo), "");
    check_all_pairs<2>(layout, halo, grid.size());
  }
}

// One dimension, exhaustively: every extent up to 7 (0 included), 1 to 5
// processes (empty blocks where n < P), every width up to n + 2 on each
// side, every boundary.
TEST(HaloPlan, WideGhostsAndMirrorIn1D) {
  for (int P = 1; P <= 5; ++P)
    for (Index n = 0; n <= 7; ++n)
      for (Index low = 0; low <= n + 2; ++low)
        for (Index high = 0; high <= n + 2; ++high)
          for (Boundary mode : {Boundary::edge, Boundary::cyclic, Boundary::mirror}) {
            adlib::ProcessGrid grid({P});
            auto range = std::make_shared<adlib::BlockRange>(
                n, grid.dim(0), adlib::Ghosts{low, high, mode == Boundary::cyclic});
            const adlib::ArrayLayout layout(grid, {range});
            adlib::HaloWidths halo{{low}, {high}, {mode}, adlib::Stencil::box};
            ASSERT_EQ(adlib::check_halo(layout, halo), "");
            check_all_pairs<1>(layout, halo, P);
          }
}

// A distribution format adlib does not ship (custom_range.hpp: a direct
// Range subclass answering the inquiries by brute force) plans halos like
// the built-in ones: the halo code never learns its kind.
TEST(HaloPlan, ANewContiguousRangeNeedsNoHaloCode) {
  std::mt19937 rng(77);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 150; ++trial) {
    const std::vector<int> shape = {pick(1, 4), pick(1, 3)};
    adlib::ProcessGrid grid(shape);
    std::vector<adlib::RangeSpec> specs;
    adlib::HaloWidths halo;
    for (int d = 0; d < 2; ++d) {
      std::vector<Index> sizes(shape[d]);
      for (auto& s : sizes) s = pick(0, 4);
      const bool periodic = pick(0, 1);
      const Index low = pick(0, 5), high = pick(0, 5);
      specs.push_back(adlib_test::listed_blocks(sizes).ghosts(low, high).periodic(periodic));
      halo.low.push_back(pick(0, int(low)));
      halo.high.push_back(pick(0, int(high)));
      halo.modes.push_back(random_mode(pick(0, 3), periodic));
    }
    halo.stencil = pick(0, 1) ? adlib::Stencil::box : adlib::Stencil::faces;
    const adlib::ArrayLayout layout(grid, adlib::bind_ranges(grid, specs));
    ASSERT_EQ(adlib::check_halo(layout, halo), "");
    check_all_pairs<2>(layout, halo, grid.size());
  }
}

// Mirror ghosts of a 3 x 5 array over 2 x 2 processes, spelled out: the
// ghost at -k holds k, the one at n-1+k holds n-1-k (not the edge element).
TEST(HaloPlan, MirrorCopiesTheReflectionWithoutTheEdge) {
  EXPECT_EQ(adlib_test::boundary_source(-1, 5, Boundary::mirror), 1);
  EXPECT_EQ(adlib_test::boundary_source(-4, 5, Boundary::mirror), 4);
  EXPECT_EQ(adlib_test::boundary_source(-5, 5, Boundary::mirror), -1);
  EXPECT_EQ(adlib_test::boundary_source(5, 5, Boundary::mirror), 3);
  EXPECT_EQ(adlib_test::boundary_source(8, 5, Boundary::mirror), 0);
  EXPECT_EQ(adlib_test::boundary_source(9, 5, Boundary::mirror), -1);
  adlib::ProcessGrid grid({2, 2});
  auto rows = std::make_shared<adlib::BlockRange>(3, grid.dim(0), adlib::Ghosts{2, 2, false});
  auto cols = std::make_shared<adlib::BlockRange>(5, grid.dim(1), adlib::Ghosts{1, 3, false});
  const adlib::ArrayLayout layout(grid, {rows, cols});
  for (adlib::Stencil stencil : {adlib::Stencil::faces, adlib::Stencil::box}) {
    adlib::HaloWidths halo{{2, 1}, {2, 3}, {Boundary::mirror, Boundary::mirror}, stencil};
    check_all_pairs<2>(layout, halo, 4);
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
  const adlib::ExchangePlan plan = adlib::plan_write_halo(layout, halo, me);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::map<int, int> peers;
  for (const auto& b : plan.recvs) ++peers[b.peer];
  EXPECT_EQ(peers.size(), 8u);  // faces and corners, wrapping across the periodic seam
  EXPECT_LT(seconds, 0.05);     // generous: the design target is microseconds
}

}  // namespace

}  // namespace serial_halo_plan
