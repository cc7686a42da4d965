// SPDX-License-Identifier: BSD-3-Clause
// Gather and Scatter (vector forms: each rank a list of global subscripts)
// against serial references from global indices.  Every configuration (a
// random 1-D layout of any Range kind, sections, replication, grids smaller
// than the communicator, irregular blocks with empty parts, and every
// rank's subscript list: empty, all held locally, all remote, or anywhere
// with repeats) is drawn from a seed every rank knows, so each rank computes
// what it must gather, and what every element it holds must be after a
// scatter, from the reference model of test_layouts.hpp without
// communication.  Element types double, int, std::complex<double> and a user
// struct; every combine operation; schedules reused on second arrays.
// Misuse (a subscript out of range, combine operations or element types that
// differ between ranks) is an adlib::Error on every rank; the plans' sizes
// are bounded by the peers touched, not by the number of ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <complex>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <adlib/collectives/gather.hpp>
#include <adlib/collectives/index_exchange_plan.hpp>
#include <adlib/collectives/scatter.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/ranges/irregular_block_range.hpp>
#include "expect_error_everywhere.hpp"
#include "simulated_ranks.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_gather_scatter {

namespace {

using adlib::Index;
using adlib_test::Rng;
using adlib_test::SideSpec;
using Space = Kokkos::DefaultExecutionSpace::memory_space;

// ---- element types ----------------------------------------------------------

struct Particle {
  int id;
  double mass;
  bool operator==(const Particle& o) const { return id == o.id && mass == o.mass; }
};

// Exact values of every element type from integers: of(a) for array
// contents and sums, unit(a) for products (powers of two and signs only,
// so any order of multiplication is exact).
template <class T>
struct Make;
template <>
struct Make<double> {
  static double of(Index a) { return double(a % 100003); }
  static double unit(Index a) {
    const double u[] = {1.0, -1.0, 2.0, 0.5};
    return u[a & 3];
  }
};
template <>
struct Make<int> {
  static int of(Index a) { return static_cast<int>(a % 100003); }
  static int unit(Index a) { return (a & 1) ? -1 : 1; }
};
template <>
struct Make<std::complex<double>> {
  static std::complex<double> of(Index a) {
    return {double(a % 100003), double((3 * a) % 7) - 3.0};
  }
  static std::complex<double> unit(Index a) {
    const std::complex<double> u[] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
    return u[a & 3];
  }
};
template <>
struct Make<Particle> {
  static Particle of(Index a) { return {static_cast<int>(a % 100003), 0.25 * double(a % 977)}; }
  static Particle unit(Index a) { return of(a); }
};

// User operations: commutative and associative over these values, so the
// reference may apply contributions in any order; replace is checked in the
// library's documented order.
struct TwicePlus {
  KOKKOS_INLINE_FUNCTION void operator()(double& t, const double& v) const { t = t + 2 * v; }
};
struct MergeParticles {
  KOKKOS_INLINE_FUNCTION void operator()(Particle& t, const Particle& v) const {
    t.id += v.id;
    if (t.mass < v.mass) t.mass = v.mass;
  }
};

// ---- the reference model ------------------------------------------------------

// Ranks holding section position s (the reference's owners and replicas).
std::vector<int> holders(const SideSpec& spec, int P, Index s) {
  const int coord = spec.ranges[0].owner(spec.section[0].at(s)).coord;
  std::vector<int> out;
  for (int h = 0; h < P; ++h)
    if (spec.holds(h) && spec.coordinate(h, 0) == coord) out.push_back(h);
  return out;
}

enum class Draw { empty, local, remote, anywhere };

// Every rank's subscripts, drawn from `rng` (the same lists on every rank).
std::vector<std::vector<Index>> draw_all(Rng& rng, const SideSpec& spec, int P, Index n) {
  std::vector<std::vector<Index>> subs(P);
  for (int r = 0; r < P; ++r) {
    const Draw draw = static_cast<Draw>(rng.uniform(0, 5) < 3 ? 3 : rng.uniform(0, 2));
    if (n == 0 || draw == Draw::empty) continue;
    std::vector<Index> pool;
    for (Index s = 0; s < n; ++s) {
      const auto h = holders(spec, P, s);
      const bool mine = std::find(h.begin(), h.end(), r) != h.end();
      if (draw == Draw::anywhere || (draw == Draw::local) == mine) pool.push_back(s);
    }
    if (pool.empty()) continue;
    const Index m = rng.uniform(1, 2 * n + 3);
    for (Index i = 0; i < m; ++i) subs[r].push_back(rng.pick(pool));
  }
  return subs;
}

// Array contents: element at global (parent) index g, for repetition rep.
template <class T>
T base_value(Index g, int rep) {
  return Make<T>::of(7 * g + 3 * rep + 1);
}
// Rank r's k-th value; products take units.
template <class T, class Combine>
T contribution(int r, Index k, int rep) {
  const Index a = 31 * r + 5 * k + 11 * rep + 2;
  if constexpr (Combine::kind == adlib::op::Kind::product) return Make<T>::unit(a);
  return Make<T>::of(a);
}

template <class T, int R = 1>
using Array = adlib::DistArray<T, R, Space>;

// A host copy of the parent array's elements, checked by global index.
template <class T>
void for_each_held(const Array<T>& parent, const std::function<void(Index, const T&)>& f) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parent.local_view());
  adlib::DistArray<T, 1, Kokkos::HostSpace> mirror(parent, host);
  mirror.for_each_local([&](const std::array<Index, 1>& p, T& v) { f(p[0], v); });
}

