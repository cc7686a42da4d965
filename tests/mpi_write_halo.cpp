// SPDX-License-Identifier: BSD-3-Clause
// WriteHalo against a serial reference: for random ghost-extended layouts
// (block, irregular with empty blocks, collapsed, periodic or not; 1-D to
// 3-D; grids of every shape, some smaller than the communicator), random
// widths up to the ghost extension (wider than the extent too), every
// boundary (mirror included) and both stencils, every
// local cell (ghosts included) must hold the value of the global element it
// stands for, or stay poisoned where the halo does not reach.
#include <gtest/gtest.h>

#include <cstdlib>

#include <Kokkos_Core.hpp>
#include <array>
#include <functional>
#include <random>
#include <type_traits>
#include <vector>

#include <adlib/adlib.hpp>
#include "custom_range.hpp"
#include "expect_error_everywhere.hpp"
#include "halo_reference.hpp"
#include "random_halo_config.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_write_halo {

namespace {

using adlib::Boundary;
using adlib::Index;

constexpr double kPoison = -1.0;

template <int R>
int check_all_cells(const adlib::DistArray<double, R>& a, const adlib::HaloWidths& halo) {
  if (!a.holds_data()) return 0;
  auto v = Kokkos::create_mirror_view(a.local_view());
  Kokkos::deep_copy(v, a.local_view());
  // The value each local cell must hold after the exchange (or kPoison),
  // from the serial reference of halo_reference.hpp.
  const adlib_test::HaloReference<R> reference(a.layout(), halo, a.process_rank());
  int bad = 0;
  std::array<Index, R> local{};
  const Index total = Index(v.span());
  for (Index flat = 0; flat < total; ++flat) {
    Index rest = flat;
    for (int d = R - 1; d >= 0; --d) {
      local[d] = rest % Index(v.extent(d));
      rest /= Index(v.extent(d));
    }
    const adlib_test::HaloCell cell = reference.cell(local);
    const double want = cell.filled ? double(cell.linear) : kPoison;
    if (v.data()[flat] != want && ++bad <= 3)
      ADD_FAILURE() << "local cell " << flat << " holds " << v.data()[flat] << ", expected " << want
                    << " in " << a.layout().describe();
  }
  return bad;
}

// Owned cells get their global linear index, every other cell the poison.
template <int R>
void fill_poisoned(adlib::DistArray<double, R>& a) {
  Kokkos::deep_copy(a.local_view(), kPoison);
  a.fill([&](const std::array<Index, R>& g) {
    Index linear = 0;
    for (int d = 0; d < R; ++d) linear = linear * a.extent(d) + g[d];
    return double(linear);
  });
}

// Adds `offset` to every local cell that is not poisoned, in a kernel (a
// free function: nvcc wants device lambdas outside private members).
void shift_unpoisoned(const char* label, const adlib::DistArray<double, 2>& a, double offset) {
  auto v = a.local_view();
  const double poison = kPoison;
  Kokkos::parallel_for(
      label, v.span(), KOKKOS_LAMBDA(size_t i) {
        double& x = v.data()[i];
        if (x != poison) x += offset;
      });
  Kokkos::fence();
}

// Writes owned cell (2, 2) with its own value in a kernel, where the owned
// block is larger than 4 x 4 (a free function, as above).
void rewrite_interior_cell(const adlib::DistArray<double, 2>& a) {
  auto owned = a.owned_view();
  if (owned.extent(0) > 4 && owned.extent(1) > 4)
    Kokkos::parallel_for(
        "rewrite", 1, KOKKOS_LAMBDA(size_t) { owned(2, 2) = owned(2, 2); });
  Kokkos::fence();
}

template <int R>
void run_random(int configurations, unsigned seed) {
  adlib::Comm comm(MPI_COMM_WORLD);
  std::mt19937 rng(seed);  // the same sequence on every rank
  for (int i = 0; i < configurations; ++i) {
    adlib_test::RandomHaloCase<R> c = adlib_test::random_halo_case<R>(comm, rng);
    adlib::DistArray<double, R>& a = c.array;
    adlib::WriteHalo<double, R> halo(a.layout(), c.halo);
    for (int rep = 0; rep < 2; ++rep) {  // a schedule is reusable
      fill_poisoned(a);
      if (rep == 0) {
        halo.execute(a);
      } else {
        halo.start(a);
        halo.finish();
      }
      ASSERT_EQ(check_all_cells(a, c.halo), 0) << "configuration " << i << " rep " << rep;
    }
  }
}

TEST(WriteHalo, Random1D) {
  run_random<1>(120, 11);
}
TEST(WriteHalo, Random2D) {
  run_random<2>(120, 22);
}
TEST(WriteHalo, Random3D) {
  run_random<3>(60, 33);
}

// The heat-equation pattern: a periodic 2-D grid, full halo, start / finish
// with the interior modified in between, then several arrays of the layout.
TEST(WriteHalo, OverlapWithInteriorUpdateAndReuseAcrossArrays) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  const Index n = 17;
  auto rows = std::make_shared<adlib::BlockRange>(n, grid.dim(0), adlib::Ghosts{1, 1, true});
  auto cols = std::make_shared<adlib::BlockRange>(n + 3, grid.dim(1), adlib::Ghosts{2, 1, false});
  adlib::DistArray<double, 2> u(grid, {rows, cols}), w(grid, {rows, cols});
  adlib::WriteHalo<double, 2> halo(u);
  const adlib::HaloWidths full = adlib::full_halo(u.layout());
  for (auto* a : {&u, &w}) {
    fill_poisoned(*a);
    halo.start(*a);
    // Writing cells far from the ghosts while messages fly must not disturb them.
    rewrite_interior_cell(*a);
    halo.finish();
    EXPECT_EQ(check_all_cells(*a, full), 0);
  }
}

