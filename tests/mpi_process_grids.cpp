// SPDX-License-Identifier: BSD-3-Clause
// Grids as ScaLAPACK users bring them: made from an MPI_Comm, over any list
// of ranks of a communicator (BLACS_GRIDMAP, several grids side by side,
// Remap between them), and block-cyclic ranges whose first tile lives on
// another coordinate than 0 (RSRC / CSRC).  Values are checked against the
// global index, at every rank count (1 rank: grids over rank 0 only).
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include <adlib/adlib.hpp>
#include "expect_error_everywhere.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_process_grids {

namespace {

using adlib::Index;

double value_at(Index g0, Index g1) {
  return double(g0 * 1000 + g1);
}

// Checks every element this rank holds against value_at and returns how many
// ranks' elements were checked in total (all ranks), so a test can insist
// that something was looked at.
template <class Array>
long long check_values(const Array& a, const char* what) {
  long long checked = 0;
  a.host_mirror().for_each_local([&](auto g, double v) {
    ++checked;
    ASSERT_EQ(v, value_at(g[0], g[1])) << what << " at (" << g[0] << "," << g[1] << ")";
  });
  long long total = 0;
  MPI_Allreduce(&checked, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

TEST(ProcessGrids, MadeFromAnMpiComm) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid direct(MPI_COMM_WORLD, {comm.size(), 1});
  adlib::ProcessGrid through(comm, {comm.size(), 1});
  EXPECT_EQ(direct, through);  // the same duplicate communicator
  EXPECT_EQ(direct.comm(), comm);
  EXPECT_TRUE(direct.is_member());
  const adlib::ProcessGrid balanced = adlib::ProcessGrid::balanced(MPI_COMM_WORLD, 2);
  EXPECT_EQ(balanced, adlib::ProcessGrid::balanced(comm, 2));
  EXPECT_EQ(balanced.size(), comm.size());
  // Ranks in a list, from an MPI_Comm too.
  adlib::ProcessGrid last(MPI_COMM_WORLD, {1}, {comm.size() - 1});
  EXPECT_EQ(last.is_member(), comm.rank() == comm.size() - 1);
  EXPECT_EQ(last.rank_of({0}), comm.size() - 1);
}

TEST(ProcessGrids, SideBySideGridsOverRankListsRemapIntoEachOther) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size(), me = comm.rank();
  // Grid A: the first half of the ranks (at least one), listed backwards;
  // grid B: the others, or rank 0 again when there is only one rank.
  const int a_size = std::max(1, P / 2);
  std::vector<int> a_ranks, b_ranks;
  for (int r = a_size - 1; r >= 0; --r) a_ranks.push_back(r);
  for (int r = a_size; r < P; ++r) b_ranks.push_back(r);
  if (b_ranks.empty()) b_ranks.push_back(0);
  std::rotate(b_ranks.begin(), b_ranks.begin() + (b_ranks.size() > 1 ? 1 : 0), b_ranks.end());
  adlib::ProcessGrid a(comm, {static_cast<int>(a_ranks.size())}, a_ranks);
  adlib::ProcessGrid b(comm, {1, static_cast<int>(b_ranks.size())}, b_ranks);
  const bool in_a = std::count(a_ranks.begin(), a_ranks.end(), me) > 0;
  const bool in_b = std::count(b_ranks.begin(), b_ranks.end(), me) > 0;
  EXPECT_EQ(a.is_member(), in_a);
  EXPECT_EQ(b.is_member(), in_b);
  if (P > 1) {
    EXPECT_NE(a, b);
  }

  // 11 x 6 elements: block-cyclic rows on A (first tile on A's last
  // coordinate), block columns on B (some of B's ranks hold none at 4 ranks
  // when b is wide).
  const Index n0 = 11, n1 = 6;
  const int pa = a.size();
  auto a_rows = std::make_shared<adlib::BlockCyclicRange>(n0, a.dim(0), 2, pa - 1);
  auto a_cols = std::make_shared<adlib::CollapsedRange>(n1);
  auto b_rows = std::make_shared<adlib::CollapsedRange>(n0);
  auto b_cols = std::make_shared<adlib::BlockRange>(n1, b.dim(1));
  adlib::DistArray<double, 2> on_a(a, {a_rows, a_cols}), back(a, {a_rows, a_cols});
  adlib::DistArray<double, 2> on_b(b, {b_rows, b_cols});
  EXPECT_EQ(on_a.holds_data(), in_a);
  EXPECT_EQ(on_b.holds_data(), in_b);
  if (!in_a) {
    EXPECT_EQ(on_a.local_view().size(), 0u);
  }
  on_a.fill([](auto g) { return value_at(g[0], g[1]); });
  on_b.fill([](auto) { return -1.0; });
  back.fill([](auto) { return -1.0; });

  adlib::Remap<double, 2> a_to_b(on_b, on_a), b_to_a(back, on_b);
  for (int rep = 0; rep < 2; ++rep) {
    a_to_b.execute(on_b, on_a);
    b_to_a.execute(back, on_b);
  }
  EXPECT_EQ(check_values(on_b, "grid B"), n0 * n1);
  EXPECT_EQ(check_values(back, "back on grid A"), n0 * n1);
  const auto all = adlib::gather_all(on_b);
  for (Index i = 0; i < n0; ++i)
    for (Index j = 0; j < n1; ++j) ASSERT_EQ(all[i * n1 + j], value_at(i, j));

  // WriteHalo on a rank-list grid: ghost columns of B filled from B's ranks.
  auto b_cols_ghosts = std::make_shared<adlib::BlockRange>(n1, b.dim(1), adlib::Ghosts{1, 1, true});
  adlib::DistArray<double, 2> halo_b(b, {b_rows, b_cols_ghosts});
  adlib::remap(halo_b, on_a);
  adlib::write_halo(halo_b);
  if (halo_b.holds_data()) {
    const auto v = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), halo_b.local_view());
    const int c = b.coordinate(me, 1);
    const Index first = b_cols_ghosts->global_index(c, 1);
    const Index count = b_cols_ghosts->local_count(c);
    for (Index i = 0; i < n0; ++i)
      for (Index l = 0; l < count + 2; ++l) {
        const Index g = ((first + l - 1) % n1 + n1) % n1;
        ASSERT_EQ(v(i, l), value_at(i, g)) << "row " << i << " local column " << l;
      }
  }
}

