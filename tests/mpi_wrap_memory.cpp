// SPDX-License-Identifier: BSD-3-Clause
// DistArray::wrap: arrays over memory the caller owns (a std::vector, a
// Kokkos View), with a padded leading dimension (ScaLAPACK's LLD), used by
// Remap, WriteHalo and CShift without a copy.  Values are checked against
// the global index; the padding must come out untouched; a wrong block on one
// rank is an error on every rank.
#include <gtest/gtest.h>

#include <vector>

#include <adlib/adlib.hpp>
#include "expect_error_everywhere.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_wrap_memory {

namespace {

using adlib::Index;

// The memory wrapped here is a std::vector's, host memory: the arrays and
// schedules live in HostSpace (a GPU build's default memory space is the
// device's, which cannot address it).
using Space = Kokkos::HostSpace;
template <int Rank>
using Array = adlib::DistArray<double, Rank, Space>;

constexpr double kPad = -777.0;     // padding: must never change
constexpr double kPoison = -555.0;  // elements nothing has written yet

double value_at(Index g0, Index g1) {
  return double(g0 * 1000 + g1);
}

long long sum_over_ranks(long long x) {
  long long total = 0;
  MPI_Allreduce(&x, &total, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

// A rank's padded block: rows x lld doubles, the first `cols` of each row
// used, the rest padding.
struct Padded {
  Index rows = 0, cols = 0, lld = 0;
  std::vector<double> memory;
  Padded(Index r, Index c, Index pad) : rows(r), cols(c), lld(c + pad) {
    memory.assign(static_cast<size_t>(rows * lld), kPoison);
    for (Index i = 0; i < rows; ++i)
      for (Index j = cols; j < lld; ++j) memory[i * lld + j] = kPad;
  }
  // Counts the padding elements that changed (0 expected).
  long long damaged_padding() const {
    long long n = 0;
    for (Index i = 0; i < rows; ++i)
      for (Index j = cols; j < lld; ++j) n += memory[i * lld + j] != kPad;
    return n;
  }
};

// 2-D layouts over a 1-D grid of every rank: cyclic rows (rank 3 of 4 holds
// none of the 3 rows) and whole rows, or whole columns and block columns.
struct Layouts {
  adlib::Comm comm{MPI_COMM_WORLD};
  adlib::ProcessGrid grid{comm, {comm.size()}};
  Index n0 = 3, n1 = 7;
  adlib::ArrayLayout by_rows{grid,
                             {std::make_shared<adlib::CyclicRange>(n0, grid.dim(0)),
                              std::make_shared<adlib::CollapsedRange>(n1)}};
  adlib::ArrayLayout by_cols{grid,
                             {std::make_shared<adlib::CollapsedRange>(n0),
                              std::make_shared<adlib::BlockRange>(n1, grid.dim(0))}};
};

TEST(WrapMemory, PaddedVectorsRemapBothWays) {
  Layouts l;
  const int me = l.comm.rank();
  const auto e = l.by_rows.local_extents(me);
  Padded src_memory(e[0], e[1], 3), back_memory(e[0], e[1], 2);
  auto src = Array<2>::wrap(l.by_rows, src_memory.memory.data(), {e[1] + 3, 1});
  auto back = Array<2>::wrap(l.by_rows, back_memory.memory.data(), {e[1] + 2, 1});
  EXPECT_TRUE(src.is_wrapped());
  EXPECT_EQ(src.local_view().data(), e[0] > 0 ? src_memory.memory.data() : nullptr);
  if (e[0] > 0) {
    EXPECT_NE(src.layout(), l.by_rows);  // padded: other strides
    EXPECT_EQ(src.layout().local_strides(me), (std::vector<Index>{e[1] + 3, 1}));
  }
  EXPECT_EQ(src.layout().fingerprint(), l.by_rows.fingerprint());  // agreement unaffected
  // Fill through the array, as a user would, then check it landed in the vector.
  src.fill([](auto g) { return value_at(g[0], g[1]); });
  long long in_vector = 0;
  for (Index i = 0; i < e[0]; ++i)
    for (Index j = 0; j < e[1]; ++j) {
      const Index g0 = l.by_rows.range(0).global_index(l.grid.coordinate(me, 0), i);
      EXPECT_EQ(src_memory.memory[i * src_memory.lld + j], value_at(g0, j));
      ++in_vector;
    }
  EXPECT_EQ(sum_over_ranks(in_vector), l.n0 * l.n1);

  Array<2> cols(l.by_cols);
  Kokkos::deep_copy(cols.local_view(), kPoison);
  adlib::Remap<double, 2, Space> forward(cols, src), backward(back, cols);
  for (int rep = 0; rep < 2; ++rep) {
    forward.execute(cols, src);
    backward.execute(back, cols);
  }
  long long checked = 0;
  cols.host_mirror().for_each_local([&](auto g, double v) {
    ++checked;
    ASSERT_EQ(v, value_at(g[0], g[1]));
  });
  back.host_mirror().for_each_local([&](auto g, double v) {
    ++checked;
    ASSERT_EQ(v, value_at(g[0], g[1]));
  });
  EXPECT_EQ(sum_over_ranks(checked), 2 * l.n0 * l.n1);
  EXPECT_EQ(src_memory.damaged_padding(), 0);
  EXPECT_EQ(back_memory.damaged_padding(), 0);
  // An unpadded array of the same distribution has another layout where
  // this rank's block is padded (a schedule planned for one refuses the other).
  Array<2> plain(l.by_rows);
  EXPECT_EQ(plain.layout() != src.layout(), e[0] > 0);
}

TEST(WrapMemory, KokkosViewsWithAndWithoutPadding) {
  Layouts l;
  const int me = l.comm.rank();
  const auto e = l.by_cols.local_extents(me);
  // A LayoutStride View with a row pitch of e[1] + 4.
  std::vector<double> memory(static_cast<size_t>(e[0] * (e[1] + 4)), kPad);
  Kokkos::LayoutStride stride(e[0], e[1] + 4, e[1], 1);
  Kokkos::View<double**, Kokkos::LayoutStride, Space, Kokkos::MemoryUnmanaged> strided(
      memory.data(), stride);
  auto a = Array<2>::wrap(l.by_cols, strided);
  // A managed LayoutRight View, exactly the local block: the same layout as
  // an allocated array, so schedules are interchangeable.
  Kokkos::View<double**, Kokkos::LayoutRight, Space> exact("exact", e[0], e[1]);
  auto b = Array<2>::wrap(l.by_cols, exact);
  EXPECT_EQ(b.layout(), l.by_cols);
  Array<2> rows(l.by_rows);
  rows.fill([](auto g) { return value_at(g[0], g[1]); });
  Array<2> allocated(l.by_cols);
  adlib::Remap<double, 2, Space> to_allocated(allocated, rows), to_a(a, rows);
  to_allocated.execute(b, rows);  // planned for `allocated`, run on the wrapped View
  to_a.execute(a, rows);
  const auto exact_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), exact);
  long long checked = 0;
  for (Index i = 0; i < e[0]; ++i)
    for (Index j = 0; j < e[1]; ++j) {
      const Index g1 = l.by_cols.range(1).global_index(me, j);
      EXPECT_EQ(exact_host(i, j), value_at(i, g1));
      EXPECT_EQ(memory[i * (e[1] + 4) + j], value_at(i, g1));
      ++checked;
    }
  EXPECT_EQ(sum_over_ranks(checked), l.n0 * l.n1);
  for (Index i = 0; i < e[0]; ++i)
    for (Index j = e[1]; j < e[1] + 4; ++j) EXPECT_EQ(memory[i * (e[1] + 4) + j], kPad);
}

// A 2-D block layout with ghosts (periodic columns) over a padded vector:
// WriteHalo fills the ghosts, CShift moves owned elements, padding untouched.
TEST(WrapMemory, PaddedHaloExchangeAndShift) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank();
  const adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  const Index n0 = 13, n1 = 5;
  auto rows = std::make_shared<adlib::BlockRange>(n0, grid.dim(0), adlib::Ghosts{1, 1, false});
  auto cols = std::make_shared<adlib::BlockRange>(n1, grid.dim(1), adlib::Ghosts{1, 2, true});
  const adlib::ArrayLayout layout(grid, {rows, cols});
  const auto e = layout.local_extents(me);
  Padded u_memory(e[0], e[1], 3), v_memory(e[0], e[1], 3);
  auto u = Array<2>::wrap(layout, u_memory.memory.data(), {u_memory.lld, 1});
  auto v = Array<2>::wrap(layout, v_memory.memory.data(), {v_memory.lld, 1});
  u.fill([](auto g) { return value_at(g[0], g[1]); });

