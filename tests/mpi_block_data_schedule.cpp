// SPDX-License-Identifier: BSD-3-Clause
// BlockDataSchedule against a serial reference.  Every pattern is drawn from
// a seed that every rank knows, so each rank computes every rank's requests
// and hence, element by element from the blocks' C-order enumeration (the
// test's own, not the library's), what its local memory must hold after a
// read and its owned memory after a write.  Owned memory holds values that
// encode (rank, offset).  The patterns mix 0-, 1- and 2-D blocks (negative
// and zero strides, shapes that differ between the two ends), self
// requests, empty request lists, empty blocks and ranks that own nothing.
// Writes combine with add, max and an order-dependent user operation (which
// pins the order: own contributions first, then ranks ascending, each in
// request order).  Misuse on one rank is an adlib::Error on every rank.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/block_data_schedule.hpp>
#include "expect_error_everywhere.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_block_data_schedule {

namespace {

using adlib::BlockRequest;
using adlib::RemoteAccess;
using adlib::StridedBlock;
using adlib_test::Rng;
using Memory = Kokkos::HostSpace;
using Schedule = adlib::BlockDataSchedule<Memory>;

// The offsets of a block's elements in C order (last index fastest).
std::vector<std::int64_t> elements(const StridedBlock& b) {
  std::vector<std::int64_t> out;
  const std::int64_t n = b.count();
  for (std::int64_t p = 0; p < n; ++p) {
    std::int64_t rest = p, offset = b.offset;
    for (int d = b.rank; d-- > 0;) {
      offset += (rest % b.extents[d]) * b.strides[d];
      rest /= b.extents[d];
    }
    out.push_back(offset);
  }
  return out;
}

// A block of rank 0 to 2 inside [0, span) (span > 0), strides of any sign,
// zero included, now and then empty.
StridedBlock random_block(Rng& rng, std::int64_t span) {
  static const std::vector<std::int64_t> strides = {-3, -2, -1, 0, 1, 1, 2, 3, 5, 7};
  for (int attempt = 0; attempt < 20; ++attempt) {
    StridedBlock b;
    b.rank = static_cast<int>(rng.uniform(0, 2));
    std::int64_t low = 0, high = 0;
    for (int d = 0; d < b.rank; ++d) {
      b.extents[d] = rng.chance(5) ? 0 : rng.uniform(1, 4);
      b.strides[d] = rng.pick(strides);
      const std::int64_t reach = b.strides[d] * std::max<std::int64_t>(b.extents[d] - 1, 0);
      (reach < 0 ? low : high) += reach;
    }
    if (high - low > span - 1) continue;
    b.offset = rng.uniform(-low, span - 1 - high);
    return b;
  }
  return StridedBlock::make(rng.uniform(0, span - 1), {}, {});
}

// A block of `count` distinct elements (a read's target), in a fresh region
// of local memory that starts at `next_free` (which moves past it), with a
// shape chosen independently of the owner's.
StridedBlock random_local_block(Rng& rng, std::int64_t count, std::int64_t& next_free) {
  if (count == 0) return StridedBlock::make(0, {0}, {1});
  const std::int64_t base = next_free + rng.uniform(0, 2);
  StridedBlock b;
  switch (rng.uniform(0, 3)) {
    case 0:  // contiguous
      b = StridedBlock::make(base, {count}, {1});
      next_free = base + count;
      break;
    case 1:  // reversed
      b = StridedBlock::make(base + count - 1, {count}, {-1});
      next_free = base + count;
      break;
    case 2:  // every other element
      b = StridedBlock::make(base, {count}, {2});
      next_free = base + 2 * count;
      break;
    default:  // rows of a padded 2-D array (one row when count is odd)
      if (count % 2 == 0) {
        b = StridedBlock::make(base, {2, count / 2}, {count / 2 + 1, 1});
      } else {
        b = StridedBlock::make(base, {1, count}, {count + 1, 1});
      }
      next_free = base + count + 2;
  }
  return b;
}

// Every rank's memory sizes and requests, drawn from one seed.
struct Pattern {
  std::vector<std::int64_t> owned;  // elements each rank owns
  std::vector<std::int64_t> local;  // elements of each rank's local memory
  std::vector<std::vector<BlockRequest>> requests;
};

Pattern draw_pattern(std::uint64_t seed, int P) {
  Rng rng(seed);
  Pattern p;
  std::vector<int> owners;
  for (int r = 0; r < P; ++r) {
    p.owned.push_back(rng.chance(20) ? 0 : rng.uniform(1, 40));
    if (p.owned.back() > 0) owners.push_back(r);
  }
  p.requests.resize(P);
  for (int r = 0; r < P; ++r) {
    std::int64_t next_free = 0;
    const int n = owners.empty() || rng.chance(20) ? 0 : static_cast<int>(rng.uniform(1, 6));
    for (int k = 0; k < n; ++k) {
      const int owner = p.owned[r] > 0 && rng.chance(25) ? r : rng.pick(owners);
      const StridedBlock owner_block = random_block(rng, p.owned[owner]);
      p.requests[r].push_back(
          {owner, owner_block, random_local_block(rng, owner_block.count(), next_free)});
    }
    p.local.push_back(next_free + rng.uniform(0, 3));
  }
  return p;
}

template <class T>
T encode(int rank, std::int64_t offset) {
  return static_cast<T>(1000 * rank + offset);
}

// Non-fatal on purpose: a rank that returned early would leave the others
// waiting in the next collective, so every rank runs every check.
template <class T>
void expect_equal(const std::vector<T>& got, const std::vector<T>& expected, const char* memory,
                  int round) {
  std::size_t wrong = 0, first = got.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (got[i] != expected[i] && wrong++ == 0) first = i;
  EXPECT_EQ(wrong, 0u) << "first wrong " << memory << " element " << first << ": "
                       << (wrong ? double(got[first]) : 0.0) << " instead of "
                       << (wrong ? double(expected[first]) : 0.0) << " (round " << round << ")";
}

// ---- reads -------------------------------------------------------------------

template <class T>
void check_read(const adlib::Comm& comm, const Pattern& p) {
  const int me = comm.rank();
  std::vector<T> owned(static_cast<std::size_t>(p.owned[me]));
  for (std::size_t i = 0; i < owned.size(); ++i) owned[i] = encode<T>(me, std::int64_t(i));
  const T untouched = static_cast<T>(-7);
  std::vector<T> expected(static_cast<std::size_t>(p.local[me]), untouched);
  for (const BlockRequest& r : p.requests[me]) {
    const auto from = elements(r.owner_block), to = elements(r.local_block);
    for (std::size_t i = 0; i < to.size(); ++i) expected[to[i]] = encode<T>(r.owner, from[i]);
  }
  Schedule schedule(comm, p.requests[me], RemoteAccess::read);
  schedule.template prepare<T>();
  for (int round = 0; round < 2; ++round) {  // the second reuses its requests
    std::vector<T> local(expected.size(), untouched);
    schedule.execute_read(local.data(), local.size(), owned.data(), owned.size());
    expect_equal(local, expected, "local", round);
  }
  // One build-time message per owner asked (itself included), nothing more.
  std::vector<int> asked;
  for (const BlockRequest& r : p.requests[me])
    if (r.local_block.count() > 0 && std::find(asked.begin(), asked.end(), r.owner) == asked.end())
      asked.push_back(r.owner);
  EXPECT_EQ(schedule.negotiation().messages_sent, asked.size());
  EXPECT_LE(schedule.negotiation().requests, asked.size() + 1);
}

TEST(BlockDataSchedule, RandomReads) {
  adlib::Comm comm(MPI_COMM_WORLD);
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Pattern p = draw_pattern(seed, comm.size());
    check_read<double>(comm, p);
    if (seed % 4 == 0) check_read<std::int32_t>(comm, p);
  }
}

