// SPDX-License-Identifier: BSD-3-Clause
// Reductions of arrays with an unstructured dimension (UnstructuredRange,
// the DAP's 'u'): a scrambled index list dealt unevenly over the ranks (the
// last rank holds nothing from 3 ranks on), a block second dimension.
// ArrayReduction over the whole array and DimensionReduction along each
// dimension, against serial references from the global indices.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <vector>

#include <adlib/collectives/array_reduction.hpp>
#include <adlib/collectives/dimension_reduction.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/ranges/process_grid.hpp>
#include <adlib/ranges/range_spec.hpp>
#include <adlib/ranges/unstructured_range.hpp>
#include "world.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_unstructured_reductions {

namespace {

using adlib::Index;

TEST(UnstructuredReductions, WholeArrayAndAlongEachDimension) {
  const int P = adlib_test::world_size(), me = adlib_test::world_rank();
  const Index n = 23, m = 5;
  adlib::ProcessGrid grid(MPI_COMM_WORLD, {P, 1});
  // Global index (7 k + 3) mod n goes to rank k mod (P - 1) (mod P below 3 ranks).
  std::vector<Index> mine;
  const int dealt = P >= 3 ? P - 1 : P;
  for (Index k = 0; k < n; ++k)
    if (k % dealt == me) mine.push_back((7 * k + 3) % n);
  std::vector<adlib::RangePtr> ranges =
      adlib::bind_ranges(adlib::Group(grid), {adlib::block(n), adlib::block(m)});
  ranges[0] = std::make_shared<adlib::UnstructuredRange>(n, grid.dim(0), mine);
  adlib::DistArray<std::int64_t, 2> a(grid, {ranges[0], ranges[1]});
  a.fill([&](const auto& g) { return std::int64_t(g[0] * m + g[1]); });

  // The whole array: values 0 .. nm-1, each once.
  adlib::ArrayReduction<std::int64_t, 2> whole(a);
  EXPECT_EQ(whole.sum(a), n * m * (n * m - 1) / 2);
  const auto top = whole.maxloc(a);
  EXPECT_EQ(top.value, n * m - 1);
  EXPECT_EQ(top.location[0], n - 1);
  EXPECT_EQ(top.location[1], m - 1);
  EXPECT_EQ(whole.minval(a), 0);

  // Along dimension 1: a result over the unstructured dimension.
  adlib::DimensionReduction<std::int64_t, 2> rows(a, 1);
  auto row_sums = rows.make_result();
  rows.sum(row_sums, a);
  int checked = 0;
  row_sums.host_mirror().for_each_local([&](const auto& g, std::int64_t value) {
    EXPECT_EQ(value, m * g[0] * m + m * (m - 1) / 2) << "row " << g[0];
    ++checked;
  });
  EXPECT_EQ(checked, static_cast<int>(mine.size()));

  // Along the unstructured dimension: replicated on every rank.
  adlib::DimensionReduction<std::int64_t, 2> columns(a, 0);
  auto column_sums = columns.make_result();
  columns.sum(column_sums, a);
  auto where = columns.make_result<std::int64_t>();
  columns.maxloc(where, a);
  checked = 0;
  column_sums.host_mirror().for_each_local([&](const auto& g, std::int64_t value) {
    EXPECT_EQ(value, m * n * (n - 1) / 2 + n * g[0]) << "column " << g[0];
    ++checked;
  });
  EXPECT_EQ(checked, static_cast<int>(m));
  where.host_mirror().for_each_local(
      [&](const auto& g, std::int64_t at) { EXPECT_EQ(at, n - 1) << g[0]; });
}

}  // namespace

}  // namespace mpi_unstructured_reductions
