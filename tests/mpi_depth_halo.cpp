// SPDX-License-Identifier: BSD-3-Clause
// DepthHalo on generated meshes (tests/unstructured_mesh.hpp) against a
// serial reference: every rank computes the whole partition, so it knows
// which id each of its halo entries holds and what the owner wrote there.
// Owned entry of id g, level k, holds value_of(g, k); halo entries start
// poisoned.  Meshes are random (shape, scrambled ids, uneven slabs with
// ranks owning nothing, depth 1 to 3, columns of 1, 3 and 9 values, LFRic's
// sorted order or shuffled), so the schedules see contiguous and scattered
// lists, one and two neighbours, ranks with no halo.
#include <gtest/gtest.h>
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <adlib/collectives/depth_halo.hpp>
#include <adlib/collectives/field_reductions.hpp>
#include <adlib/ranges/unstructured_field.hpp>
#include <adlib/ranges/unstructured_layout.hpp>
#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include "expect_error_everywhere.hpp"
#include "unstructured_mesh.hpp"
#include "world.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_depth_halo {

namespace {

using adlib_test::GridMesh;
using adlib_test::RankCells;
using adlib_test::Rng;
using Field = adlib::UnstructuredField<double, Kokkos::HostSpace>;
using Halo = adlib::DepthHalo<double, Kokkos::HostSpace>;

constexpr double kPoison = -1.0;

double value_of(std::int64_t id, adlib::Index level) {
  return static_cast<double>(id * 64 + level + 1);
}

using adlib_test::world_rank;
using adlib_test::world_size;

// One drawn case: the mesh, every rank's cells, and this rank's layout.
struct Case {
  GridMesh mesh;
  std::vector<RankCells> cells;
  int depth = 1;
  adlib::Index column = 1;
  std::string name;
};

Case draw(std::uint64_t seed) {
  Rng rng(seed);
  Case c;
  c.mesh = adlib_test::make_mesh(rng.uniform(1, 18), rng.uniform(1, 12), rng);
  c.depth = static_cast<int>(rng.uniform(1, 3));
  const adlib::Index columns[] = {1, 3, 9};
  c.column = columns[rng.uniform(0, 2)];
  const bool shuffled = rng.chance(50);
  c.cells = adlib_test::partition(c.mesh, world_size(), c.depth, rng, shuffled);
  c.name = "seed " + std::to_string(seed) + ": " + std::to_string(c.mesh.rows) + "x" +
           std::to_string(c.mesh.columns) + " cells, depth " + std::to_string(c.depth) +
           ", column " + std::to_string(c.column) + (shuffled ? ", shuffled" : ", sorted");
  return c;
}

adlib::UnstructuredLayout layout_of(const Case& c, const adlib::Comm& comm) {
  const RankCells& mine = c.cells[static_cast<std::size_t>(world_rank())];
  std::vector<std::vector<std::int64_t>> halo;
  for (const auto& depth : mine.halo) halo.push_back(adlib_test::ids_of(c.mesh, depth));
  return adlib::UnstructuredLayout(comm, adlib_test::ids_of(c.mesh, mine.owned), halo, c.column);
}

// The same layout from LFRic's form: one list in local order and the ends
// of its parts.
adlib::UnstructuredLayout layout_from_local_ids(const Case& c, const adlib::Comm& comm) {
  const RankCells& mine = c.cells[static_cast<std::size_t>(world_rank())];
  std::vector<std::int64_t> ids = adlib_test::ids_of(c.mesh, mine.owned);
  std::vector<adlib::Index> ends = {static_cast<adlib::Index>(ids.size())};
  for (const auto& depth : mine.halo) {
    const std::vector<std::int64_t> part = adlib_test::ids_of(c.mesh, depth);
    ids.insert(ids.end(), part.begin(), part.end());
    ends.push_back(static_cast<adlib::Index>(ids.size()));
  }
  return adlib::UnstructuredLayout::from_local_ids(comm, std::move(ids), std::move(ends), c.column);
}

// Owned entries hold value_of, halo entries `halo_value`.
void reset(const Field& u, double halo_value) {
  const auto& layout = u.layout();
  auto v = u.local_view();
  for (adlib::Index e = 0; e < layout.entries(); ++e)
    for (adlib::Index k = 0; k < layout.column(); ++k)
      v(e, k) = e < layout.owned_count() ? value_of(layout.id(e), k) : halo_value;
}

// Depths 1..filled hold their owners' values, deeper ones `rest`; owned
// entries unchanged.  Returns the first mismatch, empty when none.
std::string check(const Field& u, int filled, double rest) {
  const auto& layout = u.layout();
  auto v = u.local_view();
  for (adlib::Index e = 0; e < layout.entries(); ++e) {
    int depth = 0;
    while (depth < layout.depth() && e >= layout.halo_end(depth)) ++depth;
    for (adlib::Index k = 0; k < layout.column(); ++k) {
      const double want = depth <= filled ? value_of(layout.id(e), k) : rest;
      if (v(e, k) != want)
        return "entry " + std::to_string(e) + " (id " + std::to_string(layout.id(e)) + ", depth " +
               std::to_string(depth) + ") level " + std::to_string(k) + ": " +
               std::to_string(v(e, k)) + ", expected " + std::to_string(want);
    }
  }
  return {};
}

constexpr int kRandomCases = 14;

TEST(DepthHalo, RandomMeshesFillDepthsOneToD) {
  adlib::Comm comm(MPI_COMM_WORLD);
  for (int seed = 0; seed < kRandomCases; ++seed) {
    const Case c = draw(static_cast<std::uint64_t>(seed) * 7919 + 11);
    SCOPED_TRACE(c.name + (seed % 2 == 1 ? ", from local ids" : ""));
    const adlib::UnstructuredLayout layout =
        seed % 2 == 1 ? layout_from_local_ids(c, comm) : layout_of(c, comm);
    Field u(layout);
    Halo halo(u);
    ASSERT_EQ(halo.depth(), c.depth);
    for (int d = 0; d <= c.depth; ++d) {
      reset(u, kPoison);
      u.set_dirty();
      halo.execute(d, u);
      EXPECT_EQ(check(u, d, kPoison), "") << "exchange to depth " << d;
      EXPECT_EQ(u.clean_depth(), d);
    }
    // Executed again after the owners change: the new values arrive.
    reset(u, kPoison);
    auto v = u.local_view();
    for (adlib::Index e = 0; e < layout.owned_count(); ++e) v(e, 0) += 0.5;
    u.set_dirty();
    halo.execute(c.depth, u);
    for (adlib::Index e = layout.owned_count(); e < layout.entries(); ++e)
      ASSERT_EQ(v(e, 0), value_of(layout.id(e), 0) + 0.5) << "entry " << e;
  }
}

// The messages of one exchange: one per neighbour, and a neighbour's share of
// a depth in LFRic's sorted order is contiguous where it comes from one
// owner.  Here only: no message goes to a rank that needs nothing.
TEST(DepthHalo, OneMessagePerNeighbour) {
  adlib::Comm comm(MPI_COMM_WORLD);
  for (int seed = 0; seed < kRandomCases; ++seed) {
    const Case c = draw(static_cast<std::uint64_t>(seed) * 7919 + 11);
    SCOPED_TRACE(c.name);
    const adlib::UnstructuredLayout layout = layout_of(c, comm);
    Halo halo(layout);
    // Who needs anything of mine, by the reference partition.
    const int me = world_rank();
    for (int depth = 1; depth <= c.depth; ++depth) {
      std::map<int, int> neighbours;
      for (int r = 0; r < world_size(); ++r) {
        if (r == me) continue;
        const RankCells& theirs = c.cells[static_cast<std::size_t>(r)];
        for (int d = 1; d <= depth; ++d)
          for (const std::int64_t cell : theirs.halo[static_cast<std::size_t>(d - 1)])
            for (const std::int64_t mine : c.cells[static_cast<std::size_t>(me)].owned)
              if (mine == cell) neighbours[r] = 1;
      }
      EXPECT_EQ(halo.messages(0, depth), neighbours.size()) << "depth " << depth;
    }
  }
}

TEST(DepthHalo, CleanDepthsSendNothing) {
  adlib::Comm comm(MPI_COMM_WORLD);
  for (int seed = 0; seed < kRandomCases; seed += 3) {
    Case c = draw(static_cast<std::uint64_t>(seed) * 7919 + 11);
    if (c.depth < 2) continue;
    SCOPED_TRACE(c.name);
    const adlib::UnstructuredLayout layout = layout_of(c, comm);
    Field u(layout);
    Halo halo(u);
    EXPECT_TRUE(u.is_dirty(1));
    reset(u, kPoison);
    halo.execute(1, u);
    EXPECT_EQ(check(u, 1, kPoison), "");
    EXPECT_FALSE(u.is_dirty(1));
    EXPECT_TRUE(u.is_dirty(2));

    // Clean to depth 1: an exchange to depth 1 moves nothing (the poison
    // written behind the field's back stays) ...
    reset(u, -2.0);
    halo.execute(1, u);
    EXPECT_EQ(check(u, 0, -2.0), "");
    // ... and one to depth 2 brings depth 2 only.
    halo.execute(2, u);
    const auto v = u.local_view();
    for (adlib::Index e = layout.owned_count(); e < layout.halo_end(2); ++e)
      for (adlib::Index k = 0; k < layout.column(); ++k)
        ASSERT_EQ(v(e, k), e < layout.halo_end(1) ? -2.0 : value_of(layout.id(e), k));
    EXPECT_EQ(u.clean_depth(), 2);

    // set_clean() by hand (redundant computation) and set_dirty().
    u.set_dirty();
    u.set_clean(1);
    reset(u, kPoison);
    halo.execute(2, u);
    for (adlib::Index e = layout.owned_count(); e < layout.halo_end(2); ++e)
      ASSERT_EQ(v(e, 0), e < layout.halo_end(1) ? kPoison : value_of(layout.id(e), 0));
    u.set_dirty();
    halo.execute(2, u);
    EXPECT_EQ(check(u, 2, kPoison), "");
  }
}

TEST(DepthHalo, SeveralFieldsEachByItsState) {
  adlib::Comm comm(MPI_COMM_WORLD);
  for (int seed = 0; seed < kRandomCases; seed += 2) {
    Case c = draw(static_cast<std::uint64_t>(seed) * 7919 + 11);
    if (c.depth < 2) continue;
    SCOPED_TRACE(c.name);
    const adlib::UnstructuredLayout layout = layout_of(c, comm);
    Field u(layout), v(layout), w(layout), x(layout);
    Halo halo(layout);
    for (const Field* f : {&u, &v, &w, &x}) reset(*f, kPoison);
    u.set_clean(1);  // brings depth 2 only
    w.set_clean(2);  // brings nothing
    halo.start(2, u, v, w, x);
    EXPECT_TRUE(halo.in_flight());
    halo.finish();
    EXPECT_FALSE(halo.in_flight());
    EXPECT_EQ(check(v, 2, kPoison), "");
    EXPECT_EQ(check(x, 2, kPoison), "");
    EXPECT_EQ(check(w, 0, kPoison), "");
    const auto uv = u.local_view();
    for (adlib::Index e = layout.owned_count(); e < layout.halo_end(2); ++e)
      ASSERT_EQ(uv(e, 0), e < layout.halo_end(1) ? kPoison : value_of(layout.id(e), 0));
    for (const Field* f : {&u, &v, &w, &x}) EXPECT_EQ(f->clean_depth(), 2);
  }
}

// accumulate(d): every halo value of depths 1..d is added into its owner
// (and, with a non-commutative operation, in a fixed order: own value first,
// then other ranks in rank order, each rank's entries in local order).
TEST(DepthHalo, AccumulateCombinesHaloValuesIntoOwners) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = world_rank(), P = world_size();
  // Rank r's halo entry e of id g holds contribution(r, g, k).
  auto contribution = [](int r, std::int64_t id, adlib::Index k) {
    return static_cast<double>((r + 1) * 1000 + id % 97 + k);
  };
  for (int seed = 0; seed < kRandomCases; ++seed) {
    const Case c = draw(static_cast<std::uint64_t>(seed) * 7919 + 11);
    SCOPED_TRACE(c.name);
    const adlib::UnstructuredLayout layout = layout_of(c, comm);
    Field u(layout);
    Halo halo(u);
    for (int depth = 1; depth <= c.depth; ++depth) {
      auto v = u.local_view();
      for (adlib::Index e = 0; e < layout.entries(); ++e)
        for (adlib::Index k = 0; k < layout.column(); ++k)
          v(e, k) = e < layout.owned_count() ? value_of(layout.id(e), k)
                                             : contribution(me, layout.id(e), k);
      u.set_clean(depth);
      halo.accumulate(depth, u);
      EXPECT_TRUE(u.is_dirty(1)) << "owners changed: the halo is stale";
      // Reference: own value plus every rank's halo copies to `depth`.
      std::map<std::int64_t, double> added;
      for (int r = 0; r < P; ++r)
        for (int d = 1; d <= depth; ++d)
          for (const std::int64_t cell :
               c.cells[static_cast<std::size_t>(r)].halo[static_cast<std::size_t>(d - 1)])
            added[c.mesh.id(cell)] += contribution(r, c.mesh.id(cell), 0);
      for (adlib::Index e = 0; e < layout.owned_count(); ++e) {
        const auto it = added.find(layout.id(e));
        const double want = value_of(layout.id(e), 0) + (it == added.end() ? 0.0 : it->second);
        ASSERT_EQ(v(e, 0), want) << "owned entry " << e << " at depth " << depth;
      }
      for (adlib::Index e = layout.owned_count(); e < layout.entries(); ++e)
        ASSERT_EQ(v(e, 0), contribution(me, layout.id(e), 0)) << "halo entries keep their values";
    }
  }
}