TEST(BlockDataSchedule, EmptyRequestListsEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  Schedule schedule(comm, {}, RemoteAccess::read);
  std::vector<double> nothing;
  schedule.execute_read(nothing.data(), 0, nothing.data(), 0);
  EXPECT_EQ(schedule.negotiation().messages_sent, 0u);
  EXPECT_EQ(schedule.negotiation().messages_received, 0u);
}

// A 2-D example a reader can follow: every rank reads column 2 of the next
// rank's 4 x 4 row-major matrix, reversed, and its own row 1.
TEST(BlockDataSchedule, ColumnOfTheNextRank) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank(), P = comm.size(), next = (me + 1) % P;
  std::vector<BlockRequest> requests = {
      {next, StridedBlock::make(2, {4}, {4}), StridedBlock::make(3, {4}, {-1})},
      {me, StridedBlock::make(4, {1, 4}, {4, 1}), StridedBlock::make(4, {2, 2}, {2, 1})}};
  Schedule schedule(comm, requests, RemoteAccess::read);
  std::vector<double> matrix(16), out(8, -1);
  for (int i = 0; i < 16; ++i) matrix[i] = encode<double>(me, i);
  schedule.execute_read(out.data(), out.size(), matrix.data(), matrix.size());
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(out[3 - i], encode<double>(next, 2 + 4 * i));
    EXPECT_EQ(out[4 + i], encode<double>(me, 4 + i));
  }
}