struct Realized {
  adlib::ProcessGrid grid;
  adlib::ArrayLayout parent, layout;
};
Realized realize(const adlib::Comm& comm, const SideSpec& spec) {
  adlib::ProcessGrid grid(comm, spec.grid_shape);
  adlib::ArrayLayout parent = adlib_test::make_parent(spec, grid);
  adlib::ArrayLayout layout = parent.section(spec.section);
  return {grid, parent, layout};
}

// ---- gather --------------------------------------------------------------------

template <class T>
void run_gather(const adlib::Comm& comm, const SideSpec& spec,
                const std::vector<std::vector<Index>>& subs) {
  const int me = comm.rank();
  const Realized at = realize(comm, spec);
  const std::vector<Index>& mine = subs[me];
  Array<T> a(at.parent), b(at.parent);
  a.fill([](const std::array<Index, 1>& g) { return base_value<T>(g[0], 0); });
  b.fill([](const std::array<Index, 1>& g) { return base_value<T>(g[0], 1); });
  const Array<T> sa = a.section({spec.section[0]}), sb = b.section({spec.section[0]});

  adlib::Gather fetch(sa, mine);
  EXPECT_EQ(fetch.size(), mine.size());
  std::set<Index> distinct(mine.begin(), mine.end());
  EXPECT_EQ(fetch.repeats(), mine.size() - distinct.size());

  Kokkos::View<T*, Space> out("out", mine.size());
  for (int rep = 0; rep < 2; ++rep) {
    Kokkos::deep_copy(out, Make<T>::of(-5));
    if (rep == 0)
      fetch.execute(out, sa);
    else
      fetch.execute(out.data(), sb);  // the pointer form, on a second array
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    for (std::size_t k = 0; k < mine.size(); ++k)
      ASSERT_TRUE(host(k) == base_value<T>(spec.section[0].at(mine[k]), rep))
          << "rep " << rep << ": out[" << k << "] for subscript " << mine[k];
  }
  // The source is only read.
  for_each_held<T>(a, [&](Index g, const T& v) { EXPECT_TRUE(v == base_value<T>(g, 0)); });

  // One-shot.
  Kokkos::View<T*, Space> again("again", mine.size());
  adlib::gather(again, sa, mine);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), again);
  for (std::size_t k = 0; k < mine.size(); ++k)
    EXPECT_TRUE(host(k) == base_value<T>(spec.section[0].at(mine[k]), 0));
}

// ---- scatter -------------------------------------------------------------------

