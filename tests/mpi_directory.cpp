// SPDX-License-Identifier: BSD-3-Clause
// Directory against brute force: every rank draws every rank's id list from
// one seed, so it knows who holds what and can check each answer of
// locate().  Ids are sparse (gaps, an id space larger than the ids), lists
// uneven (ranks holding nothing), and with Holding::shared some ids are
// held by several ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/directory.hpp>
#include "expect_error_everywhere.hpp"
#include "test_layouts.hpp"
#include "world.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_directory {

namespace {

using adlib::Directory;
using adlib::Holding;
using adlib::IdLocation;
using adlib_test::Rng;

using adlib_test::world_rank;
using adlib_test::world_size;

// Every rank's ids: a shuffled pool of `pool` ids spaced by `gap`, dealt
// unevenly; with `shared`, some ids go to a second rank as well.
std::vector<std::vector<std::int64_t>> draw_ids(Rng& rng, std::int64_t pool, std::int64_t gap,
                                                bool shared) {
  const int P = world_size();
  std::vector<std::vector<std::int64_t>> ids(static_cast<std::size_t>(P));
  std::vector<int> weight(static_cast<std::size_t>(P));
  for (auto& w : weight) w = rng.chance(20) ? 0 : static_cast<int>(rng.uniform(1, 5));
  weight[0] += 1;
  std::vector<int> ticket;
  for (int r = 0; r < P; ++r)
    for (int k = 0; k < weight[static_cast<std::size_t>(r)]; ++k) ticket.push_back(r);
  for (std::int64_t k = 0; k < pool; ++k) {
    const std::int64_t id = k * gap + 1;
    const int r = rng.pick(ticket);
    ids[static_cast<std::size_t>(r)].push_back(id);
    if (shared && rng.chance(30)) {
      const int other = static_cast<int>(rng.uniform(0, P - 1));
      if (other != r) ids[static_cast<std::size_t>(other)].push_back(id);
    }
  }
  for (auto& list : ids)  // positions in no particular order
    for (std::size_t k = list.size(); k > 1; --k)
      std::swap(list[k - 1],
                list[static_cast<std::size_t>(rng.uniform(0, static_cast<adlib::Index>(k) - 1))]);
  return ids;
}

// The expected answer: the lowest rank holding `id` and its position there.
IdLocation brute_force(const std::vector<std::vector<std::int64_t>>& ids, std::int64_t id) {
  for (std::size_t r = 0; r < ids.size(); ++r) {
    const auto it = std::find(ids[r].begin(), ids[r].end(), id);
    if (it != ids[r].end()) return {static_cast<int>(r), it - ids[r].begin()};
  }
  return {};
}

// Collective: locate(asked) answers as brute force does, and the ranks
// together keep every registration once (each its interval's entries).
void expect_brute_force_answers(const Directory& directory,
                                const std::vector<std::vector<std::int64_t>>& ids,
                                const std::vector<std::int64_t>& asked) {
  // EXPECT, not ASSERT: every rank must reach the reduction below.
  const std::vector<IdLocation> where = directory.locate(asked);
  EXPECT_EQ(where.size(), asked.size());
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < std::min(where.size(), asked.size()); ++k)
    if (!(where[k] == brute_force(ids, asked[k])) && wrong++ < 5)
      ADD_FAILURE() << "id " << asked[k] << ": rank " << where[k].rank << ", position "
                    << where[k].position;
  unsigned long long kept = directory.entries(), total = 0, registered = 0;
  for (const auto& list : ids) registered += list.size();
  MPI_Allreduce(&kept, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  EXPECT_EQ(total, registered);
}

TEST(Directory, LocateMatchesBruteForce) {
  adlib::Comm comm(MPI_COMM_WORLD);
  for (int seed = 0; seed < 12; ++seed) {
    Rng rng(static_cast<std::uint64_t>(seed) * 31 + 5);
    const bool shared = seed % 2 == 1;
    const std::int64_t pool = rng.chance(15) ? 0 : rng.uniform(1, 300);
    const std::int64_t gap = rng.uniform(1, 5);
    auto ids = draw_ids(rng, pool, gap, shared);
    // Every third seed: each list ascending, as an LFRic local order lists
    // its owned ids (the directory then sends stretches of the list).
    if (seed % 3 == 2)
      for (auto& list : ids) std::sort(list.begin(), list.end());
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(pool) + " ids");
    const Directory directory(comm, ids[static_cast<std::size_t>(world_rank())],
                              shared ? Holding::shared : Holding::one_to_one);
    EXPECT_EQ(directory.id_bound(), pool == 0 ? 0 : (pool - 1) * gap + 2);

    // Each rank asks for its own mix: held ids, gaps, ids beyond the bound,
    // repeats; some ranks ask for nothing.
    Rng mine(static_cast<std::uint64_t>(seed) * 1000 + static_cast<std::uint64_t>(world_rank()));
    std::vector<std::int64_t> asked;
    const std::int64_t count = mine.chance(20) ? 0 : mine.uniform(1, 200);
    for (std::int64_t k = 0; k < count; ++k) asked.push_back(mine.uniform(0, pool * gap + 10));
    expect_brute_force_answers(directory, ids, asked);
    std::size_t in_interval = 0;
    for (const auto& list : ids)
      for (const std::int64_t id : list)
        in_interval += directory.directory_rank(id) == world_rank();
    EXPECT_EQ(directory.entries(), in_interval);
  }
}

