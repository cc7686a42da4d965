// SPDX-License-Identifier: BSD-3-Clause
// Shift, CShift, EOShift and Skew over MPI_COMM_WORLD, compared with a
// serial reference computed from global indices.
//
// For arrays of rank 1 to 4 and every Range kind on the shifted dimension
// (random layouts with a fixed seed from test_layouts.hpp: sections, ghosts,
// restricted groups and replication included), every mode and amounts 0, +-1,
// larger than a local block (data from non-neighbours) and larger than the
// extent: the source holds double(C-order linear index of the position) (+ a
// million per repetition), the destination's whole local memory is poisoned
// to -1 first, and after each execution every element of it is checked:
// shifted elements hold the source's (dst[i] = src[i + amount], Fortran's
// sign), vacated ones -1 (keep) or the fill value (end_off: T{} or a chosen
// value), and everything outside the section (ghosts included) still -1.  Each
// schedule runs three times, the last through start / finish.  Misuse (bad
// or rank-dependent arguments, in-place shifts, arrays of another layout)
// must throw the same adlib::Error on every rank.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <string>
#include <type_traits>
#include <vector>

#include <adlib/adlib.hpp>
#include "expect_error_everywhere.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_shift {

namespace {

using adlib::Index;
using adlib::ShiftMode;
using adlib::Triplet;
using adlib_test::Kind;
using adlib_test::Rng;

template <int Rank>
using Array = adlib::DistArray<double, Rank>;

constexpr ShiftMode kModes[] = {ShiftMode::keep, ShiftMode::cyclic, ShiftMode::end_off};

const char* mode_name(ShiftMode mode) {
  return adlib::shift_mode_name(mode);
}

// A fill value for end_off mode that differs from the poison (-1), from T{}
// and from every source value.
constexpr double kFill = -7.5;

Index floor_mod(Index a, Index n) {
  return ((a % n) + n) % n;
}

// Amounts worth testing along an extent of n: zero, one step either way,
// more than a local block (n / 2 + 1 exceeds every block at P >= 2), the
// whole extent and more.
std::vector<Index> interesting_amounts(Index n) {
  return {0, 1, -1, n / 2 + 1, -(n / 2 + 1), n, n + 2, -(2 * n + 1)};
}

// Two arrays with one random layout (a section of their parents when the
// layout is one), over a grid that lives as long as they do.
template <int Rank>
struct ShiftArrays {
  ShiftArrays(const adlib_test::SideSpec& spec, const adlib::Comm& comm)
      : grid(comm, spec.grid_shape),
        dst_whole(adlib_test::make_parent(spec, grid)),
        src_whole(adlib_test::make_parent(spec, grid)),
        dst(dst_whole.section(section_of(spec))),
        src(src_whole.section(section_of(spec))),
        description(spec.describe()) {}

  static std::array<Triplet, Rank> section_of(const adlib_test::SideSpec& spec) {
    const std::vector<Triplet> s = adlib_test::normalized_section(spec);
    std::array<Triplet, Rank> a;
    for (int d = 0; d < Rank; ++d) a[d] = s[d];
    return a;
  }

  adlib::ProcessGrid grid;
  Array<Rank> dst_whole, src_whole, dst, src;
  std::string description;
};

// Runs `schedule` three times (the last through start / finish) and checks
// every element of the destination's local memory against the reference:
// dst[p] = src[p with p[dim] + amount_at(p)], by mode where that leaves the
// extent (`fill` in end_off mode).
template <int Rank, class Schedule, class AmountAt>
void check_schedule(Schedule& schedule, const ShiftArrays<Rank>& arrays, int dim, ShiftMode mode,
                    double fill, AmountAt amount_at, const std::string& what) {
  const std::vector<Index> shape = arrays.dst.layout().shape();
  const Index n = shape[dim];
  // Every rank runs every repetition whatever it found (an early return on
  // one rank would leave the others waiting); only the first error is shown.
  int wrong = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const double offset = 1e6 * rep;
    Array<Rank> src = arrays.src;  // a handle: fill() writes the shared memory
    src.fill([&](const auto& p) {
      return offset +
             double(adlib_test::linear_index(shape, std::vector<Index>(p.begin(), p.end())));
    });
    Kokkos::deep_copy(arrays.dst_whole.local_view(), -1.0);
    if (rep < 2) {
      schedule.execute(arrays.dst, arrays.src);
    } else {
      schedule.start(arrays.dst, arrays.src);
      schedule.finish();
    }
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), arrays.dst.local_view());
    adlib::DistArray<double, Rank, Kokkos::HostSpace> dst(arrays.dst, host);
    dst.for_each_local([&](const auto& p, double& value) {
      std::vector<Index> from(p.begin(), p.end());
      from[dim] += amount_at(p);
      if (mode == ShiftMode::cyclic) from[dim] = floor_mod(from[dim], n);
      double expected = mode == ShiftMode::end_off ? fill : -1.0;
      if (from[dim] >= 0 && from[dim] < n)
        expected = offset + double(adlib_test::linear_index(shape, from));
      if (value != expected && wrong++ == 0)
        ADD_FAILURE() << what << " rep " << rep << ": position " << ::testing::PrintToString(p)
                      << " holds " << value << ", expected " << expected;
      value = -1.0;  // checked: the sweep below must see only -1
    });
    const double* data = host.data();
    for (size_t k = 0; k < host.span(); ++k)
      if (data[k] != -1.0 && wrong++ == 0)
        ADD_FAILURE() << what << " rep " << rep << ": local offset " << k
                      << " outside the section (or a ghost) changed to " << data[k];
  }
}

