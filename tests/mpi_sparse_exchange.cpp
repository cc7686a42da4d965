// SPDX-License-Identifier: BSD-3-Clause
// exchange_sparse (non-blocking consensus) against a serial reference: every
// pattern is drawn from a seed that every rank knows, so each rank computes
// what it must receive (which senders, which values) without communication.
// Also: edge patterns (nobody sends, one rank sends to all, self-messages,
// empty messages, receive-only ranks), messages given up (the own one moved),
// back-to-back exchanges and an exchange
// beside a schedule's message in flight (no mixing), misuse on one rank
// (an adlib::Error everywhere, then a valid exchange still works), and the
// memory bound: the allocations of an exchange with at most two peers per
// rank are the same on communicators of 3, 4, 5 and 6 ranks.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <random>
#include <thread>
#include <vector>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/runtime/sparse_exchange.hpp>
#include "expect_error_everywhere.hpp"

// ---- allocation counter -----------------------------------------------------
// Every operator new of the process (the test, the templates and
// libadlib) goes through here; it counts only while `counting` is set, on the
// thread of the exchange.  MPI's own memory (C malloc) is not counted: this
// measures what adlib holds.
#include "allocation_counter.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_sparse_exchange {

// ---- a rank late into the barrier --------------------------------------------
// A profiling-interface wrapper: the chosen rank, having entered
// exchange_sparse's barrier, sleeps before it makes progress again.  Ranks
// whose part of the barrier does not wait for it finish, leave, and start
// the next exchange while ranks that do wait are still probing the previous
// one: the window in which a message of exchange k + 1 could be taken by
// exchange k is held open instead of being left to luck.  (Without the
// agreement at the start of each exchange, BackToBackExchangesDoNotMix
// fails here at 4, 5 and 6 ranks with Open MPI 4.1.)
namespace {
std::atomic<bool> slow_barrier{false};
}  // namespace

extern "C" int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  const int code = PMPI_Ibarrier(comm, request);
  if (slow_barrier.load(std::memory_order_relaxed))
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  return code;
}