// ---- writes ------------------------------------------------------------------

// An operation whose result depends on the order of the contributions.
struct Horner {
  KOKKOS_INLINE_FUNCTION void operator()(double& target, const double& value) const {
    target = std::fmod(3 * target + value, 1000003.0);
  }
};

double initial_owned(int rank, std::int64_t offset) {
  return static_cast<double>((31 * rank + offset) % 17 + 1);
}
double local_value(int rank, std::int64_t offset) {
  return static_cast<double>((13 * rank + 7 * offset) % 11 + 1);
}

template <class Combine, class Apply>
void check_write(const adlib::Comm& comm, const Pattern& p, Combine combine, Apply apply) {
  const int me = comm.rank(), P = comm.size();
  std::vector<double> local(static_cast<std::size_t>(p.local[me]));
  for (std::size_t i = 0; i < local.size(); ++i) local[i] = local_value(me, std::int64_t(i));
  std::vector<double> owned(static_cast<std::size_t>(p.owned[me])), expected(owned.size());
  for (std::size_t i = 0; i < owned.size(); ++i)
    owned[i] = expected[i] = initial_owned(me, std::int64_t(i));
  // The reference order: this rank's own requests, then the others' by rank.
  std::vector<int> order = {me};
  for (int q = 0; q < P; ++q)
    if (q != me) order.push_back(q);
  for (int q : order)
    for (const BlockRequest& r : p.requests[q]) {
      if (r.owner != me) continue;
      const auto target = elements(r.owner_block), source = elements(r.local_block);
      for (std::size_t i = 0; i < target.size(); ++i)
        apply(expected[target[i]], local_value(q, source[i]));
    }
  Schedule schedule(comm, p.requests[me], RemoteAccess::write);
  schedule.execute_write(owned.data(), owned.size(), local.data(), local.size(), combine);
  expect_equal(owned, expected, "owned", 0);
}

TEST(BlockDataSchedule, RandomWritesAddMaxAndAnOrderedOperation) {
  adlib::Comm comm(MPI_COMM_WORLD);
  for (std::uint64_t seed = 101; seed <= 130; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Pattern p = draw_pattern(seed, comm.size());
    check_write(comm, p, adlib::op::add, [](double& t, double v) { t += v; });
    check_write(comm, p, adlib::op::max, [](double& t, double v) { t = std::max(t, v); });
    check_write(comm, p, adlib::op::combine(Horner{}), Horner{});
  }
}

// Every rank adds into the same elements of rank 0, twice per rank, through
// blocks of different shapes: repeated targets across and within ranks.
TEST(BlockDataSchedule, EveryRankAddsIntoRankZero) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank(), P = comm.size();
  std::vector<BlockRequest> requests = {
      {0, StridedBlock::make(0, {6}, {1}), StridedBlock::make(0, {2, 3}, {3, 1})},
      {0, StridedBlock::make(5, {6}, {-1}), StridedBlock::make(0, {6}, {1})}};
  Schedule schedule(comm, requests, RemoteAccess::write);
  std::vector<double> owned(me == 0 ? 6 : 0, 0.0), local(6);
  for (int i = 0; i < 6; ++i) local[i] = (me + 1) * 10 + i;
  schedule.execute_write(owned.data(), owned.size(), local.data(), local.size(), adlib::op::add);
  if (me == 0)
    for (int i = 0; i < 6; ++i) {
      double sum = 0;
      for (int q = 0; q < P; ++q) sum += 2 * (q + 1) * 10 + i + (5 - i);
      EXPECT_EQ(owned[i], sum) << "element " << i;
    }
}

// ---- misuse ------------------------------------------------------------------

std::vector<BlockRequest> a_valid_request(const adlib::Comm& comm) {
  return {{(comm.rank() + 1) % comm.size(), StridedBlock::make(0, {2}, {1}),
           StridedBlock::make(0, {2}, {1})}};
}