TEST(ProcessGrids, BadRankListsAreErrorsOnEveryRank) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib_test::expect_error_everywhere([&] { adlib::ProcessGrid(comm, {2}, {0}); }, "needs 2 ranks");
  adlib_test::expect_error_everywhere([&] { adlib::ProcessGrid(comm, {1}, {P}); },
                                      "not a rank of the communicator");
  adlib_test::expect_error_everywhere(
      [&] {
        adlib::ProcessGrid(comm, {2}, {0, 0});
      },
      "appears twice");
  // Arrays on two grids of different communicators still cannot be remapped.
  MPI_Comm copy;
  MPI_Comm_dup(MPI_COMM_WORLD, &copy);
  {
    adlib::ProcessGrid g1(comm, {1}, {0}), g2(copy, {1}, {0});
    auto r1 = std::make_shared<adlib::BlockRange>(4, g1.dim(0));
    auto r2 = std::make_shared<adlib::BlockRange>(4, g2.dim(0));
    adlib::DistArray<double, 1> x(g1, {r1}), y(g2, {r2});
    adlib_test::expect_error_everywhere([&] { adlib::Remap<double, 1>(y, x); },
                                        "different communicators");
  }
  MPI_Comm_free(&copy);
}

// RSRC / CSRC: every source coordinate, both dimensions, against a block layout.
TEST(ProcessGrids, BlockCyclicWithSourceCoordinateRemapsToBlocks) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  const int p0 = grid.extent(0), p1 = grid.extent(1);
  const Index n0 = 17, n1 = 9;
  auto block_rows = std::make_shared<adlib::BlockRange>(n0, grid.dim(0));
  auto block_cols = std::make_shared<adlib::BlockRange>(n1, grid.dim(1));
  adlib::DistArray<double, 2> blocks(grid, {block_rows, block_cols});
  int cases = 0;
  for (int rsrc = 0; rsrc < p0; ++rsrc)
    for (int csrc = 0; csrc < p1; ++csrc) {
      SCOPED_TRACE("rsrc " + std::to_string(rsrc) + " csrc " + std::to_string(csrc));
      auto rows = std::make_shared<adlib::BlockCyclicRange>(n0, grid.dim(0), 3, rsrc);
      auto cols = std::make_shared<adlib::CyclicRange>(n1, grid.dim(1), csrc);
      adlib::DistArray<double, 2> cyclic(grid, {rows, cols});
      // The first tile really is on the source coordinate.
      EXPECT_EQ(rows->owner(0).coord, rsrc);
      EXPECT_EQ(cols->owner(0).coord, csrc);
      // The local element at (0, 0) of the source's rank is global (0, 0).
      if (grid.coordinate(comm.rank(), 0) == rsrc && grid.coordinate(comm.rank(), 1) == csrc) {
        EXPECT_EQ(rows->global_index(rsrc, 0), 0);
        EXPECT_EQ(cols->global_index(csrc, 0), 0);
      }
      cyclic.fill([](auto g) { return value_at(g[0], g[1]); });
      blocks.fill([](auto) { return -1.0; });
      adlib::remap(blocks, cyclic);
      EXPECT_EQ(check_values(blocks, "block"), n0 * n1);
      cyclic.fill([](auto) { return -1.0; });
      adlib::remap(cyclic, blocks);
      EXPECT_EQ(check_values(cyclic, "block-cyclic"), n0 * n1);
      // A section with a negative stride, through the shifted tiles.
      adlib::DistArray<double, 2> other(grid, {block_rows, block_cols});
      other.fill([](auto) { return -1.0; });
      auto part = cyclic.section({adlib::Triplet{n0 - 1, 0, -2}, adlib::Triplet{1, n1 - 1, 3}});
      auto dst = other.section({adlib::Triplet{0, n0 - 1, 2}, adlib::Triplet{0, n1 - 2, 3}});
      adlib::remap(dst, part);
      long long checked = 0;
      dst.host_mirror().for_each_local([&](auto p, double v) {
        ++checked;
        ASSERT_EQ(v, value_at(n0 - 1 - 2 * p[0], 1 + 3 * p[1]));
      });
      long long total = 0;
      MPI_Allreduce(&checked, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      EXPECT_EQ(total, 9 * 3);
      ++cases;
    }
  EXPECT_EQ(cases, p0 * p1);
}

}  // namespace

}  // namespace mpi_process_grids