// a <- 3a + b, a user's operation as device code may run it (a named
// functor: a host lambda would not compile into a device kernel).
struct TripleAndAdd {
  KOKKOS_INLINE_FUNCTION void operator()(double& target, const double& value) const {
    target = 3 * target + value;
  }
};

TEST(DepthHalo, AccumulateOrderIsFixed) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = world_rank(), P = world_size();
  // a <- 3a + b is not commutative: the result pins the order.
  auto combine = adlib::op::combine(TripleAndAdd{});
  const Case c = draw(4242);
  const adlib::UnstructuredLayout layout = layout_of(c, comm);
  Field u(layout);
  Halo halo(u);
  auto v = u.local_view();
  for (adlib::Index e = 0; e < layout.entries(); ++e)
    for (adlib::Index k = 0; k < layout.column(); ++k)
      v(e, k) = e < layout.owned_count() ? 1.0 : static_cast<double>(me + 2);
  halo.accumulate(c.depth, u, combine);
  // Owner side: ranks ascending; a rank holds an id at most once.
  std::map<std::int64_t, double> want;
  for (adlib::Index e = 0; e < layout.owned_count(); ++e) want[layout.id(e)] = 1.0;
  for (int r = 0; r < P; ++r)
    for (int d = 1; d <= c.depth; ++d)
      for (const std::int64_t cell :
           c.cells[static_cast<std::size_t>(r)].halo[static_cast<std::size_t>(d - 1)]) {
        const auto it = want.find(c.mesh.id(cell));
        if (it != want.end()) it->second = 3 * it->second + (r + 2);
      }
  for (adlib::Index e = 0; e < layout.owned_count(); ++e)
    ASSERT_EQ(v(e, layout.column() - 1), want[layout.id(e)]) << "owned entry " << e;
}