  adlib::WriteHalo<double, 2, Space> halo(u);
  halo.execute(u);
  const int c0 = grid.coordinate(me, 0), c1 = grid.coordinate(me, 1);
  const Index first0 = rows->global_index(c0, 1) - 1, first1 = cols->global_index(c1, 1) - 1;
  long long ghosts = 0;
  for (Index i = 0; i < e[0]; ++i)
    for (Index j = 0; j < e[1]; ++j) {
      const Index g0 = first0 + i, g1 = ((first1 + j) % n1 + n1) % n1;
      const double got = u_memory.memory[i * u_memory.lld + j];
      if (g0 < 0 || g0 >= n0) {
        EXPECT_EQ(got, kPoison) << "ghost beyond the non-periodic edge, local " << i << "," << j;
      } else {
        EXPECT_EQ(got, value_at(g0, g1)) << "local " << i << "," << j;
        ghosts += i == 0 || j == 0 || i == e[0] - 1 || j >= e[1] - 2;
      }
    }
  EXPECT_GT(sum_over_ranks(ghosts), 0);
  EXPECT_EQ(u_memory.damaged_padding(), 0);

  adlib::CShift<double, 2, Space> shift(v, u, 2, 1);
  shift.execute(v, u);
  long long checked = 0;
  v.host_mirror().for_each_local([&](auto g, double x) {
    ++checked;
    // Fortran's CSHIFT: v(i, j) = u(i, j + 2) in one convention, u(i, j - 2)
    // in the other; either way a column two away, cyclically.
    const bool ahead = x == value_at(g[0], (g[1] + 2) % n1);
    const bool behind = x == value_at(g[0], (g[1] + n1 - 2) % n1);
    ASSERT_TRUE(ahead || behind) << "(" << g[0] << "," << g[1] << ") = " << x;
  });
  EXPECT_EQ(sum_over_ranks(checked), n0 * n1);
  EXPECT_EQ(v_memory.damaged_padding(), 0);
  // The same shift into an allocated (unpadded) array agrees element by element.
  Array<2> w(layout), x(layout);
  x.fill([](auto g) { return value_at(g[0], g[1]); });
  adlib::CShift<double, 2, Space>(w, x, 2, 1).execute(w, x);
  std::vector<double> shifted_wrapped = adlib::gather_all(v), shifted_plain = adlib::gather_all(w);
  EXPECT_EQ(shifted_wrapped, shifted_plain);
}