std::string case_name(const std::string& kind, const std::string& layout, int dim, ShiftMode mode) {
  return kind + " " + layout + " dim " + std::to_string(dim) + " mode " + mode_name(mode);
}

// The random layout of one case: rank from shape, `kind` on dimension 0.
adlib_test::SideSpec random_layout(Rng& rng, const std::vector<Index>& shape, Kind kind, int P) {
  const std::vector<int> grid_shape =
      shape.size() >= 2 && P == 4 ? std::vector<int>{2, 2} : std::vector<int>{P};
  return adlib_test::random_side(rng, shape, grid_shape, kind);
}

template <int Rank>
void shift_every_kind(const std::vector<Index>& shape) {
  adlib::Comm comm(MPI_COMM_WORLD);
  for (int k = 0; k < adlib_test::kKindCount; ++k) {
    const Kind kind = adlib_test::kind_at(k);
    Rng rng(7919 * Rank + k);
    const ShiftArrays<Rank> arrays(random_layout(rng, shape, kind, comm.size()), comm);
    // Dimension 0 has `kind`: every amount there; the last dimension (a
    // random kind) gets a few.
    for (int dim : {0, Rank - 1}) {
      const std::vector<Index> amounts = interesting_amounts(shape[dim]);
      for (size_t a = 0; a < amounts.size(); ++a) {
        if (dim != 0 && a % 3 != 0) continue;
        for (ShiftMode mode : kModes) {
          // end_off: T{} for every other amount, a chosen value for the rest.
          const double fill = a % 2 == 0 ? 0.0 : kFill;
          const std::string what =
              case_name(adlib_test::kind_name(kind), arrays.description, dim, mode) + " amount " +
              std::to_string(amounts[a]) + " fill " + std::to_string(fill);
          if (fill == 0.0) {
            adlib::Shift<double, Rank> shift(arrays.dst, arrays.src, amounts[a], dim, mode);
            check_schedule(
                shift, arrays, dim, mode, fill, [&](const auto&) { return amounts[a]; }, what);
          } else {
            adlib::Shift<double, Rank> shift(arrays.dst, arrays.src, amounts[a], dim, mode, fill);
            check_schedule(
                shift, arrays, dim, mode, fill, [&](const auto&) { return amounts[a]; }, what);
          }
        }
      }
      if (Rank == 1) break;
    }
  }
}

// A table of amounts over the other dimensions' positions: random values
// from interesting_amounts, constant, or constant along the innermost other
// dimension (long runs).
std::vector<Index> amounts_table(Rng& rng, Index positions, Index inner_extent, Index n,
                                 int pattern) {
  const std::vector<Index> choices = interesting_amounts(n);
  std::vector<Index> table(static_cast<size_t>(positions));
  const Index constant = rng.pick(choices);
  for (Index k = 0; k < positions; ++k) {
    if (pattern == 0)
      table[k] = rng.pick(choices);
    else if (pattern == 1)
      table[k] = constant;
    else
      table[k] = k / inner_extent - 1;
  }
  return table;
}

