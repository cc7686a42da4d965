// SPDX-License-Identifier: BSD-3-Clause
// UnstructuredRange against brute force and a serial reference: every rank
// draws every coordinate's index list from one seed (a shuffled permutation
// of 0..N-1 dealt unevenly, some coordinates holding nothing; with sharing,
// some indices dealt twice), so it knows who holds what.  Arrays hold
// values computed from global indices; Remap to and from block and cyclic
// layouts, between two unstructured layouts, with a collapsed second
// dimension and replicated over a second grid axis, and Gather / Scatter on
// an unstructured array are checked element by element (gather_all).
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include <adlib/collectives/array_gather.hpp>
#include <adlib/collectives/array_scatter.hpp>
#include <adlib/collectives/gather.hpp>
#include <adlib/collectives/gather_all.hpp>
#include <adlib/collectives/remap.hpp>
#include <adlib/collectives/scatter.hpp>
#include <adlib/collectives/shift.hpp>
#include <adlib/collectives/write_halo.hpp>
#include <adlib/ranges/block_range.hpp>
#include <adlib/ranges/collapsed_range.hpp>
#include <adlib/ranges/dist_array.hpp>
#include <adlib/ranges/range_spec.hpp>
#include <adlib/ranges/unstructured_range.hpp>
#include "expect_error_everywhere.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_unstructured_range {

namespace {

using adlib::Holding;
using adlib::Index;
using adlib::UnstructuredRange;
using adlib_test::Rng;
using Lists = std::vector<std::vector<Index>>;

// Every coordinate's list (coordinates of `count` processes).
Lists deal(Rng& rng, Index n, int count, bool shared) {
  std::vector<Index> order(static_cast<std::size_t>(n));
  for (Index g = 0; g < n; ++g) order[static_cast<std::size_t>(g)] = g;
  for (std::size_t k = order.size(); k > 1; --k)
    std::swap(order[k - 1], order[static_cast<std::size_t>(rng.uniform(0, Index(k) - 1))]);
  std::vector<int> ticket;
  for (int c = 0; c < count; ++c)
    for (Index w = rng.chance(20) ? 0 : rng.uniform(1, 4); w > 0; --w) ticket.push_back(c);
  if (ticket.empty()) ticket.push_back(0);
  Lists lists(static_cast<std::size_t>(count));
  for (const Index g : order) {
    const int c = rng.pick(ticket);
    lists[static_cast<std::size_t>(c)].push_back(g);
    if (shared && rng.chance(25)) {
      const int other = static_cast<int>(rng.uniform(0, count - 1));
      if (other != c) lists[static_cast<std::size_t>(other)].push_back(g);
    }
  }
  return lists;
}

// The lowest coordinate holding g, and its position there.
adlib::Owner brute_force(const Lists& lists, Index g) {
  for (std::size_t c = 0; c < lists.size(); ++c) {
    const auto it = std::find(lists[c].begin(), lists[c].end(), g);
    if (it != lists[c].end()) return {static_cast<int>(c), it - lists[c].begin()};
  }
  return {-1, 0};
}

std::uint64_t spread(const std::string& text) {  // equal on every rank?
  unsigned long long h = adlib::fingerprint_of(text), low = 0, high = 0;
  MPI_Allreduce(&h, &low, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&h, &high, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return high - low;
}

TEST(UnstructuredRange, InquiriesAgainstBruteForce) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  const int me = comm.rank();
  for (int seed = 0; seed < 10; ++seed) {
    Rng rng(static_cast<std::uint64_t>(seed) * 101 + 7);
    const bool shared = seed % 3 == 2;
    const Index n = rng.uniform(0, 120);
    const Lists lists = deal(rng, n, comm.size(), shared);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", n " + std::to_string(n));
    const UnstructuredRange range(n, grid.dim(0), lists[static_cast<std::size_t>(me)],
                                  shared ? Holding::shared : Holding::one_to_one);
    EXPECT_FALSE(range.plannable_locally());
    EXPECT_EQ(range.coordinate(), me);
    EXPECT_EQ(spread(range.describe()), 0u) << range.describe();
    for (int c = 0; c < comm.size(); ++c)
      EXPECT_EQ(range.local_count(c),
                static_cast<Index>(lists[static_cast<std::size_t>(c)].size()));
    const auto& mine = lists[static_cast<std::size_t>(me)];
    for (std::size_t l = 0; l < mine.size(); ++l) {
      EXPECT_EQ(range.global_index(me, static_cast<Index>(l)), mine[l]);
      const adlib::Owner o = range.owner(mine[l]);
      EXPECT_EQ(o.coord, me);
      EXPECT_EQ(o.local, static_cast<Index>(l));
    }
    // Any indices, each rank its own mix: located through the directory.
    std::vector<Index> asked;
    Rng ask(static_cast<std::uint64_t>(seed) * 1000 + static_cast<std::uint64_t>(me));
    for (Index k = n == 0 ? 0 : ask.uniform(0, 50); k > 0; --k)
      asked.push_back(ask.uniform(0, n - 1));
    const std::vector<adlib::Owner> where = range.locate(asked);
    for (std::size_t k = 0; k < asked.size(); ++k) {
      const adlib::Owner want = brute_force(lists, asked[k]);
      ASSERT_EQ(where[k].coord, want.coord) << "index " << asked[k];
      ASSERT_EQ(where[k].local, want.local) << "index " << asked[k];
    }
    // What only the collective locate() can answer is refused locally.
    std::vector<adlib::Block> blocks;
    EXPECT_THROW(range.owned_blocks((me + 1) % comm.size() + (comm.size() == 1),
                                    adlib::Triplet::all(n), blocks),
                 adlib::Error);
    EXPECT_THROW(range.local_map(me), adlib::Error);
  }
}

