// SPDX-License-Identifier: BSD-3-Clause
// sum_over, min_over, max_over and reduce_over against serial references
// computed from global indices: each rank folds the values of its owned
// cells of a block array (extents below, at and above the process count,
// so that some ranks own nothing and contribute the identity), then the
// one-line reductions combine the ranks.  Integer-valued data give exact
// references in both integer and floating-point types.  Also: a row and a
// column of a 2-D grid as groups, logical and user operations, a grid
// smaller than the world (the ranks beyond it are not members and get an
// adlib::Error), and ranks that disagree on the element type (an
// adlib::Error on every rank, not a hang).
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include <adlib/collectives/scalar_reductions.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/ranges/range_spec.hpp>
#include "expect_error_everywhere.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_scalar_reductions {

namespace {

using adlib::Index;

// The value of global index g: small signed integers with ties.
std::int64_t value_at(Index g) {
  return (g * 7919 + 13) % 61 - 30;
}

// Bitwise or, a user operation (associative and commutative).
struct BitwiseOr {
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t& target, const std::int64_t& value) const {
    target |= value;
  }
};

TEST(MpiScalarReductions, OwnedValuesMatchTheSerialReference) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  for (const Index n : {Index(1), Index(2), Index(3), Index(17), Index(64)}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    adlib::DistArray<std::int64_t, 1> a(grid, {adlib::block(n).ghosts(1)});
    a.fill([](const auto& g) { return value_at(g[0]); });
    const auto local = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.local_view());
    // This rank's folds, starting from each operation's identity, which is
    // what a rank that owns nothing contributes.
    const adlib::LocalBox<1> owned = a.owned_box();
    std::int64_t sum = 0, low = std::numeric_limits<std::int64_t>::max(),
                 high = std::numeric_limits<std::int64_t>::lowest();
    bool all_even = true;
    for (Index l = owned.begin(0); l < owned.end(0); ++l) {
      sum += local(l);
      low = std::min(low, local(l));
      high = std::max(high, local(l));
      all_even = all_even && local(l) % 2 == 0;
    }
    std::int64_t expected_sum = 0, expected_low = value_at(0), expected_high = value_at(0);
    bool expected_all_even = true;
    for (Index g = 0; g < n; ++g) {
      expected_sum += value_at(g);
      expected_low = std::min(expected_low, value_at(g));
      expected_high = std::max(expected_high, value_at(g));
      expected_all_even = expected_all_even && value_at(g) % 2 == 0;
    }
    EXPECT_EQ(adlib::sum_over(grid, sum), expected_sum);
    EXPECT_EQ(adlib::min_over(grid, low), expected_low);
    EXPECT_EQ(adlib::max_over(grid, high), expected_high);
    EXPECT_EQ(adlib::sum_over(grid, owned.size()), n);  // every cell counted once
    // Floating point: integer values, so the sum is exact whatever the order.
    EXPECT_EQ(adlib::sum_over(grid, double(sum)), double(expected_sum));
    EXPECT_EQ(
        adlib::max_over(grid, owned.empty() ? std::numeric_limits<double>::lowest() : double(high)),
        double(expected_high));
    EXPECT_EQ(adlib::reduce_over(grid, all_even, adlib::op::logical_and), expected_all_even);
    EXPECT_EQ(adlib::reduce_over(grid, !owned.empty(), adlib::op::logical_or), true);
  }
}

TEST(MpiScalarReductions, RowsAndColumnsOfAGridAreGroups) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  const int row = grid.coordinate(comm.rank(), 0), column = grid.coordinate(comm.rank(), 1);
  const int rows = grid.extent(0), columns = grid.extent(1);
  const adlib::Group my_row = adlib::Group(grid).restrict(0, row);
  const adlib::Group my_column = adlib::Group(grid).restrict(1, column);
  // Over a row the column coordinates 0 .. columns - 1, over a column the rows.
  EXPECT_EQ(adlib::sum_over(my_row, column), columns * (columns - 1) / 2);
  EXPECT_EQ(adlib::max_over(my_column, row), rows - 1);
  EXPECT_EQ(adlib::min_over(my_column, 10 * row + column), column);
  EXPECT_EQ(adlib::reduce_over(my_row, std::int64_t(1) << column, adlib::op::combine(BitwiseOr{})),
            (std::int64_t(1) << columns) - 1);
  const int bits = std::min(comm.size(), 62);  // ranks from 62 on repeat bit 61
  EXPECT_EQ(adlib::reduce_over(grid, std::int64_t(1) << std::min(comm.rank(), 61),
                               adlib::op::combine(BitwiseOr{})),
            (std::int64_t(1) << bits) - 1);
}

TEST(MpiScalarReductions, OnlyMembersOfASmallerGridTakePart) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (comm.size() < 2) GTEST_SKIP() << "needs a rank beyond the grid";
  const adlib::ProcessGrid first_ranks(comm, {comm.size() - 1});
  if (comm.rank() < comm.size() - 1)
    EXPECT_EQ(adlib::max_over(first_ranks, comm.rank()), comm.size() - 2);
  else
    EXPECT_THROW(adlib::max_over(first_ranks, comm.rank()), adlib::Error);
}

TEST(MpiScalarReductions, RanksDisagreeingOnTheTypeFailTogether) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (comm.size() < 2) GTEST_SKIP() << "needs two ranks to disagree";
  const adlib::ProcessGrid grid(comm, {comm.size()});
  adlib_test::expect_error_everywhere(
      [&] {
        if (comm.rank() == 0)
          adlib::sum_over(grid, 1);
        else
          adlib::sum_over(grid, 1.0);
      },
      "differ between ranks");
}

}  // namespace

}  // namespace mpi_scalar_reductions