TEST(DepthHalo, ExchangeAtACleanDepthAfterStartFinish) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const Case c = draw(99);
  const adlib::UnstructuredLayout layout = layout_of(c, comm);
  Field u(layout);
  Halo halo(u);
  reset(u, kPoison);
  halo.start(c.depth, u);
  halo.finish();
  EXPECT_EQ(check(u, c.depth, kPoison), "");
  halo.start(c.depth, u);  // clean: nothing posted
  EXPECT_TRUE(halo.in_flight());
  halo.finish();
  halo.finish();  // a second finish() does nothing
  EXPECT_EQ(u.clean_depth(), c.depth);
}

// ---- misuse: the same adlib::Error on every rank, never a hang ----

TEST(DepthHaloMisuse, HaloIdOwnedByNoRank) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const Case c = draw(7);
  const RankCells& mine = c.cells[static_cast<std::size_t>(world_rank())];
  std::vector<std::vector<std::int64_t>> halo;
  for (const auto& depth : mine.halo) halo.push_back(adlib_test::ids_of(c.mesh, depth));
  if (world_rank() == world_size() - 1) halo[0].push_back(c.mesh.cells() + 17);
  const adlib::UnstructuredLayout layout(comm, adlib_test::ids_of(c.mesh, mine.owned), halo, 1);
  adlib_test::expect_error_everywhere([&] { Halo h(layout); },
                                      "the halo id " + std::to_string(c.mesh.cells() + 17));
}

