// SPDX-License-Identifier: BSD-3-Clause
// ArrayGather and ArrayScatter (the array forms: subscript arrays and a mask
// distributed like the destination of a gather, the source of a scatter)
// against serial references from global positions.  Every configuration (two
// random layouts of ranks 1 to 3 of any Range kind, sections, replication,
// grids smaller than the communicator, irregular blocks with empty parts;
// subscripts anywhere with repeats, mostly held by the requesting rank, or
// mostly remote; random, all-false or no masks) is drawn from a seed every
// rank knows, so each rank computes what every element it holds must be
// without communication.  Element types double, int, std::complex<double>
// and a user struct; combine operations add, max, and replace with distinct
// targets; schedules reused on second arrays.  Misuse (subscripts out of
// range, subscript arrays or masks laid out otherwise, element types or
// operations that differ between ranks, wrong arrays at execution) is an
// adlib::Error on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <array>
#include <complex>
#include <string>
#include <vector>

#include <adlib/collectives/array_gather.hpp>
#include <adlib/collectives/array_scatter.hpp>
#include <adlib/ranges/dist_array.hpp>
#include "expect_error_everywhere.hpp"
#include "sanitizer_scale.hpp"
#include "simulated_ranks.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_array_gather_scatter {

namespace {

using adlib::Index;
using adlib_test::Rng;
using adlib_test::SideSpec;
using Space = Kokkos::DefaultExecutionSpace::memory_space;

template <class T, int R>
using Array = adlib::DistArray<T, R, Space>;

// ---- element types ----------------------------------------------------------

struct Particle {
  int id;
  double mass;
  bool operator==(const Particle& o) const { return id == o.id && mass == o.mass; }
};

template <class T>
struct Make;
template <>
struct Make<double> {
  static double of(Index a) { return double(a % 100003); }
};
template <>
struct Make<int> {
  static int of(Index a) { return static_cast<int>(a % 100003); }
};
template <>
struct Make<std::complex<double>> {
  static std::complex<double> of(Index a) {
    return {double(a % 100003), double((3 * a) % 7) - 3.0};
  }
};
template <>
struct Make<Particle> {
  static Particle of(Index a) { return {static_cast<int>(a % 100003), 0.25 * double(a % 977)}; }
};

// Contents of an array (linear section position p, repetition rep) and the
// value an element not written keeps.
template <class T>
T value_at(Index p, int rep) {
  return Make<T>::of(7 * p + 3 * rep + 1);
}
template <class T>
T untouched(Index p, int rep) {
  return Make<T>::of(5 * p + 11 * rep + 50000);
}

// ---- positions ----------------------------------------------------------------

template <std::size_t R>
Index linear(const std::array<Index, R>& p, const std::vector<Index>& shape) {
  Index l = 0;
  for (std::size_t d = 0; d < R; ++d) l = l * shape[d] + p[d];
  return l;
}
std::vector<Index> unlinear(Index l, const std::vector<Index>& shape) {
  std::vector<Index> p(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    p[d] = l % shape[d];
    l /= shape[d];
  }
  return p;
}
Index element_count(const std::vector<Index>& shape) {
  Index n = 1;
  for (Index e : shape) n *= e;
  return n;
}

// The ranks that hold section position `p` of `spec` (reference model).
std::vector<int> holders(const SideSpec& spec, int P, const std::vector<Index>& p) {
  std::vector<int> out;
  for (int h = 0; h < P; ++h) {
    bool all = spec.holds(h);
    for (int d = 0; all && d < spec.rank(); ++d)
      all = spec.ranges[d].owner(spec.section[d].at(p[d])).coord == spec.coordinate(h, d);
    if (all) out.push_back(h);
  }
  return out;
}

// ---- a configuration ----------------------------------------------------------

enum class Draw { anywhere, local, remote, distinct };

// The aligned side (gather: destination; scatter: source) and the indexed
// side, and, per linear position of the aligned side, its subscripts into
// the indexed side and its mask.
struct Case {
  SideSpec aligned, indexed;
  std::vector<std::vector<Index>> subs;  // subs[d][aligned position]
  std::vector<char> mask;                // empty: no mask
  Draw draw = Draw::anywhere;
};

Case draw_case(Rng& rng, int P, int aligned_rank, int indexed_rank, bool distinct) {
  Case c;
  const Index max_extent = aligned_rank + indexed_rank > 3 ? 5 : 9;
  for (;;) {
    c.aligned =
        adlib_test::random_side(rng, adlib_test::random_shape(rng, aligned_rank, max_extent),
                                adlib_test::random_grid(rng, P, 2), std::nullopt);
    c.indexed =
        adlib_test::random_side(rng, adlib_test::random_shape(rng, indexed_rank, max_extent),
                                adlib_test::random_grid(rng, P, 2), std::nullopt);
    const Index na = element_count(c.aligned.shape()), ni = element_count(c.indexed.shape());
    // Subscripts need somewhere to point; distinct targets need enough of them.
    if (na == 0 || (ni > 0 && (!distinct || ni >= na))) break;
  }
  const std::vector<Index> ashape = c.aligned.shape(), ishape = c.indexed.shape();
  const Index na = element_count(ashape), ni = element_count(ishape);
  c.subs.assign(static_cast<std::size_t>(indexed_rank), std::vector<Index>(na, 0));
  c.draw = distinct ? Draw::distinct : static_cast<Draw>(rng.uniform(0, 2));
  std::vector<Index> order;
  for (Index q = 0; q < ni; ++q) order.push_back(q);
  if (distinct)
    for (Index q = ni - 1; q > 0; --q) std::swap(order[q], order[rng.uniform(0, q)]);
  // Who holds each indexed position: for the local / remote draws.
  std::vector<std::vector<int>> indexed_holders;
  if (c.draw == Draw::local || c.draw == Draw::remote)
    for (Index q = 0; q < ni; ++q)
      indexed_holders.push_back(holders(c.indexed, P, unlinear(q, ishape)));
  for (Index a = 0; a < na; ++a) {
    Index target = distinct ? order[a] : rng.uniform(0, ni - 1);
    if (c.draw == Draw::local || c.draw == Draw::remote) {
      const auto h = holders(c.aligned, P, unlinear(a, ashape));
      std::vector<Index> pool;
      for (Index q = 0; q < ni; ++q) {
        const auto& hq = indexed_holders[q];
        const bool shared = !h.empty() && std::find(hq.begin(), hq.end(), h[0]) != hq.end();
        if (shared == (c.draw == Draw::local)) pool.push_back(q);
      }
      if (!pool.empty()) target = rng.pick(pool);
    }
    const std::vector<Index> p = unlinear(target, ishape);
    for (int d = 0; d < indexed_rank; ++d) c.subs[d][a] = p[d];
  }
  const int masking = static_cast<int>(rng.uniform(0, 3));  // none, random, random, all false
  if (masking > 0) {
    c.mask.assign(na, 0);
    if (masking < 3)
      for (auto& m : c.mask) m = rng.chance(70) ? 1 : 0;
  }
  return c;
}

std::string describe(const Case& c) {
  static const char* draws[] = {"anywhere", "local", "remote", "distinct"};
  return "aligned " + c.aligned.describe() + ", indexed " + c.indexed.describe() + ", subscripts " +
         draws[static_cast<int>(c.draw)] +
         (c.mask.empty()
              ? ", no mask"
              : ", mask of " + std::to_string(std::count(c.mask.begin(), c.mask.end(), 1)));
}

// The arrays of one side: the parent allocation and its section.
template <class T, int R>
struct Side {
  adlib::ProcessGrid grid;
  Array<T, R> parent, section;
};
template <int R>
std::array<adlib::Triplet, R> triplets(const SideSpec& spec) {
  std::array<adlib::Triplet, R> t;
  for (int d = 0; d < R; ++d) t[d] = spec.section[d];
  return t;
}
template <class T, int R>
Side<T, R> make_side(const adlib::Comm& comm, const SideSpec& spec) {
  adlib::ProcessGrid grid(comm, spec.grid_shape);
  Array<T, R> parent(adlib_test::make_parent(spec, grid));
  Array<T, R> section = parent.section(triplets<R>(spec));
  return {grid, parent, section};
}

// f(linear section position, value) for every element this rank holds of `a`.
template <class T, int R, class F>
void for_each_held(const Array<T, R>& a, const std::vector<Index>& shape, F&& f) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.local_view());
  adlib::DistArray<T, R, Kokkos::HostSpace> mirror(a, host);
  mirror.for_each_local([&](const std::array<Index, R>& p, T& v) { f(linear(p, shape), v); });
}