template <class T, class Combine>
void run_scatter(const adlib::Comm& comm, const SideSpec& spec,
                 const std::vector<std::vector<Index>>& subs, Combine combine) {
  const int me = comm.rank(), P = comm.size();
  const Realized at = realize(comm, spec);
  Array<T> a(at.parent), b(at.parent);
  const Array<T> sa = a.section({spec.section[0]}), sb = b.section({spec.section[0]});
  adlib::Scatter<T, Space, Combine> assemble(sa, subs[me], combine);

  const Index n = spec.section[0].count();
  // Parent index -> section position (or -1).
  auto position_of = [&](Index g) -> Index {
    const adlib::Triplet& t = spec.section[0];
    if ((g - t.lo) % t.stride != 0) return -1;
    const Index s = (g - t.lo) / t.stride;
    return s >= 0 && s < n ? s : -1;
  };
  for (int rep = 0; rep < 2; ++rep) {
    Array<T>& x = rep == 0 ? a : b;
    const Array<T>& sx = rep == 0 ? sa : sb;
    x.fill([&](const std::array<Index, 1>& g) { return base_value<T>(g[0], rep); });
    Kokkos::View<T*, Space> values("values", subs[me].size());
    auto host_values = Kokkos::create_mirror_view(values);
    for (std::size_t k = 0; k < subs[me].size(); ++k)
      host_values(k) = contribution<T, Combine>(me, static_cast<Index>(k), rep);
    Kokkos::deep_copy(values, host_values);
    if (rep == 0)
      assemble.execute(sx, values);
    else
      assemble.execute(sx, static_cast<const T*>(values.data()));

    // The reference.  Commutative operations: every contribution aimed at
    // the element, in any order.  replace: each rank's list is applied in
    // order, the ranks in the order their messages are unpacked, so the
    // element ends up as some contributing rank's last contribution to it.
    for_each_held<T>(x, [&](Index g, const T& v) {
      T want = base_value<T>(g, rep);
      const Index s = position_of(g);
      std::vector<T> last_of_rank;
      if (s >= 0)
        for (int r = 0; r < P; ++r) {
          bool hit = false;
          for (std::size_t k = 0; k < subs[r].size(); ++k)
            if (subs[r][k] == s) {
              combine(want, contribution<T, Combine>(r, Index(k), rep));
              hit = true;
            }
          if (hit) last_of_rank.push_back(want);
        }
      if (Combine::kind == adlib::op::Kind::replace && !last_of_rank.empty()) {
        EXPECT_TRUE(std::find(last_of_rank.begin(), last_of_rank.end(), v) != last_of_rank.end())
            << "replace, rep " << rep << ": element " << g << " (position " << s
            << ") is none of the contributing ranks' last contributions";
        return;
      }
      EXPECT_TRUE(v == want) << "combine kind " << static_cast<int>(Combine::kind) << ", rep "
                             << rep << ": element " << g << " (position " << s << ")";
    });
  }
}

// ---- the random configurations ---------------------------------------------------

template <class F>
void for_random_configs(std::uint64_t seed, int configs, F&& run) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  Rng rng(seed);
  for (int i = 0; i < configs; ++i) {
    const Index n = rng.chance(8) ? 0 : rng.chance(20) ? Index(P) : rng.uniform(1, 30);
    const SideSpec spec = adlib_test::random_side(rng, {n}, adlib_test::random_grid(rng, P, 2),
                                                  adlib_test::kind_at(i));
    const auto subs = draw_all(rng, spec, P, spec.section[0].count());
    SCOPED_TRACE("config " + std::to_string(i) + ": " + spec.describe());
    run(comm, spec, subs);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(Gather, RandomLayoutsDoubles) {
  for_random_configs(101, 60, [](auto& c, auto& s, auto& subs) { run_gather<double>(c, s, subs); });
}
TEST(Gather, RandomLayoutsOtherElementTypes) {
  for_random_configs(102, 20, [](auto& c, auto& s, auto& subs) {
    run_gather<int>(c, s, subs);
    run_gather<std::complex<double>>(c, s, subs);
    run_gather<Particle>(c, s, subs);
  });
}

TEST(Scatter, RandomLayoutsEveryOperationOnDoubles) {
  for_random_configs(201, 30, [](auto& c, auto& s, auto& subs) {
    run_scatter<double>(c, s, subs, adlib::op::add);
    run_scatter<double>(c, s, subs, adlib::op::replace);
    run_scatter<double>(c, s, subs, adlib::op::min);
    run_scatter<double>(c, s, subs, adlib::op::max);
    run_scatter<double>(c, s, subs, adlib::op::product);
    run_scatter<double>(c, s, subs, adlib::op::combine(TwicePlus{}));
  });
}
TEST(Scatter, RandomLayoutsIntegersComplexAndAUserStruct) {
  for_random_configs(202, 20, [](auto& c, auto& s, auto& subs) {
    run_scatter<int>(c, s, subs, adlib::op::add);
    run_scatter<int>(c, s, subs, adlib::op::min);
    run_scatter<int>(c, s, subs, adlib::op::max);
    run_scatter<int>(c, s, subs, adlib::op::product);
    run_scatter<std::complex<double>>(c, s, subs, adlib::op::add);
    run_scatter<std::complex<double>>(c, s, subs, adlib::op::product);
    run_scatter<std::complex<double>>(c, s, subs, adlib::op::replace);
    run_scatter<Particle>(c, s, subs, adlib::op::replace);
    run_scatter<Particle>(c, s, subs, adlib::op::combine(MergeParticles{}));
  });
}

// Ranks that own nothing (empty irregular blocks) and ranks that ask for
// nothing, with the one-shot scatter.
TEST(Scatter, EmptyBlocksAndSilentRanks) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size(), me = comm.rank();
  adlib::ProcessGrid line(comm, {P});
  // Every other block empty; the last rank holds the rest.
  std::vector<Index> sizes(P, 0);
  for (int c = 0; c < P; c += 2) sizes[c] = 3;
  sizes[P - 1] += 2;
  Index n = 0;
  for (Index z : sizes) n += z;
  Array<double> x(adlib::ArrayLayout(
      adlib::Group(line), {std::make_shared<adlib::IrregularBlockRange>(sizes, line.dim(0))}));
  x.fill([](const std::array<Index, 1>& g) { return double(g[0]); });
  // Odd ranks ask for every element twice; even ranks for nothing.
  std::vector<Index> targets;
  if (me % 2 == 1)
    for (Index g = 0; g < 2 * n; ++g) targets.push_back(g % n);
  // The pointer forms take memory of the array's space.
  Kokkos::View<double*, Space> ones("ones", targets.size());
  Kokkos::deep_copy(ones, 1.0);
  adlib::scatter(x, targets, ones.data());
  const int askers = P / 2;
  for_each_held<double>(x, [&](Index g, const double& v) { EXPECT_EQ(v, double(g + 2 * askers)); });
  Kokkos::View<double*, Space> out("out", targets.size());
  Kokkos::deep_copy(out, -1.0);
  adlib::gather(out.data(), x, targets);
  const auto host_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (std::size_t k = 0; k < targets.size(); ++k)
    EXPECT_EQ(host_out(k), double(targets[k] + 2 * askers));
}