// Values: element g (row-major over the global shape) holds double(g).
template <int Rank>
double value_at(const std::array<Index, Rank>& g, const std::array<Index, Rank>& shape) {
  Index linear = 0;
  for (int d = 0; d < Rank; ++d)
    linear = linear * shape[static_cast<std::size_t>(d)] + g[static_cast<std::size_t>(d)];
  return static_cast<double>(linear);
}

TEST(UnstructuredRange, RemapToAndFromRegularLayouts) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  const int me = comm.rank();
  for (int seed = 0; seed < 8; ++seed) {
    Rng rng(static_cast<std::uint64_t>(seed) * 31 + 3);
    const Index n = rng.uniform(1, 150);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", n " + std::to_string(n));
    const Lists first = deal(rng, n, comm.size(), false), second = deal(rng, n, comm.size(), false);
    auto u_range =
        std::make_shared<UnstructuredRange>(n, grid.dim(0), first[static_cast<std::size_t>(me)]);
    auto w_range =
        std::make_shared<UnstructuredRange>(n, grid.dim(0), second[static_cast<std::size_t>(me)]);
    adlib::DistArray<double, 1> u(grid, {u_range}), w(grid, {w_range});
    adlib::DistArray<double, 1> x(grid, {adlib::block(n)}), y(grid, {adlib::cyclic(n)});
    u.fill([](auto g) { return double(g[0]); });

    adlib::Remap to_block(x, u);
    x.fill([](auto) { return -1.0; });
    to_block.execute(x, u);
    auto all = adlib::gather_all(x);
    for (Index g = 0; g < n; ++g) ASSERT_EQ(all[static_cast<std::size_t>(g)], double(g)) << "block";

    adlib::Remap(y, x).execute(y, x);
    adlib::Remap from_cyclic(w, y);  // cyclic -> another unstructured layout
    w.fill([](auto) { return -1.0; });
    from_cyclic.execute(w, y);
    w.host_mirror().for_each_local([](auto g, double v) { ASSERT_EQ(v, double(g[0])); });
    all = adlib::gather_all(w);
    for (Index g = 0; g < n; ++g)
      ASSERT_EQ(all[static_cast<std::size_t>(g)], double(g)) << "unstructured";

    adlib::Remap between(u, w);  // unstructured -> unstructured
    u.fill([](auto) { return -1.0; });
    between.execute(u, w);
    u.host_mirror().for_each_local([](auto g, double v) { ASSERT_EQ(v, double(g[0])); });

    // Reverse with add: x[g] += u[g].
    to_block.reverse(u, x);
    u.host_mirror().for_each_local([](auto g, double v) { ASSERT_EQ(v, 2.0 * double(g[0])); });
  }
}

TEST(UnstructuredRange, SectionsAndACollapsedSecondDimension) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  Rng rng(77);
  const Index n = 41, m = 5;
  const Lists lists = deal(rng, n, comm.size(), false);
  auto cells = std::make_shared<UnstructuredRange>(n, grid.dim(0),
                                                   lists[static_cast<std::size_t>(comm.rank())]);
  adlib::DistArray<double, 2> u(grid, {cells, std::make_shared<adlib::CollapsedRange>(m)});
  adlib::DistArray<double, 2> x(grid, {adlib::block(n), adlib::collapsed(m)});
  const std::array<Index, 2> shape{n, m};
  u.fill([&](auto g) { return value_at<2>(g, shape); });
  x.fill([](auto) { return -1.0; });
  adlib::Remap(x, u).execute(x, u);
  x.host_mirror().for_each_local([&](auto g, double v) { ASSERT_EQ(v, value_at<2>(g, shape)); });

  // A strided section of the unstructured array into a smaller block array.
  const auto part = u.section({adlib::Triplet{n - 1, 0, -3}, adlib::Triplet{1, 4, 2}});
  const Index rows = part.layout().extent(0), columns = part.layout().extent(1);
  adlib::DistArray<double, 2> z(grid, {adlib::block(rows), adlib::collapsed(columns)});
  adlib::Remap(z, part).execute(z, part);
  z.host_mirror().for_each_local([&](auto p, double v) {
    const std::array<Index, 2> g{n - 1 - 3 * p[0], 1 + 2 * p[1]};
    ASSERT_EQ(v, value_at<2>(g, shape));
  });
}

