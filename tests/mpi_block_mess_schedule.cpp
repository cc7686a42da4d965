// SPDX-License-Identifier: BSD-3-Clause
// BlockMessSchedule used directly: halo exchanges with strided 2-D blocks
// in both directions, 3-D strided blocks received with a different split,
// start/finish, persistent requests reused over many executions with
// alternating arrays and element types, self copies (paired and staged),
// several schedules in flight at once with their own tags, tag recycling,
// and a randomised all-to-all whose two ends declare their blocks in
// different peer orders and splits.  Every value is computed from global
// indices (or from sender, receiver and element number) on the receiving
// side and compared exactly.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

#include <adlib/adlib.hpp>
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_block_mess_schedule {

namespace {

using adlib::Direction;
using adlib::StridedBlock;
using Schedule = adlib::BlockMessSchedule<Kokkos::HostSpace>;

struct World {
  adlib::Comm comm{MPI_COMM_WORLD};
  int me = comm.rank();
  int P = comm.size();
  int right = (me + 1) % P;
  int left = (me + P - 1) % P;
};

// Checks never ASSERT (return early) between collective calls: a rank that
// left a test early would leave the others waiting, turning a failure into
// a hang.

// Minimum and maximum of a value over all ranks.
std::pair<long long, long long> min_max(long long v) {
  long long low = 0, high = 0;
  MPI_Allreduce(&v, &low, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&v, &high, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return {low, high};
}

// A 1-D periodic decomposition of an ny x (P * nx) grid: each rank holds
// ny + 2 rows by nx + 2 columns (one halo cell all around), C order.
struct Halo2D {
  static constexpr std::int64_t ny = 5, nx = 4, ld = nx + 2;
  const World& w;
  explicit Halo2D(const World& world) : w(world) {}
  std::int64_t width() const { return nx * w.P; }
  static std::int64_t at(std::int64_t i, std::int64_t j) { return (i + 1) * ld + j; }
  // Global column of local column j of `rank` (j = 1..nx interior).
  std::int64_t global_column(int rank, std::int64_t j) const {
    return ((rank * nx + j - 1) % width() + width()) % width();
  }
  double value(std::int64_t i, std::int64_t g, int rep) const {
    return 1000.0 * double(i) + double(g) + 0.5 * rep;
  }
  std::vector<double> interior(int rep) const {
    std::vector<double> a((ny + 2) * ld, -1.0);
    for (std::int64_t i = 0; i < ny; ++i)
      for (std::int64_t j = 1; j <= nx; ++j) a[at(i, j)] = value(i, global_column(w.me, j), rep);
    return a;
  }
  // Columns as strided blocks: column j of the interior rows.
  static StridedBlock column(std::int64_t j) { return StridedBlock::make(at(0, j), {ny}, {ld}); }
  void declare(Schedule& s) const {
    // To the right: my last column into its left halo; to the left: my
    // first column into its right halo.  At P = 2 both go to the same
    // peer, in this order at both ends.
    s.send(w.right, column(nx));
    s.send(w.left, column(1));
    s.recv(w.left, column(0));
    s.recv(w.right, column(nx + 1));
  }
};

TEST(BlockMessSchedule, HaloExchangeForwardAndBackward) {
  const World w;
  const Halo2D h(w);
  Schedule s(w.comm);
  h.declare(s);
  s.build();
  for (int rep = 0; rep < 3; ++rep) {
    std::vector<double> a = h.interior(rep);
    s.execute(a.data(), a.size(), a.data(), a.size());  // in place: halos <- interiors
    std::vector<double> want = h.interior(rep);
    for (std::int64_t i = 0; i < Halo2D::ny; ++i) {
      want[Halo2D::at(i, 0)] = h.value(i, h.global_column(w.me, 0), rep);
      want[Halo2D::at(i, Halo2D::nx + 1)] = h.value(i, h.global_column(w.me, Halo2D::nx + 1), rep);
    }
    EXPECT_EQ(a, want) << "forward, rep " << rep;
  }
  // Backward: halos travel back to the columns they came from (Adlib's
  // scatter direction).  Halo cells hold tagged values; the neighbours'
  // boundary columns must receive them, everything else stays.
  std::vector<double> halos((Halo2D::ny + 2) * Halo2D::ld, -7.0), back(halos.size(), -1.0);
  for (std::int64_t i = 0; i < Halo2D::ny; ++i) {
    halos[Halo2D::at(i, 0)] = 10000.0 * w.me + i;               // goes to my left neighbour
    halos[Halo2D::at(i, Halo2D::nx + 1)] = 20000.0 * w.me + i;  // goes to my right neighbour
  }
  s.execute(back.data(), back.size(), halos.data(), halos.size(), Direction::backward);
  std::vector<double> want(back.size(), -1.0);
  for (std::int64_t i = 0; i < Halo2D::ny; ++i) {
    want[Halo2D::at(i, Halo2D::nx)] = 10000.0 * w.right + i;
    want[Halo2D::at(i, 1)] = 20000.0 * w.left + i;
  }
  EXPECT_EQ(back, want);
}

// Strided 3-D blocks received with another split: a local 4 x 5 x 6 array
// (strides 30, 6, 1) sends to the right planes 3, 1 (stride -2), rows 1..4,
// columns 0 and 3 (2 x 4 x 2 = 16 elements); they arrive from the left in
// an 8 x 8 matrix as a 2 x 4 corner, then one row written right to left.
struct Strided3D {
  static constexpr std::size_t source_size = 4 * 5 * 6, target_size = 64;
  static void declare(Schedule& s, const World& w) {
    s.send(w.right, StridedBlock::make(3 * 30 + 6, {2, 4, 2}, {-60, 6, 3}));
    s.recv(w.left, StridedBlock::make(0, {2, 4}, {8, 1}));
    s.recv(w.left, StridedBlock::make(5 * 8 + 7, {8}, {-1}));
  }
  // The sender's element sequence, by hand: C order over (plane, row, col).
  static std::vector<std::int64_t> order() {
    std::vector<std::int64_t> order;
    for (int p : {3, 1})
      for (int r = 1; r <= 4; ++r)
        for (int c : {0, 3}) order.push_back(p * 30 + r * 6 + c);
    return order;
  }
  // Where the k-th element of the message lands.
  static std::vector<std::int64_t> places() {
    std::vector<std::int64_t> places;
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 4; ++c) places.push_back(r * 8 + c);
    for (int c = 7; c >= 0; --c) places.push_back(5 * 8 + c);
    return places;
  }
};

TEST(BlockMessSchedule, Strided3DBlocksReceivedWithAnotherSplit) {
  const World w;
  Schedule s(w.comm);
  Strided3D::declare(s, w);
  s.build();
  auto source = [&](int rank, int rep) {
    std::vector<double> a(Strided3D::source_size);
    for (size_t i = 0; i < a.size(); ++i) a[i] = 1e4 * rank + double(i) + 0.25 * rep;
    return a;
  };
  const std::vector<std::int64_t> order = Strided3D::order(), places = Strided3D::places();
  for (int rep = 0; rep < 4; ++rep) {
    const std::vector<double> a = source(w.me, rep), from = source(w.left, rep);
    std::vector<double> b(64, -1.0);
    if (rep % 2) {
      s.start(b.data(), b.size(), a.data(), a.size());
      EXPECT_TRUE(s.in_flight());
      s.finish();
    } else {
      s.execute(b.data(), b.size(), a.data(), a.size());
    }
    EXPECT_FALSE(s.in_flight());
    std::vector<double> want(64, -1.0);
    for (size_t k = 0; k < order.size(); ++k) want[places[k]] = from[order[k]];
    EXPECT_EQ(b, want) << "rep " << rep;
  }
}

// The same exchanges with messages described to MPI as derived datatypes
// instead of packed: on every rank, on alternate ranks only (each end of a
// message chooses on its own: a packed end talks to a datatype end), and by
// the automatic rule with no size threshold.
// Negative strides and a receive split into two blocks are included.
TEST(BlockMessSchedule, DatatypeMessagesMatchPackedOnes) {
  const World w;
  using adlib::TransferMethod;
  using adlib::TransferPolicy;
  const TransferMethod mine[] = {TransferMethod::datatype,
                                 w.me % 2 ? TransferMethod::datatype : TransferMethod::pack,
                                 TransferMethod::automatic};
  for (const TransferMethod method : mine) {
    const TransferPolicy policy{method, 0};

    // The 3-D strided blocks of the test above, received with another split.
    Schedule s(w.comm);
    Strided3D::declare(s, w);
    s.build();
    s.set_transfer(policy);
    const bool self = w.P == 1;  // a self-message is a local copy, never a datatype
    if (!self)
      for (const auto* m : {&s.plan().send_messages().at(0), &s.plan().recv_messages().at(0)}) {
        // Forced choices as asked; the automatic rule's own cases are in
        // serial_transfer_policy.
        // Staged messages (ADLIB_FORCE_STAGING) are always packed.
        const bool typed = !s.staged() && (method == TransferMethod::datatype ||
                                           (method == TransferMethod::automatic &&
                                            adlib::uses_datatype(*m, sizeof(double), policy)));
        EXPECT_EQ(s.in_place(*m, sizeof(double)), typed);
      }
    std::vector<double> a(Strided3D::source_size), from(a.size());
    for (size_t i = 0; i < a.size(); ++i) {
      a[i] = 1e4 * w.me + double(i);
      from[i] = 1e4 * w.left + double(i);
    }
    const std::vector<std::int64_t> order = Strided3D::order(), places = Strided3D::places();
    std::vector<double> want(Strided3D::target_size, -1.0);
    for (size_t k = 0; k < order.size(); ++k) want[places[k]] = from[order[k]];
    for (int rep = 0; rep < 2; ++rep) {
      std::vector<double> b(64, -1.0);
      s.execute(b.data(), b.size(), a.data(), a.size());
      EXPECT_EQ(b, want) << "policy " << int(method) << ", rep " << rep;
    }
    // Backward: the received blocks travel back into the sent positions.
    std::vector<double> back(a.size(), -2.0), want_back(a.size(), -2.0);
    std::vector<double> b(64);
    for (size_t i = 0; i < b.size(); ++i) b[i] = 5e4 * w.me + double(i);
    for (size_t k = 0; k < order.size(); ++k)
      want_back[order[k]] = 5e4 * w.right + double(places[k]);
    s.execute(back.data(), back.size(), b.data(), b.size(), Direction::backward);
    EXPECT_EQ(back, want_back) << "policy " << int(method) << ", backward";

    // The 2-D halo exchange (columns), in place.
    const Halo2D h(w);
    Schedule halo(w.comm);
    h.declare(halo);
    halo.build();
    halo.set_transfer(policy);
    std::vector<double> g = h.interior(0);
    halo.execute(g.data(), g.size(), g.data(), g.size());
    std::vector<double> want_g = h.interior(0);
    for (std::int64_t i = 0; i < Halo2D::ny; ++i) {
      want_g[Halo2D::at(i, 0)] = h.value(i, h.global_column(w.me, 0), 0);
      want_g[Halo2D::at(i, Halo2D::nx + 1)] = h.value(i, h.global_column(w.me, Halo2D::nx + 1), 0);
    }
    EXPECT_EQ(g, want_g) << "policy " << int(method) << ", halo";
  }
}

TEST(BlockMessSchedule, TransferPolicyChangesOnlyBetweenExecutions) {
  const World w;
  Schedule s(w.comm);
  s.send(w.right, StridedBlock::make(0, {4}, {2}));
  s.recv(w.left, StridedBlock::make(1, {4}, {2}));
  s.build();
  std::vector<double> a(8, double(w.me)), b(8, -1.0);
  s.start(b.data(), b.size(), a.data(), a.size());
  EXPECT_THROW(s.set_transfer({adlib::TransferMethod::datatype, 0}), adlib::Error);
  s.finish();
  s.set_transfer({adlib::TransferMethod::datatype, 0});
  s.execute(b.data(), b.size(), a.data(), a.size());
  for (int k = 0; k < 4; ++k) EXPECT_EQ(b[1 + 2 * k], double(w.left));
}

// Element types of other sizes through one schedule.
struct Triple {
  double x, y, z;
  bool operator==(const Triple& o) const { return x == o.x && y == o.y && z == o.z; }
};

TEST(BlockMessSchedule, PersistentReuseAcrossArraysAndTypes) {
  const World w;
  // A contiguous message to the right (sent from and received into user
  // memory directly) and a strided one to the left (packed).
  Schedule s(w.comm);
  s.send(w.right, StridedBlock::make(2, {10}, {1}));
  s.send(w.left, StridedBlock::make(1, {6}, {3}));
  s.recv(w.left, StridedBlock::make(20, {10}, {1}));
  s.recv(w.right, StridedBlock::make(37, {6}, {-1}));
  s.build();
  const std::int64_t n = 40;
  // More array pairs than the schedule keeps request sets for, used
  // round-robin (sets are evicted and rebuilt) for many executions.
  const int pairs = int(Schedule::kRequestSetsKept) + 3;
  std::vector<std::vector<double>> src(pairs, std::vector<double>(n)),
      dst(pairs, std::vector<double>(n));
  auto src_value = [](int rank, int pair, int it, std::int64_t i) {
    return 1e6 * rank + 1e4 * pair + 100.0 * it + double(i);
  };
  int bad = 0;
  for (int it = 0; it < 6 * pairs; ++it) {
    const int pair = (it % 7 < 2) ? 0 : it % pairs;  // sometimes repeat, sometimes alternate
    for (std::int64_t i = 0; i < n; ++i) {
      src[pair][i] = src_value(w.me, pair, it, i);
      dst[pair][i] = -1.0;
    }
    s.execute(dst[pair].data(), n, src[pair].data(), n);
    for (std::int64_t i = 0; i < n; ++i) {
      double want = -1.0;
      if (i >= 20 && i < 30) want = src_value(w.left, pair, it, 2 + (i - 20));
      if (i >= 32 && i <= 37) want = src_value(w.right, pair, it, 1 + 3 * (37 - i));
      bad += dst[pair][i] != want;
    }
  }
  EXPECT_EQ(bad, 0);
  // Other element sizes: the buffers grow, and shrink back without harm.
  std::vector<Triple> ts(n), td(n);
  std::vector<float> fs(n), fd(n);
  for (int round = 0; round < 3; ++round) {
    for (std::int64_t i = 0; i < n; ++i) {
      ts[i] = Triple{double(w.me), double(i), double(round)};
      td[i] = Triple{-1, -1, -1};
      fs[i] = float(100 * w.me + i + round);
      fd[i] = -1.0f;
    }
    s.execute(td.data(), n, ts.data(), n);
    s.execute(fd.data(), n, fs.data(), n);
    for (std::int64_t i = 0; i < n; ++i) {
      Triple want{-1, -1, -1};
      float fwant = -1.0f;
      if (i >= 20 && i < 30) {
        want = Triple{double(w.left), double(2 + i - 20), double(round)};
        fwant = float(100 * w.left + 2 + i - 20 + round);
      }
      if (i >= 32 && i <= 37) {
        want = Triple{double(w.right), double(1 + 3 * (37 - i)), double(round)};
        fwant = float(100 * w.right + 1 + 3 * (37 - i) + round);
      }
      EXPECT_EQ(td[i], want) << "element " << i << " round " << round;
      EXPECT_EQ(fd[i], fwant) << "element " << i << " round " << round;
    }
  }
}

TEST(BlockMessSchedule, SelfCopiesPairedAndStaged) {
  const World w;
  // Paired: the same extents on both ends (a 3 x 4 block transposed into
  // another layout by strides).
  {
    Schedule s(w.comm);
    s.send(w.me, StridedBlock::make(0, {3, 4}, {4, 1}));
    s.recv(w.me, StridedBlock::make(0, {3, 4}, {1, 3}));  // column major
    s.build();
    EXPECT_FALSE(s.plan().local_copies_staged());
    std::vector<double> a(12), b(12, -1.0), c(12, -1.0);
    std::iota(a.begin(), a.end(), 0.0);
    s.execute(b.data(), b.size(), a.data(), a.size());
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) EXPECT_EQ(b[i + 3 * j], a[4 * i + j]);
    s.execute(c.data(), c.size(), b.data(), b.size(), Direction::backward);
    EXPECT_EQ(c, a);
  }
  // Staged: one 12-element run sent, received as single elements and
  // short runs, one of them reversed.
  {
    Schedule s(w.comm);
    s.send(w.me, StridedBlock::make(0, {12}, {1}));
    s.recv(w.me, StridedBlock::make(20, {5}, {-1}));      // 20 19 18 17 16
    s.recv(w.me, StridedBlock::make(0, {}, {}));          // one element
    s.recv(w.me, StridedBlock::make(3, {2, 3}, {5, 2}));  // 3 5 7 8 10 12
    s.build();
    EXPECT_TRUE(s.plan().local_copies_staged());
    EXPECT_EQ(s.plan().local_count(), 12);
    const std::vector<std::int64_t> places{20, 19, 18, 17, 16, 0, 3, 5, 7, 8, 10, 12};
    for (int rep = 0; rep < 3; ++rep) {
      std::vector<double> a(12), b(21, -1.0);
      for (int i = 0; i < 12; ++i) a[i] = 100.0 * rep + i;
      s.execute(b.data(), b.size(), a.data(), a.size());
      std::vector<double> want(21, -1.0);
      for (int i = 0; i < 12; ++i) want[places[i]] = a[i];
      EXPECT_EQ(b, want) << "rep " << rep;
      std::vector<double> back(12, -1.0);
      s.execute(back.data(), back.size(), b.data(), b.size(), Direction::backward);
      EXPECT_EQ(back, a) << "backward, rep " << rep;
    }
  }
}

TEST(BlockMessSchedule, SchedulesInFlightTogetherKeepTheirTags) {
  const World w;
  const int base = w.comm.live_tags();
  // Three schedules with the same pattern (same peers, same sizes): only
  // the tags tell their messages apart.  Unchecked: they are started in a
  // rank-dependent order, which checked starts (collective calls) forbid.
  adlib::Configuration unchecked = adlib::Configuration::environment();
  unchecked.checked = false;
  auto make = [&] {
    auto s = std::make_unique<Schedule>(w.comm, unchecked);
    s->send(w.right, StridedBlock::make(0, {8}, {1}));
    s->recv(w.left, StridedBlock::make(0, {8}, {1}));
    s->build();
    return s;
  };
  std::vector<std::unique_ptr<Schedule>> s;
  for (int k = 0; k < 3; ++k) s.push_back(make());
  EXPECT_EQ(w.comm.live_tags(), base + 3);
  std::vector<int> tags;
  for (const auto& x : s) tags.push_back(x->tag());
  EXPECT_NE(tags[0], tags[1]);
  EXPECT_NE(tags[1], tags[2]);
  EXPECT_NE(tags[0], tags[2]);
  for (int t : tags) {
    // Every rank gave the same schedule the same tag (agreed by build()).
    const auto [low, high] = min_max(t);
    EXPECT_EQ(low, high);
  }
  for (int rep = 0; rep < 5; ++rep) {
    std::vector<std::vector<double>> src(3, std::vector<double>(8)), dst(3, std::vector<double>(8));
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 8; ++i) {
        src[k][i] = 1000.0 * w.me + 100.0 * k + i + 0.5 * rep;
        dst[k][i] = -1.0;
      }
    // Started in an order that differs between neighbours (so messages
    // of equal size would pair up wrongly if only their order told them
    // apart), finished in yet another.
    const std::vector<int> order = w.me % 2 ? std::vector<int>{2, 0, 1} : std::vector<int>{1, 0, 2};
    for (int k : order) s[k]->start(dst[k].data(), 8, src[k].data(), 8);
    for (int k : {2, 1, 0}) s[k]->finish();
    int bad = 0;
    for (int k = 0; k < 3; ++k)
      for (int i = 0; i < 8; ++i) bad += dst[k][i] != 1000.0 * w.left + 100.0 * k + i + 0.5 * rep;
    EXPECT_EQ(bad, 0) << "rep " << rep;
  }
  // A destroyed schedule's tag goes back to the pool and is handed out next.
  const int freed = tags[1];
  s[1].reset();
  EXPECT_EQ(w.comm.live_tags(), base + 2);
  s[1] = make();
  EXPECT_EQ(s[1]->tag(), freed);
  // The recycled tag carries the new schedule's messages correctly.
  std::vector<double> a(8), b(8, -1.0);
  for (int i = 0; i < 8; ++i) a[i] = 7.0 * w.me + i;
  s[1]->execute(b.data(), 8, a.data(), 8);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(b[i], 7.0 * w.left + i);
  s.clear();
  EXPECT_EQ(w.comm.live_tags(), base);
}