TEST(DepthHaloMisuse, IdOwnedTwice) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (world_size() < 2) GTEST_SKIP() << "needs two owners";
  // Every rank owns id 5.
  const adlib::UnstructuredLayout layout(comm, {5, 100 + world_rank()}, {{}}, 1);
  adlib_test::expect_error_everywhere([&] { Halo h(layout); }, "the id 5 is held by rank 0");
}

// LFRic's form is the same layout, its list taken over without a copy;
// ends that do not fit the list are an error on every rank.
TEST(DepthHalo, LayoutFromLocalIds) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const Case c = draw(5);
  const adlib::UnstructuredLayout parts = layout_of(c, comm);
  std::vector<std::int64_t> ids = parts.ids();
  std::vector<adlib::Index> ends;
  for (int d = 0; d <= parts.depth(); ++d) ends.push_back(parts.halo_end(d));
  const std::int64_t* list = ids.data();
  const auto layout =
      adlib::UnstructuredLayout::from_local_ids(comm, std::move(ids), ends, parts.column());
  EXPECT_EQ(layout.ids().data(), list);
  EXPECT_EQ(layout.ids(), parts.ids());
  ASSERT_EQ(layout.depth(), parts.depth());
  for (int d = 0; d <= parts.depth(); ++d) EXPECT_EQ(layout.halo_end(d), parts.halo_end(d));
  EXPECT_EQ(layout.column(), parts.column());
  EXPECT_EQ(layout.fingerprint(), parts.fingerprint());
  EXPECT_EQ(layout.error(), "");

  const int me = world_rank();
  const std::vector<std::int64_t> mine = {3 * me, 3 * me + 1, 3 * me + 2};
  using Ends = std::vector<adlib::Index>;
  const struct {
    Ends ends;
    const char* error;
  } bad[] = {{{}, "no depth ends"},
             {{1, 2}, "depth ends from 1 to 2 for 3 ids"},
             {{-1, 3}, "depth ends from -1 to 3"},
             {{2, 1, 3}, "depth 1 ends at 1, before the depth before it (2)"}};
  for (const auto& b : bad) {
    const auto broken =
        adlib::UnstructuredLayout::from_local_ids(comm, mine, me == 0 ? b.ends : Ends{3, 3, 3});
    EXPECT_EQ(broken.entries(), 3);  // every id kept, as owned where the ends do not fit
    adlib_test::expect_error_everywhere([&] { Halo h(broken); }, b.error);
  }
  const auto repeated = adlib::UnstructuredLayout::from_local_ids(
      comm, me == 0 ? std::vector<std::int64_t>{0, 1, 0} : mine, Ends{2, 3});
  adlib_test::expect_error_everywhere([&] { Halo h(repeated); }, "lists the id 0 twice");
}