TEST(WrapMemory, WrongBlocksAreErrorsOnEveryRank) {
  Layouts l;
  const int me = l.comm.rank(), last = l.comm.size() - 1;
  const auto e = l.by_cols.local_extents(me);
  std::vector<double> memory(static_cast<size_t>((e[0] + 1) * (e[1] + 2)), 0.0);
  const auto at_last = l.by_cols.local_extents(last);
  // One column short on the last rank only.
  Kokkos::View<double**, Kokkos::LayoutRight, Space> short_view("short", e[0],
                                                                me == last ? e[1] - 1 : e[1]);
  adlib_test::expect_error_everywhere(
      [&] { Array<2>::wrap(l.by_cols, short_view); },
      "rank " + std::to_string(last) + ", dimension 1: the layout needs a local extent of " +
          std::to_string(at_last[1]) + ", the memory given has " + std::to_string(at_last[1] - 1));
  // A row pitch below the local extent.
  adlib_test::expect_error_everywhere(
      [&] {
        Array<2>::wrap(l.by_cols, memory.data(), {me == last ? e[1] - 1 : e[1], 1});
      },
      "dimension 0: expected a stride that is a multiple of 1 and at least");
  // Fortran order (column-major) is not C order.
  Kokkos::View<double**, Kokkos::LayoutLeft, Space> left("left", e[0], e[1]);
  Kokkos::LayoutStride fortran(e[0], 1, e[1], e[0]);
  Kokkos::View<double**, Kokkos::LayoutStride, Space, Kokkos::MemoryUnmanaged> column_major(
      memory.data(), fortran);
  adlib_test::expect_error_everywhere([&] { Array<2>::wrap(l.by_cols, column_major); },
                                      "expected stride 1 (local blocks are in C order");
  // No memory where there is a block to hold.
  adlib_test::expect_error_everywhere(
      [&] { Array<2>::wrap(l.by_cols, me == last ? nullptr : memory.data()); },
      "null pointer for a local block");
  // A section cannot be wrapped; a layout of another rank neither.
  adlib_test::expect_error_everywhere(
      [&] {
        Array<2>::wrap(l.by_cols.section({adlib::Triplet{0, 1, 1}, adlib::Triplet{0, l.n1 - 1, 1}}),
                       memory.data());
      },
      "wrap the whole array");
  // Ranks outside the group pass no memory at all.
  adlib::ProcessGrid only_first(l.comm, {1}, {0});
  const adlib::ArrayLayout on_first(only_first,
                                    {std::make_shared<adlib::BlockRange>(2, only_first.dim(0)),
                                     std::make_shared<adlib::CollapsedRange>(3)});
  std::vector<double> first_memory(me == 0 ? 2 * 5 : 0, kPad);
  auto f = Array<2>::wrap(on_first, me == 0 ? first_memory.data() : nullptr, {5, 1});
  EXPECT_EQ(f.holds_data(), me == 0);
}

}  // namespace

}  // namespace mpi_wrap_memory