template <int Rank>
void skew_every_kind(const std::vector<Index>& shape) {
  adlib::Comm comm(MPI_COMM_WORLD);
  for (int k = 0; k < adlib_test::kKindCount; ++k) {
    const Kind kind = adlib_test::kind_at(k);
    Rng rng(104729 * Rank + k);
    const ShiftArrays<Rank> arrays(random_layout(rng, shape, kind, comm.size()), comm);
    for (int dim : {0, Rank - 1}) {
      std::vector<Index> other_shape;
      for (int d = 0; d < Rank; ++d)
        if (d != dim) other_shape.push_back(shape[d]);
      Index positions = 1;
      for (Index e : other_shape) positions *= e;
      const Index inner = other_shape.empty() ? 1 : other_shape.back();
      for (int pattern = 0; pattern < 3; ++pattern)
        for (ShiftMode mode : kModes) {
          const std::vector<Index> table =
              amounts_table(rng, positions, inner, shape[dim], pattern);
          auto amount_at = [&](const auto& p) {
            std::vector<Index> other;
            for (int d = 0; d < Rank; ++d)
              if (d != dim) other.push_back(p[d]);
            return table[adlib_test::linear_index(other_shape, other)];
          };
          const double fill = pattern == 1 ? 0.0 : kFill;
          const std::string what =
              case_name(adlib_test::kind_name(kind), arrays.description, dim, mode) +
              " skew pattern " + std::to_string(pattern);
          adlib::Skew<double, Rank> skew(arrays.dst, arrays.src, table, dim, mode, fill);
          check_schedule(skew, arrays, dim, mode, fill, amount_at, what);
        }
      if (Rank == 1) break;
    }
  }
}

TEST(Shift, EveryKindModeAndAmount1D) {
  shift_every_kind<1>({13});
}
TEST(Shift, EveryKindModeAndAmount2D) {
  shift_every_kind<2>({7, 6});
}
TEST(Shift, EveryKindModeAndAmount3D) {
  shift_every_kind<3>({5, 4, 3});
}
TEST(Shift, EveryKindModeAndAmount4D) {
  shift_every_kind<4>({4, 3, 3, 2});
}

TEST(Skew, EveryKindAndMode1D) {
  skew_every_kind<1>({11});
}
TEST(Skew, EveryKindAndMode2D) {
  skew_every_kind<2>({7, 5});
}
TEST(Skew, EveryKindAndMode3D) {
  skew_every_kind<3>({5, 4, 3});
}
TEST(Skew, EveryKindAndMode4D) {
  skew_every_kind<4>({4, 3, 2, 3});
}

// The spelled-out cases of the documentation: a block array shifted by one
// in every mode, CShift, the one-shot functions, and one schedule built from
// a layout serving two pairs of arrays.
TEST(Shift, ByOneOnBlocksAndOneShotFunctions) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  const Index n = 10;
  auto block = std::make_shared<adlib::BlockRange>(n, grid.dim(0));
  Array<1> a(grid, {block}), b(grid, {block}), c(grid, {block}), d(grid, {block});
  a.fill([](const auto& g) { return double(g[0] + 1); });
  auto expect = [&](const Array<1>& x, auto value, const std::string& what) {
    x.host_mirror().for_each_local(
        [&](const auto& g, double v) { EXPECT_EQ(v, value(g[0])) << what << g[0]; });
  };
  b.fill([](const auto&) { return -1.0; });
  adlib::shift(b, a, 1, 0, ShiftMode::keep);  // b[i] = a[i + 1]
  expect(
      b, [&](Index i) { return i == n - 1 ? -1.0 : double(i + 2); }, "keep at ");
  adlib::shift(b, a, -1, 0, ShiftMode::end_off);  // b[i] = a[i - 1]
  expect(
      b, [&](Index i) { return i == 0 ? 0.0 : double(i); }, "end_off at ");
  adlib::shift(b, a, -1, 0, ShiftMode::end_off, 42.0);
  expect(
      b, [&](Index i) { return i == 0 ? 42.0 : double(i); }, "end_off fill 42 at ");
  adlib::eoshift(b, a, 2, 0, -3);  // an int fill converts to the element type
  expect(
      b, [&](Index i) { return i >= n - 2 ? -3.0 : double(i + 3); }, "eoshift at ");
  adlib::cshift(b, a, 1, 0);
  expect(
      b, [&](Index i) { return i == n - 1 ? 1.0 : double(i + 2); }, "cshift at ");
  adlib::CShift<double, 1> back(a.layout(), -1, 0);  // b[i] = a[(i - 1) mod n]
  c.fill([](const auto& g) { return double(10 * g[0]); });
  back.execute(b, a);
  back.execute(d, c);
  expect(
      b, [&](Index i) { return double((i + n - 1) % n + 1); }, "CShift a at ");
  expect(
      d, [&](Index i) { return double(10 * ((i + n - 1) % n)); }, "CShift c at ");
  EXPECT_EQ(back.mode(), ShiftMode::cyclic);
  adlib::skew(b, a, {3}, 0, ShiftMode::cyclic);
  expect(
      b, [&](Index i) { return double((i + 3) % n + 1); }, "skew at ");
}

