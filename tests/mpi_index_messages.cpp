// SPDX-License-Identifier: BSD-3-Clause
// Index-list messages of BlockMessSchedule (Adlib's MessSchedule) against a
// serial reference: every pair of ranks (self included) exchanges random
// index lists, drawn from a seed every rank knows, so each rank computes
// what it must hold from the sending ranks' offsets and values.  Replace
// with distinct targets, add and max with repeated targets (within and
// across messages), blocks and index lists in one message, several arrays
// at once, the backward direction, and reuse.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include <adlib/adlib.hpp>
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_index_messages {

namespace {

using Offsets = std::vector<std::int64_t>;
constexpr std::int64_t kMemory = 300;  // elements of each rank's send and receive memory

// What rank `from` sends to rank `to`: its offsets (send memory) and the
// receiver's offsets (receive memory), equally long; a block of 4 elements
// first now and then.
struct Message {
  bool block = false;
  Offsets send, recv;
};

Message message(std::uint64_t seed, int from, int to, int P, bool distinct_targets) {
  adlib_test::Rng rng(seed * 1000003u + static_cast<std::uint64_t>(from * P + to));
  Message m;
  m.block = rng.chance(30);
  const auto n = rng.chance(15) ? 0 : rng.uniform(1, 40);
  for (std::int64_t k = 0; k < n; ++k) {
    m.send.push_back(rng.chance(30) ? 100 + k : rng.uniform(0, kMemory - 1));  // runs too
    // Distinct targets: receiver region per sender, a stride that never repeats.
    m.recv.push_back(distinct_targets ? 16 + 4 * P + from * 60 + k : rng.uniform(8, kMemory - 1));
  }
  return m;
}

double sent_value(int rank, std::int64_t offset, int array) {
  return double(1000 * rank + offset + 100000 * array);
}

template <class Combine>
void run(std::uint64_t seed, bool distinct_targets, int arrays, adlib::Direction direction,
         Combine combine, double initial) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size(), me = comm.rank();
  adlib::BlockMessSchedule<Kokkos::HostSpace> s(comm);
  for (int q = 0; q < P; ++q) {
    const Message out = message(seed, me, q, P, distinct_targets);
    if (out.block) s.send(q, adlib::StridedBlock::make(0, {4}, {1}));
    s.send_indices(q, out.send);
    const Message in = message(seed, q, me, P, distinct_targets);
    if (in.block) s.recv(q, adlib::StridedBlock::make(q * 4, {4}, {1}));  // within 0 .. 4P
    s.recv_indices(q, in.recv);
  }
  s.build();
  const bool forward = direction == adlib::Direction::forward;
  // Forward: the send memory is src; backward it is dst.
  std::vector<std::vector<double>> send_side(arrays, std::vector<double>(kMemory + 4 * P)),
      recv_side = send_side;
  for (int a = 0; a < arrays; ++a)
    for (std::int64_t i = 0; i < kMemory + 4 * P; ++i) {
      send_side[a][i] = forward ? sent_value(me, i, a) : initial;
      recv_side[a][i] = forward ? initial : sent_value(me, i, a);
    }
  // The reference: what the receiving memory holds after every message.
  std::vector<std::vector<double>> want = forward ? recv_side : send_side;
  for (int q = 0; q < P; ++q) {
    for (int a = 0; a < arrays; ++a) {
      if (forward) {
        const Message in = message(seed, q, me, P, distinct_targets);
        if (in.block)
          for (int k = 0; k < 4; ++k) combine(want[a][q * 4 + k], sent_value(q, k, a));
        for (std::size_t k = 0; k < in.recv.size(); ++k)
          combine(want[a][in.recv[k]], sent_value(q, in.send[k], a));
      } else {
        // Backward, my send offsets receive from q's receive offsets.
        const Message out = message(seed, me, q, P, distinct_targets);
        if (out.block)
          for (int k = 0; k < 4; ++k) combine(want[a][k], sent_value(q, me * 4 + k, a));
        for (std::size_t k = 0; k < out.send.size(); ++k)
          combine(want[a][out.send[k]], sent_value(q, out.recv[k], a));
      }
    }
  }
  std::vector<double*> dst;
  std::vector<const double*> src;
  for (int a = 0; a < arrays; ++a) {
    dst.push_back(forward ? recv_side[a].data() : send_side[a].data());
    src.push_back(forward ? send_side[a].data() : recv_side[a].data());
  }
  const std::size_t span = kMemory + 4 * P;
  for (int rep = 0; rep < 2; ++rep) {
    if (rep == 1)  // again, from the same starting values: the schedule is reusable
      for (int a = 0; a < arrays; ++a)
        for (std::size_t i = 0; i < span; ++i) dst[a][i] = initial;
    if (arrays == 1)
      s.execute(dst[0], span, src[0], span, direction, combine);
    else
      s.execute_many(dst, span, src, span, direction, combine);
    for (int a = 0; a < arrays; ++a)
      for (std::size_t i = 0; i < span; ++i)
        ASSERT_EQ(dst[a][i], want[a][i])
            << "array " << a << " element " << i << " rep " << rep << " seed " << seed;
  }
}

TEST(IndexMessages, ReplaceIntoDistinctTargets) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed)
    run(seed, true, 1, adlib::Direction::forward, adlib::op::replace, -1.0);
}

TEST(IndexMessages, AddIntoRepeatedTargets) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed)
    run(seed, false, 1, adlib::Direction::forward, adlib::op::add, 0.5);
}

TEST(IndexMessages, MaxSeveralArraysAndBackward) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    run(seed, false, 3, adlib::Direction::forward, adlib::op::max, -5.0);
    run(seed, false, 1, adlib::Direction::backward, adlib::op::add, 0.0);
    run(seed, false, 2, adlib::Direction::backward, adlib::op::add, 1.0);
  }
}

}  // namespace

}  // namespace mpi_index_messages