TEST(DepthHaloMisuse, RepeatedOrNegativeIdOnOneRank) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = world_rank();
  const std::vector<std::int64_t> owned = {3 * me, 3 * me + 1};
  const adlib::UnstructuredLayout repeated(
      comm, owned, {{me == 0 ? 3 * me + 1 : 3 * me + 2 + 3 * world_size()}}, 1);
  adlib_test::expect_error_everywhere([&] { Halo h(repeated); }, "twice");
  const adlib::UnstructuredLayout negative(comm, me == 0 ? std::vector<std::int64_t>{-4} : owned,
                                           {}, 1);
  adlib_test::expect_error_everywhere([&] { Halo h(negative); }, "negative id -4");
  const adlib::UnstructuredLayout flat(comm, owned, {}, me == 0 ? 0 : 1);
  adlib_test::expect_error_everywhere([&] { Halo h(flat); }, "a column of 0 values");
}

TEST(DepthHaloMisuse, DepthsOrColumnsDifferBetweenRanks) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const int me = world_rank();
  const adlib::UnstructuredLayout depths(comm, {me},
                                         me == 0 ? std::vector<std::vector<std::int64_t>>{{}, {}}
                                                 : std::vector<std::vector<std::int64_t>>{{}},
                                         1);
  adlib_test::expect_error_everywhere([&] { Halo h(depths); }, "differ between ranks");
  const adlib::UnstructuredLayout columns(comm, {me}, {{}}, me == 0 ? 2 : 1);
  adlib_test::expect_error_everywhere([&] { Halo h(columns); }, "differ between ranks");
}