// The subscript arrays and mask of a case, distributed like the aligned side.
template <int A, int I>
struct Subscripts {
  std::vector<Side<Index, A>> sides;
  std::array<Array<Index, A>, I> arrays;
  std::vector<Side<bool, A>> mask;
};
template <int A, int I>
Subscripts<A, I> make_subscripts(const adlib::Comm& comm, const Case& c) {
  const std::vector<Index> shape = c.aligned.shape();
  std::vector<Side<Index, A>> sides;
  for (int d = 0; d < I; ++d) {
    sides.push_back(make_side<Index, A>(comm, c.aligned));
    sides.back().section.fill(
        [&](const std::array<Index, A>& p) { return c.subs[d][linear(p, shape)]; });
  }
  std::array<Array<Index, A>, I> arrays = [&] {
    if constexpr (I == 1)
      return std::array<Array<Index, A>, I>{sides[0].section};
    else if constexpr (I == 2)
      return std::array<Array<Index, A>, I>{sides[0].section, sides[1].section};
    else
      return std::array<Array<Index, A>, I>{sides[0].section, sides[1].section, sides[2].section};
  }();
  std::vector<Side<bool, A>> mask;
  if (!c.mask.empty()) {
    mask.push_back(make_side<bool, A>(comm, c.aligned));
    mask[0].section.fill(
        [&](const std::array<Index, A>& p) { return c.mask[linear(p, shape)] != 0; });
  }
  return {sides, arrays, mask};
}