// Replicas along a second grid axis pass the same list; one of them
// registers it, and either is read from.
TEST(UnstructuredRange, ReplicatedOverASecondAxis) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (comm.size() % 2 != 0) GTEST_SKIP() << "needs an even number of ranks";
  adlib::ProcessGrid grid(comm, {comm.size() / 2, 2});
  Rng rng(5);
  const Index n = 37;
  const Lists lists = deal(rng, n, comm.size() / 2, false);
  const int coord = grid.coordinate(comm.rank(), 0);
  auto cells =
      std::make_shared<UnstructuredRange>(n, grid.dim(0), lists[static_cast<std::size_t>(coord)]);
  adlib::DistArray<double, 1> u(grid, {cells});  // replicated over axis 1
  adlib::DistArray<double, 1> x(adlib::Group(grid).restrict(1, 1),
                                {adlib::block(n).on(grid.dim(0))});
  u.fill([](auto g) { return double(g[0]); });
  adlib::Remap(x, u).execute(x, u);
  x.host_mirror().for_each_local([](auto g, double v) { ASSERT_EQ(v, double(g[0])); });
  adlib::DistArray<double, 1> back(grid, {cells});
  adlib::Remap(back, x).execute(back, x);  // every replica receives
  back.host_mirror().for_each_local([](auto g, double v) { ASSERT_EQ(v, double(g[0])); });
}

TEST(UnstructuredRange, GatherAndScatterByGlobalIndex) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  Rng rng(11);
  const Index n = 64;
  const Lists lists = deal(rng, n, comm.size(), false);
  auto cells = std::make_shared<UnstructuredRange>(n, grid.dim(0),
                                                   lists[static_cast<std::size_t>(comm.rank())]);
  adlib::DistArray<double, 1> u(grid, {cells});
  u.fill([](auto g) { return double(10 * g[0]); });
  std::vector<Index> wanted;
  Rng mine(static_cast<std::uint64_t>(comm.rank()) + 1);
  for (int k = 0; k < 30; ++k) wanted.push_back(mine.uniform(0, n - 1));
  adlib::Gather fetch(u, wanted);
  // In the array's memory space (a device's in a device build), read
  // through a mirror.
  Kokkos::View<double*> out("out", wanted.size());
  fetch.execute(out, u);
  const auto out_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (std::size_t k = 0; k < wanted.size(); ++k) ASSERT_EQ(out_host(k), double(10 * wanted[k]));

  // Every rank adds 1 at each of its subscripts: u[g] += (times g was named).
  Kokkos::View<double*> ones("ones", wanted.size());
  Kokkos::deep_copy(ones, 1.0);
  adlib::Scatter add(u, wanted, adlib::op::add);
  add.execute(u, ones);
  std::vector<double> named(static_cast<std::size_t>(n), 0.0);
  for (int r = 0; r < comm.size(); ++r) {
    Rng theirs(static_cast<std::uint64_t>(r) + 1);
    for (int k = 0; k < 30; ++k) named[static_cast<std::size_t>(theirs.uniform(0, n - 1))] += 1;
  }
  const auto u_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.local_view());
  adlib::DistArray<double, 1, Kokkos::HostSpace>(u, u_host).for_each_local([&](auto g, double v) {
    ASSERT_EQ(v, double(10 * g[0]) + named[static_cast<std::size_t>(g[0])]);
  });
}