// Column halos of a row-major array split by columns: long messages of
// scattered single elements, which the automatic transfer rule hands to MPI
// as derived datatypes.  Both transfer methods must fill every ghost.
TEST(WriteHalo, ColumnHalosByDatatypeOrPacked) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {1, comm.size()});
  // Column blocks of 520 and 519: rows of 521 or 522 doubles, so that a
  // column's elements lie more than a page apart.
  const Index rows = 2100, cols = 520 * comm.size() - 1;
  auto row_range = std::make_shared<adlib::CollapsedRange>(rows, adlib::Ghosts{1, 1, false});
  auto col_range =
      std::make_shared<adlib::BlockRange>(cols, grid.dim(1), adlib::Ghosts{1, 1, true});
  adlib::DistArray<double, 2> u(grid, {row_range, col_range});
  adlib::WriteHalo<double, 2> halo(u);
  const adlib::HaloWidths full = adlib::full_halo(u.layout());
  // Without the environment forcing a method, a column of 2100 doubles
  // (16.8 kB, one double per 4.1 kB) travels as a datatype.
  const bool forced = std::getenv("ADLIB_TRANSFER") != nullptr;
  if (!forced && comm.size() > 1 && !halo.schedule().staged()) {
    for (const auto& m : halo.schedule().plan().recv_messages())
      EXPECT_TRUE(halo.schedule().in_place(m, sizeof(double))) << "from rank " << m.peer;
  }
  for (const auto method : {adlib::TransferMethod::automatic, adlib::TransferMethod::pack,
                            adlib::TransferMethod::datatype}) {
    halo.set_transfer({method, 16384});
    for (int rep = 0; rep < 2; ++rep) {
      fill_poisoned(u);
      halo.execute(u);
      EXPECT_EQ(check_all_cells(u, full), 0) << "method " << int(method) << ", rep " << rep;
    }
  }
}

// Three fields of one layout in one exchange, halo.execute(u, v, w) and
// start(u, v, w) / finish() (one message per peer carries all three): each
// field must get its own neighbours' values, never another field's.
TEST(WriteHalo, SeveralArraysShareOneMessagePerPeer) {
  adlib::Comm comm(MPI_COMM_WORLD);
  std::mt19937 rng(99);
  for (int trial = 0; trial < 40; ++trial) {
    adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
    std::vector<int> axes = {0, 1};
    const adlib_test::Config c = adlib_test::random_config<2>(grid, axes, rng);
    std::array<adlib::RangePtr, 2> ranges = {c.ranges[0], c.ranges[1]};
    adlib::DistArray<double, 2> u(grid, ranges), v(grid, ranges), w(grid, ranges);
    adlib::WriteHalo<double, 2> halo(u.layout(), c.halo);
    for (int rep = 0; rep < 2; ++rep) {
      int field = 0;
      for (auto* a : {&u, &v, &w}) {
        fill_poisoned(*a);
        // Distinct values per field: shift the owned values by 1000 * field.
        shift_unpoisoned("shift", *a, 1000.0 * field);
        ++field;
      }
      if (rep == 0) {
        halo.execute(u, v, w);
      } else {
        halo.start(u, v, w);
        halo.finish();
      }
      field = 0;
      for (auto* a : {&u, &v, &w}) {
        shift_unpoisoned("unshift", *a, -1000.0 * field);
        ASSERT_EQ(check_all_cells(*a, c.halo), 0) << "field " << field << " trial " << trial;
        ++field;
      }
    }
  }
}