TEST(BlockMessSchedule, DestroyedInFlightCompletes) {
  // A schedule unwound past finish() (an exception between start and
  // finish) completes its operation instead of leaving MPI writing into
  // freed memory.
  const World w;
  std::vector<double> a(5), b(5, -1.0);
  for (int i = 0; i < 5; ++i) a[i] = 10.0 * w.me + i;
  try {
    Schedule s(w.comm);
    s.send(w.right, StridedBlock::make(0, {5}, {1}));
    s.recv(w.left, StridedBlock::make(4, {5}, {-1}));
    s.build();
    s.start(b.data(), b.size(), a.data(), a.size());
    throw std::runtime_error("interrupted");
  } catch (const std::runtime_error&) {
  }
  for (int i = 0; i < 5; ++i) EXPECT_EQ(b[4 - i], 10.0 * w.left + i);
}

TEST(BlockMessSchedule, KokkosViewOverloads) {
  const World w;
  Kokkos::View<double**, Kokkos::LayoutRight, Kokkos::HostSpace> a("a", 3, 4), b("b", 4, 3);
  Schedule s(w.comm);
  // Row 1 of a to the right, into column 2 of b.
  s.send(w.right, StridedBlock::make(4, {4}, {1}));
  s.recv(w.left, StridedBlock::make(2, {4}, {3}));
  s.build();
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) a(i, j) = 100.0 * w.me + 10 * i + j;
  Kokkos::deep_copy(b, -1.0);
  s.execute(b, a);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(b(i, j), j == 2 ? 100.0 * w.left + 10 + i : -1.0) << i << "," << j;
}

