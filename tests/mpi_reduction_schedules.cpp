// SPDX-License-Identifier: BSD-3-Clause
// RedxSchedule, Redx2Schedule, BlockRedxSchedule, TreeSchedule and
// BlockTreeSchedule against serial references computed from the member
// numbers, with every algorithm forced in turn (and the automatic choice),
// over the whole world, over a subset of it and over simulated nodes of 2
// and 3 ranks.  Integer data give exact references; floating-point data
// must give the same bits on every member and in every execution.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/schedules/block_redx_schedule.hpp>
#include <adlib/schedules/redx_schedule.hpp>
#include <adlib/schedules/tree_schedule.hpp>
#include "expect_error_everywhere.hpp"
#include "world.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_reduction_schedules {

namespace {

using adlib::BroadcastAlgorithm;
using adlib::Comm;
using adlib::Configuration;
using adlib::ReductionAlgorithm;
using Host = Kokkos::HostSpace;

const ReductionAlgorithm kReductions[] = {ReductionAlgorithm::automatic,
                                          ReductionAlgorithm::mpi,
                                          ReductionAlgorithm::recursive_doubling,
                                          ReductionAlgorithm::reduce_scatter_allgather,
                                          ReductionAlgorithm::ring,
                                          ReductionAlgorithm::node_aware};
const BroadcastAlgorithm kBroadcasts[] = {BroadcastAlgorithm::automatic, BroadcastAlgorithm::mpi,
                                          BroadcastAlgorithm::binomial_tree,
                                          BroadcastAlgorithm::node_aware};

// The environment's configuration (staging as the run asks) with one
// algorithm forced and nodes of `ranks_per_node` ranks.
Configuration forcing(ReductionAlgorithm reduction, std::int64_t ranks_per_node) {
  Configuration c = Configuration::environment();
  c.reduction = reduction;
  c.ranks_per_node = ranks_per_node;
  c.reduction_long_bytes = 64;  // so the automatic choice takes every branch
  c.reduction_split_bytes = 4096;
  // Messages cut into pieces of 125 elements of 8 bytes (uneven last
  // pieces at the counts below), except on the 2-rank nodes, which keep
  // whole messages: both paths run.
  c.collective_piece_bytes = ranks_per_node == 2 ? 0 : 1000;
  return c;
}
Configuration forcing(BroadcastAlgorithm broadcast, std::int64_t ranks_per_node) {
  Configuration c = Configuration::environment();
  c.broadcast = broadcast;
  c.ranks_per_node = ranks_per_node;
  return c;
}

// The communicators the tests run over: the world, and (at 3 ranks or
// more) the even ranks, reversed, so member numbers differ from world ranks.
std::vector<Comm> member_sets() {
  std::vector<Comm> sets{Comm(MPI_COMM_WORLD)};
  const int P = adlib_test::world_size();
  if (P >= 3) {
    std::vector<int> evens;
    for (int r = (P - 1) / 2 * 2; r >= 0; r -= 2) evens.push_back(r);
    if (adlib_test::world_rank() % 2 == 0) sets.push_back(sets[0].subset(evens));
  }
  return sets;
}

TEST(RedxSchedule, SumsMinimaMaximaAndProductsOfIntegers) {
  for (const Comm& members : member_sets())
    for (ReductionAlgorithm algorithm : kReductions)
      for (std::int64_t per_node : {0, 2, 3})
        for (std::int64_t count : {0, 1, 7, 1000}) {
          SCOPED_TRACE(std::string(adlib::algorithm_name(algorithm)) + " count " +
                       std::to_string(count) + " nodes of " + std::to_string(per_node));
          const Configuration config = forcing(algorithm, per_node);
          const int P = members.size(), me = members.rank();
          auto value = [](int m, std::int64_t k) { return std::int64_t(m * 1000 + (k * 7) % 11); };
          Kokkos::View<std::int64_t*, Host> x("x", count), low("low", count), high("high", count);
          adlib::RedxSchedule<std::int64_t, adlib::op::Add, Host> sum(members, count,
                                                                      adlib::op::add, config);
          adlib::RedxSchedule<std::int64_t, adlib::op::Min, Host> min(members, count,
                                                                      adlib::op::min, config);
          adlib::RedxSchedule<std::int64_t, adlib::op::Max, Host> max(members, count,
                                                                      adlib::op::max, config);
          for (int repeat = 0; repeat < 2; ++repeat) {
            for (std::int64_t k = 0; k < count; ++k) x(k) = low(k) = high(k) = value(me, k);
            sum.execute(x);
            min.execute(low);
            max.execute(high);
            for (std::int64_t k = 0; k < count; ++k) {
              std::int64_t expected = 0;
              for (int m = 0; m < P; ++m) expected += value(m, k);
              ASSERT_EQ(x(k), expected) << "element " << k;
              ASSERT_EQ(low(k), value(0, k));
              ASSERT_EQ(high(k), value(P - 1, k));
            }
          }
          // Products of small numbers stay exact.
          Kokkos::View<std::int64_t*, Host> p("p", count);
          for (std::int64_t k = 0; k < count; ++k) p(k) = 1 + (me + k) % 3;
          adlib::RedxSchedule<std::int64_t, adlib::op::Product, Host>(members, count,
                                                                      adlib::op::product, config)
              .execute(p);
          for (std::int64_t k = 0; k < count; ++k) {
            std::int64_t expected = 1;
            for (int m = 0; m < P; ++m) expected *= 1 + (m + k) % 3;
            ASSERT_EQ(p(k), expected);
          }
        }
}

TEST(RedxSchedule, OutOfPlaceLeavesTheInputAlone) {
  for (const Comm& members : member_sets())
    for (ReductionAlgorithm algorithm : kReductions)
      // 70001 elements: half a MiB, messages in MPI's rendezvous protocol;
      // whole, and in pieces of 32 KiB.
      for (std::int64_t count : {0, 1, 5, 7, 1000, 70001})
        for (std::int64_t piece_bytes : {0, 32768}) {
          const int P = members.size(), me = members.rank();
          Configuration config = forcing(algorithm, 2);
          config.collective_piece_bytes = piece_bytes;
          adlib::RedxSchedule<std::int64_t, adlib::op::Add, Host> sum(members, count,
                                                                      adlib::op::add, config);
          std::vector<std::int64_t> in(count), out(count, -99);
          for (std::int64_t k = 0; k < count; ++k) in[k] = me * 31 + k;
          sum.execute(in.data(), out.data());
          std::vector<std::int64_t> again(in);
          sum.execute(again.data());  // in place too
          for (std::int64_t k = 0; k < count; ++k) {
            ASSERT_EQ(in[k], me * 31 + k)
                << adlib::algorithm_name(algorithm) << " changed its input";
            ASSERT_EQ(out[k], 31 * P * (P - 1) / 2 + P * k)
                << adlib::algorithm_name(algorithm) << " count " << count << " element " << k;
            ASSERT_EQ(again[k], out[k]) << "in place differs from out of place";
          }
        }
}

TEST(RedxSchedule, FloatingPointGivesTheSameBitsEverywhereAndEveryTime) {
  const Comm world(MPI_COMM_WORLD);
  for (ReductionAlgorithm algorithm : kReductions) {
    const std::int64_t count = 513;
    adlib::RedxSchedule<double, adlib::op::Add, Host> sum(world, count, adlib::op::add,
                                                          forcing(algorithm, 2));
    std::vector<double> first;
    for (int repeat = 0; repeat < 3; ++repeat) {
      Kokkos::View<double*, Host> x("x", count);
      for (std::int64_t k = 0; k < count; ++k)
        x(k) = 1.0 / (3.0 + world.rank() * 7.0 + static_cast<double>(k)) * (k % 2 ? 1e10 : 1e-3);
      sum.execute(x);
      std::vector<double> mine(x.data(), x.data() + count);
      if (repeat == 0) first = mine;
      ASSERT_EQ(std::memcmp(first.data(), mine.data(), count * sizeof(double)), 0)
          << adlib::algorithm_name(algorithm) << ": run " << repeat << " differs from run 0";
      // Rank 0's bits everywhere.
      std::vector<double> root = mine;
      MPI_Bcast(root.data(), static_cast<int>(count), MPI_DOUBLE, 0, MPI_COMM_WORLD);
      ASSERT_EQ(std::memcmp(root.data(), mine.data(), count * sizeof(double)), 0)
          << adlib::algorithm_name(algorithm) << ": members hold different bits";
    }
  }
}

TEST(RedxSchedule, ComplexUserOperationsAndScalars) {
  const Comm world(MPI_COMM_WORLD);
  const int P = world.size(), me = world.rank();
  for (ReductionAlgorithm algorithm : kReductions) {
    const Configuration config = forcing(algorithm, 2);
    using C = std::complex<double>;
    Kokkos::View<C*, Host> z("z", 5);
    for (int k = 0; k < 5; ++k) z(k) = C(me + k, -me);
    adlib::RedxSchedule<C, adlib::op::Add, Host>(world, 5, adlib::op::add, config).execute(z);
    for (int k = 0; k < 5; ++k) {
      C expected = 0;
      for (int m = 0; m < P; ++m) expected += C(m + k, -m);
      ASSERT_EQ(z(k), expected);
    }
    // A user operation: the bitwise or, through op::combine.
    auto bitwise_or = adlib::op::combine([](unsigned& t, const unsigned& v) { t |= v; });
    adlib::RedxSchedule<unsigned, decltype(bitwise_or), Host> any_bit(world, 1, bitwise_or, config);
    EXPECT_EQ(any_bit.reduce(1u << me), (1u << P) - 1);
    // Scalars of one element from and to the host.
    adlib::RedxSchedule<double, adlib::op::Max, Host> top(world, 1, adlib::op::max, config);
    EXPECT_EQ(top.reduce(me * 0.5), (P - 1) * 0.5);
    adlib::RedxSchedule<int, adlib::op::LogicalAnd, Host> all(world, 1, adlib::op::logical_and,
                                                              config);
    EXPECT_EQ(all.reduce(me != 1), P == 1 ? 1 : 0);
  }
}

TEST(Redx2Schedule, KeepsTheExtremeValueAndItsFirstLocation) {
  const Comm world(MPI_COMM_WORLD);
  const int P = world.size(), me = world.rank();
  for (ReductionAlgorithm algorithm : kReductions) {
    const Configuration config = forcing(algorithm, 2);
    // Every member's largest value is 7, at (me, 3 - me): the first is member 0's.
    adlib::Redx2Schedule<double, 2, adlib::op::MaxLocation, Host> where_max(
        world, 1, adlib::op::max_location, config);
    adlib::Located<double, 2> mine{7.0, {me, 3 - me}};
    adlib::Located<double, 2> best = where_max.reduce(mine);
    EXPECT_EQ(best.value, 7.0);
    EXPECT_EQ(best.location[0], 0);
    EXPECT_EQ(best.location[1], 3);
    // The smallest value is the last member's.
    adlib::Redx2Schedule<double, 2, adlib::op::MinLocation, Host> where_min(
        world, 1, adlib::op::min_location, config);
    adlib::Located<double, 2> low = where_min.reduce({-1.0 * me, {me, me}});
    EXPECT_EQ(low.value, -1.0 * (P - 1));
    EXPECT_EQ(low.location[0], P - 1);
  }
}

// NaN propagates through MAX and MIN (numpy's maximum / minimum), whatever
// the algorithm and whichever members hold it, and MAXLOC / MINLOC keep the
// first NaN: MPI_MAX of a NaN depends on the order of combination, so the
// reductions of floating point use adlib's own operation.
TEST(RedxSchedule, NaNPropagatesWhateverTheAlgorithmAndTheMembersHoldingIt) {
  const Comm world(MPI_COMM_WORLD);
  const int P = world.size(), me = world.rank();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (ReductionAlgorithm algorithm : kReductions) {
    const Configuration config = forcing(algorithm, 2);
    // Element k holds a NaN on member k % (P + 1) (none where that is P),
    // a number everywhere else.
    constexpr int kCount = 6;
    std::vector<double> mine(kCount);
    for (int k = 0; k < kCount; ++k) mine[k] = k % (P + 1) == me ? nan : double(me + k);
    adlib::RedxSchedule<double, adlib::op::Max, Host> largest(world, kCount, adlib::op::max,
                                                              config);
    adlib::RedxSchedule<double, adlib::op::Min, Host> smallest(world, kCount, adlib::op::min,
                                                               config);
    std::vector<double> high = mine, low = mine;
    largest.execute(high.data());
    smallest.execute(low.data());
    for (int k = 0; k < kCount; ++k) {
      const bool has_nan = k % (P + 1) < P;
      EXPECT_EQ(std::isnan(high[k]), has_nan) << "max, element " << k;
      EXPECT_EQ(std::isnan(low[k]), has_nan) << "min, element " << k;
      if (!has_nan) {
        EXPECT_EQ(high[k], double(P - 1 + k));
        EXPECT_EQ(low[k], double(k));
      }
    }
    // MAXLOC: NaN on every odd member, at (me, 0): the first odd member's.
    adlib::Redx2Schedule<double, 2, adlib::op::MaxLocation, Host> where_max(
        world, 1, adlib::op::max_location, config);
    const adlib::Located<double, 2> best =
        where_max.reduce({me % 2 == 1 ? nan : 100.0 + me, {me, 0}});
    if (P == 1) {
      EXPECT_EQ(best.value, 100.0);
    } else {
      EXPECT_TRUE(std::isnan(best.value));
      EXPECT_EQ(best.location[0], 1);
    }
    adlib::Redx2Schedule<double, 2, adlib::op::MinLocation, Host> where_min(
        world, 1, adlib::op::min_location, config);
    const adlib::Located<double, 2> least =
        where_min.reduce({me == P - 1 ? nan : -1.0 * me, {me, 0}});
    EXPECT_TRUE(std::isnan(least.value));
    EXPECT_EQ(least.location[0], P - 1);
  }
}

TEST(BlockRedxSchedule, ReducesAStridedBlockAndLeavesTheRestAlone) {
  for (const Comm& members : member_sets())
    for (ReductionAlgorithm algorithm : kReductions) {
      const int P = members.size(), me = members.rank();
      // A 5 x 3 block with row pitch 8 at offset 2 (of 48 elements); members
      // whose block is transposed (columns pitch 1) pair elements in C order.
      const adlib::StridedBlock block = adlib::StridedBlock::make(2, {5, 3}, {8, 1});
      Kokkos::View<std::int64_t*, Host> memory("memory", 48);
      for (int i = 0; i < 48; ++i) memory(i) = -1 - i;
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 3; ++j) memory(2 + 8 * i + j) = me * 100 + i * 3 + j;
      adlib::BlockRedxSchedule<std::int64_t, adlib::op::Add, Host> sums(
          members, block, adlib::op::add, forcing(algorithm, 2));
      sums.execute(memory.data());
      std::vector<bool> in_block(48, false);
      for (int i = 0; i < 5; ++i)
        for (int j = 0; j < 3; ++j) {
          in_block[2 + 8 * i + j] = true;
          std::int64_t expected = 0;
          for (int m = 0; m < P; ++m) expected += m * 100 + i * 3 + j;
          ASSERT_EQ(memory(2 + 8 * i + j), expected) << adlib::algorithm_name(algorithm);
        }
      for (int i = 0; i < 48; ++i) {
        if (in_block[i]) continue;
        ASSERT_EQ(memory(i), -1 - i) << "element " << i << " outside the block";
      }
    }
}

