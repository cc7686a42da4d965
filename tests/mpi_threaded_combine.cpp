// SPDX-License-Identifier: BSD-3-Clause
// Combining where targets repeat, with lists long enough that every index
// kernel splits into one piece per thread (runtime/detail/
// index_list_kernels.hpp): Scatter with add of integers onto a few targets
// (each hit thousands of times by every rank) and onto many (random
// repeats), executed again and again, compared bitwise after every
// execution with the serial reference from global indices; Scatter of
// doubles, whose sums depend on their order, compared bitwise with the
// reference summed in the order the docs state (the owner's own
// contributions in list order, then each other rank's in rank order); and
// halo accumulation of integers onto rows that two neighbours' ghosts
// cover.  CI runs this file with two OpenMP threads per rank
// (scripts/test-sanitizers; scripts/test-openmp) and with four (the
// .threads4 runs, registered where Kokkos has OpenMP); on Serial it checks
// the same results with one thread.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>
#include <vector>

#include <adlib/collectives/scatter.hpp>
#include <adlib/collectives/write_halo.hpp>
#include <adlib/ranges/dist_array.hpp>
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_threaded_combine {

namespace {

using adlib::Index;
using Space = Kokkos::DefaultExecutionSpace::memory_space;

// Every rank's subscripts, the same on every rank (drawn from one seed):
// `per_rank` of them into [0, n), from a `targets`-element subset spread
// over the array (so every owner is hit).
std::vector<std::vector<Index>> subscripts_of_every_rank(int ranks, Index n, Index targets,
                                                         Index per_rank, std::uint64_t seed) {
  adlib_test::Rng rng(seed);
  std::vector<std::vector<Index>> subs(static_cast<std::size_t>(ranks));
  for (auto& list : subs)
    for (Index k = 0; k < per_rank; ++k)
      list.push_back(rng.uniform(0, targets - 1) * (n / targets));
  return subs;
}

long long contribution(int rank, Index k, int execution) {
  return (rank * 1000003LL + k * 7 + execution * 13) % 1009 + 1;
}
long long initial(Index g, int execution) {
  return g * 3 + execution;
}

// Scatter-add of integers, `executions` times, each checked bitwise.
void scatter_integers(Index n, Index targets, Index per_rank, std::uint64_t seed) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank(), P = comm.size();
  adlib::ProcessGrid line(comm, {P});
  adlib::DistArray<long long, 1> x(line, {adlib::block(n)});
  const auto subs = subscripts_of_every_rank(P, n, targets, per_rank, seed);
  adlib::Scatter<long long, Space, adlib::op::Add> assemble(x, subs[me], adlib::op::add);
  const auto owned = x.owned_box();
  // The total every owned element receives, summed from every rank's list.
  std::vector<long long> received(static_cast<std::size_t>(owned.extent(0)));
  for (int execution = 0; execution < 12; ++execution) {
    std::fill(received.begin(), received.end(), 0);
    const Index first = owned.global(0, owned.begin(0));
    for (int r = 0; r < P; ++r)
      for (std::size_t k = 0; k < subs[r].size(); ++k) {
        const Index at = subs[r][k] - first;  // position in the owned block
        if (at >= 0 && at < owned.extent(0))
          received[static_cast<std::size_t>(at)] +=
              contribution(r, static_cast<Index>(k), execution);
      }
    x.fill([&](const std::array<Index, 1>& g) { return initial(g[0], execution); });
    Kokkos::View<long long*, Space> values("values", subs[me].size());
    auto host_values = Kokkos::create_mirror_view(values);
    for (std::size_t k = 0; k < subs[me].size(); ++k)
      host_values(k) = contribution(me, static_cast<Index>(k), execution);
    Kokkos::deep_copy(values, host_values);
    assemble.execute(x, values);
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x.local_view());
    for (Index l = owned.begin(0); l < owned.end(0); ++l) {
      const Index g = owned.global(0, l);
      ASSERT_EQ(host(l),
                initial(g, execution) + received[static_cast<std::size_t>(l - owned.begin(0))])
          << "global " << g << ", execution " << execution;
    }
  }
}

TEST(ThreadedCombine, ScatterAddOntoFewTargetsIsExact) {
  // 37 targets, 60000 contributions per rank: each target about 1600 per rank.
  scatter_integers(100003, 37, 60000, 41);
}

TEST(ThreadedCombine, ScatterAddOntoManyTargetsIsExact) {
  // Random repeats: 60000 contributions per rank into 50000 targets.
  scatter_integers(100003, 50000, 60000, 43);
}