// ---- gather --------------------------------------------------------------------

template <class T, int D, int S>
void run_gather(const adlib::Comm& comm, const Case& c) {
  const std::vector<Index> dshape = c.aligned.shape(), sshape = c.indexed.shape();
  auto dst = make_side<T, D>(comm, c.aligned);
  auto src = make_side<T, S>(comm, c.indexed);
  auto src2 = make_side<T, S>(comm, c.indexed);
  const auto subs = make_subscripts<D, S>(comm, c);
  const bool masked = !c.mask.empty();
  auto schedule = masked ? std::make_unique<adlib::ArrayGather<T, D, S, Space>>(
                               dst.section, src.section, subs.arrays, subs.mask[0].section)
                         : std::make_unique<adlib::ArrayGather<T, D, S, Space>>(
                               dst.section, src.section, subs.arrays);
  for (int rep = 0; rep < 2; ++rep) {
    auto& from = rep == 0 ? src : src2;
    from.section.fill(
        [&](const std::array<Index, S>& p) { return value_at<T>(linear(p, sshape), rep); });
    dst.section.fill(
        [&](const std::array<Index, D>& p) { return untouched<T>(linear(p, dshape), rep); });
    if (rep == 1 && !masked)
      adlib::gather(dst.section, from.section, subs.arrays);  // the one-shot form
    else
      schedule->execute(dst.section, from.section);
    std::size_t gathered = 0;
    for_each_held<T, D>(dst.section, dshape, [&](Index a, const T& v) {
      const bool on = !masked || c.mask[a];
      T want = untouched<T>(a, rep);
      if (on) {
        std::array<Index, S> p;
        for (int d = 0; d < S; ++d) p[d] = c.subs[d][a];
        want = value_at<T>(linear(p, sshape), rep);
        ++gathered;
      }
      EXPECT_TRUE(v == want) << "rep " << rep << ": destination position " << a
                             << (on ? " (gathered)" : " (masked out)");
    });
    if (rep == 0) {
      EXPECT_EQ(schedule->size(), gathered);
    }
  }
  // The source is only read.
  for_each_held<T, S>(src.section, sshape,
                      [&](Index q, const T& v) { EXPECT_TRUE(v == value_at<T>(q, 0)); });
}

// ---- scatter -------------------------------------------------------------------

