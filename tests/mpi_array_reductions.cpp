// SPDX-License-Identifier: BSD-3-Clause
// ArrayReduction (sum, product, maxval, minval, maxloc, minloc, dot, any,
// all, count, user operations; with and without masks) against serial
// references computed from section positions.  Random layouts of 1 to 3
// dimensions (every Range kind, ghosts, sections with negative strides,
// uneven and empty local blocks, grids smaller than the world, replicated
// arrays) are drawn from a seed every rank knows.  Every element outside
// the section, and every ghost cell, holds a poison value that would show
// in the results if it were counted.  Integer data give exact references;
// floating-point data must give the same bits on every rank and in every
// execution, and every reduction algorithm the same exact integer-valued
// answer.  Misuse is an adlib::Error on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <adlib/collectives/array_reduction.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/ranges/range_spec.hpp>
#include "expect_error_everywhere.hpp"
#include "simulated_ranks.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_array_reductions {

namespace {

using adlib::Index;
using adlib::Triplet;
using adlib_test::Rng;
using adlib_test::SideSpec;
using Space = Kokkos::DefaultExecutionSpace::memory_space;

// Element value at linear section position l: small signed integers, with
// many ties (so maxloc / minloc must pick the first).
std::int64_t value_at(Index l) {
  return (l * 7919 + 13) % 61 - 30;
}
bool mask_at(Index l) {
  return (l * 31 + 7) % 5 < 2;
}
std::int64_t unit_at(Index l) {
  return (l * 13) % 7 < 3 ? -1 : 1;
}

constexpr std::int64_t kPoison = 1000000;

template <class T, int Rank>
using Array = adlib::DistArray<T, Rank, Space>;

// Position tuple of linear index l in a box of `shape` (C order).
template <int Rank>
std::array<Index, Rank> tuple_of(Index l, const std::vector<Index>& shape) {
  std::array<Index, Rank> p{};
  for (int d = Rank - 1; d >= 0; --d) {
    p[d] = l % shape[d];
    l /= shape[d];
  }
  return p;
}
template <int Rank>
Index linear_of(const std::array<Index, Rank>& p, const std::vector<Index>& shape) {
  Index l = 0;
  for (int d = 0; d < Rank; ++d) l = l * shape[d] + p[d];
  return l;
}

// A section of a fresh array of `parent`'s layout: elements f(linear
// position), everything else (other elements, ghosts) `poison`.
template <class T, int Rank, class F>
Array<T, Rank> make_array(const adlib::ArrayLayout& parent, const std::vector<Triplet>& section,
                          const T& poison, F&& f) {
  Array<T, Rank> whole(parent);
  Kokkos::deep_copy(whole.local_view(), poison);
  std::array<Triplet, Rank> t;
  for (int d = 0; d < Rank; ++d) t[d] = section[d];
  Array<T, Rank> s = whole.section(t);
  std::vector<Index> shape = s.layout().shape();
  s.fill([&](const std::array<Index, Rank>& p) { return f(linear_of<Rank>(p, shape)); });
  return s;
}

// The reduction's expected results over a section of `shape`.
template <int Rank>
struct Reference {
  std::int64_t sum = 0, masked_sum = 0, product = 1, dot = 0, count = 0;
  std::int64_t maxval = std::numeric_limits<std::int64_t>::lowest();
  std::int64_t minval = std::numeric_limits<std::int64_t>::max();
  std::int64_t masked_max = std::numeric_limits<std::int64_t>::lowest();
  Index maxloc = -1, minloc = -1, masked_maxloc = -1;
  explicit Reference(Index n) {
    for (Index l = 0; l < n; ++l) {
      const std::int64_t v = value_at(l);
      sum += v;
      product *= unit_at(l);
      dot += v * (v + 1);
      if (v > maxval) maxval = v, maxloc = l;
      if (v < minval) minval = v, minloc = l;
      if (mask_at(l)) {
        ++count;
        masked_sum += v;
        if (v > masked_max) masked_max = v, masked_maxloc = l;
      }
    }
  }
};

template <int Rank>
void expect_location(const adlib::Located<std::int64_t, Rank>& got, Index l,
                     const std::vector<Index>& shape) {
  if (l < 0) {
    for (int d = 0; d < Rank; ++d) EXPECT_EQ(got.location[d], -1);
    return;
  }
  const auto p = tuple_of<Rank>(l, shape);
  for (int d = 0; d < Rank; ++d) EXPECT_EQ(got.location[d], p[d]) << "dimension " << d;
}

// Is `x` the same bits on every rank?
template <class T>
bool same_everywhere(const T& x) {
  static_assert(sizeof(T) % 8 == 0 || sizeof(T) == 8, "compare as words");
  std::vector<unsigned long long> words(sizeof(T) / 8), low(words.size()), high(words.size());
  std::memcpy(words.data(), &x, sizeof(T));
  MPI_Allreduce(words.data(), low.data(), static_cast<int>(words.size()), MPI_UNSIGNED_LONG_LONG,
                MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(words.data(), high.data(), static_cast<int>(words.size()), MPI_UNSIGNED_LONG_LONG,
                MPI_MAX, MPI_COMM_WORLD);
  return low == high;
}

// A user's operation as device code may run it (a named functor: a plain
// host lambda would not compile into a device kernel): the largest absolute
// value.
struct LargestMagnitude {
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t& target, const std::int64_t& value) const {
    const std::int64_t magnitude = value < 0 ? -value : value;
    if (target < magnitude) target = magnitude;
  }
};

template <int Rank>
void run_config(const adlib::Comm& comm, const SideSpec& spec, const adlib::Configuration& config) {
  adlib::ProcessGrid grid(comm, spec.grid_shape);
  const adlib::ArrayLayout parent = adlib_test::make_parent(spec, grid);
  const std::vector<Index> shape = spec.shape();
  Index n = 1;
  for (Index e : shape) n *= e;
  const bool member = parent.holds_data(comm.rank());

  auto a = make_array<std::int64_t, Rank>(parent, spec.section, kPoison, value_at);
  auto b = make_array<std::int64_t, Rank>(parent, spec.section, kPoison,
                                          [](Index l) { return value_at(l) + 1; });
  auto u = make_array<std::int64_t, Rank>(parent, spec.section, std::int64_t(0), unit_at);
  auto m = make_array<bool, Rank>(parent, spec.section, true, mask_at);
  auto x = make_array<double, Rank>(parent, spec.section, 1e300,
                                    [](Index l) { return 0.1 * double(value_at(l)); });
  const Reference<Rank> ref(n);

  adlib::ArrayReduction<std::int64_t, Rank, Space> r(a.layout(), config);
  for (int repeat = 0; repeat < 2; ++repeat) {
    // Outside the group: the identities.
    EXPECT_EQ(r.sum(a), member ? ref.sum : 0);
    EXPECT_EQ(r.sum(a, m), member ? ref.masked_sum : 0);
    EXPECT_EQ(r.product(u), member ? ref.product : 1);
    EXPECT_EQ(r.dot(a, b), member ? ref.dot : 0);
    EXPECT_EQ(r.count(m), member ? ref.count : 0);
    EXPECT_EQ(r.any(m), member && ref.count > 0);
    EXPECT_EQ(r.all(m), !member || ref.count == n);
    // Outside the group every call is still made (collective over the
    // grid's communicator) and gives the identity.
    constexpr std::int64_t lowest = std::numeric_limits<std::int64_t>::lowest();
    constexpr std::int64_t highest = std::numeric_limits<std::int64_t>::max();
    EXPECT_EQ(r.maxval(a), member ? ref.maxval : lowest);
    EXPECT_EQ(r.minval(a), member ? ref.minval : highest);
    EXPECT_EQ(r.maxval(a, m), member ? ref.masked_max : lowest);
    const auto high = r.maxloc(a), low = r.minloc(a), masked = r.maxloc(a, m);
    EXPECT_EQ(high.value, member ? ref.maxval : lowest);
    expect_location<Rank>(high, member ? ref.maxloc : -1, shape);
    EXPECT_EQ(low.value, member ? ref.minval : highest);
    expect_location<Rank>(low, member ? ref.minloc : -1, shape);
    EXPECT_EQ(masked.value, member ? ref.masked_max : lowest);
    expect_location<Rank>(masked, member ? ref.masked_maxloc : -1, shape);
    // A user's operation: the largest absolute value.
    const auto largest = r.reduce(a, adlib::op::combine(LargestMagnitude{}), std::int64_t(0));
    std::int64_t expected = 0;
    for (Index l = 0; l < n && member; ++l)
      expected = std::max<std::int64_t>(expected, std::abs(value_at(l)));
    EXPECT_EQ(largest, expected);
  }
  // Floating point: the same bits everywhere and every time.
  adlib::ArrayReduction<double, Rank, Space> rx(x.layout(), config);
  const double s1 = rx.sum(x), s2 = rx.sum(x);
  EXPECT_EQ(std::memcmp(&s1, &s2, sizeof s1), 0);
  EXPECT_NEAR(s1, member ? 0.1 * double(ref.sum) : 0.0, 1e-9 * double(n + 1));
  // (Ranks outside the group get 0, so compare the members' bits only.)
  const double bits = member ? s1 : 0.0;
  std::uint64_t mine = 0;
  std::memcpy(&mine, &bits, sizeof mine);
  unsigned long long low = 0, high = 0, word = mine;
  MPI_Allreduce(&word, &high, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  word = member ? mine : high;
  MPI_Allreduce(&word, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  EXPECT_TRUE(!member || low == high) << "members disagree on the bits of the sum";
}

void run_any_rank(const adlib::Comm& comm, const SideSpec& spec,
                  const adlib::Configuration& config) {
  switch (spec.rank()) {
    case 1:
      return run_config<1>(comm, spec, config);
    case 2:
      return run_config<2>(comm, spec, config);
    default:
      return run_config<3>(comm, spec, config);
  }
}

std::vector<Index> random_shape(Rng& rng, int rank) {
  std::vector<Index> shape;
  for (int d = 0; d < rank; ++d)
    shape.push_back(rng.chance(6) ? 0 : rng.uniform(1, rank == 1 ? 40 : rank == 2 ? 12 : 6));
  return shape;
}

TEST(ArrayReduction, RandomLayoutsAgainstTheReference) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  Rng rng(20240611);
  const adlib::Configuration config = adlib::Configuration::environment();
  for (int i = 0; i < 90; ++i) {
    const int rank = 1 + i % 3;
    const SideSpec spec =
        adlib_test::random_side(rng, random_shape(rng, rank), adlib_test::random_grid(rng, P, 3),
                                adlib_test::kind_at(i / 3));
    SCOPED_TRACE("config " + std::to_string(i) + ": " + spec.describe());
    run_any_rank(comm, spec, config);
    if (::testing::Test::HasFailure()) return;
  }
}

// NaN, numpy's way: sum, product, maxval and minval of a section holding a
// NaN are NaN; maxloc and minloc give the first NaN (numpy's argmax and
// argmin); a mask hides the NaN it excludes.  The NaNs sit at positions
// drawn from the configuration's number, so each process count and layout
// puts them on other ranks, first or last in a process's block, or nowhere.
template <int Rank>
void run_nan_config(const adlib::Comm& comm, const SideSpec& spec, int seed,
                    const adlib::Configuration& config) {
  adlib::ProcessGrid grid(comm, spec.grid_shape);
  const adlib::ArrayLayout parent = adlib_test::make_parent(spec, grid);
  const std::vector<Index> shape = spec.shape();
  Index n = 1;
  for (Index e : shape) n *= e;
  if (!parent.holds_data(comm.rank())) n = 0;  // outside the group: the identities
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto is_nan_at = [seed](Index l) { return seed % 4 != 0 && (l * 37 + seed) % 13 == 0; };
  const auto value = [&](Index l) { return is_nan_at(l) ? nan : double(value_at(l)); };
  auto x = make_array<double, Rank>(parent, spec.section, 1e300, value);
  auto m = make_array<bool, Rank>(parent, spec.section, true, mask_at);
  // The reference: numpy on the global array (np.max, np.argmax, ...).
  Index first_nan = -1, first_masked_nan = -1, maxloc = -1, minloc = -1;
  double sum = 0, maxval = -std::numeric_limits<double>::infinity(),
         minval = std::numeric_limits<double>::infinity();
  for (Index l = 0; l < n; ++l) {
    const double v = value(l);
    sum += v;
    if (is_nan_at(l) && first_nan < 0) first_nan = l;
    if (is_nan_at(l) && mask_at(l) && first_masked_nan < 0) first_masked_nan = l;
    if (!is_nan_at(l) && v > maxval) maxval = v, maxloc = l;
    if (!is_nan_at(l) && v < minval) minval = v, minloc = l;
  }
  adlib::ArrayReduction<double, Rank, Space> r(x.layout(), config);
  const bool any_nan = first_nan >= 0;
  const double total = r.sum(x);
  EXPECT_TRUE(any_nan ? std::isnan(total) : total == sum) << total;  // small integers: exact
  EXPECT_EQ(std::isnan(r.product(x)), any_nan);
  const double high = r.maxval(x), low = r.minval(x);
  EXPECT_TRUE(any_nan ? std::isnan(high) : high == maxval) << high;
  EXPECT_TRUE(any_nan ? std::isnan(low) : low == minval) << low;
  const auto where_high = r.maxloc(x), where_low = r.minloc(x);
  EXPECT_EQ(std::isnan(where_high.value), any_nan);
  EXPECT_EQ(std::isnan(where_low.value), any_nan);
  adlib::Located<std::int64_t, Rank> high_at, low_at;
  for (int d = 0; d < Rank; ++d) {
    high_at.location[d] = where_high.location[d];
    low_at.location[d] = where_low.location[d];
  }
  expect_location<Rank>(high_at, any_nan ? first_nan : maxloc, shape);
  expect_location<Rank>(low_at, any_nan ? first_nan : minloc, shape);
  const double masked_high = r.maxval(x, m);
  EXPECT_EQ(std::isnan(masked_high), first_masked_nan >= 0) << masked_high;
  const auto masked_where = r.maxloc(x, m);
  if (first_masked_nan >= 0) {
    adlib::Located<std::int64_t, Rank> at;
    for (int d = 0; d < Rank; ++d) at.location[d] = masked_where.location[d];
    expect_location<Rank>(at, first_masked_nan, shape);
  }
}

TEST(ArrayReduction, NaNPropagatesAsInNumpyAtEveryProcessCount) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  Rng rng(20261127);
  for (const auto algorithm :
       {adlib::ReductionAlgorithm::mpi, adlib::ReductionAlgorithm::recursive_doubling,
        adlib::ReductionAlgorithm::ring}) {
    adlib::Configuration config = adlib::Configuration::environment();
    config.reduction = algorithm;
    for (int i = 0; i < 24; ++i) {
      const int rank = 1 + i % 3;
      const SideSpec spec =
          adlib_test::random_side(rng, random_shape(rng, rank), adlib_test::random_grid(rng, P, 3),
                                  adlib_test::kind_at(i / 3));
      SCOPED_TRACE(std::string(adlib::algorithm_name(algorithm)) + " config " + std::to_string(i) +
                   ": " + spec.describe());
      switch (rank) {
        case 1:
          run_nan_config<1>(comm, spec, i, config);
          break;
        case 2:
          run_nan_config<2>(comm, spec, i, config);
          break;
        default:
          run_nan_config<3>(comm, spec, i, config);
      }
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(ArrayReduction, EveryAlgorithmGivesTheSameAnswer) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const adlib::ReductionAlgorithm algorithms[] = {
      adlib::ReductionAlgorithm::automatic,
      adlib::ReductionAlgorithm::mpi,
      adlib::ReductionAlgorithm::recursive_doubling,
      adlib::ReductionAlgorithm::reduce_scatter_allgather,
      adlib::ReductionAlgorithm::ring,
      adlib::ReductionAlgorithm::node_aware};
  for (adlib::ReductionAlgorithm algorithm : algorithms) {
    Rng rng(77);
    adlib::Configuration config = adlib::Configuration::environment();
    config.reduction = algorithm;
    config.ranks_per_node = 2;
    for (int i = 0; i < 6; ++i) {
      const int rank = 1 + i % 3;
      const SideSpec spec = adlib_test::random_side(
          rng, random_shape(rng, rank), adlib_test::random_grid(rng, P, 3), adlib_test::kind_at(i));
      SCOPED_TRACE(std::string(adlib::algorithm_name(algorithm)) + " config " + std::to_string(i) +
                   ": " + spec.describe());
      run_any_rank(comm, spec, config);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

TEST(ArrayReduction, ReplicatedArraysCountEachElementOnce) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  // Replicated over grid axis 0 (2 copies where P is even, P copies
  // otherwise), distributed over axis 1.
  const std::vector<int> shape = P % 2 == 0 ? std::vector<int>{2, P / 2} : std::vector<int>{P, 1};
  adlib::ProcessGrid grid(comm, shape);
  adlib::DistArray<std::int64_t, 1, Space> a(grid, {adlib::block(50).axis(1)});
  a.fill([](const std::array<Index, 1>& p) { return std::int64_t(p[0] + 1); });
  EXPECT_EQ(adlib::sum(a), 50 * 51 / 2);
  EXPECT_EQ(adlib::maxloc(a).location[0], 49);
  adlib::DistArray<bool, 1, Space> m(grid, {adlib::block(50).axis(1)});
  m.fill([](const std::array<Index, 1>& p) { return p[0] % 10 == 0; });
  EXPECT_EQ(adlib::count(m), 5);
  EXPECT_TRUE(adlib::any(m));
  EXPECT_FALSE(adlib::all(m));
}

TEST(ArrayReduction, ComplexDotConjugatesTheFirstArgument) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  using C = std::complex<double>;
  adlib::DistArray<C, 1, Space> a(grid, {adlib::cyclic(37)}), b(grid, {adlib::cyclic(37)});
  a.fill([](const std::array<Index, 1>& p) { return C(double(p[0] % 5), double(p[0] % 3) - 1); });
  b.fill([](const std::array<Index, 1>& p) { return C(double(p[0] % 4) - 2, double(p[0] % 7)); });
  C expected = 0;
  for (Index i = 0; i < 37; ++i)
    expected +=
        std::conj(C(double(i % 5), double(i % 3) - 1)) * C(double(i % 4) - 2, double(i % 7));
  const C got = adlib::dot(a, b);
  EXPECT_EQ(got, expected);
  EXPECT_TRUE(same_everywhere(got));
  C total = 0;
  for (Index i = 0; i < 37; ++i) total += C(double(i % 5), double(i % 3) - 1);
  EXPECT_EQ(adlib::sum(a), total);
}

TEST(ArrayReduction, MisuseIsAnErrorOnEveryRank) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib::ProcessGrid grid(comm, {P});
  adlib::DistArray<double, 1, Space> a(grid, {adlib::block(20)}), c(grid, {adlib::cyclic(20)});
  adlib::DistArray<bool, 1, Space> mc(grid, {adlib::cyclic(20)});
  adlib::Configuration checked = adlib::Configuration::environment();
  checked.checked = true;
  adlib::ArrayReduction<double, 1, Space> r(a.layout(), checked);
  adlib_test::expect_error_everywhere([&] { r.sum(c); }, "the ArrayReduction was built for");
  adlib_test::expect_error_everywhere([&] { r.sum(a, mc); }, "the mask has layout");
  adlib_test::expect_error_everywhere([&] { r.dot(a, c); }, "the second array has layout");
  // Only one rank passes the wrong array: the others fail with it.
  adlib_test::expect_error_everywhere([&] { r.maxval(comm.rank() == 0 ? c : a); },
                                      "the ArrayReduction was built for");
  adlib_test::expect_error_everywhere(
      [&] { adlib::ArrayReduction<double, 2, Space> wrong(a.layout()); }, "layout of rank 1");
  EXPECT_DOUBLE_EQ(r.sum(a), 0.0);  // still usable
}

}  // namespace

}  // namespace mpi_array_reductions