// Shuffles a list in place (its positions then follow no order).
void shuffle(Rng& rng, std::vector<std::int64_t>& list) {
  for (std::size_t k = list.size(); k > 1; --k)
    std::swap(list[k - 1],
              list[static_cast<std::size_t>(rng.uniform(0, static_cast<adlib::Index>(k) - 1))]);
}

// Dense ascending lists (an LFRic owned order: each rank's ids sorted, a
// good share of every interval) are registered as bitmaps and answered
// from them.  Odd seeds shuffle one rank's list, whose ids then come as
// pairs beside the others' bitmaps; some seeds leave a rank with nothing.
TEST(Directory, DenseAscendingListsMatchBruteForce) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = world_size();
  for (int seed = 0; seed < 8; ++seed) {
    Rng rng(static_cast<std::uint64_t>(seed) * 7 + 1);
    const std::int64_t pool = rng.uniform(1, 3000);
    const int idle = seed % 3 == 1 && P > 1 ? P - 1 : -1;
    std::vector<std::vector<std::int64_t>> ids(static_cast<std::size_t>(P));
    for (std::int64_t id = 0; id < pool; ++id) {
      if (rng.chance(10)) continue;  // gaps
      int r = static_cast<int>(rng.uniform(0, P - 1));
      if (r == idle) r = 0;
      ids[static_cast<std::size_t>(r)].push_back(id);
    }
    if (seed % 2 == 1) shuffle(rng, ids[static_cast<std::size_t>(seed / 2 % P)]);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + std::to_string(pool) + " ids");
    const Directory directory(comm, ids[static_cast<std::size_t>(world_rank())]);

    Rng mine(static_cast<std::uint64_t>(seed) * 1000 + static_cast<std::uint64_t>(world_rank()));
    std::vector<std::int64_t> asked;
    for (int k = 0; k < 300; ++k) asked.push_back(mine.uniform(0, pool + 10));
    expect_brute_force_answers(directory, ids, asked);
  }
}

// A dense ascending cluster at the far end of a long, otherwise empty id
// space: registered as bitmaps spanning the cluster only (nothing of the
// interval's length is kept), beside a lone id sent as a pair; a cluster
// id listed by a second rank is found.
TEST(Directory, DenseClusterInALongInterval) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = world_size();
  const std::int64_t base = (std::int64_t(3) << 30) - 5000;
  std::vector<std::vector<std::int64_t>> ids(static_cast<std::size_t>(P));
  ids[0].push_back(7);
  for (std::int64_t k = 0; k < 2000; ++k)
    ids[static_cast<std::size_t>(k % P)].push_back(base + 2 * k);
  const Directory directory(comm, ids[static_cast<std::size_t>(world_rank())]);
  EXPECT_EQ(directory.id_bound(), base + 2 * 1999 + 1);
  std::vector<std::int64_t> asked = {7, 8, 0, base - 1, base + 4000};
  for (std::int64_t k = world_rank(); k < 4000; k += 7) asked.push_back(base + k);
  expect_brute_force_answers(directory, ids, asked);
  if (P < 2) return;
  std::vector<std::int64_t> twice = ids[static_cast<std::size_t>(world_rank())];
  if (world_rank() == 1) twice.insert(twice.begin(), base + 2 * P);  // rank 0's second
  adlib_test::expect_error_everywhere(
      [&] { Directory d(comm, twice); },
      "the id " + std::to_string(base + 2 * P) + " is held by rank 0 and by rank 1");
}