// The sign, pinned against Fortran's definitions (result(i) = array(i +
// shift), wrapped by CSHIFT, BOUNDARY past the end for EOSHIFT) on the 1-D
// array a = [1, 2, 3, 4, 5] (a at global index g holds g + 1), block
// distributed over however many ranks run the test:
//   CSHIFT(a, 2)              = [3, 4, 5, 1, 2]
//   CSHIFT(a, -1)             = [5, 1, 2, 3, 4]
//   EOSHIFT(a, 2)             = [3, 4, 5, 0, 0]
//   EOSHIFT(a, -2, BOUNDARY=9) = [9, 9, 1, 2, 3]
// and keep mode leaves what EOSHIFT would fill: [3, 4, 5, -1, -1] over a
// destination poisoned to -1.
TEST(Shift, SignFollowsFortranCshiftAndEoshift) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  auto block = std::make_shared<adlib::BlockRange>(5, grid.dim(0));
  Array<1> a(grid, {block}), b(grid, {block});
  a.fill([](const auto& g) { return double(g[0] + 1); });
  auto check = [&](const char* what, auto run, const std::array<double, 5>& expected) {
    b.fill([](const auto&) { return -1.0; });
    run();
    b.host_mirror().for_each_local(
        [&](const auto& g, double v) { EXPECT_EQ(v, expected[g[0]]) << what << " at " << g[0]; });
  };
  check("CSHIFT(a, 2)", [&] { adlib::cshift(b, a, 2, 0); }, {3, 4, 5, 1, 2});
  check("CSHIFT(a, -1)", [&] { adlib::cshift(b, a, -1, 0); }, {5, 1, 2, 3, 4});
  check("EOSHIFT(a, 2)", [&] { adlib::eoshift(b, a, 2, 0); }, {3, 4, 5, 0, 0});
  check("EOSHIFT(a, -2, 9)", [&] { adlib::eoshift(b, a, -2, 0, 9.0); }, {9, 9, 1, 2, 3});
  check("keep 2", [&] { adlib::shift(b, a, 2, 0, ShiftMode::keep); }, {3, 4, 5, -1, -1});
  check("skew {2}", [&] { adlib::skew(b, a, {2}, 0, ShiftMode::cyclic); }, {3, 4, 5, 1, 2});
}

// Class template argument deduction: every spelling deduces the explicitly
// typed schedule from the arrays (a fill value converts to the element type)
// and runs.
TEST(Shift, DeducesTemplateArgumentsFromTheArrays) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  const Index n = 7;
  auto block = std::make_shared<adlib::BlockRange>(n, grid.dim(0));
  Array<1> a(grid, {block}), b(grid, {block});
  a.fill([](const auto& g) { return double(g[0]); });
  adlib::Shift keep(b, a, 1, 0, ShiftMode::keep);
  adlib::Shift filled(b, a, 1, 0, ShiftMode::end_off, 3);
  adlib::CShift around(b, a, 1, 0);
  adlib::EOShift zero(b, a, 1, 0);
  adlib::EOShift half(b, a, 1, 0, 2.5);
  adlib::Skew skew(b, a, {1}, 0, ShiftMode::cyclic);
  adlib::Skew skew_filled(b, a, {1}, 0, ShiftMode::end_off, -4.0);
  static_assert(std::is_same<decltype(keep), adlib::Shift<double, 1>>::value, "Shift");
  static_assert(std::is_same<decltype(filled), adlib::Shift<double, 1>>::value, "Shift, fill");
  static_assert(std::is_same<decltype(around), adlib::CShift<double, 1>>::value, "CShift");
  static_assert(std::is_same<decltype(zero), adlib::EOShift<double, 1>>::value, "EOShift");
  static_assert(std::is_same<decltype(half), adlib::EOShift<double, 1>>::value, "EOShift, fill");
  static_assert(std::is_same<decltype(skew), adlib::Skew<double, 1>>::value, "Skew");
  static_assert(std::is_same<decltype(skew_filled), adlib::Skew<double, 1>>::value, "Skew, fill");
  auto run = [&](auto& schedule, double past_the_end, const char* what) {
    b.fill([](const auto&) { return -1.0; });
    schedule.execute(b, a);
    b.host_mirror().for_each_local([&](const auto& g, double v) {
      EXPECT_EQ(v, g[0] + 1 < n ? double(g[0] + 1) : past_the_end) << what << " at " << g[0];
    });
  };
  run(keep, -1.0, "Shift keep");
  run(filled, 3.0, "Shift end_off 3");
  run(around, 0.0, "CShift");
  run(zero, 0.0, "EOShift");
  run(half, 2.5, "EOShift 2.5");
  run(skew, 0.0, "Skew cyclic");
  run(skew_filled, -4.0, "Skew end_off -4");
  EXPECT_EQ(half.fill_value(), 2.5);
  EXPECT_EQ(half.mode(), ShiftMode::end_off);
  EXPECT_EQ(zero.fill_value(), 0.0);
}