// ---- merged index walks on or off: the same values ---------------------------------

// Configuration::merge_index_walks only changes how the index lists are
// walked (one walk per array, or one loop per list; scripts/tune picks the
// faster): Gather and Scatter-add give the serial reference either way, on
// an uneven block layout, with repeated subscripts and a rank asking for
// nothing.
TEST(GatherScatter, MergedIndexWalksOnOrOffGiveTheReference) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size(), me = comm.rank();
  adlib::ProcessGrid line(comm, {P});
  const Index n = 37 * P + 5;
  // Rank r's subscripts, computable on every rank: r = P - 1 asks for none.
  auto subscripts_of = [&](int r) {
    std::vector<Index> s;
    if (r == P - 1 && P > 1) return s;
    Rng rng(1234 + r);
    for (Index k = 0; k < 3 * n; ++k) s.push_back(rng.uniform(0, n - 1));
    return s;
  };
  const std::vector<Index> mine = subscripts_of(me);
  auto value = [](int r, std::size_t k) { return double(1000 * r + Index(k)); };
  std::vector<double> expected_sum(static_cast<std::size_t>(n), 0.0);
  for (int r = 0; r < P; ++r) {
    const std::vector<Index> s = subscripts_of(r);
    for (std::size_t k = 0; k < s.size(); ++k)
      expected_sum[static_cast<std::size_t>(s[k])] += value(r, k);
  }
  for (const bool merged : {true, false}) {
    adlib::Configuration config = adlib::Configuration::environment();
    config.merge_index_walks = merged;
    Array<double> x(line, {adlib::block(n)});
    x.fill([](const std::array<Index, 1>& g) { return 0.5 * double(g[0]); });
    adlib::Gather<double, Space> fetch(x, mine, config);
    Kokkos::View<double*, Space> out("out", mine.size());
    fetch.execute(out.data(), x);
    const auto host_out = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    for (std::size_t k = 0; k < mine.size(); ++k)
      ASSERT_EQ(host_out(k), 0.5 * double(mine[k])) << "merged " << merged << " at " << k;
    Kokkos::View<double*, Space> contributions("contributions", mine.size());
    auto host_contributions = Kokkos::create_mirror_view(contributions);
    for (std::size_t k = 0; k < mine.size(); ++k) host_contributions(k) = value(me, k);
    Kokkos::deep_copy(contributions, host_contributions);
    adlib::Scatter<double, Space, adlib::op::Add> add(x, mine, adlib::op::add, config);
    add.execute(x, contributions.data());
    for_each_held<double>(x, [&](Index g, const double& v) {
      EXPECT_EQ(v, 0.5 * double(g) + expected_sum[static_cast<std::size_t>(g)])
          << "merged " << merged << " at " << g;
    });
  }
}

// ---- plan sizes: peers touched, never P ------------------------------------------