template <class T, int D, int S, class Combine>
void run_scatter(const adlib::Comm& comm, const Case& c, Combine combine) {
  // The scatter's source is the case's aligned side, its destination the indexed one.
  const std::vector<Index> sshape = c.aligned.shape(), dshape = c.indexed.shape();
  auto dst = make_side<T, D>(comm, c.indexed);
  auto dst2 = make_side<T, D>(comm, c.indexed);
  auto src = make_side<T, S>(comm, c.aligned);
  const auto subs = make_subscripts<S, D>(comm, c);
  const bool masked = !c.mask.empty();
  auto schedule = masked ? std::make_unique<adlib::ArrayScatter<T, D, S, Space, Combine>>(
                               dst.section, src.section, subs.arrays, subs.mask[0].section, combine)
                         : std::make_unique<adlib::ArrayScatter<T, D, S, Space, Combine>>(
                               dst.section, src.section, subs.arrays, combine);
  const Index ns = element_count(sshape);
  for (int rep = 0; rep < 2; ++rep) {
    auto& into = rep == 0 ? dst : dst2;
    into.section.fill(
        [&](const std::array<Index, D>& p) { return untouched<T>(linear(p, dshape), rep); });
    src.section.fill(
        [&](const std::array<Index, S>& p) { return value_at<T>(linear(p, sshape), rep); });
    if (rep == 1 && masked)
      adlib::scatter(into.section, src.section, subs.arrays, subs.mask[0].section, combine);
    else
      schedule->execute(into.section, src.section);
    // Reference: each source element once (one replica contributes), in
    // source order (the operations tested do not depend on it).
    std::vector<T> want(static_cast<std::size_t>(element_count(dshape)));
    for (Index q = 0; q < static_cast<Index>(want.size()); ++q) want[q] = untouched<T>(q, rep);
    for (Index a = 0; a < ns; ++a) {
      if (masked && !c.mask[a]) continue;
      std::array<Index, D> p;
      for (int d = 0; d < D; ++d) p[d] = c.subs[d][a];
      combine(want[linear(p, dshape)], value_at<T>(a, rep));
    }
    for_each_held<T, D>(into.section, dshape, [&](Index q, const T& v) {
      EXPECT_TRUE(v == want[q]) << "combine kind " << static_cast<int>(Combine::kind) << ", rep "
                                << rep << ": destination position " << q;
    });
  }
}

// ---- the random configurations ---------------------------------------------------