// Class template argument deduction and the named stencil: every spelling
// deduces WriteHalo<double, 2> from the array, Stencil::box (the default)
// fills the corners, Stencil::faces leaves them alone.
TEST(WriteHalo, DeducesTemplateArgumentsAndNamesTheStencil) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  auto rows = std::make_shared<adlib::BlockRange>(9, grid.dim(0), adlib::Ghosts{1, 1, true});
  auto cols = std::make_shared<adlib::BlockRange>(7, grid.dim(1), adlib::Ghosts{1, 1, false});
  adlib::DistArray<double, 2> u(grid, {rows, cols});
  adlib::WriteHalo full(u);
  adlib::WriteHalo box(u, {1, 1}, {1, 1}, {Boundary::cyclic, Boundary::edge});
  adlib::WriteHalo faces(u, {1, 1}, {1, 0}, {Boundary::cyclic, Boundary::edge},
                         adlib::Stencil::faces);
  adlib::WriteHalo rows_only(u, {1, 1}, {1, 1}, {Boundary::cyclic, Boundary::skip});
  static_assert(std::is_same<decltype(full), adlib::WriteHalo<double, 2>>::value, "array");
  static_assert(std::is_same<decltype(box), adlib::WriteHalo<double, 2>>::value, "widths");
  static_assert(std::is_same<decltype(faces), adlib::WriteHalo<double, 2>>::value, "stencil");
  EXPECT_EQ(full.halo().stencil, adlib::Stencil::box);
  EXPECT_EQ(box.halo().stencil, adlib::Stencil::box);
  EXPECT_EQ(faces.halo().stencil, adlib::Stencil::faces);
  for (auto* halo : {&full, &box, &faces, &rows_only}) {
    fill_poisoned(u);
    halo->execute(u);
    EXPECT_EQ(check_all_cells(u, halo->halo()), 0) << adlib::stencil_name(halo->halo().stencil);
  }
  // 1-D, and another element type.
  adlib::ProcessGrid line(comm, {comm.size()});
  auto ghosted = std::make_shared<adlib::BlockRange>(6, line.dim(0), adlib::Ghosts{2, 1, true});
  adlib::DistArray<float, 1> f(line, {ghosted});
  adlib::WriteHalo one_d(f, {2}, {1}, {Boundary::cyclic});
  static_assert(std::is_same<decltype(one_d), adlib::WriteHalo<float, 1>>::value, "1-D");
}

// Several arrays per exchange: an array of another layout anywhere in the
// list is refused on every rank before anything is posted (the schedule
// still works afterwards), and the one-shot write_halo(u, v, w) fills all
// three.
TEST(WriteHalo, SeveralArraysCheckedBeforeAnythingIsPosted) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  std::vector<Index> sizes(comm.size());
  for (int c = 0; c < comm.size(); ++c) sizes[c] = c % 2 == 0 ? 3 : 0;  // empty blocks
  auto range =
      std::make_shared<adlib::IrregularBlockRange>(sizes, grid.dim(0), adlib::Ghosts{2, 1, true});
  auto other = std::make_shared<adlib::BlockRange>(8, grid.dim(0), adlib::Ghosts{2, 1, true});
  adlib::DistArray<double, 1> u(grid, {range}), v(grid, {range}), w(grid, {range}),
      x(grid, {other});
  adlib::WriteHalo halo(u);
  const adlib::HaloWidths full = adlib::full_halo(u.layout());
  adlib_test::expect_error_everywhere([&] { halo.execute(u, v, x); }, "schedule was built for");
  adlib_test::expect_error_everywhere([&] { halo.start(x, v, w); }, "schedule was built for");
  for (auto* a : {&u, &v, &w}) fill_poisoned(*a);
  halo.execute(u, v, w);
  for (auto* a : {&u, &v, &w}) EXPECT_EQ(check_all_cells(*a, full), 0);
  for (auto* a : {&u, &v, &w}) fill_poisoned(*a);
  adlib::write_halo(u, v, w);
  for (auto* a : {&u, &v, &w}) EXPECT_EQ(check_all_cells(*a, full), 0);
}