// One chunk of a randomised all-to-all: `count` elements from sender to receiver.
struct Chunk {
  int sender, receiver, index;
  std::int64_t count;
};

TEST(BlockMessSchedule, RandomAllToAllWithDifferentSplitsAndPeerOrders) {
  const World w;
  const int P = w.P;
  for (int round = 0; round < 25; ++round) {
    // The same random pattern on every rank.
    adlib_test::Rng rng(9000 + round);
    std::vector<Chunk> chunks;  // all chunks of all pairs, in per-pair order
    for (int from = 0; from < P; ++from)
      for (int to = 0; to < P; ++to) {
        const int n = static_cast<int>(rng.uniform(0, 3));
        for (int k = 0; k < n; ++k)
          chunks.push_back(Chunk{from, to, k, rng.chance(10) ? 0 : rng.uniform(1, 9)});
      }
    auto code = [&](const Chunk& c, std::int64_t i) {
      return ((double(c.sender) * P + c.receiver) * 8 + c.index) * 16 + double(i) + 0.5 * round;
    };
    // Sender side: chunks to all peers interleaved in a random order (per
    // peer, chunk order kept), each as one block (stride 2 or 1) in memory.
    // Receiver side: another interleaving, and each chunk split in two
    // blocks, the second reversed.
    auto interleave = [&](std::vector<const Chunk*> mine) {
      std::vector<const Chunk*> out;
      while (!mine.empty()) {
        // Take the first remaining chunk of a random peer.
        const auto k =
            static_cast<size_t>(rng.uniform(0, static_cast<std::int64_t>(mine.size()) - 1));
        const int peer_key = mine[k]->sender * P + mine[k]->receiver;
        const auto first = std::find_if(mine.begin(), mine.end(), [&](const Chunk* c) {
          return c->sender * P + c->receiver == peer_key;
        });
        out.push_back(*first);
        mine.erase(first);
      }
      return out;
    };
    std::vector<const Chunk*> outgoing, incoming;
    for (const auto& c : chunks) {
      if (c.sender == w.me) outgoing.push_back(&c);
      if (c.receiver == w.me) incoming.push_back(&c);
    }
    outgoing = interleave(outgoing);
    incoming = interleave(incoming);
    Schedule s(w.comm);
    std::map<const Chunk*, std::int64_t> src_offset;
    std::int64_t src_size = 0;
    // Odd rounds send contiguous runs and every third round receives
    // unsplit, so single-chunk messages go directly from / to user memory.
    const std::int64_t gap = round % 2 ? 1 : 2;
    const bool split = round % 3 != 0;
    for (const Chunk* c : outgoing) {
      s.send(c->receiver, StridedBlock::make(src_size, {c->count}, {gap}));
      src_offset[c] = src_size;
      src_size += gap * c->count;
    }
    std::map<const Chunk*, std::vector<std::int64_t>> dst_places;
    std::int64_t dst_size = 0;
    for (const Chunk* c : incoming) {
      const std::int64_t half = split ? c->count / 2 : c->count, rest = c->count - half;
      s.recv(c->sender, StridedBlock::make(dst_size, {half}, {1}));
      s.recv(c->sender, StridedBlock::make(dst_size + half + rest - 1, {rest}, {-1}));
      auto& places = dst_places[c];
      for (std::int64_t i = 0; i < half; ++i) places.push_back(dst_size + i);
      for (std::int64_t i = 0; i < rest; ++i) places.push_back(dst_size + half + rest - 1 - i);
      dst_size += c->count + 1;  // one untouched cell after each chunk
    }
    s.build();
    std::vector<double> src(src_size + 1, -2.0), dst(dst_size + 1, -1.0);
    for (const Chunk* c : outgoing)
      for (std::int64_t i = 0; i < c->count; ++i) src[src_offset[c] + gap * i] = code(*c, i);
    s.execute(dst.data(), dst.size(), src.data(), src.size());
    std::vector<double> want(dst.size(), -1.0);
    for (const Chunk* c : incoming)
      for (std::int64_t i = 0; i < c->count; ++i) want[dst_places[c][i]] = code(*c, i);
    EXPECT_EQ(dst, want) << "forward, round " << round;
    // Backward: what was received travels back to where it was sent from.
    std::vector<double> back(src.size(), -1.0);
    s.execute(back.data(), back.size(), dst.data(), dst.size(), Direction::backward);
    std::vector<double> back_want(src.size(), -1.0);
    for (const Chunk* c : outgoing)
      for (std::int64_t i = 0; i < c->count; ++i) back_want[src_offset[c] + gap * i] = code(*c, i);
    EXPECT_EQ(back, back_want) << "backward, round " << round;
  }
}

}  // namespace

}  // namespace mpi_block_mess_schedule