template <class F>
void for_random_cases(std::uint64_t seed, int cases, int aligned_rank, int indexed_rank,
                      bool distinct, F&& run) {
  adlib::Comm comm(MPI_COMM_WORLD);
  Rng rng(seed);
  for (int i = 0; i < cases; ++i) {
    const Case c = draw_case(rng, comm.size(), aligned_rank, indexed_rank, distinct);
    // Under the sanitizer, every fifth case (the same code paths, less time).
    if (!adlib_test::visit_case(static_cast<std::size_t>(i), 5)) continue;
    SCOPED_TRACE("case " + std::to_string(i) + ": " + describe(c));
    run(comm, c);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(ArrayGather, Doubles1DFrom1D) {
  for_random_cases(301, 25, 1, 1, false, [](auto& m, auto& c) { run_gather<double, 1, 1>(m, c); });
}
TEST(ArrayGather, Doubles1DFrom2D) {
  for_random_cases(302, 25, 1, 2, false, [](auto& m, auto& c) { run_gather<double, 1, 2>(m, c); });
}
TEST(ArrayGather, Doubles2DFrom1DAnd2D) {
  for_random_cases(303, 15, 2, 1, false, [](auto& m, auto& c) { run_gather<double, 2, 1>(m, c); });
  for_random_cases(304, 15, 2, 2, false, [](auto& m, auto& c) { run_gather<double, 2, 2>(m, c); });
}
TEST(ArrayGather, From3D) {
  for_random_cases(305, 10, 1, 3, false, [](auto& m, auto& c) { run_gather<double, 1, 3>(m, c); });
}
TEST(ArrayGather, OtherElementTypes) {
  for_random_cases(306, 10, 2, 2, false, [](auto& m, auto& c) {
    run_gather<int, 2, 2>(m, c);
    run_gather<std::complex<double>, 2, 2>(m, c);
    run_gather<Particle, 2, 2>(m, c);
  });
}

TEST(ArrayScatter, AddAndMax) {
  for_random_cases(401, 20, 1, 1, false, [](auto& m, auto& c) {
    run_scatter<double, 1, 1>(m, c, adlib::op::add);
    run_scatter<int, 1, 1>(m, c, adlib::op::max);
  });
  for_random_cases(402, 15, 1, 2, false, [](auto& m, auto& c) {
    run_scatter<double, 2, 1>(m, c, adlib::op::add);
    run_scatter<std::complex<double>, 2, 1>(m, c, adlib::op::add);
  });
  for_random_cases(403, 15, 2, 2, false, [](auto& m, auto& c) {
    run_scatter<double, 2, 2>(m, c, adlib::op::max);
    run_scatter<int, 2, 2>(m, c, adlib::op::add);
  });
  for_random_cases(404, 8, 2, 3, false,
                   [](auto& m, auto& c) { run_scatter<double, 3, 2>(m, c, adlib::op::add); });
}
TEST(ArrayScatter, ReplaceAtDistinctTargets) {
  for_random_cases(405, 15, 1, 2, true, [](auto& m, auto& c) {
    run_scatter<double, 2, 1>(m, c, adlib::op::replace);
    run_scatter<Particle, 2, 1>(m, c, adlib::op::replace);
  });
  for_random_cases(406, 15, 2, 1, true,
                   [](auto& m, auto& c) { run_scatter<int, 1, 2>(m, c, adlib::op::replace); });
}

// A source replicated on every rank contributes once per element, not once
// per replica; a replicated destination receives every contribution in
// every copy.
TEST(ArrayScatter, ReplicatedSourceContributesOnce) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib::ProcessGrid line(comm, {P});
  const Index n = 7, m = 3 * P + 1;
  Array<double, 1> dst(line, {adlib::block(n)});
  Array<double, 1> replicated_dst(line, {adlib::collapsed(n)});
  Array<double, 1> src(line, {adlib::collapsed(m)});
  Array<Index, 1> to(line, {adlib::collapsed(m)});
  src.fill([](const std::array<Index, 1>& p) { return double(p[0] + 1); });
  to.fill([&](const std::array<Index, 1>& p) { return p[0] % n; });
  dst.fill([](const std::array<Index, 1>&) { return 0.0; });
  replicated_dst.fill([](const std::array<Index, 1>&) { return 0.0; });
  adlib::ArrayScatter put(dst, src, std::array{to});
  put.execute(dst, src);
  adlib::scatter(replicated_dst, src, std::array{to});
  std::vector<double> want(n, 0.0);
  for (Index i = 0; i < m; ++i) want[i % n] += double(i + 1);
  for_each_held<double, 1>(dst, {n}, [&](Index q, const double& v) { EXPECT_EQ(v, want[q]) << q; });
  for_each_held<double, 1>(replicated_dst, {n},
                           [&](Index q, const double& v) { EXPECT_EQ(v, want[q]) << q; });
  EXPECT_EQ(put.size(), comm.rank() == 0 ? std::size_t(m) : 0u);
}

// The one-shot gather, deduction guides, and ranks with nothing (a 2-D
// destination on a grid of one rank, elements on the last rank only).
TEST(ArrayGather, RanksWithNothingAndTheOneShotForm) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib::ProcessGrid line(comm, {P});
  adlib::ProcessGrid one(comm, {1});
  std::vector<Index> sizes(P, 0);
  sizes[P - 1] = 6;
  Array<int, 2> src(adlib::ArrayLayout(
      adlib::Group(line), {std::make_shared<adlib::IrregularBlockRange>(sizes, line.dim(0)),
                           std::make_shared<adlib::CollapsedRange>(4)}));
  src.fill([](const std::array<Index, 2>& p) { return int(10 * p[0] + p[1]); });
  Array<int, 2> dst(one, {adlib::block(3), adlib::collapsed(5)});
  Array<Index, 2> i(one, {adlib::block(3), adlib::collapsed(5)});
  Array<Index, 2> j(one, {adlib::block(3), adlib::collapsed(5)});
  Array<bool, 2> mask(one, {adlib::block(3), adlib::collapsed(5)});
  i.fill([](const std::array<Index, 2>& p) { return (p[0] + p[1]) % 6; });
  j.fill([](const std::array<Index, 2>& p) { return (p[0] * p[1]) % 4; });
  mask.fill([](const std::array<Index, 2>& p) { return p[1] != 2; });
  dst.fill([](const std::array<Index, 2>&) { return -1; });
  adlib::gather(dst, src, std::array{i, j}, mask);
  for_each_held<int, 2>(dst, {3, 5}, [&](Index a, const int& v) {
    const Index r = a / 5, c = a % 5;
    EXPECT_EQ(v, c == 2 ? -1 : int(10 * ((r + c) % 6) + (r * c) % 4)) << r << "," << c;
  });
}