TEST(DepthHaloMisuse, DepthBeyondTheLayoutAndForeignFields) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const Case c = draw(3);
  const adlib::UnstructuredLayout layout = layout_of(c, comm);
  Field u(layout);
  Halo halo(u);
  // Every rank asks beyond: refused locally, the same everywhere.
  adlib_test::expect_error_everywhere([&] { halo.execute(c.depth + 1, u); }, "is beyond the");
  adlib_test::expect_error_everywhere([&] { halo.execute(-1, u); }, "depth -1");
  adlib_test::expect_error_everywhere([&] { halo.accumulate(c.depth + 1, u); }, "is beyond the");
  // Equal lists are not the same layout: a field must come from the schedule's.
  Field stranger(layout_of(c, comm));
  adlib_test::expect_error_everywhere([&] { halo.execute(1, u, stranger); },
                                      "another UnstructuredLayout");
  EXPECT_FALSE(halo.in_flight());
  reset(u, kPoison);
  halo.execute(c.depth, u);  // still usable
  EXPECT_EQ(check(u, c.depth, kPoison), "");
}

// Checked mode (these suites run with ADLIB_CHECKED=1) agrees on the dirty
// states: ranks that disagree would otherwise send on one side only.
TEST(DepthHaloMisuse, DirtyStatesDifferBetweenRanks) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  if (!adlib::Configuration::environment().checked) GTEST_SKIP() << "checked mode only";
  const Case c = draw(5);
  const adlib::UnstructuredLayout layout = layout_of(c, comm);
  Field u(layout);
  Halo halo(u);
  if (world_rank() == 0) u.set_clean(c.depth);
  adlib_test::expect_error_everywhere([&] { halo.execute(c.depth, u); }, "fields' clean depths: ");
  // The depth and the combine of an accumulation are named too.
  if (c.depth >= 1) {
    u.set_dirty();
    const int depth = world_rank() == 0 ? c.depth : c.depth - 1;
    adlib_test::expect_error_everywhere([&] { halo.accumulate(depth, u); }, "depth: ");
    adlib_test::expect_error_everywhere(
        [&] {
          if (world_rank() == 0)
            halo.accumulate(c.depth, u, adlib::op::max);
          else
            halo.accumulate(c.depth, u, adlib::op::add);
        },
        "combine: max on rank 0; add on rank");
  }
}

}  // namespace

namespace {

// Sums and extremes over owned entries only: an id held in several halos
// counts once.  Exact: the values are small integers.
TEST(FieldReductions, OwnedEntriesOnly) {
  adlib::Comm comm(MPI_COMM_WORLD);
  for (int seed = 0; seed < kRandomCases; seed += 2) {
    const Case c = draw(static_cast<std::uint64_t>(seed) * 7919 + 11);
    SCOPED_TRACE(c.name);
    const adlib::UnstructuredLayout layout = layout_of(c, comm);
    Field u(layout);
    reset(u, 1e9);  // halo values that must not count
    double sum = 0, low = std::numeric_limits<double>::max(),
           high = std::numeric_limits<double>::lowest();
    for (std::int64_t cell = 0; cell < c.mesh.cells(); ++cell)
      for (adlib::Index k = 0; k < c.column; ++k) {
        const double v = value_of(c.mesh.id(cell), k);
        sum += v;
        low = std::min(low, v);
        high = std::max(high, v);
      }
    EXPECT_EQ(adlib::global_sum(u), sum);
    EXPECT_EQ(adlib::global_min(u), low);
    EXPECT_EQ(adlib::global_max(u), high);
  }
}

}  // namespace

}  // namespace mpi_depth_halo