TEST(BlockRedx2Schedule, KeepsEachElementsExtremeAndItsFirstLocation) {
  const Comm world(MPI_COMM_WORLD);
  const int P = world.size(), me = world.rank();
  for (ReductionAlgorithm algorithm : kReductions) {
    // Element k of every member's 3-element block, every 2nd of 6: the
    // value k % 2 + me % 3 sits at location (me, k).
    Kokkos::View<adlib::Located<int, 2>*, Host> memory("memory", 6);
    for (int k = 0; k < 3; ++k) memory(2 * k) = {k % 2 + me % 3, {me, k}};
    adlib::BlockRedx2Schedule<int, 2, adlib::op::MaxLocation, Host> where(
        world, adlib::StridedBlock::make(0, {3}, {2}), adlib::op::max_location,
        forcing(algorithm, 2));
    where.execute(memory.data());
    for (int k = 0; k < 3; ++k) {
      int best = -1, at = -1;
      for (int m = 0; m < P; ++m)
        if (k % 2 + m % 3 > best) best = k % 2 + m % 3, at = m;
      ASSERT_EQ(memory(2 * k).value, best) << adlib::algorithm_name(algorithm);
      ASSERT_EQ(memory(2 * k).location[0], at);
      ASSERT_EQ(memory(2 * k).location[1], k);
    }
  }
}