// An id space far larger than the ids, and much larger than P: nothing of
// its size is ever kept (entries() counts what a rank stores).
TEST(Directory, SparseIdsCostTheirCountOnly) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const std::int64_t huge = std::int64_t(1) << 50;
  const std::vector<std::int64_t> mine = {huge + world_rank(), 7 * world_rank() + 3};
  const Directory directory(comm, mine);
  EXPECT_EQ(directory.id_bound(), huge + world_size());
  unsigned long long kept = directory.entries(), most = 0;
  MPI_Allreduce(&kept, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  EXPECT_LE(most, 2ull * static_cast<unsigned long long>(world_size()));
  const int right = (world_rank() + 1) % world_size();
  const auto where = directory.locate({huge + right, 7 * right + 3, huge - 1, huge * 2});
  EXPECT_EQ(where[0], (IdLocation{right, 0}));
  EXPECT_EQ(where[1], (IdLocation{right, 1}));
  EXPECT_EQ(where[2].rank, -1);
  EXPECT_EQ(where[3].rank, -1);
}

TEST(DirectoryMisuse, OneToOneIdHeldTwice) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (world_size() < 2) GTEST_SKIP() << "needs two holders";
  const std::vector<std::int64_t> mine = {42, 1000 + world_rank()};
  adlib_test::expect_error_everywhere([&] { Directory d(comm, mine); },
                                      "the id 42 is held by rank 0 and by rank 1");
  // The same lists are fine when sharing is declared.
  const Directory shared(comm, mine, Holding::shared);
  EXPECT_EQ(shared.locate({42})[0], (IdLocation{0, 0}));
}

// The same errors where the lists are dense and ascending (bitmaps): two
// ranks' bitmaps sharing ids, a bitmap and a shuffled list (pairs) sharing
// them either way round, and a repeat inside an ascending list.  The
// smallest id held twice is the one named.
TEST(DirectoryMisuse, ConflictsAmongDenseAscendingLists) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = world_size();
  // Rank r holds the ids k < 4096 with k % P == r.
  std::vector<std::int64_t> mine;
  for (std::int64_t k = world_rank(); k < 4096; k += P) mine.push_back(k);
  {
    std::vector<std::int64_t> repeated = mine;
    if (world_rank() == P - 1) repeated.insert(repeated.begin() + 40, repeated[40]);
    adlib_test::expect_error_everywhere([&] { Directory d(comm, repeated); },
                                        "rank " + std::to_string(P - 1) + " lists the id " +
                                            std::to_string(P - 1 + 40 * P) + " twice");
  }
  if (P < 2) return;
  // Rank 1 also lists two of rank 0's ids.
  std::vector<std::int64_t> with_rank0s = mine;
  if (world_rank() == 1) {
    with_rank0s.push_back(std::int64_t(P) * 700);
    with_rank0s.push_back(std::int64_t(P) * 300);
    std::sort(with_rank0s.begin(), with_rank0s.end());
  }
  const std::string expected =
      "the id " + std::to_string(P * 300) + " is held by rank 0 and by rank 1";
  adlib_test::expect_error_everywhere([&] { Directory d(comm, with_rank0s); }, expected);
  for (const int shuffled : {0, 1}) {
    std::vector<std::int64_t> list = with_rank0s;
    Rng rng(static_cast<std::uint64_t>(shuffled) + 11);
    if (world_rank() == shuffled) shuffle(rng, list);
    adlib_test::expect_error_everywhere([&] { Directory d(comm, list); }, expected);
  }
}

TEST(DirectoryMisuse, BadIdsOnOneRank) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int last = world_size() - 1;
  const std::vector<std::int64_t> fine = {10 * world_rank(), 10 * world_rank() + 1};
  adlib_test::expect_error_everywhere(
      [&] {
        Directory d(comm, world_rank() == last ? std::vector<std::int64_t>{3, -2} : fine);
      },
      "negative id -2");
  adlib_test::expect_error_everywhere(
      [&] {
        Directory d(comm, world_rank() == last ? std::vector<std::int64_t>{9, 9} : fine);
      },
      "the id 9 twice");
  adlib_test::expect_error_everywhere([&] { Directory d(comm, fine, static_cast<Holding>(7)); },
                                      "not one of adlib::Holding's");
  const Directory directory(comm, fine);
  adlib_test::expect_error_everywhere(
      [&] {
        directory.locate(world_rank() == last ? std::vector<std::int64_t>{1, -5}
                                              : std::vector<std::int64_t>{1});
      },
      "is negative (-5)");
  EXPECT_EQ(directory.locate({1})[0], (IdLocation{0, 1}));  // still usable
}

}  // namespace

}  // namespace mpi_directory