// Ghosts wider than the extent on non-periodic dimensions, with edge and
// mirror boundaries, over uneven blocks (empty ones at 4 ranks): the cells
// outside the domain stay untouched with edge, hold the reflection with
// mirror (and stay untouched where the reflection leaves the domain too).
TEST(WriteHalo, WideGhostsAndMirrorMatchTheSerialReference) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid line(comm, {comm.size()});
  for (Index n : {1, 2, 3, 5}) {
    for (Boundary mode : {Boundary::edge, Boundary::mirror}) {
      adlib::DistArray<double, 1> a(line, {adlib::block(n).ghosts(n + 2, n + 1)});
      const adlib::HaloWidths halo{{n + 2}, {n + 1}, {mode}, adlib::Stencil::box};
      adlib::WriteHalo<double, 1> h(a.layout(), halo);
      fill_poisoned(a);
      h.execute(a);
      EXPECT_EQ(check_all_cells(a, halo), 0) << "n " << n << " " << adlib::boundary_name(mode);
    }
  }
  adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  std::vector<Index> sizes(grid.extent(1), 0);
  sizes.back() = 3;  // every column on the last coordinate, empty blocks elsewhere
  adlib::DistArray<double, 2> u(
      grid, {adlib::block(4).ghosts(5, 2), adlib::irregular_block(sizes).ghosts(2, 4)});
  for (adlib::Stencil stencil : {adlib::Stencil::faces, adlib::Stencil::box}) {
    const adlib::HaloWidths halo{{5, 1}, {2, 4}, {Boundary::mirror, Boundary::edge}, stencil};
    adlib::WriteHalo<double, 2> h(u.layout(), halo);
    fill_poisoned(u);
    h.execute(u);
    EXPECT_EQ(check_all_cells(u, halo), 0) << adlib::stencil_name(stencil);
  }
}

// A distribution format adlib does not ship (custom_range.hpp), made through
// its own factory: WriteHalo fills its ghosts like a built-in one's, with
// every boundary, at every rank count.
TEST(WriteHalo, ANewDistributionFormatWorksUnchanged) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  std::vector<Index> rows(grid.extent(0)), cols(grid.extent(1));
  for (size_t c = 0; c < rows.size(); ++c) rows[c] = Index(c % 3);      // 0, 1, 2, 0, ...
  for (size_t c = 0; c < cols.size(); ++c) cols[c] = Index(3 - c % 3);  // 3, 2, 1, 3, ...
  if (rows.back() == 0) rows.back() = 2;
  adlib::DistArray<double, 2> u(grid, {adlib_test::listed_blocks(rows).ghosts(3, 2),
                                       adlib_test::listed_blocks(cols).ghosts(2).periodic()});
  for (Boundary row_mode : {Boundary::edge, Boundary::mirror, Boundary::skip})
    for (Boundary col_mode : {Boundary::cyclic, Boundary::mirror, Boundary::edge}) {
      const adlib::HaloWidths halo{{3, 2}, {2, 2}, {row_mode, col_mode}, adlib::Stencil::box};
      adlib::WriteHalo<double, 2> h(u.layout(), halo);
      fill_poisoned(u);
      h.execute(u);
      EXPECT_EQ(check_all_cells(u, halo), 0)
          << adlib::boundary_name(row_mode) << " x " << adlib::boundary_name(col_mode);
    }
}

// Owned cells get g0 * m + g1, computed in a kernel from the owned box (a
// free function: nvcc wants device lambdas outside private members).
void fill_in_kernel(const adlib::DistArray<double, 2>& a, Index m) {
  const adlib::LocalBox<2> owned = a.owned_box();
  auto v = a.local_view();
  Kokkos::parallel_for(
      "fill from boxes",
      Kokkos::MDRangePolicy<Kokkos::Rank<2>>({owned.begin(0), owned.begin(1)},
                                             {owned.end(0), owned.end(1)}),
      KOKKOS_LAMBDA(Index i, Index j) {
        v(i, j) = double(owned.global(0, i) * m + owned.global(1, j));
      });
  Kokkos::fence();
}