TEST(TreeSchedule, BroadcastsFromEveryRoot) {
  for (const Comm& members : member_sets())
    for (BroadcastAlgorithm algorithm : kBroadcasts)
      for (std::int64_t per_node : {0, 2, 3})
        for (int root = 0; root < members.size(); ++root)
          for (std::int64_t count : {0, 1, 300}) {
            const int me = members.rank();
            adlib::TreeSchedule<std::int64_t, Host> tree(members, count, root,
                                                         forcing(algorithm, per_node));
            Kokkos::View<std::int64_t*, Host> x("x", count);
            for (std::int64_t k = 0; k < count; ++k) x(k) = me == root ? 5 * k + root : -7;
            tree.execute(x.data());
            for (std::int64_t k = 0; k < count; ++k)
              ASSERT_EQ(x(k), 5 * k + root) << adlib::algorithm_name(algorithm) << " root " << root;
          }
}

TEST(BlockTreeSchedule, BroadcastsTheRootsBlockIntoEachMembersBlock) {
  const Comm world(MPI_COMM_WORLD);
  const int me = world.rank(), root = world.size() - 1;
  for (BroadcastAlgorithm algorithm : kBroadcasts) {
    // The root sends a 4 x 3 column-strided block; the others receive it
    // into a dense block at offset 5.
    const adlib::StridedBlock block = me == root ? adlib::StridedBlock::make(1, {4, 3}, {1, 10})
                                                 : adlib::StridedBlock::make(5, {4, 3}, {3, 1});
    Kokkos::View<int*, Host> memory("memory", 40);
    for (int i = 0; i < 40; ++i) memory(i) = me == root ? i : -1;
    adlib::BlockTreeSchedule<int, Host>(world, root, block, forcing(algorithm, 2))
        .execute(memory.data());
    if (me == root) continue;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) ASSERT_EQ(memory(5 + 3 * i + j), 1 + i + 10 * j);
    EXPECT_EQ(memory(4), -1);
    EXPECT_EQ(memory(17), -1);
  }
}