// EOSHIFT's BOUNDARY: a chosen fill value, kept in the schedule and written
// by every execution (the destination is poisoned before each), over
// irregular row blocks with empty ones (sizes 2, 0, 4, 0 by coordinate),
// along either dimension of a 2-D array, for amounts of one step either way
// and past the whole extent, with doubles and ints.
TEST(EOShift, ChosenFillValueWrittenByEveryExecution) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib::ProcessGrid grid(comm, {P});
  std::vector<Index> sizes(P);
  Index rows = 0;
  for (int c = 0; c < P; ++c) rows += sizes[c] = c % 2 == 0 ? c + 2 : 0;
  const Index columns = 5;
  const std::array<Index, 2> shape = {rows, columns};
  auto row_range = std::make_shared<adlib::IrregularBlockRange>(sizes, grid.dim(0));
  auto column_range = std::make_shared<adlib::CollapsedRange>(columns);
  auto value = [&](Index i, Index j) { return 100 * i + j; };
  Array<2> a(grid, {row_range, column_range}), b(grid, {row_range, column_range});
  adlib::DistArray<int, 2> ia(grid, {row_range, column_range}), ib(grid, {row_range, column_range});
  a.fill([&](const auto& g) { return double(value(g[0], g[1])); });
  ia.fill([&](const auto& g) { return int(value(g[0], g[1])); });
  for (int dim = 0; dim < 2; ++dim)
    for (Index amount : {Index(1), Index(-1), Index(-2), shape[dim] + 1}) {
      adlib::EOShift shift(b, a, amount, dim, -2.5);
      adlib::Shift<int, 2> ishift(ib.layout(), amount, dim, ShiftMode::end_off, 7);
      EXPECT_EQ(shift.fill_value(), -2.5);
      for (int rep = 0; rep < 3; ++rep) {
        Kokkos::deep_copy(b.local_view(), -1.0);
        Kokkos::deep_copy(ib.local_view(), -1);
        if (rep < 2) {
          shift.execute(b, a);
        } else {
          shift.start(b, a);
          shift.finish();
        }
        ishift.execute(ib, ia);
        auto expected = [&](const auto& g, double fill) {
          std::array<Index, 2> from = {g[0], g[1]};
          from[dim] += amount;
          return from[dim] >= 0 && from[dim] < shape[dim] ? double(value(from[0], from[1])) : fill;
        };
        const std::string what = "dim " + std::to_string(dim) + " amount " +
                                 std::to_string(amount) + " rep " + std::to_string(rep);
        b.host_mirror().for_each_local([&](const auto& g, double v) {
          EXPECT_EQ(v, expected(g, -2.5)) << what << " at " << g[0] << "," << g[1];
        });
        ib.host_mirror().for_each_local([&](const auto& g, int v) {
          EXPECT_EQ(double(v), expected(g, 7.0)) << "int " << what << " at " << g[0] << "," << g[1];
        });
      }
    }
}