// ---- misuse ------------------------------------------------------------------------

TEST(ArrayGatherScatter, SubscriptOutOfRangeIsAnErrorEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  adlib::ProcessGrid line(comm, {P});
  const Index n = 2 * P;
  Array<double, 1> dst(line, {adlib::block(n)});
  Array<double, 2> src(line, {adlib::block(4), adlib::collapsed(10)});
  Array<Index, 1> i(line, {adlib::block(n)}), j(line, {adlib::block(n)});
  i.fill([](const std::array<Index, 1>& p) { return p[0] % 4; });
  j.fill([&](const std::array<Index, 1>& p) { return p[0] == n - 1 ? Index(10) : p[0] % 10; });
  adlib_test::expect_error_everywhere(
      [&] {
        adlib::ArrayGather g(dst, src, std::array{i, j});
      },
      "subscript 10 of dimension 1 at position (" + std::to_string(n - 1) + ") is outside [0, 10)");
  adlib_test::expect_error_everywhere(
      [&] {
        adlib::ArrayScatter s(src, dst, std::array{i, j});
      },
      "outside [0, 10)");
  // Masked out, the bad subscript is not read.
  Array<bool, 1> mask(line, {adlib::block(n)});
  mask.fill([&](const std::array<Index, 1>& p) { return p[0] != n - 1; });
  adlib::ArrayGather fine(dst, src, std::array{i, j}, mask);
  fine.execute(dst, src);
}

TEST(ArrayGatherScatter, MisalignedSubscriptsOrMaskAreAnErrorEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid line(comm, {comm.size()});
  Array<double, 1> dst(line, {adlib::block(9)}), src(line, {adlib::cyclic(9)});
  Array<Index, 1> aligned(line, {adlib::block(9)}), other(line, {adlib::cyclic(9)});
  Array<bool, 1> mask(line, {adlib::cyclic(9)});
  adlib_test::expect_error_everywhere([&] { adlib::ArrayGather g(dst, src, std::array{other}); },
                                      "subscript array 0 has layout");
  adlib_test::expect_error_everywhere(
      [&] { adlib::ArrayGather g(dst, src, std::array{aligned}, mask); }, "the mask has layout");
  adlib_test::expect_error_everywhere([&] { adlib::ArrayScatter s(src, dst, std::array{other}); },
                                      "but the source has");
}

TEST(ArrayGatherScatter, DifferentOperationsOrElementTypesAreAnErrorEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (comm.size() < 2) GTEST_SKIP() << "needs two ranks";
  adlib::ProcessGrid line(comm, {comm.size()});
  Array<double, 1> x(line, {adlib::block(10)});
  Array<float, 1> y(line, {adlib::block(10)});
  Array<Index, 1> i(line, {adlib::block(10)});
  adlib_test::expect_error_everywhere(
      [&] {
        if (comm.rank() == 0)
          adlib::ArrayScatter s(x, x, std::array{i}, adlib::op::max);
        else
          adlib::ArrayScatter s(x, x, std::array{i}, adlib::op::add);
      },
      "differ");
  adlib_test::expect_error_everywhere(
      [&] {
        if (comm.rank() == 0)
          adlib::ArrayGather g(y, y, std::array{i});
        else
          adlib::ArrayGather g(x, x, std::array{i});
      },
      "differ");
}

// The requesting ranks compute offsets in the owners' memory, so an indexed
// array of rank > 1 padded on one rank is refused on every rank.
TEST(ArrayGatherScatter, PaddedIndexedArrayIsAnErrorEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size(), me = comm.rank();
  adlib::ProcessGrid line(comm, {P});
  const adlib::ArrayLayout layout(adlib::Group(line),
                                  {std::make_shared<adlib::BlockRange>(2 * P, line.dim(0)),
                                   std::make_shared<adlib::CollapsedRange>(3)});
  const Index pitch = me == P - 1 ? 5 : 3;  // the last rank pads its rows
  Kokkos::View<double*, Space> memory("memory", static_cast<std::size_t>(2 * pitch));
  auto src = Array<double, 2>::wrap(layout, memory.data(), {pitch, 1});
  Array<double, 1> dst(line, {adlib::block(4)});
  Array<Index, 1> i(line, {adlib::block(4)}), j(line, {adlib::block(4)});
  adlib_test::expect_error_everywhere(
      [&] {
        adlib::ArrayGather g(dst, src, std::array{i, j});
      },
      "padded");
  adlib_test::expect_error_everywhere(
      [&] {
        adlib::ArrayScatter s(src, dst, std::array{i, j});
      },
      "padded");
}

