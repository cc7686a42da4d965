// SPDX-License-Identifier: BSD-3-Clause
// DimensionReduction (sum, product, maxval, minval, maxloc, minloc, any,
// all, count along one dimension) against a serial reference computed from
// global indices: every Range kind for the reduced and the kept dimensions
// (ghosts included), 2-D and 3-D arrays, every dimension, uneven and empty
// extents, grids smaller than the world, replicated sources, sections,
// masks, every reduction algorithm forced in turn, and misuse.  Integer
// data give exact references.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <adlib/collectives/dimension_reduction.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/ranges/range_spec.hpp>
#include <adlib/runtime/configuration.hpp>
#include "expect_error_everywhere.hpp"
#include "test_layouts.hpp"
#include "world.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_dimension_reductions {

namespace {

using adlib::Index;
using adlib::Triplet;
using Host = Kokkos::HostSpace;

enum class Kind { block, irregular, cyclic, block_cyclic, collapsed, ghost_block };
constexpr int kKinds = 6;
const char* const kKindNames[kKinds] = {"block",        "irregular", "cyclic",
                                        "block-cyclic", "collapsed", "ghost-block"};

// A spec of `kind` and extent n bound to the next free axis (counted by
// `axis`); collapsed when the grid has no axis left.
adlib::RangeSpec spec(Kind kind, Index n, const adlib::ProcessGrid& grid, int& axis) {
  if (kind != Kind::collapsed && axis >= grid.dimensions()) kind = Kind::collapsed;
  if (kind == Kind::collapsed) return adlib::collapsed(n).ghosts(n % 2, 1);
  const int p = grid.extent(axis++);
  switch (kind) {
    case Kind::block:
      return adlib::block(n);
    case Kind::ghost_block:
      return adlib::block(n).ghosts(1, 2);
    case Kind::irregular: {
      // Uneven sizes with zeros: the first coordinate gets nothing.
      std::vector<Index> sizes(static_cast<std::size_t>(p), 0);
      for (Index i = 0; i < n; ++i) sizes[static_cast<std::size_t>((i * 7 + 1) % p)] += 1;
      if (p > 1) {
        sizes[1] += sizes[0];
        sizes[0] = 0;
      }
      return adlib::irregular_block(sizes);
    }
    case Kind::cyclic:
      return adlib::cyclic(n, p > 1 ? 1 : 0);
    case Kind::block_cyclic:
      return adlib::block_cyclic(n, 2);
    default:
      return adlib::collapsed(n);
  }
}

// The data: small integers with ties and zeros, as a function of global indices.
template <int R>
std::int64_t value(const std::array<Index, R>& g) {
  std::int64_t h = 0;
  for (int k = 0; k < R; ++k) h = h * 131 + g[k] * (k == 0 ? 7 : 3);
  return (h % 23 + 23) % 23 - 11;
}
// Factors for products: -1, 1 or 2, so products stay exact.
template <int R>
std::int64_t factor(const std::array<Index, R>& g) {
  const std::int64_t v = value<R>(g);
  return v % 3 == 0 ? -1 : (v % 3 == 1 || v % 3 == -2 ? 1 : 2);
}
// Masks.
template <int R>
bool chosen(const std::array<Index, R>& g) {
  return (value<R>(g) + 11) % 3 != 1;
}

enum class Op { sum, product, maxval, minval, maxloc, minloc, any, all, count };
const Op kOps[] = {Op::sum,    Op::product, Op::maxval, Op::minval, Op::maxloc,
                   Op::minloc, Op::any,     Op::all,    Op::count};
const char* const kOpNames[] = {"sum",    "product", "maxval", "minval", "maxloc",
                                "minloc", "any",     "all",    "count"};

// The serial reference of `op` at result position q of a source with
// section triplets `t` reduced along d.
template <int R>
std::int64_t reference(Op op, const std::array<Triplet, R>& t, int d,
                       const std::array<Index, R - 1>& q, bool masked) {
  std::int64_t acc = 0, best = 0;
  std::int64_t where = -1;
  bool first = true;
  switch (op) {
    case Op::product:
    case Op::all:
      acc = 1;
      break;
    default:
      break;
  }
  for (Index p = 0; p < t[d].count(); ++p) {
    std::array<Index, R> g{};
    for (int k = 0, r = 0; k < R; ++k) {
      const Index position = k == d ? p : q[r++];
      g[k] = t[k].lo + position * t[k].stride;
    }
    if (masked && !chosen<R>(g)) continue;
    const std::int64_t v = value<R>(g);
    switch (op) {
      case Op::sum:
        acc += v;
        break;
      case Op::product:
        acc *= factor<R>(g);
        break;
      case Op::maxval:
      case Op::maxloc:
        if (first || v > best) best = v, where = p;
        break;
      case Op::minval:
      case Op::minloc:
        if (first || v < best) best = v, where = p;
        break;
      case Op::any:
        acc = acc || v != 0;
        break;
      case Op::all:
        acc = acc && v != 0;
        break;
      case Op::count:
        acc += v != 0;
        break;
    }
    first = false;
  }
  if (op == Op::maxval) return first ? std::numeric_limits<std::int64_t>::lowest() : best;
  if (op == Op::minval) return first ? std::numeric_limits<std::int64_t>::max() : best;
  if (op == Op::maxloc || op == Op::minloc) return where;
  return acc;
}

// Every element of `result` this rank holds against the reference; the
// number of wrong elements over every rank.
template <int R, class U>
long long wrong_elements(const adlib::DistArray<U, R - 1>& result, Op op,
                         const std::array<Triplet, R>& t, int d, bool masked, std::string& first) {
  auto host = Kokkos::create_mirror_view_and_copy(Host(), result.local_view());
  adlib::DistArray<U, R - 1, Host> on_host(result, host);
  long long wrong = 0, everywhere = 0;
  on_host.for_each_local([&](const std::array<Index, R - 1>& q, U got) {
    const std::int64_t expected = reference<R>(op, t, d, q, masked);
    if (static_cast<std::int64_t>(got) != expected) {
      if (!wrong++) {
        first = "at (";
        for (int k = 0; k < R - 1; ++k) first += (k ? "," : "") + std::to_string(q[k]);
        first += ") got " + std::to_string(static_cast<std::int64_t>(got)) + " expected " +
                 std::to_string(expected);
      }
    }
  });
  MPI_Allreduce(&wrong, &everywhere, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return everywhere;
}

// Runs every operation of `s` on sections `a` (values) and `f` (factors)
// and checks them; `mask` (optional) for the masked forms.
template <int R>
void check_operations(
    adlib::DimensionReduction<std::int64_t, R, Kokkos::DefaultExecutionSpace::memory_space>& s,
    const adlib::DistArray<std::int64_t, R>& a, const adlib::DistArray<std::int64_t, R>& f,
    const adlib::DistArray<bool, R>* mask, const std::string& what) {
  std::array<Triplet, R> t;
  for (int k = 0; k < R; ++k) t[k] = a.layout().section_triplet(k);
  const int d = s.dimension();
  auto values = s.make_result();
  auto locations = s.template make_result<std::int64_t>();
  auto truths = s.template make_result<bool>();
  for (Op op : kOps) {
    if (mask && (op == Op::any || op == Op::all)) continue;  // no masked any / all (as Fortran)
    SCOPED_TRACE(what + " d=" + std::to_string(d) + " " + kOpNames[static_cast<int>(op)] +
                 (mask ? " masked" : ""));
    std::string first;
    long long wrong = 0;
    for (int repeat = 0; repeat < 2; ++repeat) {
      switch (op) {
        case Op::sum:
          mask ? s.sum(values, a, *mask) : s.sum(values, a);
          wrong = wrong_elements<R>(values, op, t, d, mask, first);
          break;
        case Op::product:
          mask ? s.product(values, f, *mask) : s.product(values, f);
          wrong = wrong_elements<R>(values, op, t, d, mask, first);
          break;
        case Op::maxval:
          mask ? s.maxval(values, a, *mask) : s.maxval(values, a);
          wrong = wrong_elements<R>(values, op, t, d, mask, first);
          break;
        case Op::minval:
          mask ? s.minval(values, a, *mask) : s.minval(values, a);
          wrong = wrong_elements<R>(values, op, t, d, mask, first);
          break;
        case Op::maxloc:
          mask ? s.maxloc(locations, a, *mask) : s.maxloc(locations, a);
          wrong = wrong_elements<R>(locations, op, t, d, mask, first);
          break;
        case Op::minloc:
          mask ? s.minloc(locations, a, *mask) : s.minloc(locations, a);
          wrong = wrong_elements<R>(locations, op, t, d, mask, first);
          break;
        case Op::any:
          s.any(truths, a);
          wrong = wrong_elements<R>(truths, op, t, d, mask, first);
          break;
        case Op::all:
          s.all(truths, a);
          wrong = wrong_elements<R>(truths, op, t, d, mask, first);
          break;
        case Op::count:
          mask ? s.count(locations, a, *mask) : s.count(locations, a);
          wrong = wrong_elements<R>(locations, op, t, d, mask, first);
          break;
      }
      ASSERT_EQ(wrong, 0) << first;
    }
  }
}

// Whole arrays of values and factors over `grid` with the given specs.
template <int R>
struct Arrays {
  adlib::DistArray<std::int64_t, R> a, f;
  adlib::DistArray<bool, R> mask;
  Arrays(const adlib::Group& group, const std::array<adlib::RangeSpec, R>& specs)
      : a(group, specs), f(a.layout()), mask(a.layout()) {
    a.fill([](const auto& g) { return value<R>(g); });
    f.fill([](const auto& g) { return factor<R>(g); });
    mask.fill([](const auto& g) { return chosen<R>(g); });
  }
};

// Grids for 2-D arrays at this world size: P x 1, 1 x P, a squarer one,
// and one smaller than the world (the last rank holds nothing).
std::vector<std::vector<int>> grids_2d() {
  const int P = adlib_test::world_size();
  std::vector<std::vector<int>> g{{P, 1}, {1, P}};
  if (P == 4) g.push_back({2, 2});
  if (P == 6) g.push_back({2, 3});
  if (P > 1) g.push_back({P - 1, 1});
  return g;
}

std::string describe(const std::vector<int>& grid) {
  std::string s = "grid ";
  for (std::size_t i = 0; i < grid.size(); ++i) s += (i ? "x" : "") + std::to_string(grid[i]);
  return s;
}

TEST(DimensionReduction, EveryRangeKindIn2D) {
  const adlib::Comm comm(MPI_COMM_WORLD);
  const auto grids = grids_2d();
  int case_number = 0;
  for (int k0 = 0; k0 < kKinds; ++k0)
    for (int k1 = 0; k1 < kKinds; ++k1) {
      const auto& shape = grids[static_cast<std::size_t>(case_number++) % grids.size()];
      adlib::ProcessGrid grid(comm, shape);
      const Index n0 = 7 + k1 % 3, n1 = 5 + k0 % 2;
      int axis = 0;
      const adlib::RangeSpec s0 = spec(static_cast<Kind>(k0), n0, grid, axis);
      const adlib::RangeSpec s1 = spec(static_cast<Kind>(k1), n1, grid, axis);
      Arrays<2> arrays(grid, {s0, s1});
      const std::string what = describe(shape) + " " + kKindNames[k0] + " x " + kKindNames[k1];
      for (int d = 0; d < 2; ++d) {
        adlib::DimensionReduction s(arrays.a, d);
        check_operations<2>(s, arrays.a, arrays.f, nullptr, what);
      }
    }
}

TEST(DimensionReduction, RandomLayoutsIn3D) {
  const adlib::Comm comm(MPI_COMM_WORLD);
  const int P = adlib_test::world_size();
  std::vector<std::vector<int>> grids{{P, 1, 1}, {1, 1, P}, {1, P, 1}};
  if (P == 4) grids.push_back({2, 1, 2});
  if (P == 6) grids.push_back({1, 2, 3});
  if (P > 2) grids.push_back({1, P - 2, 1});
  adlib_test::Rng rng(2024);
  for (int c = 0; c < 16; ++c) {
    const auto& shape = rng.pick(grids);
    adlib::ProcessGrid grid(comm, shape);
    std::array<adlib::RangeSpec, 3> specs{adlib::collapsed(1), adlib::collapsed(1),
                                          adlib::collapsed(1)};
    std::string what = describe(shape);
    int axis = 0;
    for (int k = 0; k < 3; ++k) {
      const auto kind = static_cast<Kind>(rng.uniform(0, kKinds - 1));
      const Index n = c == 3 && k == 1 ? 0 : rng.uniform(1, 6);  // one case with an empty dimension
      specs[static_cast<std::size_t>(k)] = spec(kind, n, grid, axis);
      what += std::string(k ? " x " : " ") + kKindNames[static_cast<int>(kind)] + "(" +
              std::to_string(n) + ")";
    }
    Arrays<3> arrays(grid, specs);
    for (int d = 0; d < 3; ++d) {
      adlib::DimensionReduction s(arrays.a, d);
      check_operations<3>(s, arrays.a, arrays.f, nullptr, what);
    }
  }
}

TEST(DimensionReduction, ReplicatedSourcesAndRestrictedGroups) {
  const adlib::Comm comm(MPI_COMM_WORLD);
  const int P = adlib_test::world_size();
  // A 2-D grid whose second axis no range uses: the source is replicated over it.
  adlib::ProcessGrid grid(comm, {1, P});
  {
    Arrays<2> arrays(grid, {adlib::block(9).axis(0), adlib::collapsed(4)});
    for (int d = 0; d < 2; ++d) {
      adlib::DimensionReduction s(arrays.a, d);
      check_operations<2>(s, arrays.a, arrays.f, nullptr, "replicated over axis 1");
      EXPECT_FALSE(s.result_layout().replicated_axes().empty());
    }
  }
  // A group restricted to one row of a 2 x (P/2) grid.
  if (P >= 2) {
    adlib::ProcessGrid two_rows(comm, {2, P / 2});
    const adlib::Group row = adlib::Group(two_rows).restrict(0, 1);
    Arrays<2> arrays(row, {adlib::cyclic(6), adlib::collapsed(8)});
    for (int d = 0; d < 2; ++d) {
      adlib::DimensionReduction s(arrays.a, d);
      check_operations<2>(s, arrays.a, arrays.f, nullptr, "restricted group");
    }
  }
}

TEST(DimensionReduction, ResultIsReplicatedOverTheReducedAxisWithTheSameRanges) {
  const adlib::Comm comm(MPI_COMM_WORLD);
  const int P = adlib_test::world_size();
  adlib::ProcessGrid grid(comm, {P, 1});
  adlib::DistArray<double, 2> a(grid, {adlib::block(10), adlib::block(6).ghosts(1)});
  adlib::DimensionReduction s(a, 0);
  EXPECT_EQ(s.communicates(), P > 1);
  const adlib::ArrayLayout& r = s.result_layout();
  ASSERT_EQ(r.rank(), 1);
  EXPECT_EQ(&r.range(0), &a.layout().range(1));  // the same Range: ghosts kept
  EXPECT_EQ(r.replicated_axes(), std::vector<int>{0});
  auto sums = s.make_result();
  a.fill([](const auto& g) { return double(g[0] * 6 + g[1]); });
  s.sum(sums, a);
  auto host = Kokkos::create_mirror_view_and_copy(Host(), sums.local_view());
  adlib::DistArray<double, 1, Host> on_host(sums, host);
  int wrong = 0;
  on_host.for_each_local([&](const std::array<Index, 1>& q, double v) {
    double expected = 0;
    for (Index i = 0; i < 10; ++i) expected += double(i * 6 + q[0]);
    wrong += v != expected;
  });
  EXPECT_EQ(wrong, 0);
  // The one-shot functions.
  auto once = adlib::sum_dim(a, 0);
  EXPECT_EQ(once.layout(), r);
  auto counts = adlib::count_dim(a, 1);
  auto any = adlib::any_dim(a, 1);
  auto all = adlib::all_dim(a, 1);
  auto top = adlib::maxloc_dim(a, 1);
  auto low = adlib::minloc_dim(a, 1);
  auto big = adlib::maxval_dim(a, 1);
  auto small = adlib::minval_dim(a, 0);
  auto prod = adlib::product_dim(a, 0);
  long long wrong_rows = 0;
  auto per_row = [&](const auto& array, auto check) {
    auto view = Kokkos::create_mirror_view_and_copy(Host(), array.local_view());
    using U = typename std::decay_t<decltype(array)>::value_type;
    adlib::DistArray<U, 1, Host> on(array, view);
    on.for_each_local([&](const std::array<Index, 1>& q, U v) { wrong_rows += !check(q[0], v); });
  };
  per_row(counts, [](Index i, std::int64_t v) { return v == (i == 0 ? 5 : 6); });  // a[0][0] = 0
  per_row(any, [](Index, bool v) { return v; });
  per_row(all, [](Index i, bool v) { return v == (i != 0); });
  per_row(top, [](Index, std::int64_t v) { return v == 5; });
  per_row(low, [](Index, std::int64_t v) { return v == 0; });
  per_row(big, [](Index i, double v) { return v == double(i * 6 + 5); });
  per_row(small, [](Index j, double v) { return v == double(j); });
  per_row(prod, [](Index j, double v) { return j == 0 ? v == 0.0 : v > 0.0; });
  EXPECT_EQ(wrong_rows, 0);
}

TEST(DimensionReduction, Sections) {
  const adlib::Comm comm(MPI_COMM_WORLD);
  const int P = adlib_test::world_size();
  const std::vector<std::vector<int>> shapes{{P, 1}, {1, P}};
  for (const auto& shape : shapes) {
    adlib::ProcessGrid grid(comm, shape);
    for (int k = 0; k < kKinds; ++k) {
      int axis = 0;
      const adlib::RangeSpec s0 = spec(static_cast<Kind>(k), 11, grid, axis);
      const adlib::RangeSpec s1 = spec(static_cast<Kind>((k + 3) % kKinds), 9, grid, axis);
      Arrays<2> arrays(grid, {s0, s1});
      const std::array<Triplet, 2> cut{Triplet{1, 10, 3}, Triplet{8, 0, -2}};
      auto a = arrays.a.section(cut), f = arrays.f.section(cut);
      auto mask = arrays.mask.section(cut);
      const std::string what =
          describe(shape) + " section of " + kKindNames[k] + " x " + kKindNames[(k + 3) % kKinds];
      for (int d = 0; d < 2; ++d) {
        adlib::DimensionReduction s(a, d);
        check_operations<2>(s, a, f, nullptr, what);
        check_operations<2>(s, a, f, &mask, what);
      }
    }
  }
}

TEST(DimensionReduction, Masks) {
  const adlib::Comm comm(MPI_COMM_WORLD);
  for (const auto& shape : grids_2d()) {
    adlib::ProcessGrid grid(comm, shape);
    for (int k = 0; k < kKinds; ++k) {
      int axis = 0;
      const adlib::RangeSpec s0 = spec(static_cast<Kind>(k), 8, grid, axis);
      const adlib::RangeSpec s1 = spec(static_cast<Kind>((k + 1) % kKinds), 7, grid, axis);
      Arrays<2> arrays(grid, {s0, s1});
      for (int d = 0; d < 2; ++d) {
        adlib::DimensionReduction s(arrays.a, d);
        check_operations<2>(s, arrays.a, arrays.f, &arrays.mask, describe(shape));
      }
    }
  }
}

TEST(DimensionReduction, EveryReductionAlgorithmGivesTheSameAnswer) {
  const adlib::Comm comm(MPI_COMM_WORLD);
  const int P = adlib_test::world_size();
  adlib::ProcessGrid grid(comm, {P, 1});
  Arrays<2> arrays(grid, {adlib::block_cyclic(13, 2), adlib::block(40).ghosts(1)});
  for (auto algorithm : {adlib::ReductionAlgorithm::automatic, adlib::ReductionAlgorithm::mpi,
                         adlib::ReductionAlgorithm::recursive_doubling,
                         adlib::ReductionAlgorithm::reduce_scatter_allgather,
                         adlib::ReductionAlgorithm::ring, adlib::ReductionAlgorithm::node_aware}) {
    adlib::Configuration config = adlib::Configuration::environment();
    config.reduction = algorithm;
    config.ranks_per_node = 2;
    config.reduction_long_bytes = 64;
    adlib::DimensionReduction s(arrays.a, 0, config);
    check_operations<2>(s, arrays.a, arrays.f, nullptr, adlib::algorithm_name(algorithm));
  }
}

TEST(DimensionReduction, DoublesAlongOuterAndInnerDimensions) {
  // The fast paths with floating point: rows accumulated into the result
  // row (d = 0) and rows reduced with several accumulators (d = 1).
  const adlib::Comm comm(MPI_COMM_WORLD);
  const int P = adlib_test::world_size();
  adlib::ProcessGrid grid(comm, {P, 1});
  const Index n = 37, m = 129;
  adlib::DistArray<double, 2> a(grid, {adlib::block(n), adlib::collapsed(m)});
  a.fill([&](const auto& g) { return double(g[0] * m + g[1]); });
  for (int d = 0; d < 2; ++d) {
    auto sums = adlib::sum_dim(a, d);
    auto host = Kokkos::create_mirror_view_and_copy(Host(), sums.local_view());
    adlib::DistArray<double, 1, Host> on_host(sums, host);
    long long wrong = 0, everywhere = 0;
    on_host.for_each_local([&](const std::array<Index, 1>& q, double v) {
      double expected = 0;
      const Index len = d == 0 ? n : m;
      for (Index i = 0; i < len; ++i)
        expected += d == 0 ? double(i * m + q[0]) : double(q[0] * m + i);
      wrong += v != expected;
    });
    MPI_Allreduce(&wrong, &everywhere, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    EXPECT_EQ(everywhere, 0) << "d=" << d;
  }
}

// NaN along a dimension, numpy's way (np.max(a, axis=d), np.argmax(...)):
// a line holding a NaN reduces to NaN (maxval, minval, sum, product) and
// maxloc / minloc give its first NaN, at every process count and on both
// grid orientations, so on whichever rank the NaN and the line's extremes
// fall.  The maxloc and minloc of a line without NaN are its first extreme.
TEST(DimensionReduction, NaNPropagatesAsInNumpy) {
  const adlib::Comm comm(MPI_COMM_WORLD);
  const int P = adlib_test::world_size();
  const Index n = 11, m = 7;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // NaN at a few places, never in row 4 or column 5; many ties elsewhere.
  const auto is_nan_at = [](Index i, Index j) {
    return i != 4 && j != 5 && (i * 5 + j * 3) % 9 == 0;
  };
  const auto value = [&](Index i, Index j) {
    return is_nan_at(i, j) ? nan : double((i * 7 + j * 11) % 5);
  };
  for (const std::vector<int>& shape : {std::vector<int>{P, 1}, std::vector<int>{1, P}}) {
    adlib::ProcessGrid grid(comm, shape);
    adlib::DistArray<double, 2> a(grid, {adlib::block(n), adlib::cyclic(m)});
    a.fill([&](const auto& g) { return value(g[0], g[1]); });
    for (int d = 0; d < 2; ++d) {
      const Index length = d == 0 ? n : m;
      // The line through result position q: element k along d.
      const auto at = [&](Index q, Index k) { return d == 0 ? value(k, q) : value(q, k); };
      const auto nan_in = [&](Index q, Index k) {
        return d == 0 ? is_nan_at(k, q) : is_nan_at(q, k);
      };
      long long wrong = 0;
      const auto check = [&](const auto& result, auto expected) {
        auto view = Kokkos::create_mirror_view_and_copy(Host(), result.local_view());
        using U = typename std::decay_t<decltype(result)>::value_type;
        adlib::DistArray<U, 1, Host> on(result, view);
        on.for_each_local([&](const std::array<Index, 1>& q, U v) { wrong += !expected(q[0], v); });
      };
      const auto first_nan = [&](Index q) {
        for (Index k = 0; k < length; ++k)
          if (nan_in(q, k)) return k;
        return Index(-1);
      };
      const auto first_extreme = [&](Index q, bool largest) {
        Index best = 0;
        for (Index k = 1; k < length; ++k)
          if (largest ? at(q, k) > at(q, best) : at(q, k) < at(q, best)) best = k;
        return best;
      };
      const auto nan_or = [&](Index q, double v, double otherwise) {
        return first_nan(q) >= 0 ? std::isnan(v) : v == otherwise;
      };
      check(adlib::maxval_dim(a, d),
            [&](Index q, double v) { return nan_or(q, v, at(q, first_extreme(q, true))); });
      check(adlib::minval_dim(a, d),
            [&](Index q, double v) { return nan_or(q, v, at(q, first_extreme(q, false))); });
      check(adlib::sum_dim(a, d), [&](Index q, double v) {
        double total = 0;
        for (Index k = 0; k < length; ++k) total += at(q, k);
        return nan_or(q, v, total);
      });
      check(adlib::product_dim(a, d),
            [&](Index q, double v) { return first_nan(q) >= 0 ? std::isnan(v) : !std::isnan(v); });
      check(adlib::maxloc_dim(a, d), [&](Index q, std::int64_t k) {
        return k == (first_nan(q) >= 0 ? first_nan(q) : first_extreme(q, true));
      });
      check(adlib::minloc_dim(a, d), [&](Index q, std::int64_t k) {
        return k == (first_nan(q) >= 0 ? first_nan(q) : first_extreme(q, false));
      });
      long long everywhere = 0;
      MPI_Allreduce(&wrong, &everywhere, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
      EXPECT_EQ(everywhere, 0) << "grid " << shape[0] << "x" << shape[1] << ", d=" << d;
    }
  }
}

TEST(DimensionReduction, MisuseFailsOnEveryRank) {
  const adlib::Comm comm(MPI_COMM_WORLD);
  const int P = adlib_test::world_size();
  adlib::ProcessGrid grid(comm, {P, 1});
  adlib::DistArray<double, 2> a(grid, {adlib::block(8), adlib::cyclic(5)});
  adlib_test::expect_error_everywhere([&] { adlib::DimensionReduction s(a, 2); }, "dimension 2");
  adlib_test::expect_error_everywhere([&] { adlib::DimensionReduction s(a, -1); }, "dimension -1");
  adlib::DimensionReduction rows(a, 0), columns(a, 1);
  auto wrong = columns.make_result();
  adlib_test::expect_error_everywhere([&] { rows.sum(wrong, a); }, "result has layout");
  auto right = rows.make_result();
  adlib::DistArray<double, 2> other(grid, {adlib::block(8), adlib::block(5)});
  adlib_test::expect_error_everywhere([&] { rows.maxval(right, other); }, "source has layout");
  adlib::DistArray<bool, 2> mask(other.layout());
  adlib_test::expect_error_everywhere([&] { rows.sum(right, a, mask); }, "mask has layout");
  // After the errors the schedule still works.
  a.fill([](const auto&) { return 1.0; });
  rows.sum(right, a);
  auto host = Kokkos::create_mirror_view_and_copy(Host(), right.owned_view());
  for (std::size_t i = 0; i < host.extent(0); ++i) EXPECT_EQ(host(i), 8.0);
}

}  // namespace

}  // namespace mpi_dimension_reductions