// Every section of a Skew goes into one schedule: a rank sends one message
// per peer however many sections it plans.  Rows are blocks of at least 3,
// the amounts per column alternate 1 and 2 (dst[i] = src[i + amount]), so
// every rank sends to the previous one only, in 2 * columns sections.
TEST(Skew, OneMessagePerPeer) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size(), me = comm.rank();
  adlib::ProcessGrid grid(comm, {P, 1});
  const Index rows = 3 * P, columns = 8;
  Array<2> a(grid, {std::make_shared<adlib::BlockRange>(rows, grid.dim(0)),
                    std::make_shared<adlib::CollapsedRange>(columns)});
  Array<2> b(a.layout());
  std::vector<Index> amounts;
  for (Index j = 0; j < columns; ++j) amounts.push_back(1 + j % 2);
  adlib::Skew<double, 2> skew(b, a, amounts, 0, ShiftMode::keep);
  const auto& sends = skew.schedule().plan().send_messages();
  ASSERT_EQ(sends.size(), me > 0 ? 1u : 0u);
  if (!sends.empty()) {
    EXPECT_EQ(sends.front().peer, me - 1);
  }
  a.fill([&](const auto& g) { return double(g[0] * columns + g[1]); });
  b.fill([](const auto&) { return -1.0; });
  skew.execute(b, a);
  b.host_mirror().for_each_local([&](const auto& g, double v) {
    const Index from = g[0] + amounts[g[1]];
    EXPECT_EQ(v, from >= rows ? -1.0 : double(from * columns + g[1])) << g[0] << "," << g[1];
  });
}

using adlib_test::expect_error_everywhere;

class ShiftMisuse : public ::testing::Test {
 protected:
  void SetUp() override { tags_before_ = comm_.live_tags(); }
  void TearDown() override {
    // A failed collective must not keep a tag, and the communicator must
    // still work: a valid shift after the failures.
    EXPECT_EQ(comm_.live_tags(), tags_before_) << "a tag leaked";
    adlib::ProcessGrid grid(comm_, {comm_.size()});
    auto range = std::make_shared<adlib::CyclicRange>(9, grid.dim(0));
    Array<1> a(grid, {range}), b(grid, {range});
    a.fill([](const auto& g) { return double(g[0]); });
    adlib::cshift(b, a, 4, 0);
    int bad = 0;
    b.host_mirror().for_each_local(
        [&](const auto& g, double v) { bad += v != double((g[0] + 4) % 9); });
    EXPECT_EQ(bad, 0) << "the follow-up shift after a failure went wrong";
  }
  adlib::Comm comm_{MPI_COMM_WORLD};
  int tags_before_ = 0;
};

TEST_F(ShiftMisuse, InvalidArguments) {
  adlib::ProcessGrid grid(comm_, {comm_.size()});
  auto block = std::make_shared<adlib::BlockRange>(10, grid.dim(0));
  auto cyclic = std::make_shared<adlib::CyclicRange>(10, grid.dim(0));
  auto whole = std::make_shared<adlib::CollapsedRange>(3);
  Array<2> a(grid, {block, whole}), b(grid, {block, whole}), c(grid, {cyclic, whole});
  using Shift2 = adlib::Shift<double, 2>;
  using Skew2 = adlib::Skew<double, 2>;
  expect_error_everywhere([&] { Shift2(c, a, 1, 0, ShiftMode::keep); }, "same layout");
  expect_error_everywhere(
      [&] {
        adlib::cshift(b, a.section({Triplet{9, 0, -1}, Triplet::all(3)}), 1, 0);
      },
      "same layout");
  expect_error_everywhere([&] { Shift2(b, a, 1, 2, ShiftMode::keep); }, "out of range");
  expect_error_everywhere([&] { Shift2(b, a, 1, -1, ShiftMode::end_off); }, "out of range");
  expect_error_everywhere([&] { Skew2(b, a, {1, 2, 3}, 2, ShiftMode::end_off); }, "out of range");
  expect_error_everywhere([&] { Shift2(a, a, 1, 0, ShiftMode::cyclic); }, "in-place");
  expect_error_everywhere(
      [&] {
        adlib::shift(a.section({Triplet{0, 9, 1}, Triplet::all(3)}), a, 0, 1, ShiftMode::keep);
      },
      "in-place");
  // Amounts: one per position of the other dimensions (3 along dim 0, 10 along dim 1).
  expect_error_everywhere([&] { Skew2(b, a, {1, 2}, 0, ShiftMode::keep); }, "amounts table has 2");
  expect_error_everywhere([&] { Skew2(b, a, {1, 2, 3}, 1, ShiftMode::keep); }, "expected 10");
  EXPECT_NO_THROW(Skew2(b, a, {1, 2, 3}, 0, ShiftMode::keep));
  // A layout of another rank than the schedule's.
  const adlib::ArrayLayout one_d(grid, {block});
  expect_error_everywhere([&] { adlib::Shift<double, 2>(one_d, 1, 0, ShiftMode::keep); }, "rank");
}