TEST(GatherScatter, PlanSizesAreBoundedByPeersTouched) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size(), me = comm.rank();
  adlib::ProcessGrid line(comm, {P});
  const Index per = 50, n = per * P;
  const adlib::ArrayLayout layout(adlib::Group(line),
                                  {std::make_shared<adlib::BlockRange>(n, line.dim(0))});
  // Each rank asks its own block and its neighbours' (not periodic), with repeats.
  std::vector<Index> subs;
  for (Index i = 0; i < 4 * per; ++i) {
    const Index g = me * per - per / 2 + (i * 13) % (2 * per);
    subs.push_back(std::min(std::max<Index>(g, 0), n - 1));
  }
  std::set<int> owners;
  for (Index g : subs) owners.insert(static_cast<int>(g / per));
  for (auto access : {adlib::RemoteAccess::read, adlib::RemoteAccess::write}) {
    adlib::SparseExchangeStatistics costs;
    const adlib::DataPlan plan =
        adlib::plan_index_exchange(layout, subs, access, "test", {}, 0, &costs);
    EXPECT_EQ(plan.exchange.recv_indices.size(), owners.size());
    EXPECT_LE(plan.exchange.send_indices.size(), 3u);  // itself and its neighbours
    EXPECT_LE(costs.requests, 3u);                     // two peers and the barrier
    EXPECT_EQ(costs.messages_sent, owners.size());
  }
  adlib::Gather<double, Space> fetch(layout, subs);
  EXPECT_LE(fetch.negotiation().requests, 3u);
}

// ---- misuse ------------------------------------------------------------------------

TEST(GatherScatter, SubscriptOutOfRangeOnOneRankIsAnErrorEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid line(comm, {comm.size()});
  Array<double> x(line, {adlib::block(10)});
  std::vector<Index> subs = {0, 9};
  if (comm.rank() == comm.size() - 1) subs.push_back(10);
  adlib_test::expect_error_everywhere([&] { adlib::Gather fetch(x, subs); }, "subscript 10");
  adlib_test::expect_error_everywhere([&] { adlib::Scatter put(x, subs); }, "outside [0, 10)");
  // A valid schedule still works afterwards.
  subs.resize(2);
  adlib::Gather fetch(x, subs);
  Kokkos::View<double*, Space> out("out", 2);
  fetch.execute(out.data(), x);
}

// Executions check their arguments: another layout, or too short an
// output, on one rank is an error on every rank in checked mode.
TEST(GatherScatter, WrongArraysAtExecutionAreRefused) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid line(comm, {comm.size()});
  Array<double> x(line, {adlib::block(12)}), y(line, {adlib::cyclic(12)});
  const std::vector<Index> subs = {0, 5, 11, 5};
  adlib::Configuration checked = adlib::Configuration::environment();
  checked.checked = true;  // whatever the environment: one rank's error is everyone's
  adlib::Gather fetch(x, subs, checked);
  adlib::Scatter assemble(x, subs, adlib::op::add, checked);
  Kokkos::View<double*, Space> out("out", subs.size()), short_out("short", 2);
  const bool odd = comm.rank() == comm.size() - 1;
  adlib_test::expect_error_everywhere([&] { fetch.execute(out, odd ? y : x); }, "layout");
  adlib_test::expect_error_everywhere([&] { fetch.execute(odd ? short_out : out, x); },
                                      "2 elements, 4 needed");
  adlib_test::expect_error_everywhere([&] { assemble.execute(odd ? y : x, out); }, "layout");
  // Still usable.
  fetch.execute(out, x);
  assemble.execute(x, out);
}

TEST(GatherScatter, DifferentOperationsOrElementTypesAreAnErrorEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (comm.size() < 2) GTEST_SKIP() << "needs two ranks";
  adlib::ProcessGrid line(comm, {comm.size()});
  Array<double> x(line, {adlib::block(10)});
  const std::vector<Index> subs = {1, 2, 3};
  adlib_test::expect_error_everywhere(
      [&] {
        if (comm.rank() == 0)
          adlib::Scatter put(x, subs, adlib::op::max);
        else
          adlib::Scatter put(x, subs, adlib::op::add);
      },
      "differ");
  adlib_test::expect_error_everywhere(
      [&] {
        if (comm.rank() == 0)
          adlib::Gather<float, Space> fetch(x.layout(), subs);
        else
          adlib::Gather<double, Space> fetch(x.layout(), subs);
      },
      "differ");
}

}  // namespace

}  // namespace mpi_gather_scatter