TEST(ArrayGatherScatter, WrongArraysAtExecutionAreRefused) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid line(comm, {comm.size()});
  Array<double, 1> dst(line, {adlib::block(12)}), other(line, {adlib::cyclic(12)});
  Array<double, 2> src(line, {adlib::block(3), adlib::collapsed(4)});
  Array<Index, 1> i(line, {adlib::block(12)}), j(line, {adlib::block(12)});
  i.fill([](const std::array<Index, 1>& p) { return p[0] % 3; });
  j.fill([](const std::array<Index, 1>& p) { return p[0] % 4; });
  adlib::Configuration checked = adlib::Configuration::environment();
  checked.checked = true;
  adlib::ArrayGather fetch(dst, src, std::array{i, j}, checked);
  const bool odd = comm.rank() == comm.size() - 1;
  adlib_test::expect_error_everywhere([&] { fetch.execute(odd ? other : dst, src); },
                                      "destination has layout");
  fetch.execute(dst, src);  // still usable
}

// A destination that shares memory with the source: refused on every rank,
// checked or not (with y = cyclic(10), y[i] = 500 + i and s[i] = 9 - i, an
// in-place gather once left y[0] = 500 and an in-place scatter gave
// y[5] = 1514 at 1, 3 and 5 ranks).  Disjoint sections of one array are
// fine, and the schedule still works with separate arrays.
TEST(ArrayGatherScatter, DestinationSharingMemoryWithSourceIsRefusedEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid line(comm, {comm.size()});
  Array<double, 1> y(line, {adlib::cyclic(10)}), z(line, {adlib::cyclic(10)});
  Array<Index, 1> s(line, {adlib::cyclic(10)});
  y.fill([](const std::array<Index, 1>& p) { return 500.0 + double(p[0]); });
  s.fill([](const std::array<Index, 1>& p) { return 9 - p[0]; });
  for (bool checked : {false, true}) {
    adlib::Configuration config = adlib::Configuration::environment();
    config.checked = checked;
    adlib_test::expect_error_everywhere([&] { adlib::gather(y, y, std::array{s}); },
                                        "share memory");
    adlib_test::expect_error_everywhere([&] { adlib::scatter(y, y, std::array{s}); },
                                        "share memory");
    adlib::ArrayGather fetch(z, y, std::array{s}, config);
    adlib_test::expect_error_everywhere([&] { fetch.execute(y, y); }, "share memory");
    adlib::ArrayScatter<double, 1, 1, Space, adlib::op::Add> put(z, y, std::array{s},
                                                                 adlib::op::add, config);
    adlib_test::expect_error_everywhere([&] { put.execute(y, y); }, "share memory");
    fetch.execute(z, y);
    int wrong = 0;
    z.host_mirror().for_each_local(
        [&](auto g, double v) { wrong += v != 500.0 + double(9 - g[0]); });
    EXPECT_EQ(wrong, 0);
  }
  // Disjoint halves of one array: y[0:5] = y[5 + t[i]] with t[i] = 4 - i.
  Array<double, 1> w(line, {adlib::block(10)});
  w.fill([](const std::array<Index, 1>& p) { return double(p[0]); });
  const Array<double, 1> low = w.section({adlib::Triplet{0, 4, 1}});
  const Array<double, 1> high = w.section({adlib::Triplet{5, 9, 1}});
  Array<Index, 1> subscripts(line, {adlib::block(10)});
  Array<Index, 1> t = subscripts.section({adlib::Triplet{0, 4, 1}});
  t.fill([](const std::array<Index, 1>& p) { return 4 - p[0]; });
  adlib::gather(low, high, std::array{t});
  int wrong = 0;
  w.host_mirror().for_each_local(
      [&](auto g, double v) { wrong += v != (g[0] < 5 ? double(5 + 4 - g[0]) : double(g[0])); });
  EXPECT_EQ(wrong, 0);
}

}  // namespace

}  // namespace mpi_array_gather_scatter
