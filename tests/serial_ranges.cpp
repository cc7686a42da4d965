// SPDX-License-Identifier: BSD-3-Clause
// Range inquiries against an independent reference model (test_layouts.hpp),
// for every Range kind, in one process on communicator-less grids:
// local counts, owner / global_index round trips, owned_blocks against brute
// force over sections with strides +-1, +-2, +-3 (canonical clipping
// included), owners(), constructor checks, and the ArrayLayout / Group /
// ProcessGrid arithmetic the collectives build on.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include <adlib/ranges/detail/index_math.hpp>
#include <adlib/ranges/local_box.hpp>
#include <adlib/ranges/range_spec.hpp>
#include <adlib/runtime/error.hpp>
#include "sanitizer_scale.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_ranges {

namespace {

using adlib::Block;
using adlib::Index;
using adlib::Triplet;
using adlib_test::Kind;
using adlib_test::RangeSpec;

// Every range configuration the exhaustive tests visit: each kind, process
// counts 1..8, extents below, equal to and not divisible by P, ghosts.
std::vector<RangeSpec> range_configs() {
  std::vector<RangeSpec> out;
  const std::vector<int> process_counts{1, 2, 3, 4, 5, 8};
  const std::vector<Index> extents{0, 1, 2, 3, 5, 7, 12, 13, 31, 70};
  for (int P : process_counts)
    for (Index n : extents)
      for (int k = 0; k < adlib_test::kKindCount; ++k) {
        const Kind kind = adlib_test::kind_at(k);
        std::vector<Index> blocks{1};
        // Tiles of 8 or more are planned per tile for unit strides, shorter per phase.
        if (kind == Kind::block_cyclic) blocks = {2, 3, 5, 8, 16};
        if (kind == Kind::collapsed && P > 1) continue;  // P does not matter
        // Cyclic kinds: the first tile on coordinate 0, 1 and P-1 (ScaLAPACK's RSRC).
        const bool cyclic_kind = kind == Kind::cyclic || kind == Kind::block_cyclic;
        std::vector<int> sources{0};
        if (cyclic_kind && P > 1) sources.push_back(P - 1);
        if (cyclic_kind && P > 2) sources.push_back(1);
        for (int source : sources)
          for (Index b : blocks)
            for (int ghost = 0; ghost < 2; ++ghost) {
              if (cyclic_kind && ghost) continue;  // these ranges carry no ghosts
              RangeSpec r;
              r.kind = kind;
              r.extent = n;
              r.processes = P;
              r.axis = 0;
              r.block = b;
              r.source = source;
              if (kind == Kind::irregular) {
                // Zeros at the ends and in the middle, the rest uneven.
                r.sizes.assign(P, 0);
                Index left = n;
                for (int c = 0; c < P && left > 0; ++c) {
                  if (c % 3 == 0 && c + 1 < P) continue;
                  const Index s = c + 1 == P ? left : std::min<Index>(left, (c % 4) + 1);
                  r.sizes[c] = s;
                  left -= s;
                }
                r.sizes[P - 1] += left;
              }
              if (ghost || kind == Kind::ghost_block) {
                // Wider than the extent where n < 2 (accepted, like DMDA's s > M).
                r.ghost_low = ghost ? 2 : 1;
                r.ghost_high = 1;
                r.periodic = ghost;
              }
              r.finish();
              out.push_back(r);
            }
      }
  return out;
}

// The section triplets the owned_blocks tests visit for extent n: strides
// +-1, +-2, +-3, every start, hi overshooting last by < |stride| and several
// lengths, plus a few empty ones.
std::vector<Triplet> sections_of(Index n) {
  std::vector<Triplet> out{Triplet::empty(), Triplet{3, 1, 1}, Triplet{1, 3, -1}};
  for (Index s : {1, -1, 2, -2, 3, -3})
    for (Index lo = 0; lo < n; ++lo) {
      const Index room = s > 0 ? (n - 1 - lo) / s + 1 : lo / (-s) + 1;  // max count
      for (Index count : {Index{1}, Index{2}, room / 2, room}) {
        if (count < 1 || count > room) continue;
        const Index last = lo + (count - 1) * s;
        out.push_back(Triplet{lo, last, s});
        if (s != 1 && s != -1) out.push_back(Triplet{lo, last + (s > 0 ? 1 : -1), s});
      }
    }
  return out;
}

std::string describe(const RangeSpec& r) {
  return r.describe();
}

TEST(SerialRanges, ReferenceModelIsSelfConsistent) {
  // The model is the yardstick for everything else, so check it first: every
  // global index has exactly one owner and the local maps invert each other.
  for (const RangeSpec& r : range_configs()) {
    SCOPED_TRACE(describe(r));
    const int P = r.processes;
    Index total = 0;
    std::vector<int> seen(static_cast<size_t>(r.extent), 0);
    for (int c = 0; c < P; ++c) {
      total += r.local_count(c);
      for (Index l = 0; l < r.local_allocation(c); ++l) {
        const Index g = r.global_at(c, l);
        if (g < 0) continue;
        ASSERT_LT(g, r.extent);
        ++seen[g];
        const auto w = r.owner(g);
        EXPECT_EQ(w.coord, c);
        EXPECT_EQ(w.local, l);
      }
    }
    EXPECT_EQ(total, r.extent);
    for (Index g = 0; g < r.extent; ++g) EXPECT_EQ(seen[g], 1) << "global " << g;
  }
}

TEST(SerialRanges, LocalCountsOwnersAndGlobalIndices) {
  for (const RangeSpec& spec : range_configs()) {
    SCOPED_TRACE(describe(spec));
    adlib::ProcessGrid grid({spec.processes});
    const auto range = spec.make(grid);
    const int P = spec.kind == Kind::collapsed ? 1 : spec.processes;
    ASSERT_EQ(range->extent(), spec.extent);
    ASSERT_EQ(range->process_count(), P);
    EXPECT_EQ(range->dimension().has_value(), spec.kind != Kind::collapsed);
    EXPECT_EQ(range->ghost_low(), spec.ghost_low);
    EXPECT_EQ(range->ghost_high(), spec.ghost_high);
    EXPECT_EQ(range->periodic(), spec.periodic);
    Index sum = 0;
    for (int c = 0; c < P; ++c) {
      EXPECT_EQ(range->local_count(c), spec.local_count(c)) << "coord " << c;
      EXPECT_EQ(range->local_allocation(c), spec.local_allocation(c)) << "coord " << c;
      sum += range->local_count(c);
      // Every local position, ghosts and one past each end included.
      for (Index l = -1; l <= spec.local_allocation(c); ++l) {
        const Index g = spec.global_at(c, l);
        if (g >= 0)
          EXPECT_EQ(range->global_index(c, l), g) << "coord " << c << " local " << l;
        else
          EXPECT_THROW(range->global_index(c, l), adlib::Error) << "coord " << c << " local " << l;
      }
    }
    EXPECT_EQ(sum, spec.extent);
    EXPECT_THROW(range->local_count(-1), adlib::Error);
    EXPECT_THROW(range->local_count(P), adlib::Error);
    EXPECT_THROW(range->global_index(P, spec.ghost_low), adlib::Error);
    for (Index g = 0; g < spec.extent; ++g) {
      const adlib::Owner o = range->owner(g);
      const auto w = spec.owner(g);
      EXPECT_EQ(o.coord, w.coord) << "global " << g;
      EXPECT_EQ(o.local, w.local) << "global " << g;
      EXPECT_EQ(range->global_index(o.coord, o.local), g);
    }
    EXPECT_THROW(range->owner(-1), adlib::Error);
    EXPECT_THROW(range->owner(spec.extent), adlib::Error);
  }
}

// Owned and ghost boxes against brute force over the Range inquiries
// (local_count, global_index, owner) and the reference model, for every
// kind, uneven sizes, empty blocks and ghosts wider than the extent.
TEST(SerialRanges, OwnedAndGhostBoxesMatchTheInquiries) {
  for (const RangeSpec& spec : range_configs()) {
    SCOPED_TRACE(describe(spec));
    adlib::ProcessGrid grid({spec.processes});
    const auto range = spec.make(grid);
    const adlib::ArrayLayout layout(grid, {range});
    EXPECT_EQ(range->contiguous(), spec.interval());
    for (int rank = 0; rank < spec.processes; ++rank) {
      const int c = layout.coordinate(rank, 0);
      const adlib::LocalBox<1> owned = adlib::owned_box<1>(layout, rank);
      const adlib::LocalBox<1> all = adlib::ghost_box<1>(layout, rank);
      ASSERT_EQ(owned.begin(0), range->ghost_low());
      ASSERT_EQ(owned.extent(0), range->local_count(c));
      EXPECT_EQ(owned.empty(), range->local_count(c) == 0);
      EXPECT_EQ(all.begin(0), 0);
      EXPECT_EQ(all.end(0), range->local_allocation(c));
      // Owned cells: the same global indices as the inquiries, both ways.
      std::vector<Index> globals;
      for (Index l = owned.begin(0); l < owned.end(0); ++l) {
        const Index g = range->global_index(c, l);
        globals.push_back(g);
        EXPECT_EQ(owned.global(0, l), g) << "local " << l;
        EXPECT_EQ(all.global(0, l), g) << "local " << l;
        EXPECT_EQ(owned.local(0, g), l) << "global " << g;
        EXPECT_EQ(range->owner(g).coord, c);
        EXPECT_TRUE(owned.contains(0, l) && all.contains(0, l));
      }
      EXPECT_FALSE(owned.contains(0, owned.begin(0) - 1));
      EXPECT_FALSE(owned.contains(0, owned.end(0)));
      if (!globals.empty()) {
        EXPECT_EQ(owned.global_begin(0), globals.front());
        EXPECT_EQ(owned.global_last(0), globals.back());
      }
      // Contiguity and the constant step, by brute force.
      bool consecutive = true;
      Index step = globals.size() > 1 ? globals[1] - globals[0] : 1;
      for (size_t i = 1; i < globals.size(); ++i) {
        consecutive &= globals[i] == globals[i - 1] + 1;
        if (globals[i] - globals[i - 1] != step) step = 0;
      }
      EXPECT_EQ(owned.contiguous(0), consecutive);
      EXPECT_EQ(owned.global_step(0), consecutive ? 1 : step);
      if (range->contiguous()) {
        // The interval and the unwrapped global indices of the ghost cells.
        const adlib::Interval interval = range->owned_interval(c);
        EXPECT_EQ(interval.begin, spec.starts[c]);
        EXPECT_EQ(interval.end, spec.starts[c + 1]);
        EXPECT_EQ(owned.global_begin(0), interval.begin);
        for (Index l = 0; l < all.end(0); ++l) {
          EXPECT_EQ(all.global(0, l), interval.begin - range->ghost_low() + l) << "local " << l;
          EXPECT_EQ(all.local(0, all.global(0, l)), l);
        }
      } else {
        EXPECT_THROW(range->owned_interval(c), adlib::Error);
        EXPECT_EQ(all.begin(0), owned.begin(0));
        EXPECT_EQ(all.end(0), owned.end(0));
      }
    }
  }
}

// Boxes of a 2-D array over a 2 x 3 grid of which the last process holds
// nothing (a group restricted to row 0), with an empty block along columns.
TEST(SerialRanges, BoxesOfRanksWithoutDataAreEmpty) {
  adlib::ProcessGrid grid({2, 3});
  auto rows = std::make_shared<adlib::BlockRange>(5, grid.dim(0), adlib::Ghosts{1, 2, false});
  auto cols =
      std::make_shared<adlib::IrregularBlockRange>(std::vector<Index>{4, 0, 3}, grid.dim(1));
  const adlib::ArrayLayout whole(grid, {rows, cols});
  // Rank 1 = coordinates (0, 1): owns rows 0..1 and no column.
  const auto owned = adlib::owned_box<2>(whole, 1);
  EXPECT_EQ(owned.begin(0), 1);
  EXPECT_EQ(owned.end(0), 3);
  EXPECT_EQ(owned.global_begin(0), 0);
  EXPECT_EQ(owned.extent(1), 0);
  EXPECT_EQ(owned.global_begin(1), 4);  // where its columns would start
  EXPECT_TRUE(owned.empty());
  const auto ghosts = adlib::ghost_box<2>(whole, 1);
  EXPECT_EQ(ghosts.extent(0), 5);
  EXPECT_EQ(ghosts.global_begin(0), -1);  // unwrapped: outside the domain
  EXPECT_EQ(ghosts.global_last(0), 3);
  // Rank 4 = (1, 1) is outside a group restricted to grid row 0.
  auto cols1 = std::make_shared<adlib::BlockRange>(7, grid.dim(1));
  const adlib::ArrayLayout row0(adlib::Group(grid).restrict(0, 0),
                                {std::make_shared<adlib::CollapsedRange>(3), cols1});
  for (const auto& box : {adlib::owned_box<2>(row0, 4), adlib::ghost_box<2>(row0, 4)}) {
    EXPECT_TRUE(box.empty());
    EXPECT_EQ(box.extent(0), 0);
    EXPECT_EQ(box.extent(1), 0);
  }
  EXPECT_EQ(adlib::owned_box<2>(row0, 2).extent(1), cols1->local_count(2));
  EXPECT_THROW(adlib::owned_box<3>(row0, 0), adlib::Error);
}

// The factories make the same distributions as the classes, bound to the
// group's free axes by position (collapsed specs take none).
TEST(SerialRanges, FactoriesBindToAxesByPosition) {
  adlib::ProcessGrid grid({2, 3});
  const auto r = adlib::bind_ranges(
      grid,
      {adlib::block(10).ghosts(1), adlib::collapsed(4).ghosts(2, 0).periodic(), adlib::cyclic(7)});
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(
      r[0]->same_distribution(adlib::BlockRange(10, grid.dim(0), adlib::Ghosts{1, 1, false})));
  EXPECT_TRUE(r[1]->same_distribution(adlib::CollapsedRange(4, adlib::Ghosts{2, 0, true})));
  EXPECT_TRUE(r[2]->same_distribution(adlib::CyclicRange(7, grid.dim(1))));
  // Explicit axes, the others fill the remaining free axes in order.
  const auto s = adlib::bind_ranges(
      grid, {adlib::block_cyclic(9, 2), adlib::irregular_block({1, 0, 4}).axis(1)});
  EXPECT_TRUE(s[0]->same_distribution(adlib::BlockCyclicRange(9, grid.dim(0), 2)));
  EXPECT_TRUE(s[1]->same_distribution(adlib::IrregularBlockRange({1, 0, 4}, grid.dim(1))));
  // The source coordinate of the cyclic kinds (ScaLAPACK's RSRC / CSRC).
  EXPECT_TRUE(adlib::block_cyclic(9, 2, 1)
                  .on(grid.dim(1))
                  ->same_distribution(adlib::BlockCyclicRange(9, grid.dim(1), 2, 1)));
  EXPECT_FALSE(adlib::block_cyclic(9, 2, 1)
                   .on(grid.dim(1))
                   ->same_distribution(adlib::BlockCyclicRange(9, grid.dim(1), 2)));
  EXPECT_TRUE(adlib::cyclic(7, 2)
                  .on(grid.dim(1))
                  ->same_distribution(adlib::CyclicRange(7, grid.dim(1), 2)));
  EXPECT_THROW(adlib::cyclic(7, 3).on(grid.dim(1)), adlib::Error);  // source beyond P
  // A restricted axis is skipped.
  const auto t = adlib::bind_ranges(adlib::Group(grid).restrict(0, 1), {adlib::block(5)});
  EXPECT_EQ(t[0]->dimension()->axis(), 1);
  EXPECT_TRUE(adlib::block(5).on(grid.dim(1))->same_distribution(*t[0]));
  EXPECT_TRUE(adlib::collapsed(3).make()->same_distribution(adlib::CollapsedRange(3)));
  // Misuse.
  EXPECT_THROW(adlib::bind_ranges(grid, {adlib::block(1), adlib::block(1), adlib::block(1)}),
               adlib::Error);  // three distributed specs, two axes
  EXPECT_THROW(adlib::bind_ranges(grid, {adlib::block(1).axis(2)}), adlib::Error);
  EXPECT_THROW(adlib::bind_ranges(grid, {adlib::block(1).axis(0), adlib::cyclic(1).axis(0)}),
               adlib::Error);
  EXPECT_THROW(adlib::bind_ranges(adlib::Group(grid).restrict(0, 0), {adlib::block(1).axis(0)}),
               adlib::Error);
  EXPECT_THROW(adlib::bind_ranges(grid, {adlib::cyclic(4).ghosts(1)}), adlib::Error);
  EXPECT_THROW(adlib::bind_ranges(grid, {adlib::block_cyclic(4, 2).periodic()}), adlib::Error);
  EXPECT_THROW(adlib::bind_ranges(grid, {adlib::irregular_block({1, 2, 3})}), adlib::Error);
  EXPECT_THROW(adlib::collapsed(3).axis(0), adlib::Error);
  EXPECT_THROW(adlib::block(3).make(), adlib::Error);
  EXPECT_THROW(adlib::collapsed(3).on(grid.dim(0)), adlib::Error);
  EXPECT_THROW(adlib::bind_ranges(grid, {adlib::block(3).ghosts(-1)}), adlib::Error);
}

// (position, local) pairs of `coord`'s share of section positions
// first..last, by brute force over the reference model.
std::vector<std::pair<Index, Index>> brute_share(const RangeSpec& r, int coord, const Triplet& t,
                                                 Index first, Index last) {
  std::vector<std::pair<Index, Index>> out;
  for (Index k = std::max<Index>(first, 0); k <= std::min(last, t.count() - 1); ++k) {
    const auto w = r.owner(t.at(k));
    if (w.coord == coord) out.emplace_back(k, w.local);
  }
  return out;
}

// Checks the documented shape of an owned_blocks answer and flattens it to
// (position, local) pairs sorted by position.
std::vector<std::pair<Index, Index>> flatten(const std::vector<Block>& blocks, const Triplet& t,
                                             const RangeSpec& r, int coord) {
  std::vector<std::pair<Index, Index>> out;
  Index previous_first = -1;
  for (const Block& b : blocks) {
    EXPECT_GE(b.count, 0);
    if (b.count == 0) continue;
    // The global base is an element of the section, at position k0.
    EXPECT_EQ((b.global_base - t.lo) % t.stride, 0) << "block base " << b.global_base;
    const Index k0 = (b.global_base - t.lo) / t.stride;
    EXPECT_GT(k0, previous_first) << "blocks must come in increasing position";
    previous_first = k0;
    if (b.count > 1) {
      // Elements in increasing position: global_step has the sign of the stride.
      EXPECT_EQ(b.global_step % t.stride, 0);
      EXPECT_GT(b.global_step / t.stride, 0) << "global step " << b.global_step;
    }
    for (Index i = 0; i < b.count; ++i) {
      const Index g = b.global_base + i * b.global_step;
      const Index local = b.local_base + i * b.local_step;
      EXPECT_EQ(r.global_at(coord, local), g) << "element " << i << " of a block";
      out.emplace_back((g - t.lo) / t.stride, local);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A block clipped to section positions first..last (count 0 when nothing remains).
Block clip(const Block& b, const Triplet& t, Index first, Index last) {
  const Index k0 = (b.global_base - t.lo) / t.stride;
  const Index step = b.count > 1 ? b.global_step / t.stride : 1;
  Index i_first = 0, i_last = b.count - 1;
  if (k0 < first) i_first = (first - k0 + step - 1) / step;
  if (k0 + i_last * step > last) i_last = last < k0 ? -1 : (last - k0) / step;
  Block c = b;
  c.count = std::max<Index>(0, i_last - i_first + 1);
  c.global_base = b.global_base + i_first * b.global_step;
  c.local_base = b.local_base + i_first * b.local_step;
  return c;
}

TEST(SerialRanges, OwnedBlocksMatchBruteForceAndClipCanonically) {
  std::size_t sections_checked = 0;
  const std::vector<RangeSpec> configs = range_configs();
  for (std::size_t index = 0; index < configs.size(); ++index) {
    if (!adlib_test::visit_case(index, 7)) continue;
    const RangeSpec& spec = configs[index];
    adlib::ProcessGrid grid({spec.processes});
    const auto range = spec.make(grid);
    const int P = range->process_count();
    for (const Triplet& t : sections_of(spec.extent)) {
      SCOPED_TRACE(describe(spec) + " section " + t.to_string());
      ++sections_checked;
      const Index n = t.count();
      for (int c = 0; c < P; ++c) {
        std::vector<Block> full;
        range->owned_blocks(c, t, full);
        const auto expected = brute_share(spec, c, t, 0, n - 1);
        ASSERT_EQ(flatten(full, t, spec, c), expected) << "coord " << c;
        // Clipping to first..last only clips the canonical blocks.
        const std::vector<std::pair<Index, Index>> clips{
            {0, n - 1}, {1, n - 1}, {0, n - 2}, {n / 3, (2 * n) / 3}, {n / 2, n / 2}, {1, n + 3}};
        for (const auto& [first, last] : clips) {
          std::vector<Block> clipped;
          range->owned_blocks(c, t, first, last, clipped);
          EXPECT_EQ(flatten(clipped, t, spec, c), brute_share(spec, c, t, first, last))
              << "coord " << c << " clip " << first << ".." << last;
          std::vector<Block> want;
          for (const Block& b : full) {
            const Block k = clip(b, t, first, std::min(last, n - 1));
            if (k.count > 0) want.push_back(k);
          }
          // Clipping may reorder interleaved (per-phase) blocks: the
          // answer lists them by first position.
          std::sort(want.begin(), want.end(), [&](const Block& a, const Block& b) {
            return (a.global_base - t.lo) / t.stride < (b.global_base - t.lo) / t.stride;
          });
          // Empty blocks carry no information: compare the non-empty ones.
          std::vector<Block> got;
          for (const Block& b : clipped)
            if (b.count > 0) got.push_back(b);
          ASSERT_EQ(got.size(), want.size())
              << "coord " << c << " clip " << first << ".." << last
              << ": the decomposition changed instead of being clipped";
          for (size_t i = 0; i < got.size(); ++i) {
            EXPECT_EQ(got[i].count, want[i].count) << "block " << i;
            EXPECT_EQ(got[i].global_base, want[i].global_base) << "block " << i;
            EXPECT_EQ(got[i].local_base, want[i].local_base) << "block " << i;
            if (got[i].count > 1) {
              EXPECT_EQ(got[i].global_step, want[i].global_step) << "block " << i;
              EXPECT_EQ(got[i].local_step, want[i].local_step) << "block " << i;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(sections_checked, adlib_test::kUnderSanitizer ? 1000u : 10000u);
}

TEST(SerialRanges, OwnersCoverEveryOwner) {
  for (const RangeSpec& spec : range_configs()) {
    adlib::ProcessGrid grid({spec.processes});
    const auto range = spec.make(grid);
    const int P = range->process_count();
    for (const Triplet& t : sections_of(spec.extent)) {
      SCOPED_TRACE(describe(spec) + " indices " + t.to_string());
      std::vector<int> coords{-7};  // owners() appends: keep what was there
      range->owners(t, coords);
      ASSERT_FALSE(coords.empty());
      EXPECT_EQ(coords[0], -7);
      coords.erase(coords.begin());
      EXPECT_TRUE(std::is_sorted(coords.begin(), coords.end()));
      EXPECT_EQ(std::adjacent_find(coords.begin(), coords.end()), coords.end());
      for (int c : coords) {
        EXPECT_GE(c, 0);
        EXPECT_LT(c, P);
      }
      for (Index k = 0; k < t.count(); ++k) {
        const int c = spec.kind == Kind::collapsed ? 0 : spec.owner(t.at(k)).coord;
        EXPECT_TRUE(std::binary_search(coords.begin(), coords.end(), c))
            << "owner " << c << " of " << t.at(k) << " missing";
      }
    }
  }
}

TEST(SerialRanges, LargeProcessCountsStayExact) {
  // Plans are computed for simulated process counts far beyond a test
  // machine: the block arithmetic must stay exact for large P and N.
  const int P = 1 << 20;
  const Index n = (Index{1} << 40) + 12345;
  adlib::ProcessGrid grid({P});
  adlib::BlockRange block(n, grid.dim(0));
  adlib::BlockCyclicRange cyclic(n, grid.dim(0), 7);
  for (int c : {0, 1, 2, P / 3, P - 2, P - 1}) {
    const Index start =
        static_cast<Index>((static_cast<adlib::detail::index_math::Wide>(c) * n) / P);
    const Index end =
        static_cast<Index>((static_cast<adlib::detail::index_math::Wide>(c + 1) * n) / P);
    EXPECT_EQ(block.local_count(c), end - start);
    EXPECT_EQ(block.owner(start).coord, c);
    EXPECT_EQ(block.owner(end - 1).coord, c);
    EXPECT_EQ(block.global_index(c, 0), start);
    std::vector<Block> blocks;
    block.owned_blocks(c, Triplet{n - 1, 0, -3}, blocks);
    ASSERT_EQ(blocks.size(), 1u);
    EXPECT_EQ(block.owner(blocks[0].global_base).coord, c);
    const Index g = (Index{12} * P + c) * 7 + 3;  // tile 12P + c, offset 3
    EXPECT_EQ(cyclic.owner(g).coord, c);
    EXPECT_EQ(cyclic.owner(g).local, 12 * 7 + 3);
    EXPECT_EQ(cyclic.global_index(c, 12 * 7 + 3), g);
  }
}

TEST(SerialRanges, ConstructorsRejectBadArguments) {
  adlib::ProcessGrid grid({3});
  EXPECT_THROW(adlib::BlockRange(-1, grid.dim(0)), adlib::Error);
  // Ghosts wider than the extent are fine (PETSc's DMDA accepts s > M too).
  EXPECT_NO_THROW(adlib::BlockRange(5, grid.dim(0), adlib::Ghosts{6, 0, false}));
  EXPECT_NO_THROW(adlib::BlockRange(5, grid.dim(0), adlib::Ghosts{0, 6, false}));
  EXPECT_THROW(adlib::BlockRange(5, grid.dim(0), adlib::Ghosts{-1, 0, false}), adlib::Error);
  EXPECT_THROW(adlib::BlockRange(5, grid.dim(0), adlib::Ghosts{0, -1, false}), adlib::Error);
  EXPECT_NO_THROW(adlib::BlockRange(5, grid.dim(0), adlib::Ghosts{5, 5, true}));
  EXPECT_NO_THROW(adlib::CollapsedRange(2, adlib::Ghosts{3, 0, false}));
  EXPECT_THROW(adlib::CollapsedRange(2, adlib::Ghosts{-3, 0, false}), adlib::Error);
  using Sizes = std::vector<Index>;
  EXPECT_THROW(adlib::IrregularBlockRange(Sizes{1, 2}, grid.dim(0)), adlib::Error);
  EXPECT_THROW(adlib::IrregularBlockRange(Sizes{1, 2, 3, 4}, grid.dim(0)), adlib::Error);
  EXPECT_THROW(adlib::IrregularBlockRange(Sizes{1, -2, 3}, grid.dim(0)), adlib::Error);
  EXPECT_NO_THROW(
      adlib::IrregularBlockRange(Sizes{1, 0, 3}, grid.dim(0), adlib::Ghosts{5, 0, false}));
  EXPECT_THROW(adlib::BlockCyclicRange(10, grid.dim(0), 0), adlib::Error);
  EXPECT_THROW(adlib::BlockCyclicRange(10, grid.dim(0), -2), adlib::Error);
  EXPECT_THROW(adlib::BlockCyclicRange(10, grid.dim(0), 2, -1), adlib::Error);
  EXPECT_THROW(adlib::BlockCyclicRange(10, grid.dim(0), 2, grid.dim(0).size()), adlib::Error);
  EXPECT_THROW(adlib::CyclicRange(10, grid.dim(0), grid.dim(0).size()), adlib::Error);
  EXPECT_THROW(grid.dim(1), adlib::Error);
  EXPECT_THROW(grid.dim(-1), adlib::Error);
}

TEST(SerialRanges, DescriptionsIdentifyDistributions) {
  // same_distribution decides whether a schedule accepts an array, so every
  // parameter must show in describe().
  adlib::ProcessGrid g3({3}), g3b({3}), g4({4}), g23({2, 3});
  using adlib::RangePtr;
  using Sizes = std::vector<Index>;
  const std::vector<RangePtr> distinct{
      std::make_shared<adlib::BlockRange>(10, g3.dim(0)),
      std::make_shared<adlib::BlockRange>(11, g3.dim(0)),
      std::make_shared<adlib::BlockRange>(10, g4.dim(0)),
      std::make_shared<adlib::BlockRange>(10, g23.dim(1)),
      std::make_shared<adlib::BlockRange>(10, g3.dim(0), adlib::Ghosts{1, 0, false}),
      std::make_shared<adlib::BlockRange>(10, g3.dim(0), adlib::Ghosts{0, 1, false}),
      std::make_shared<adlib::BlockRange>(10, g3.dim(0), adlib::Ghosts{1, 1, true}),
      std::make_shared<adlib::BlockRange>(10, g3.dim(0), adlib::Ghosts{1, 1, false}),
      std::make_shared<adlib::IrregularBlockRange>(Sizes{3, 3, 4}, g3.dim(0)),
      std::make_shared<adlib::IrregularBlockRange>(Sizes{4, 3, 3}, g3.dim(0)),
      std::make_shared<adlib::IrregularBlockRange>(Sizes{0, 10, 0}, g3.dim(0)),
      std::make_shared<adlib::CyclicRange>(10, g3.dim(0)),
      std::make_shared<adlib::BlockCyclicRange>(10, g3.dim(0), 2),
      std::make_shared<adlib::BlockCyclicRange>(10, g3.dim(0), 3),
      std::make_shared<adlib::BlockCyclicRange>(10, g3.dim(0), 3, 1),
      std::make_shared<adlib::BlockCyclicRange>(10, g3.dim(0), 3, 2),
      std::make_shared<adlib::CyclicRange>(10, g3.dim(0), 2),
      std::make_shared<adlib::CollapsedRange>(10),
      std::make_shared<adlib::CollapsedRange>(10, adlib::Ghosts{1, 1, true}),
  };
  for (size_t i = 0; i < distinct.size(); ++i)
    for (size_t j = 0; j < distinct.size(); ++j)
      EXPECT_EQ(distinct[i]->same_distribution(*distinct[j]), i == j)
          << distinct[i]->describe() << " vs " << distinct[j]->describe();
  // Separately built but identical: the same distribution.
  adlib::BlockRange a(10, g3.dim(0)), b(10, g3b.dim(0));
  EXPECT_TRUE(a.same_distribution(b));
  // Irregular sizes {3,3,4} and block N=10 on 3 hold the same elements but are
  // different kinds; at least they must not crash the comparison.
  adlib::IrregularBlockRange irr(Sizes{3, 3, 4}, g3.dim(0));
  EXPECT_FALSE(irr.same_distribution(a));
}

TEST(SerialTriplet, CountsPositionsAndEquality) {
  EXPECT_EQ((Triplet{0, 9, 1}.count()), 10);
  EXPECT_EQ((Triplet{0, 9, 3}.count()), 4);
  EXPECT_EQ((Triplet{9, 0, -3}.count()), 4);
  EXPECT_EQ((Triplet{9, 0, 3}.count()), 0);
  EXPECT_EQ((Triplet{0, 9, -1}.count()), 0);
  EXPECT_EQ((Triplet{5, 5, -2}.count()), 1);
  EXPECT_EQ((Triplet{9, 0, -3}.last()), 0);
  EXPECT_EQ((Triplet{9, 1, -3}.last()), 3);
  EXPECT_EQ((Triplet{2, 20, 4}.at(3)), 14);
  // Positions 1, 3, 5 of 9:-1:-2 (9 7 5 3 1 -1 ...) are 7, 3, -1.
  const Triplet p = Triplet{9, -11, -2}.positions(1, 2, 3);
  EXPECT_EQ(p.count(), 3);
  EXPECT_EQ(p.at(0), 7);
  EXPECT_EQ(p.at(2), -1);
  // Equality compares the index sets' enumerations, not the spelling.
  EXPECT_EQ((Triplet{0, 9, 3}), (Triplet{0, 10, 3}));
  EXPECT_EQ((Triplet{4, 4, 1}), (Triplet{4, 4, -5}));
  EXPECT_EQ((Triplet{4, 3, 1}), (Triplet{7, 9, -1}));
  EXPECT_NE((Triplet{0, 9, 3}), (Triplet{9, 0, -3}));
  EXPECT_NE((Triplet{0, 9, 1}), (Triplet{0, 9, 3}));
}

TEST(SerialIndexMath, PositionsInAndModularInverse) {
  namespace im = adlib::detail::index_math;
  for (Index a = -20; a <= 20; ++a)
    for (Index b : {-7, -3, -1, 1, 2, 5}) {
      EXPECT_EQ(im::floor_div(a, b), static_cast<Index>(std::floor(double(a) / double(b))));
      EXPECT_EQ(im::ceil_div(a, b), static_cast<Index>(std::ceil(double(a) / double(b))));
      if (b > 0) {
        EXPECT_GE(im::floor_mod(a, b), 0);
        EXPECT_EQ((a - im::floor_mod(a, b)) % b, 0);
      }
    }
  for (Index m = 1; m <= 30; ++m)
    for (Index a = -31; a <= 31; ++a) {
      if (im::gcd(a, m) != 1) continue;
      EXPECT_EQ(im::floor_mod(a * im::inverse_mod(a, m), m), m == 1 ? 0 : 1) << a << " mod " << m;
    }
  for (Index n = 0; n < 12; ++n)
    for (const Triplet& t : sections_of(n))
      for (Index begin = -2; begin <= n + 1; ++begin)
        for (Index end = begin; end <= n + 2; ++end) {
          auto [first, last] = im::positions_in(t, begin, end);
          std::vector<Index> want, got;
          for (Index k = 0; k < t.count(); ++k)
            if (t.at(k) >= begin && t.at(k) < end) want.push_back(k);
          for (Index k = first; k <= last; ++k) got.push_back(k);
          ASSERT_EQ(got, want) << t.to_string() << " in [" << begin << "," << end << ")";
        }
}

TEST(SerialIndexMath, InvariantDivisorMatchesDivision) {
  namespace im = adlib::detail::index_math;
  std::mt19937_64 random(20261126);
  const Index limit = im::InvariantDivisor::kLimit;
  std::vector<Index> divisors = {1,
                                 2,
                                 3,
                                 7,
                                 10,
                                 1000003,
                                 (Index{1} << 22) + 1,
                                 Index{1} << 31,
                                 (Index{1} << 40) - 3,
                                 limit / 3,
                                 limit - 1};
  for (int i = 0; i < 40; ++i) divisors.push_back(1 + static_cast<Index>(random() % (limit - 1)));
  for (const Index d : divisors) {
    const im::InvariantDivisor by(d);
    std::vector<Index> dividends = {0, 1, d - 1, d, d + 1, limit - 1, limit - d, limit - 1 - d};
    // Multiples of d and their neighbours, where a wrong estimate shows.
    for (int i = 0; i < 200; ++i) {
      const Index k = static_cast<Index>(random() % static_cast<std::uint64_t>(limit / d));
      for (const Index x : {k * d - 1, k * d, k * d + 1, k * d + d - 1}) dividends.push_back(x);
      dividends.push_back(static_cast<Index>(random() % static_cast<std::uint64_t>(limit)));
    }
    for (const Index x : dividends) {
      if (x < 0 || x >= limit) continue;
      ASSERT_EQ(by.divide(x), x / d) << x << " / " << d;
    }
  }
}

TEST(SerialRanges, BatchedOwnersMatchOwner) {
  // BlockRange::owners_of divides through reciprocals below (N + 1) * P =
  // 2^52 (once, by N / P, where P divides N), in 64 bits above, in 128 bits
  // beyond; every path must answer as owner() does, at the ends of blocks
  // above all.
  std::mt19937_64 random(7);
  const std::vector<std::pair<Index, int>> cases = {{1, 1},
                                                    {5, 3},
                                                    {1 << 22, 2},
                                                    {1000003, 7},
                                                    {3, 8},
                                                    {(Index{1} << 52) / 5 - 1, 5},
                                                    {(Index{1} << 52) / 5 + 9, 5},
                                                    {(Index{1} << 61) + 17, 3},
                                                    {(Index{1} << 40) + 12345, 1 << 20},
                                                    {7 * 1000, 7},
                                                    {Index{3} << 30, 1 << 10},
                                                    {(Index{1} << 49) - 8, 8},
                                                    {Index{1} << 52, 4}};
  for (const auto& [n, P] : cases) {
    adlib::ProcessGrid grid({P});
    adlib::BlockRange block(n, grid.dim(0), {2, 1});
    std::vector<Index> globals = {0, n - 1};
    for (int c : {0, 1, P / 2, P - 1}) {
      if (c < 0 || c >= P) continue;
      const Index start = block.block_start(c), end = c + 1 < P ? block.block_start(c + 1) : n;
      for (const Index g : {start - 1, start, end - 1, end})
        if (g >= 0 && g < n) globals.push_back(g);
    }
    for (int i = 0; i < 500; ++i)
      globals.push_back(static_cast<Index>(random() % static_cast<std::uint64_t>(n)));
    std::vector<adlib::Owner> owners(globals.size());
    block.owners_of(globals.data(), globals.size(), owners.data());
    for (std::size_t i = 0; i < globals.size(); ++i) {
      const adlib::Owner want = block.owner(globals[i]);
      ASSERT_EQ(owners[i].coord, want.coord) << "N " << n << " P " << P << " g " << globals[i];
      ASSERT_EQ(owners[i].local, want.local) << "N " << n << " P " << P << " g " << globals[i];
    }
  }
}

TEST(SerialGrid, RankListsMapPositionsToTheListedRanks) {
  // BLACS_GRIDMAP: grid position i (C order) on ranks[i]; other ranks are outside.
  const std::vector<int> ranks{9, 4, 7, 0, 12, 5};
  const auto grid = adlib::ProcessGrid::planning({2, 3}, ranks);
  EXPECT_EQ(grid.size(), 6);
  EXPECT_EQ(grid.ranks(), ranks);
  for (int i = 0; i < 6; ++i) {
    const std::vector<int> c{i / 3, i % 3};
    EXPECT_TRUE(grid.contains(ranks[i]));
    EXPECT_EQ(grid.coordinates(ranks[i]), c) << "rank " << ranks[i];
    EXPECT_EQ(grid.coordinate(ranks[i], 1), c[1]);
    EXPECT_EQ(grid.rank_of(c), ranks[i]);
  }
  for (int r : {-1, 1, 2, 3, 6, 8, 10, 11, 13, 100}) {
    EXPECT_FALSE(grid.contains(r)) << r;
    EXPECT_THROW(grid.coordinates(r), adlib::Error) << r;
  }
  const adlib::Group row1 = adlib::Group(grid).restrict(0, 1);
  for (int r = 0; r < 14; ++r) EXPECT_EQ(row1.contains(r), r == 0 || r == 12 || r == 5) << r;
  // The order of the list matters; the identity list is the plain grid.
  EXPECT_NE(grid, adlib::ProcessGrid::planning({2, 3}, {4, 9, 7, 0, 12, 5}));
  EXPECT_NE(grid, adlib::ProcessGrid::planning({3, 2}, ranks));
  EXPECT_EQ(adlib::ProcessGrid::planning({2, 2}, {0, 1, 2, 3}), adlib::ProcessGrid({2, 2}));
  EXPECT_EQ(adlib::ProcessGrid::planning({2, 2}, {0, 1, 2, 3}).describe(), "grid(2x2)");
  EXPECT_NE(grid.describe(), adlib::ProcessGrid::planning({2, 3}, {4, 9, 7, 0, 12, 5}).describe());
  EXPECT_NE(grid.describe().find("on ranks 9,4,7,0,12,5"), std::string::npos) << grid.describe();
  // Long lists are described by their ends and a hash of all of them.
  std::vector<int> many(40), other(40);
  for (int i = 0; i < 40; ++i) many[i] = other[i] = 100 - i;
  std::swap(other[30], other[31]);
  EXPECT_NE(adlib::ProcessGrid::planning({40}, many).describe(),
            adlib::ProcessGrid::planning({40}, other).describe());
  // Ranges and layouts on a rank-list grid use its coordinates.
  auto rows = std::make_shared<adlib::BlockRange>(7, grid.dim(0));
  adlib::ArrayLayout layout(grid, {rows});
  EXPECT_TRUE(layout.holds_data(12));
  EXPECT_FALSE(layout.holds_data(1));
  EXPECT_EQ(layout.coordinate(12, 0), 1);
  EXPECT_EQ(layout.local_extents(9), (std::vector<Index>{3}));
  EXPECT_EQ(layout.local_extents(5), (std::vector<Index>{4}));
  EXPECT_EQ(layout.local_extents(2), (std::vector<Index>{0}));
  EXPECT_EQ(layout.ranks_holding({1}), (std::vector<int>{0, 12, 5}));
  // Bad lists: wrong length, negative, repeated.
  EXPECT_THROW(adlib::ProcessGrid::planning({2, 3}, {0, 1, 2}), adlib::Error);
  EXPECT_THROW(adlib::ProcessGrid::planning({2}, {0, -1}), adlib::Error);
  EXPECT_THROW(adlib::ProcessGrid::planning({2}, {3, 3}), adlib::Error);
}

TEST(SerialGrid, CoordinatesGroupsAndRestriction) {
  adlib::ProcessGrid grid({2, 3, 4});
  EXPECT_EQ(grid.size(), 24);
  EXPECT_EQ(grid.dimensions(), 3);
  EXPECT_FALSE(grid.has_comm());
  EXPECT_THROW(grid.comm(), adlib::Error);
  for (int r = 0; r < 24; ++r) {
    const auto c = grid.coordinates(r);
    EXPECT_EQ(c, (std::vector<int>{r / 12, (r / 4) % 3, r % 4}));  // C order
    EXPECT_EQ(grid.rank_of(c), r);
    for (int a = 0; a < 3; ++a) EXPECT_EQ(grid.coordinate(r, a), c[a]);
  }
  EXPECT_FALSE(grid.contains(24));
  EXPECT_FALSE(grid.contains(-1));
  EXPECT_THROW(adlib::ProcessGrid(std::vector<int>{}), adlib::Error);
  EXPECT_THROW(adlib::ProcessGrid({2, 0}), adlib::Error);
  EXPECT_THROW(adlib::ProcessGrid({65536, 65536}), adlib::Error);

  const adlib::Group all(grid);
  const adlib::Group g = all.restrict(1, 2).restrict(0, 1);
  EXPECT_EQ(g.size(), 4);
  EXPECT_EQ(all.size(), 24);
  for (int r = 0; r < 26; ++r)
    EXPECT_EQ(g.contains(r), r < 24 && r / 12 == 1 && (r / 4) % 3 == 2) << r;
  EXPECT_THROW(all.restrict(3, 0), adlib::Error);
  EXPECT_THROW(all.restrict(1, 3), adlib::Error);
  EXPECT_THROW(all.restrict(1, -1), adlib::Error);
  EXPECT_THROW(g.restrict(1, 0), adlib::Error);  // already restricted
  EXPECT_NE(g, all);
  EXPECT_EQ(g, all.restrict(0, 1).restrict(1, 2));
}

TEST(SerialLayout, ValidationOfRangesAgainstTheGroup) {
  adlib::ProcessGrid grid({2, 3}), other({3, 2}), same_shape({2, 3});
  auto rows = std::make_shared<adlib::BlockRange>(10, grid.dim(0));
  auto cols = std::make_shared<adlib::CyclicRange>(9, grid.dim(1));
  auto rows_again = std::make_shared<adlib::CyclicRange>(7, grid.dim(0));
  auto foreign = std::make_shared<adlib::BlockRange>(10, other.dim(0));
  auto lookalike = std::make_shared<adlib::BlockRange>(10, same_shape.dim(0));
  auto whole = std::make_shared<adlib::CollapsedRange>(4);
  using V = std::vector<adlib::RangePtr>;
  EXPECT_NO_THROW(adlib::ArrayLayout(grid, V{rows, cols}));
  EXPECT_NO_THROW(adlib::ArrayLayout(grid, V{lookalike, whole, cols}));  // equal grids
  EXPECT_THROW(adlib::ArrayLayout(grid, V{foreign, cols}), adlib::Error);
  EXPECT_THROW(adlib::ArrayLayout(grid, V{rows, rows_again}), adlib::Error);
  EXPECT_THROW(adlib::ArrayLayout(adlib::Group(grid).restrict(0, 1), V{rows}), adlib::Error);
  EXPECT_THROW(adlib::ArrayLayout(grid, V{rows, nullptr}), adlib::Error);
  EXPECT_NO_THROW(adlib::ArrayLayout(adlib::Group(grid).restrict(1, 2), V{rows, whole}));
}

TEST(SerialLayout, SectionsComposeAndCheckBounds) {
  adlib::ProcessGrid grid({3});
  auto r = std::make_shared<adlib::BlockCyclicRange>(40, grid.dim(0), 3);
  auto w = std::make_shared<adlib::CollapsedRange>(7);
  const adlib::ArrayLayout base(grid, {r, w});
  EXPECT_FALSE(base.is_section());
  adlib_test::Rng rng(42);
  // Random chains of sections: position k of the result must be the global
  // index reached by composing every triplet by hand.
  for (int trial = 0; trial < 300; ++trial) {
    adlib::ArrayLayout layout = base;
    std::vector<Index> map(40);  // position -> global index along dim 0
    for (Index i = 0; i < 40; ++i) map[i] = i;
    for (int depth = 0; depth < 3 && !map.empty(); ++depth) {
      const Index n = static_cast<Index>(map.size());
      const Index s = rng.pick(std::vector<Index>{1, -1, 2, -2, 3, -3, 5});
      const Index lo = rng.uniform(0, n - 1);
      const Index room = s > 0 ? (n - 1 - lo) / s + 1 : lo / (-s) + 1;
      const Index count = rng.uniform(0, room);
      const Triplet t{lo, lo + (count - 1) * s, s};
      layout = layout.section({t, Triplet{6, 0, -1}});
      std::vector<Index> next;
      for (Index k = 0; k < count; ++k) next.push_back(map[lo + k * s]);
      map = next;
      const Triplet& got = layout.section_triplet(0);
      ASSERT_EQ(got.count(), static_cast<Index>(map.size()));
      for (Index k = 0; k < got.count(); ++k) ASSERT_EQ(got.at(k), map[k]) << "depth " << depth;
      EXPECT_EQ(layout.extent(0), static_cast<Index>(map.size()));
      EXPECT_TRUE(layout.is_section());
      if (count == 0) break;
      // The second dimension is reversed (6:0:-1) every time.
      const Triplet& t1 = layout.section_triplet(1);
      EXPECT_EQ(t1.count(), 7);
      EXPECT_EQ(t1.at(0), depth % 2 == 0 ? 6 : 0) << t1.to_string();
    }
  }
  EXPECT_THROW(base.section({Triplet{0, 40, 1}, Triplet::all(7)}), adlib::Error);
  EXPECT_THROW(base.section({Triplet{-1, 3, 1}, Triplet::all(7)}), adlib::Error);
  EXPECT_THROW(base.section({Triplet{39, -1, -1}, Triplet::all(7)}), adlib::Error);
  EXPECT_THROW(base.section({Triplet{0, 10, 0}, Triplet::all(7)}), adlib::Error);
  EXPECT_THROW(base.section({Triplet::all(40)}), adlib::Error);
  // hi past the end is fine when the last element is inside (Fortran).
  EXPECT_NO_THROW(base.section({Triplet{0, 41, 3}, Triplet::all(7)}));
  EXPECT_EQ(base.section({Triplet{0, 41, 3}, Triplet::all(7)}).extent(0), 14);
  // Empty sections are allowed anywhere, even with out-of-range bounds.
  EXPECT_EQ(base.section({Triplet{50, 10, 1}, Triplet::all(7)}).size(), 0);
  // The whole range is not a section, whatever the spelling.
  EXPECT_FALSE(base.section({Triplet{0, 39, 1}, Triplet{0, 6, 1}}).is_section());
  EXPECT_TRUE(base.section({Triplet{39, 0, -1}, Triplet{0, 6, 1}}).is_section());
  EXPECT_NE(base.section({Triplet{0, 38, 2}, Triplet::all(7)}),
            base.section({Triplet{0, 38, 1}, Triplet::all(7)}));
  EXPECT_EQ(base.section({Triplet{0, 38, 2}, Triplet::all(7)}),
            base.section({Triplet{0, 39, 2}, Triplet::all(7)}));
}

TEST(SerialLayout, LocalExtentsReplicationAndHolders) {
  // Random layouts against the reference model: which ranks hold data, their
  // local allocation, and ranks_holding() for every coordinate combination.
  adlib_test::Rng rng(7);
  const std::vector<std::vector<int>> grids{{1}, {4}, {2, 3}, {3, 1, 2}, {2, 2, 2}};
  for (int trial = 0; trial < 400; ++trial) {
    const auto& shape = rng.pick(grids);
    const int rank = static_cast<int>(rng.uniform(1, 3));
    std::vector<Index> extents;
    for (int d = 0; d < rank; ++d) extents.push_back(rng.uniform(0, 9));
    const auto spec = adlib_test::random_side(rng, extents, shape, std::nullopt);
    SCOPED_TRACE(spec.describe());
    adlib::ProcessGrid grid(shape);
    const adlib::ArrayLayout parent = adlib_test::make_parent(spec, grid);
    const adlib::ArrayLayout layout = parent.section(spec.section);
    EXPECT_EQ(layout.shape(), spec.shape());
    const auto want_section = adlib_test::normalized_section(spec);
    for (int d = 0; d < rank; ++d) EXPECT_EQ(layout.section_triplet(d), want_section[d]);
    std::vector<int> replicated;
    for (int a = 0; a < static_cast<int>(shape.size()); ++a) {
      bool used = false;
      for (const auto& r : spec.ranges) used = used || r.axis == a;
      if (!used && spec.fixed[a] < 0) replicated.push_back(a);
    }
    EXPECT_EQ(layout.replicated_axes(), replicated);
    // Holders grouped by their coordinates must be what ranks_holding says.
    std::map<std::vector<int>, std::vector<int>> holders;
    for (int r = 0; r < grid.size() + 2; ++r) {
      EXPECT_EQ(layout.holds_data(r), spec.holds(r)) << "rank " << r;
      EXPECT_EQ(layout.local_extents(r), spec.local_extents(r)) << "rank " << r;
      if (!spec.holds(r)) continue;
      std::vector<int> coords;
      for (int d = 0; d < rank; ++d) {
        EXPECT_EQ(layout.coordinate(r, d), spec.coordinate(r, d));
        coords.push_back(spec.coordinate(r, d));
      }
      holders[coords].push_back(r);
      const auto e = spec.local_extents(r);
      const auto strides = layout.local_strides(r);
      Index s = 1;
      for (int d = rank; d-- > 0;) {
        EXPECT_EQ(strides[d], s);
        s *= e[d];
      }
    }
    for (const auto& [coords, ranks] : holders) EXPECT_EQ(layout.ranks_holding(coords), ranks);
  }
}

}  // namespace

namespace {

TEST(SerialLayout, OverlapsMatchesBruteForce) {
  // overlaps() decides whether an in-place remap is refused: a false "no"
  // gives silently wrong data, a false "yes" refuses a valid remap.
  adlib::ProcessGrid grid({2});
  auto r0 = std::make_shared<adlib::BlockRange>(25, grid.dim(0));
  auto r1 = std::make_shared<adlib::CollapsedRange>(9);
  const adlib::ArrayLayout base(grid, {r0, r1});
  adlib_test::Rng rng(99);
  auto random_triplet = [&](Index n) {
    const Index s = rng.pick(std::vector<Index>{1, -1, 2, -2, 3, -3, 4, 6, -7, 9, 13});
    const Index lo = rng.uniform(0, n - 1);
    const Index room = s > 0 ? (n - 1 - lo) / s + 1 : lo / (-s) + 1;
    const Index count = rng.uniform(0, rng.chance(50) ? room : std::min<Index>(room, 6));
    return Triplet{lo, lo + (count - 1) * s, s};
  };
  int overlapping = 0, disjoint = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const std::vector<Triplet> ta{random_triplet(25), random_triplet(9)};
    const std::vector<Triplet> tb{random_triplet(25), random_triplet(9)};
    const adlib::ArrayLayout a = base.section(ta), b = base.section(tb);
    bool want = true;
    for (int d = 0; d < 2; ++d) {
      bool common = false;
      for (Index i = 0; i < ta[d].count(); ++i)
        for (Index j = 0; j < tb[d].count(); ++j) common = common || ta[d].at(i) == tb[d].at(j);
      want = want && common;
    }
    ASSERT_EQ(a.overlaps(b), want) << ta[0].to_string() << " x " << ta[1].to_string() << " vs "
                                   << tb[0].to_string() << " x " << tb[1].to_string();
    EXPECT_EQ(b.overlaps(a), want);
    (want ? overlapping : disjoint)++;
  }
  EXPECT_GT(overlapping, 300);
  EXPECT_GT(disjoint, 1500);
}

}  // namespace

}  // namespace serial_ranges