// The owned and ghost boxes inside kernels: an array filled from global
// indices in a kernel equals one filled on the host through the Range
// inquiries, and the ghost box's global indices are those of the halo.
TEST(WriteHalo, BoxesGiveGlobalIndicesInsideKernels) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  const Index n = 7, m = 2 * comm.size() + 1;
  for (int kind = 0; kind < 3; ++kind) {
    const std::array<adlib::RangeSpec, 2> specs =
        kind == 0   ? std::array<adlib::RangeSpec, 2>{adlib::block(n).ghosts(2),
                                                      adlib::block(m).ghosts(1).periodic()}
        : kind == 1 ? std::array<adlib::RangeSpec, 2>{adlib::cyclic(n), adlib::block_cyclic(m, 2)}
                    : std::array<adlib::RangeSpec, 2>{adlib::block_cyclic(n, 3),
                                                      adlib::collapsed(m).ghosts(1, 2)};
    adlib::DistArray<double, 2> a(grid, specs), b(grid, specs);
    Kokkos::deep_copy(a.local_view(), kPoison);
    Kokkos::deep_copy(b.local_view(), kPoison);
    fill_in_kernel(a, m);
    b.fill([&](const std::array<Index, 2>& g) { return double(g[0] * m + g[1]); });
    auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.local_view());
    auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.local_view());
    int bad = 0;
    for (size_t i = 0; i < ha.span(); ++i) bad += ha.data()[i] != hb.data()[i];
    EXPECT_EQ(bad, 0) << "kind " << kind;
    // Ghost box: after a full halo, every ghost cell inside the domain (or
    // wrapped, where periodic) holds its box global index.
    const auto all = a.ghost_box();
    adlib::write_halo(a);
    Kokkos::deep_copy(ha, a.local_view());
    for (Index i = all.begin(0); i < all.end(0); ++i)
      for (Index j = all.begin(1); j < all.end(1); ++j) {
        const Index gi = all.global(0, i), gj = all.global(1, j);
        const bool wraps = a.layout().range(1).periodic();
        const Index gj_wrapped = wraps ? (gj + m) % m : gj;
        if (gi < 0 || gi >= n || gj_wrapped < 0 || gj_wrapped >= m) continue;
        EXPECT_EQ(ha(i, j), double(gi * m + gj_wrapped))
            << "kind " << kind << " local " << i << "," << j;
      }
  }
}

using adlib_test::expect_error_everywhere;

TEST(WriteHalo, MisuseIsRefusedOnEveryRank) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  auto ghosted = std::make_shared<adlib::BlockRange>(10, grid.dim(0), adlib::Ghosts{2, 1, false});
  auto plain = std::make_shared<adlib::CyclicRange>(10, grid.dim(0));
  adlib::DistArray<double, 1> a(grid, {ghosted}), b(grid, {plain});
  using H = adlib::WriteHalo<double, 1>;
  expect_error_everywhere([&] { H(a, {3}, {1}, {Boundary::edge}); }, "exceed the ghost extension");
  expect_error_everywhere([&] { H(a, {-1}, {1}, {Boundary::edge}); }, "negative");
  expect_error_everywhere([&] { H(a, {1}, {1}, {Boundary::cyclic}); }, "periodic");
  expect_error_everywhere([&] { H(b, {1}, {0}, {Boundary::edge}); }, "exceed");
  expect_error_everywhere(
      [&] {
        H(a.layout().section({adlib::Triplet{0, 4, 1}}), adlib::full_halo(a.layout()));
      },
      "whole array");
  // Different widths on different ranks: agreed, refused everywhere.
  if (comm.size() > 1)
    expect_error_everywhere([&] { H(a, {comm.rank() == 0 ? 1 : 2}, {1}, {Boundary::edge}); },
                            "differ between ranks");
  // The stencil and the boundary names are part of the agreement.
  if (comm.size() > 1) {
    const bool first = comm.rank() == 0;
    expect_error_everywhere(
        [&] {
          H(a, {1}, {1}, {Boundary::edge}, first ? adlib::Stencil::box : adlib::Stencil::faces);
        },
        "differ between ranks");
    expect_error_everywhere([&] { H(a, {1}, {1}, {first ? Boundary::skip : Boundary::edge}); },
                            "differ between ranks");
  }
  H halo(a);
  expect_error_everywhere([&] { halo.execute(b); }, "schedule was built for");
  // Every ghost cell of an array that has none, or explicit widths of 0: a
  // documented no-op (docs/write_halo.md), which leaves the array as it was.
  b.fill([](auto g) { return double(g[0]); });
  H(b).execute(b);
  H(b, {0}, {0}, {Boundary::edge}).execute(b);
  int wrong = 0;
  b.host_mirror().for_each_local([&](auto g, double v) { wrong += v != double(g[0]); });
  EXPECT_EQ(wrong, 0);
}

}  // namespace

}  // namespace mpi_write_halo