TEST(BlockDataScheduleMisuse, OwnerOutOfRangeOnOneRankIsAnErrorEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  auto requests = a_valid_request(comm);
  if (comm.rank() == comm.size() - 1) requests.push_back({comm.size(), {}, {}});
  adlib_test::expect_error_everywhere([&] { Schedule s(comm, requests, RemoteAccess::read); },
                                      "outside [0, " + std::to_string(comm.size()) + ")");
}

TEST(BlockDataScheduleMisuse, CountMismatchOnOneRankIsAnErrorEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  auto requests = a_valid_request(comm);
  if (comm.rank() == 0) requests[0].local_block = StridedBlock::make(0, {3}, {1});
  adlib_test::expect_error_everywhere([&] { Schedule s(comm, requests, RemoteAccess::write); },
                                      "pairs 2 elements of the owner with 3 local elements");
}

TEST(BlockDataScheduleMisuse, InvalidBlocksOnOneRankAreAnErrorEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  auto requests = a_valid_request(comm);
  if (comm.rank() == comm.size() / 2) requests[0].owner_block = StridedBlock::make(1, {3}, {-1});
  adlib_test::expect_error_everywhere([&] { Schedule s(comm, requests, RemoteAccess::read); },
                                      "reaches below the start of local memory");
  requests = a_valid_request(comm);
  if (comm.rank() == 0) requests[0].local_block = StridedBlock::make(0, {-2}, {1});
  adlib_test::expect_error_everywhere([&] { Schedule s(comm, requests, RemoteAccess::read); },
                                      "negative extent");
}

TEST(BlockDataScheduleMisuse, ReadOnSomeRanksAndWriteOnOthersIsAnErrorEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (comm.size() < 2) GTEST_SKIP() << "needs two ranks";
  const RemoteAccess access = comm.rank() == 0 ? RemoteAccess::write : RemoteAccess::read;
  adlib_test::expect_error_everywhere([&] { Schedule s(comm, a_valid_request(comm), access); },
                                      "arguments differ between ranks");
}

// Checked mode (the test suites' ADLIB_CHECKED=1, forced here): one rank
// calling the other access fails on every rank instead of leaving the
// others waiting.
TEST(BlockDataScheduleMisuse, ExecutingTheOtherAccessOnOneRankIsAnErrorEverywhereWhenChecked) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::Configuration checked = adlib::Configuration::environment();
  checked.checked = true;
  Schedule schedule(comm, a_valid_request(comm), RemoteAccess::write, checked);
  std::vector<double> memory(2, 0.0);
  adlib_test::expect_error_everywhere(
      [&] {
        if (comm.rank() == comm.size() - 1)
          schedule.execute_read(memory.data(), 2, memory.data(), 2);
        else
          schedule.execute_write(memory.data(), 2, memory.data(), 2, adlib::op::add);
      },
      "start_read on a schedule built for writes");
}

TEST(BlockDataScheduleMisuse, ExecutingTheOtherAccessIsRefusedLocallyWhenUnchecked) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::Configuration unchecked = adlib::Configuration::environment();
  unchecked.checked = false;
  Schedule schedule(comm, a_valid_request(comm), RemoteAccess::read, unchecked);
  std::vector<double> memory(2, 0.0);
  EXPECT_THROW(schedule.execute_write(memory.data(), 2, memory.data(), 2), adlib::Error);
  // Still usable afterwards.
  std::vector<double> out(2, 0.0);
  schedule.execute_read(out.data(), 2, memory.data(), 2);
}

// A valid schedule still builds and runs after the errors above (no message
// of a failed negotiation is left in flight).
TEST(BlockDataScheduleMisuse, AValidScheduleWorksAfterAnError) {
  adlib::Comm comm(MPI_COMM_WORLD);
  auto bad = a_valid_request(comm);
  if (comm.rank() == 0) bad[0].owner = -1;
  adlib_test::expect_error_everywhere([&] { Schedule s(comm, bad, RemoteAccess::read); },
                                      "names owner -1");
  Schedule schedule(comm, a_valid_request(comm), RemoteAccess::read);
  const int next = (comm.rank() + 1) % comm.size();
  std::vector<double> owned = {encode<double>(comm.rank(), 0), encode<double>(comm.rank(), 1)};
  std::vector<double> out(2, 0.0);
  schedule.execute_read(out.data(), 2, owned.data(), 2);
  EXPECT_EQ(out[0], encode<double>(next, 0));
  EXPECT_EQ(out[1], encode<double>(next, 1));
}

}  // namespace

}  // namespace mpi_block_data_schedule