// The array forms: subscripts distributed like a block array name elements
// of an unstructured one (owners located through its directory).
TEST(UnstructuredRange, ArrayGatherAndScatterIntoAnUnstructuredArray) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  Rng rng(23);
  const Index n = 50, m = 37;
  const Lists lists = deal(rng, n, comm.size(), false);
  auto cells = std::make_shared<UnstructuredRange>(n, grid.dim(0),
                                                   lists[static_cast<std::size_t>(comm.rank())]);
  adlib::DistArray<double, 1> u(grid, {cells});
  adlib::DistArray<double, 1> out(grid, {adlib::block(m)}), ones(grid, {adlib::block(m)});
  adlib::DistArray<Index, 1> subscripts(grid, {adlib::block(m)});
  auto subscript = [&](Index i) { return (7 * i + 3) % n; };
  subscripts.fill([&](auto p) { return subscript(p[0]); });
  u.fill([](auto g) { return double(10 * g[0]); });
  ones.fill([](auto) { return 1.0; });

  adlib::ArrayGather<double, 1, 1> fetch(out, u, {subscripts});
  fetch.execute(out, u);
  out.host_mirror().for_each_local(
      [&](auto p, double v) { ASSERT_EQ(v, double(10 * subscript(p[0]))); });

  adlib::ArrayScatter<double, 1, 1> add(u, ones, {subscripts});
  add.execute(u, ones);
  std::vector<double> named(static_cast<std::size_t>(n), 0.0);
  for (Index i = 0; i < m; ++i) named[static_cast<std::size_t>(subscript(i))] += 1;
  const auto u_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.local_view());
  adlib::DistArray<double, 1, Kokkos::HostSpace>(u, u_host).for_each_local([&](auto g, double v) {
    ASSERT_EQ(v, double(10 * g[0]) + named[static_cast<std::size_t>(g[0])]);
  });
}

// ---- misuse: the same adlib::Error on every rank ----

TEST(UnstructuredRangeMisuse, BadListsOnOneRank) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  const int me = comm.rank(), last = comm.size() - 1;
  const Index n = 2 * comm.size();
  const std::vector<Index> fine = {2 * me, 2 * me + 1};
  auto make = [&](std::vector<Index> mine, Holding holding = Holding::one_to_one) {
    UnstructuredRange r(n, grid.dim(0), std::move(mine), holding);
  };
  adlib_test::expect_error_everywhere(
      [&] {
        make(me == last ? std::vector<Index>{2 * me, n + 4} : fine);
      },
      "outside 0..");
  adlib_test::expect_error_everywhere(
      [&] {
        make(me == last ? std::vector<Index>{2 * me, 2 * me} : fine);
      },
      "twice");
  // One-to-one: every index exactly once.
  adlib_test::expect_error_everywhere([&] { make(me == last ? std::vector<Index>{2 * me} : fine); },
                                      "holds each index exactly once");
  if (comm.size() > 1)
    adlib_test::expect_error_everywhere(
        [&] {
          make(me == 0 ? std::vector<Index>{0, 1, 2} : me == 1 ? std::vector<Index>{2} : fine);
        },
        "the id 2 is held by rank 0 and by rank 1");
  // Shared: an index in two lists is fine.
  if (comm.size() > 1) {
    const UnstructuredRange shared(n, grid.dim(0), me == 0 ? std::vector<Index>{0, 1, 2} : fine,
                                   Holding::shared);
    EXPECT_EQ(shared.locate({2})[0].coord, 0);
  }
  const UnstructuredRange range(n, grid.dim(0), fine);
  adlib_test::expect_error_everywhere(
      [&] {
        range.locate(me == last ? std::vector<Index>{1, n} : std::vector<Index>{1});
      },
      "outside 0..");
}

TEST(UnstructuredRangeMisuse, ReplicasWithDifferentLists) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (comm.size() % 2 != 0) GTEST_SKIP() << "needs an even number of ranks";
  adlib::ProcessGrid grid(comm, {comm.size() / 2, 2});
  const int coord = grid.coordinate(comm.rank(), 0), other = grid.coordinate(comm.rank(), 1);
  std::vector<Index> mine = {2 * coord, 2 * coord + 1};
  if (other == 1) std::swap(mine[0], mine[1]);
  adlib_test::expect_error_everywhere([&] { UnstructuredRange r(comm.size(), grid.dim(0), mine); },
                                      "pass different index lists");
}

TEST(UnstructuredRangeMisuse, CollectivesThatEnumerateOtherProcessesRefuse) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  const int me = comm.rank();
  auto cells = std::make_shared<UnstructuredRange>(2 * comm.size(), grid.dim(0),
                                                   std::vector<Index>{2 * me + 1, 2 * me});
  adlib::DistArray<double, 1> u(grid, {cells}), v(grid, {cells});
  adlib_test::expect_error_everywhere([&] { adlib::WriteHalo<double, 1> h(u); }, "unstructured");
  adlib_test::expect_error_everywhere([&] { adlib::CShift<double, 1> s(v, u, 1, 0); },
                                      "unstructured");
}

}  // namespace

}  // namespace mpi_unstructured_range
