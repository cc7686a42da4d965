// SPDX-License-Identifier: BSD-3-Clause
// LocalBox's interior and boundary strips, exhaustively on small boxes of
// rank 1 to 3 (empty, thin and thick along each dimension, uniform and
// per-dimension widths): the interior is exactly the cells at least `width`
// away from every side, and the interior and the 2 * Rank strips tile the
// box, every cell in exactly one of them; strips around any inner box (not
// contained, empty, inverted) tile the box minus that box.  Then the same
// inside a Kokkos kernel, and the global indices of an owned box's interior.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <type_traits>
#include <vector>

#include <adlib/ranges/local_box.hpp>
#include <adlib/ranges/range_spec.hpp>

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace serial_local_box {

namespace {

using adlib::Index;
template <int Rank>
using Box = adlib::LocalBox<Rank>;
template <int Rank>
using Point = std::array<Index, Rank>;

static_assert(std::is_trivially_copyable<Box<3>>::value, "kernels capture boxes by value");
static_assert(std::is_trivially_copyable<decltype(Box<3>{}.boundary_strips(1))>::value,
              "kernels capture strips by value");

// Every local index tuple of [0, kSpan)^Rank: around every box below, so that
// cells outside a box are visited too.
constexpr Index kSpan = 8;

template <int Rank>
std::vector<Point<Rank>> every_point() {
  std::vector<Point<Rank>> points;
  Point<Rank> p{};
  for (;;) {
    points.push_back(p);
    int d = Rank - 1;
    while (d >= 0 && ++p[d] == kSpan) p[d--] = 0;
    if (d < 0) return points;
  }
}

template <int Rank, class Cell>  // Cell: a Point<Rank>, whose size is not an int
bool inside(const Box<Rank>& box, const Cell& p) {
  for (int d = 0; d < Rank; ++d)
    if (!box.contains(d, p[d])) return false;
  return true;
}

// Every box with begin in `begins` and extent in `extents` along each
// dimension, and a map that differs per dimension (the helpers must keep it).
template <int Rank>
std::vector<Box<Rank>> boxes(const std::vector<Index>& begins, const std::vector<Index>& extents) {
  std::vector<Box<Rank>> out;
  const std::size_t choices = begins.size() * extents.size();
  std::size_t total = 1;
  for (int d = 0; d < Rank; ++d) total *= choices;
  for (std::size_t k = 0; k < total; ++k) {
    Box<Rank> box;
    std::size_t rest = k;
    for (int d = 0; d < Rank; ++d) {
      box.lo[d] = begins[rest % begins.size()];
      box.hi[d] = box.lo[d] + extents[(rest / begins.size()) % extents.size()];
      rest /= choices;
      box.map[d].base = 100 * (d + 1);
    }
    out.push_back(box);
  }
  return out;
}

template <int Rank>
bool well_formed_part_of(const Box<Rank>& part, const Box<Rank>& box) {
  for (int d = 0; d < Rank; ++d) {
    if (part.begin(d) > part.end(d)) return false;
    if (part.map[d].base != box.map[d].base || part.map[d].tile != box.map[d].tile ||
        part.map[d].period != box.map[d].period)
      return false;
  }
  return true;
}

// The interior of `box` for `widths` against its definition, and the tiling
// of the box by the interior and the strips, cell by cell.
template <int Rank>
void expect_interior_and_strips(const Box<Rank>& box, const Kokkos::Array<Index, Rank>& widths,
                                const Box<Rank>& interior,
                                const Kokkos::Array<Box<Rank>, 2 * Rank>& strips,
                                const std::vector<Point<Rank>>& points) {
  ASSERT_TRUE(well_formed_part_of(interior, box));
  for (int k = 0; k < 2 * Rank; ++k) ASSERT_TRUE(well_formed_part_of(strips[k], box)) << k;
  for (const Point<Rank>& p : points) {
    bool deep = true;
    for (int d = 0; d < Rank; ++d)
      deep = deep && p[d] >= box.begin(d) + widths[d] && p[d] < box.end(d) - widths[d];
    const bool in_box = inside(box, p);
    ASSERT_EQ(inside(interior, p), in_box && deep);
    int strips_holding = 0;
    for (int k = 0; k < 2 * Rank; ++k) strips_holding += inside(strips[k], p);
    ASSERT_EQ(strips_holding, in_box && !deep ? 1 : 0);
  }
}

template <int Rank>
void check_uniform_widths(const std::vector<Index>& begins, const std::vector<Index>& extents) {
  const std::vector<Point<Rank>> points = every_point<Rank>();
  for (const Box<Rank>& box : boxes<Rank>(begins, extents))
    for (Index w = 0; w <= 3; ++w) {
      SCOPED_TRACE("width " + std::to_string(w));
      Kokkos::Array<Index, Rank> widths;
      for (int d = 0; d < Rank; ++d) widths[d] = w;
      expect_interior_and_strips<Rank>(box, widths, box.interior(w), box.boundary_strips(w),
                                       points);
      if (::testing::Test::HasFatalFailure()) return;
    }
}

TEST(SerialLocalBox, InteriorAndStripsTileBoxesOfRankOne) {
  check_uniform_widths<1>({0, 1, 2}, {0, 1, 2, 3, 4, 5, 6});
}

TEST(SerialLocalBox, InteriorAndStripsTileBoxesOfRankTwo) {
  check_uniform_widths<2>({0, 2}, {0, 1, 2, 3, 4, 5});
}

TEST(SerialLocalBox, InteriorAndStripsTileBoxesOfRankThree) {
  check_uniform_widths<3>({1}, {0, 1, 2, 3, 5});
}

TEST(SerialLocalBox, WidthsPerDimension) {
  const std::vector<Point<2>> points = every_point<2>();
  for (const Box<2>& box : boxes<2>({0, 1}, {0, 1, 2, 3, 4, 6}))
    for (Index w0 = 0; w0 <= 3; ++w0)
      for (Index w1 = 0; w1 <= 3; ++w1) {
        const Kokkos::Array<Index, 2> widths{w0, w1};
        expect_interior_and_strips<2>(box, widths, box.interior(widths),
                                      box.boundary_strips(widths), points);
        if (HasFatalFailure()) return;
      }
}

TEST(SerialLocalBox, EmptyBoxesHaveEmptyInteriorAndStrips) {
  Box<2> box;  // a rank that holds no data: every extent 0
  EXPECT_TRUE(box.interior(0).empty());
  EXPECT_TRUE(box.interior(2).empty());
  const auto strips = box.boundary_strips(1);
  for (int k = 0; k < 4; ++k) EXPECT_TRUE(strips[k].empty()) << k;
  // Thin: 3 cells along dimension 0, width 2 leaves no interior there.
  Box<2> thin;
  thin.lo[0] = 1, thin.hi[0] = 4, thin.lo[1] = 0, thin.hi[1] = 9;
  EXPECT_TRUE(thin.interior(2).empty());
  Index covered = 0;
  for (const Box<2>& strip : {thin.boundary_strips(2)[0], thin.boundary_strips(2)[1],
                              thin.boundary_strips(2)[2], thin.boundary_strips(2)[3]})
    covered += strip.size();
  EXPECT_EQ(covered, thin.size());
}

// Strips around an arbitrary inner box: contained, overlapping a side,
// outside, empty and inverted (hi < lo) ones, clipped to the box.
TEST(SerialLocalBox, StripsAroundAnyInnerBoxTileTheRest) {
  const std::vector<Point<2>> points = every_point<2>();
  const std::vector<Index> corners{-1, 1, 2, 4, 6, 9};
  for (const Box<2>& box : boxes<2>({0, 2}, {0, 1, 3, 5}))
    for (const Index lo0 : corners)
      for (const Index hi0 : corners)
        for (const Index lo1 : corners)
          for (const Index hi1 : corners) {
            Box<2> inner = box;
            inner.lo[0] = lo0, inner.hi[0] = hi0, inner.lo[1] = lo1, inner.hi[1] = hi1;
            const auto strips = box.strips_around(inner);
            for (const Point<2>& p : points) {
              int holding = 0;
              for (int k = 0; k < 4; ++k) {
                ASSERT_TRUE(well_formed_part_of(strips[k], box));
                holding += inside(strips[k], p);
              }
              const bool in_inner =
                  p[0] >= lo0 && p[0] < hi0 && p[1] >= lo1 && p[1] < hi1;  // inverted: none
              ASSERT_EQ(holding, inside(box, p) && !in_inner ? 1 : 0)
                  << "box [" << box.lo[0] << ", " << box.hi[0] << ") x [" << box.lo[1] << ", "
                  << box.hi[1] << "), inner [" << lo0 << ", " << hi0 << ") x [" << lo1 << ", "
                  << hi1 << "), cell " << p[0] << ", " << p[1];
            }
          }
}

// The helpers run inside kernels: the cells of the strips, counted by a
// kernel over the box, are the box's cells minus the interior's.  (A free
// function: a TEST body is a private member, where a KOKKOS_LAMBDA may not be.)
Index cells_in_strips_by_kernel(const Box<2>& box, Index width) {
  Index count = 0;
  Kokkos::parallel_reduce(
      "serial_local_box::strips", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, 1),
      KOKKOS_LAMBDA(int, Index& partial) {
        const auto strips = box.boundary_strips(width);
        for (int k = 0; k < 4; ++k) partial += strips[k].size();
      },
      count);
  return count;
}

TEST(SerialLocalBox, CallableInKernels) {
  Box<2> box;
  box.lo[0] = 2, box.hi[0] = 9, box.lo[1] = 1, box.hi[1] = 5;
  EXPECT_EQ(cells_in_strips_by_kernel(box, 1), box.size() - box.interior(1).size());
  EXPECT_EQ(box.interior(1).size(), 5 * 2);
}

// An owned box's interior keeps the map: its global indices are the owned
// ones, `width` further in, for every rank of a block range with ghosts.
TEST(SerialLocalBox, InteriorOfAnOwnedBoxKeepsGlobalIndices) {
  adlib::ProcessGrid grid({3, 2});
  const adlib::ArrayLayout layout(
      grid, adlib::bind_ranges(grid, {adlib::block(11).ghosts(2), adlib::block(4).ghosts(1)}));
  for (int rank = 0; rank < 6; ++rank) {
    const Box<2> owned = adlib::owned_box<2>(layout, rank);
    const Box<2> interior = owned.interior(1);
    for (int d = 0; d < 2; ++d) {
      EXPECT_EQ(interior.begin(d), owned.begin(d) + 1);
      EXPECT_EQ(interior.global_begin(d), owned.global_begin(d) + 1);
      EXPECT_EQ(interior.extent(d), owned.extent(d) - 2);
    }
  }
}

}  // namespace

}  // namespace serial_local_box