namespace {

using adlib::SparseMessage;
using adlib_test::expect_error_everywhere;
using Messages = std::vector<SparseMessage<std::int64_t>>;

std::uint64_t mix(std::uint64_t a, std::uint64_t b, std::uint64_t c = 0) {
  std::uint64_t h = a * 0x9e3779b97f4a7c15ull ^
                    (b + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull ^
                    (c + 0x94d049bb133111ebull) * 0x2545f4914f6cdd1dull;
  h ^= h >> 31;
  h *= 0xd6e8feb86659fd93ull;
  return h ^ (h >> 32);
}

// A random pattern known to every rank: does `source` send to `destination`,
// and what.  The density varies with the seed, from nobody to everybody.
struct Pattern {
  std::uint64_t seed;
  int percent;  // chance that one pair talks

  static Pattern of(std::uint64_t seed) {
    const int densities[] = {0, 5, 20, 50, 80, 100};
    return {seed, densities[seed % 6]};
  }
  bool talks(int source, int destination) const {
    return static_cast<int>(mix(seed, source, destination) % 100) < percent;
  }
  std::vector<std::int64_t> message(int source, int destination) const {
    std::vector<std::int64_t> values(mix(seed + 1, source, destination) % 6);  // empty ones too
    for (std::size_t i = 0; i < values.size(); ++i)
      values[i] = static_cast<std::int64_t>(mix(seed + 2, source * 1000 + destination, i) >> 1);
    return values;
  }
};

// `me`'s messages of the pattern, in a rank-dependent shuffled order: the
// result must not depend on the order messages were given in.
Messages outgoing_of(const Pattern& pattern, int me, int size) {
  Messages out;
  for (int destination = 0; destination < size; ++destination)
    if (pattern.talks(me, destination))
      out.push_back({destination, pattern.message(me, destination)});
  std::mt19937 shuffle(static_cast<unsigned>(pattern.seed * 31 + me));
  std::shuffle(out.begin(), out.end(), shuffle);
  return out;
}

// The serial reference: what `me` must receive, sorted by sender.
Messages expected_by(const Pattern& pattern, int me, int size) {
  Messages in;
  for (int source = 0; source < size; ++source)
    if (pattern.talks(source, me)) in.push_back({source, pattern.message(source, me)});
  return in;
}

void expect_same(const Messages& received, const Messages& expected, const char* what) {
  ASSERT_EQ(received.size(), expected.size()) << what;
  for (std::size_t k = 0; k < expected.size(); ++k) {
    EXPECT_EQ(received[k].peer, expected[k].peer) << what << ", message " << k;
    EXPECT_EQ(received[k].values, expected[k].values)
        << what << ", message " << k << " from " << expected[k].peer;
  }
}

class SparseExchange : public ::testing::Test {
 protected:
  adlib::Comm comm_{MPI_COMM_WORLD};
  int me_ = comm_.rank(), p_ = comm_.size();

  // Runs the pattern and checks the messages and the statistics.
  void check(const Pattern& pattern, const char* what) {
    const Messages out = outgoing_of(pattern, me_, p_);
    adlib::SparseExchangeStatistics stats;
    const Messages in = adlib::exchange_sparse(comm_, out, "test", &stats);
    const Messages expected = expected_by(pattern, me_, p_);
    expect_same(in, expected, what);
    EXPECT_EQ(stats.messages_sent, out.size());
    EXPECT_EQ(stats.messages_received, expected.size());
    const bool to_self = pattern.talks(me_, me_);
    EXPECT_EQ(stats.requests, out.size() - (to_self ? 1 : 0) + 1)
        << "one per remote send + barrier";
    std::size_t bytes = 0;
    for (const auto& m : expected) bytes += m.values.size() * sizeof(std::int64_t);
    EXPECT_EQ(stats.bytes_received, bytes);
  }
};

TEST_F(SparseExchange, RandomPatternsMatchTheSerialReference) {
  for (std::uint64_t seed = 0; seed < 36; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    check(Pattern::of(seed), "random pattern");
  }
}

// The overload for a caller that gives its messages up: the same results,
// and its message to itself arrives as the very vector it sent (moved: no
// copy, no fresh memory).
TEST_F(SparseExchange, GivenUpMessagesArriveTheSameAndTheOwnOneIsMoved) {
  for (std::uint64_t seed = 0; seed < 36; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Pattern pattern = Pattern::of(seed);
    Messages out = outgoing_of(pattern, me_, p_);
    const std::int64_t* own = nullptr;
    for (const auto& m : out)
      if (m.peer == me_ && !m.values.empty()) own = m.values.data();
    const Messages in = adlib::exchange_sparse(comm_, std::move(out), "test");
    expect_same(in, expected_by(pattern, me_, p_), "given up");
    if (own) {
      const auto mine =
          std::find_if(in.begin(), in.end(),
                       [&](const SparseMessage<std::int64_t>& m) { return m.peer == me_; });
      ASSERT_NE(mine, in.end());
      EXPECT_EQ(mine->values.data(), own) << "the message to itself was copied, not moved";
    }
  }
}

TEST_F(SparseExchange, NobodySends) {
  Messages in = adlib::exchange_sparse(comm_, Messages{});
  EXPECT_TRUE(in.empty());
}

TEST_F(SparseExchange, OneRankSendsToEveryoneItselfIncluded) {
  for (int root : {0, p_ - 1}) {
    Messages out;
    if (me_ == root)
      for (int d = p_ - 1; d >= 0; --d) out.push_back({d, {root, d, 7}});
    const Messages in = adlib::exchange_sparse(comm_, out);
    expect_same(in, Messages{{root, {root, me_, 7}}}, "from the root");
  }
}

TEST_F(SparseExchange, EveryoneSendsToOneRank) {
  Messages out{{p_ / 2, std::vector<std::int64_t>(me_ + 1, me_)}};
  const Messages in = adlib::exchange_sparse(comm_, out);
  Messages expected;
  if (me_ == p_ / 2)
    for (int s = 0; s < p_; ++s) expected.push_back({s, std::vector<std::int64_t>(s + 1, s)});
  expect_same(in, expected, "gathered");
}

TEST_F(SparseExchange, SelfMessagesOnly) {
  adlib::SparseExchangeStatistics stats;
  const Messages in = adlib::exchange_sparse(comm_, Messages{{me_, {me_, 42}}}, "test", &stats);
  expect_same(in, Messages{{me_, {me_, 42}}}, "self");
  EXPECT_EQ(stats.requests, 1u) << "a self-message needs no request, only the barrier";
}

TEST_F(SparseExchange, EmptyMessagesStillReportTheirSender) {
  const int right = (me_ + 1) % p_, left = (me_ + p_ - 1) % p_;
  Messages out{{right, {}}};
  const Messages in = adlib::exchange_sparse(comm_, out);
  expect_same(in, Messages{{left, {}}}, "empty");
}

TEST_F(SparseExchange, RanksThatOnlyReceiveOrOnlySend) {
  // Even ranks send to every odd rank and receive nothing; odd ranks only receive.
  Messages out;
  if (me_ % 2 == 0)
    for (int d = 1; d < p_; d += 2) out.push_back({d, {me_ * 10 + d}});
  const Messages in = adlib::exchange_sparse(comm_, out);
  Messages expected;
  if (me_ % 2 == 1)
    for (int s = 0; s < p_; s += 2) expected.push_back({s, {s * 10 + me_}});
  expect_same(in, expected, "even to odd");
}

TEST_F(SparseExchange, ElementsOfAStructType) {
  struct Entry {
    int index;
    double value;
  };
  std::vector<SparseMessage<Entry>> out;
  for (int d = 0; d < p_; d += 2) out.push_back({d, {{me_, 0.5 * d}, {d, -1.0 * me_}}});
  const auto in = adlib::exchange_sparse(comm_, out);
  if (me_ % 2 == 0) {
    ASSERT_EQ(in.size(), static_cast<std::size_t>(p_));
    for (int s = 0; s < p_; ++s) {
      EXPECT_EQ(in[s].peer, s);
      ASSERT_EQ(in[s].values.size(), 2u);
      EXPECT_EQ(in[s].values[0].index, s);
      EXPECT_EQ(in[s].values[0].value, 0.5 * me_);
      EXPECT_EQ(in[s].values[1].index, me_);
      EXPECT_EQ(in[s].values[1].value, -1.0 * s);
    }
  } else {
    EXPECT_TRUE(in.empty());
  }
}

// Exchanges in a row share the tag.  Every message carries its round, and
// the patterns differ from round to round, so a message of round k + 1
// taken by round k (a rank that left round k early sending to one still
// probing in it) shows up as a wrong sender set or a wrong value.
TEST_F(SparseExchange, BackToBackExchangesDoNotMix) {
  for (std::uint64_t round = 0; round < 60; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    // Alternate dense rounds (everyone busy) with sparse and empty ones
    // (ranks with nothing to do race ahead into the next round).
    Pattern pattern{1000 + round, round % 3 == 0 ? 100 : round % 3 == 1 ? 10 : 0};
    Messages out = outgoing_of(pattern, me_, p_);
    for (auto& m : out) m.values.push_back(static_cast<std::int64_t>(round));
    Messages expected = expected_by(pattern, me_, p_);
    for (auto& m : expected) m.values.push_back(static_cast<std::int64_t>(round));
    slow_barrier =
        me_ == static_cast<int>(round % p_);  // one rank lags, a different one each round
    Messages in = adlib::exchange_sparse(comm_, out);
    slow_barrier = false;
    expect_same(in, expected, "round");
  }
}

// A schedule's message in flight on the same Comm, to the same peer, under
// the schedule's leased tag: the exchange must neither take it nor be
// confused by it, and it must still arrive afterwards.
TEST_F(SparseExchange, LeavesASchedulesMessagesInFlightAlone) {
  const int right = (me_ + 1) % p_, left = (me_ + p_ - 1) % p_;
  adlib::TagLease lease = comm_.lease_agreed_tag("", 0, "test");
  EXPECT_NE(lease.tag(), adlib::sparse_exchange_tag);
  long long payload[2] = {me_, 77}, arrived[2] = {-1, -1};
  MPI_Request request;
  ASSERT_EQ(MPI_Isend(payload, 2, MPI_LONG_LONG, right, lease.tag(), comm_.get(), &request),
            MPI_SUCCESS);
  // Receive posted only after the exchange: the message waits unexpected
  // while the exchange probes.
  const Messages in = adlib::exchange_sparse(comm_, Messages{{right, {me_, 5}}});
  expect_same(in, Messages{{left, {left, 5}}}, "exchange beside a schedule");
  ASSERT_EQ(MPI_Recv(arrived, 2, MPI_LONG_LONG, left, lease.tag(), comm_.get(), MPI_STATUS_IGNORE),
            MPI_SUCCESS);
  ASSERT_EQ(MPI_Wait(&request, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(arrived[0], left);
  EXPECT_EQ(arrived[1], 77);
}

// ---- misuse: one rank is wrong, every rank throws, and nothing is left behind

class SparseExchangeMisuse : public SparseExchange {
 protected:
  void TearDown() override { check(Pattern::of(4), "valid exchange after the error"); }
};

TEST_F(SparseExchangeMisuse, PeerOutOfRangeOnTheLastRankOnly) {
  const int right = (me_ + 1) % p_;
  Messages out{{right, {1, 2}}};
  if (me_ == p_ - 1) out.push_back({p_, {3}});
  expect_error_everywhere([&] { adlib::exchange_sparse(comm_, out); },
                          "goes to peer " + std::to_string(p_) + ", not a rank");
}

TEST_F(SparseExchangeMisuse, NegativePeerOnRankZeroOnly) {
  Messages out{{(me_ + 1) % p_, {1}}};
  if (me_ == 0) out.push_back({-1, {}});
  expect_error_everywhere([&] { adlib::exchange_sparse(comm_, out, "DataSchedule"); },
                          "goes to peer -1");
}

TEST_F(SparseExchangeMisuse, TwoMessagesToOnePeer) {
  const int right = (me_ + 1) % p_;
  Messages out{{right, {1}}};
  if (me_ == p_ / 2) out.push_back({right, {2}});
  expect_error_everywhere([&] { adlib::exchange_sparse(comm_, out); },
                          "two messages to peer " + std::to_string((p_ / 2 + 1) % p_));
}

TEST_F(SparseExchangeMisuse, ElementTypesDifferBetweenRanks) {
  if (p_ == 1) GTEST_SKIP() << "needs two ranks";
  const int right = (me_ + 1) % p_;
  expect_error_everywhere(
      [&] {
        if (me_ == 0)
          adlib::exchange_sparse(comm_, std::vector<SparseMessage<float>>{{right, {1.0f}}});
        else
          adlib::exchange_sparse(comm_, std::vector<SparseMessage<int>>{{right, {1}}});
      },
      "arguments differ between ranks");
}

// A message over INT_MAX bytes cannot be allocated in a test; the check that
// exchange_sparse applies (with INT_MAX) is run on descriptions instead.
TEST(SparseExchangeCheck, MessagesLargerThanOneMpiCountAreRefused) {
  using adlib::detail::SparseSend;
  const std::size_t limit = static_cast<std::size_t>(INT_MAX);
  const SparseSend fits[] = {{0, nullptr, limit}, {1, nullptr, 0}};
  EXPECT_EQ(adlib::detail::sparse_exchange_error(fits, 2, 2, limit), "");
  const SparseSend over[] = {{1, nullptr, 0}, {0, nullptr, limit + 1}};
  const std::string error = adlib::detail::sparse_exchange_error(over, 2, 2, limit);
  EXPECT_NE(error.find("message 1 to peer 0 has 2147483648 bytes"), std::string::npos) << error;
  EXPECT_NE(error.find("more than the 2147483647"), std::string::npos) << error;
}

// ---- memory: nothing proportional to P ----------------------------------------

struct Cost {
  std::size_t allocations = 0, bytes = 0, messages = 0, payload = 0;
  bool operator==(const Cost& o) const {
    return allocations == o.allocations && bytes == o.bytes && messages == o.messages;
  }
};

// One exchange on `comm` where rank r sends 16 values to r + 1 and r + 2
// (mod the size, so fewer distinct peers below 3 ranks), counted.
Cost counted_ring_exchange(const adlib::Comm& comm) {
  const int me = comm.rank(), k = comm.size();
  Messages out;
  for (int step : {1, 2}) {
    const int peer = (me + step) % k;
    if (std::none_of(out.begin(), out.end(), [&](const auto& m) { return m.peer == peer; }))
      out.push_back({peer, std::vector<std::int64_t>(16, me)});
  }
  adlib::exchange_sparse(comm, out);  // warm-up: MPI's first-use setup is not ours to count
  adlib::SparseExchangeStatistics stats;
  adlib_test::allocations = 0;
  adlib_test::allocated_bytes = 0;
  adlib_test::counting = true;
  Messages in = adlib::exchange_sparse(comm, out, "test", &stats);
  adlib_test::counting = false;
  Cost cost{adlib_test::allocations.load(), adlib_test::allocated_bytes.load(),
            stats.messages_sent + stats.messages_received, stats.bytes_received};
  // The exchange worked: every sender's 16 values.
  Messages expected;
  for (int step : {2, 1}) {
    const int source = (me - step % k + k) % k;
    if (std::none_of(expected.begin(), expected.end(),
                     [&](const auto& m) { return m.peer == source; }))
      expected.push_back({source, std::vector<std::int64_t>(16, source)});
  }
  std::sort(expected.begin(), expected.end(),
            [](const auto& a, const auto& b) { return a.peer < b.peer; });
  expect_same(in, expected, "ring of two");
  return cost;
}

// The exchange runs on sub-communicators of 1 .. P ranks inside one run, so
// the costs at different sizes are compared directly.  With at most two
// peers per rank, from 3 ranks on every rank sends 2 and receives 2
// messages: its allocations (count and bytes) must then be identical at 3, 4,
// 5 and 6 ranks.  An array of size P anywhere (an alltoall of counts, a table
// of senders) would change the bytes from one size to the next.  And what it
// allocates beyond the received payload is bounded per message.
TEST(SparseExchangeMemory, AllocationsDoNotGrowWithTheNumberOfRanks) {
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  std::vector<Cost> cost(world_size + 1);  // the test's own table, outside the count
  for (int k = 1; k <= world_size; ++k) {
    MPI_Comm sub = MPI_COMM_NULL;
    ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, world_rank < k ? 0 : MPI_UNDEFINED, world_rank, &sub),
              MPI_SUCCESS);
    if (sub == MPI_COMM_NULL) continue;
    {
      adlib::Comm comm(sub);
      cost[k] = counted_ring_exchange(comm);
    }
    MPI_Comm_free(&sub);  // drops the cached adlib::Comm and its duplicate
  }
  // Compared with the smallest communicator of 3 or more ranks this rank was in.
  const int first = std::max(3, world_rank + 1);
  for (int k = world_rank + 1; k <= world_size; ++k) {
    SCOPED_TRACE("on " + std::to_string(k) + " ranks");
    const Cost& c = cost[k];
    EXPECT_EQ(c.messages, k >= 2 ? 4u : 2u);  // below 3 ranks a peer is itself
    // Bookkeeping: the untyped message list, the sorted peers, the requests,
    // the result list (grown by doubling) and one vector per received message.
    EXPECT_LE(c.allocations, 4 + 2 * c.messages);
    EXPECT_LE(c.bytes - c.payload, 64 + 96 * c.messages);
    if (k > first) {
      EXPECT_EQ(c.allocations, cost[first].allocations) << "allocations grow with P";
      EXPECT_EQ(c.bytes, cost[first].bytes) << "allocated bytes grow with P";
    }
  }
  if (world_rank == 0) {
    std::printf("[ exchange  ] ranks  allocations  bytes (payload)\n");
    for (int k = 1; k <= world_size; ++k)
      std::printf("[ exchange  ] %5d  %11zu  %5zu (%zu)\n", k, cost[k].allocations, cost[k].bytes,
                  cost[k].payload);
  }
}

}  // namespace

}  // namespace mpi_sparse_exchange