// Doubles: a sum depends on its order, and the docs state it (collectives/
// scatter.hpp): the owner's own contributions first, in list order, then
// each other rank's, in rank order, each in list order.  Values of very
// different magnitudes make any other order show in the last bits.
TEST(ThreadedCombine, FloatingPointScatterAddFollowsTheStatedOrderBitwise) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank(), P = comm.size();
  const Index n = 30011;
  adlib::ProcessGrid line(comm, {P});
  adlib::DistArray<double, 1> x(line, {adlib::block(n)});
  const auto subs = subscripts_of_every_rank(P, n, 101, 50000, 47);
  auto value = [](int rank, std::size_t k) {
    return (k % 3 == 0 ? 1.0e15 : 1.0) * (1.0 + 1.0 / (3.0 + rank + static_cast<double>(k % 17)));
  };
  adlib::Scatter<double, Space, adlib::op::Add> assemble(x, subs[me], adlib::op::add);
  Kokkos::View<double*, Space> values("values", subs[me].size());
  auto host_values = Kokkos::create_mirror_view(values);
  for (std::size_t k = 0; k < subs[me].size(); ++k) host_values(k) = value(me, k);
  Kokkos::deep_copy(values, host_values);
  const auto owned = x.owned_box();
  const Index first = owned.global(0, owned.begin(0));
  std::vector<double> want(static_cast<std::size_t>(owned.extent(0)), 0.5);
  auto add_rank = [&](int r) {
    for (std::size_t k = 0; k < subs[r].size(); ++k) {
      const Index at = subs[r][k] - first;
      if (at >= 0 && at < owned.extent(0)) want[static_cast<std::size_t>(at)] += value(r, k);
    }
  };
  add_rank(me);
  for (int r = 0; r < P; ++r)
    if (r != me) add_rank(r);
  for (int execution = 0; execution < 8; ++execution) {
    x.fill([](const std::array<Index, 1>&) { return 0.5; });
    assemble.execute(x, values);
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x.local_view());
    for (Index l = owned.begin(0); l < owned.end(0); ++l) {
      // Bitwise: the same double, not one within a tolerance.
      ASSERT_EQ(host(l), want[static_cast<std::size_t>(l - owned.begin(0))])
          << "global " << owned.global(0, l) << ", execution " << execution;
    }
  }
}

// Halo accumulation of integers: a periodic 2-D array of rows split over
// the ranks, ghosts two rows deep, every ghost cell holding a value that
// names the rank and the ghost position it sits in; each owned cell must
// gain exactly the values of the ghost cells that copy it.
TEST(ThreadedCombine, HaloAccumulateOfIntegersIsExact) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Index rows = 9 * P + 2, columns = 5000, depth = 2;
  adlib::ProcessGrid grid(comm, {P, 1});
  adlib::DistArray<long long, 2> a(
      grid, {adlib::block(rows).ghosts(depth).periodic(), adlib::block(columns)});
  adlib::WriteHalo halo(a);
  auto ghost_value = [](int rank, Index position, Index column) {
    return rank * 1000003LL + position * 1009 + column;
  };
  // What owned row g gains: the ghost rows of every rank that copy it.
  auto gained = [&](Index g, Index column) {
    long long sum = 0;
    for (int q = 0; q < P; ++q) {
      const auto box = adlib::owned_box<2>(a.layout(), q);
      if (box.extent(0) == 0) continue;
      const Index lo = box.global(0, box.begin(0)), hi = box.global(0, box.end(0) - 1) + 1;
      for (Index p = lo - depth; p < hi + depth; ++p) {
        if (p >= lo && p < hi) continue;
        if ((p % rows + rows) % rows == g) sum += ghost_value(q, p, column);
      }
    }
    return sum;
  };
  const auto owned = a.owned_box();
  const auto all = a.ghost_box();
  for (int execution = 0; execution < 6; ++execution) {
    auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), a.local_view());
    for (Index i = all.begin(0); i < all.end(0); ++i)
      for (Index j = all.begin(1); j < all.end(1); ++j) {
        const bool ghost = i < owned.begin(0) || i >= owned.end(0);
        const Index position = owned.global(0, owned.begin(0)) + (i - owned.begin(0));
        host(i, j) = ghost ? ghost_value(comm.rank(), position, j - all.begin(1))
                           : position * 10 + execution;
      }
    Kokkos::deep_copy(a.local_view(), host);
    halo.accumulate(a, adlib::op::add);
    Kokkos::deep_copy(host, a.local_view());
    for (Index i = owned.begin(0); i < owned.end(0); ++i) {
      const Index g = owned.global(0, i);
      for (Index j = owned.begin(1); j < owned.end(1); j += 997) {
        const Index column = j - all.begin(1);
        ASSERT_EQ(host(i, j), g * 10 + execution + gained(g, column))
            << "row " << g << ", column " << column << ", execution " << execution;
      }
    }
  }
}

}  // namespace

}  // namespace mpi_threaded_combine