TEST_F(ShiftMisuse, ArgumentsThatDifferBetweenRanks) {
  const int P = comm_.size();
  if (P == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const int me = comm_.rank();
  adlib::ProcessGrid grid(comm_, {P});
  auto block = std::make_shared<adlib::BlockRange>(10, grid.dim(0));
  auto whole = std::make_shared<adlib::CollapsedRange>(3);
  Array<2> a(grid, {block, whole}), b(grid, {block, whole});
  using Shift2 = adlib::Shift<double, 2>;
  const std::string needle = "differ between ranks";
  expect_error_everywhere([&] { Shift2(b, a, me == 0 ? 2 : 1, 0, ShiftMode::keep); }, needle);
  expect_error_everywhere([&] { Shift2(b, a, 1, me == P - 1 ? 1 : 0, ShiftMode::keep); }, needle);
  expect_error_everywhere(
      [&] { Shift2(b, a, 1, 0, me == 1 ? ShiftMode::end_off : ShiftMode::keep); }, needle);
  // The fill value is part of the agreement in end_off mode ...
  expect_error_everywhere([&] { Shift2(b, a, 1, 0, ShiftMode::end_off, me == P - 1 ? 1.0 : 2.0); },
                          needle);
  expect_error_everywhere(
      [&] {
        adlib::Skew<double, 2>(b, a, {1, 2, 3}, 0, ShiftMode::end_off, me == 0 ? -1.0 : 0.0);
      },
      needle);
  expect_error_everywhere([&] { adlib::eoshift(b, a, 1, 0, me == 1 ? 5.0 : 4.0); }, needle);
  // ... including a fill of another element type (bytes, not doubles).
  {
    adlib::DistArray<int, 2> ia(grid, {block, whole}), ib(grid, {block, whole});
    expect_error_everywhere([&] { adlib::EOShift<int, 2>(ib, ia, 1, 0, me == 0 ? 7 : 8); }, needle);
  }
  // ... and ignored by the modes that do not use it.
  EXPECT_NO_THROW(Shift2(b, a, 1, 0, ShiftMode::keep, me == 0 ? 1.0 : 2.0));
  expect_error_everywhere(
      [&] {
        adlib::Skew<double, 2>(b, a, {1, me == 1 ? 5 : 2, 3}, 0, ShiftMode::cyclic);
      },
      needle);
  // Another layout on one rank (the same on both arrays, so no local error).
  const adlib::RangePtr mine =
      me == 0 ? adlib::RangePtr(std::make_shared<adlib::CyclicRange>(10, grid.dim(0))) : block;
  Array<2> c(grid, {mine, whole}), d(grid, {mine, whole});
  expect_error_everywhere([&] { adlib::cshift(d, c, 1, 0); }, needle);
}

TEST_F(ShiftMisuse, ExecutingWithArraysOfAnotherLayout) {
  adlib::ProcessGrid grid(comm_, {comm_.size()});
  auto block = std::make_shared<adlib::BlockRange>(12, grid.dim(0));
  auto ghosted = std::make_shared<adlib::BlockRange>(12, grid.dim(0), adlib::Ghosts{1, 1, false});
  Array<1> a(grid, {block}), b(grid, {block}), g(grid, {ghosted}), h(grid, {ghosted});
  adlib::Shift<double, 1> shift(b, a, 1, 0, ShiftMode::end_off);
  expect_error_everywhere([&] { shift.execute(h, g); }, "built for");
  expect_error_everywhere([&] { shift.execute(b, g); }, "same layout");
  expect_error_everywhere([&] { shift.start(a, a); }, "in-place");
  expect_error_everywhere([&] { shift.finish(); }, "without start");
  // Nothing was left in flight: the schedule still works.
  a.fill([](const auto& i) { return double(i[0] + 1); });
  shift.execute(b, a);
  int bad = 0;
  b.host_mirror().for_each_local(
      [&](const auto& i, double v) { bad += v != (i[0] < 11 ? double(i[0] + 2) : 0.0); });
  EXPECT_EQ(bad, 0);
}

}  // namespace

}  // namespace mpi_shift