TEST(ReductionSchedules, ArgumentsThatDifferBetweenRanksFailEverywhere) {
  const Comm world(MPI_COMM_WORLD);
  const int me = world.rank();
  if (world.size() > 1) {
    adlib_test::expect_error_everywhere(
        [&] { adlib::RedxSchedule<double, adlib::op::Add, Host>(world, me == 0 ? 4 : 5); },
        "arguments differ between ranks");
    adlib_test::expect_error_everywhere(
        [&] {
          adlib::RedxSchedule<double, adlib::op::Add, Host>(
              world, 4, adlib::op::add,
              forcing(me == 0 ? ReductionAlgorithm::ring : ReductionAlgorithm::mpi, 0));
        },
        "arguments differ between ranks");
    adlib_test::expect_error_everywhere(
        [&] { adlib::TreeSchedule<double, Host>(world, 4, me == 0 ? 0 : 1); },
        "arguments differ between ranks");
  }
  adlib_test::expect_error_everywhere(
      [&] { adlib::RedxSchedule<double, adlib::op::Add, Host>(world, me == 0 ? -1 : 4); },
      "a reduction of -1 elements");
  adlib_test::expect_error_everywhere(
      [&] { adlib::TreeSchedule<double, Host>(world, 4, world.size()); }, "is not a member");
  adlib_test::expect_error_everywhere(
      [&] {
        adlib::BlockRedxSchedule<double, adlib::op::Add, Host>(
            world, adlib::StridedBlock::make(0, {4, 2}, {1, 1}));
      },
      "may visit an element twice");
  EXPECT_EQ(world.live_tags(), 0);
}

}  // namespace

}  // namespace mpi_reduction_schedules
