// SPDX-License-Identifier: BSD-3-Clause
// DataSchedule used directly (Gather and Scatter test it through subscripts)
// against a serial reference.  Every pattern is drawn from a seed that every
// rank knows, so each rank computes every rank's requests and hence what
// its memory must hold: owned memory holds values that encode (rank,
// offset).  Requests name any owner, themselves included, with repeats;
// some ranks request nothing and some own nothing.  Reads check every
// position (requested or not); writes combine with add and with an
// order-dependent operation, which pins the order: own contributions first,
// then ranks ascending, each rank's in the order of its local offsets.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <adlib/runtime/comm.hpp>
#include <adlib/runtime/configuration.hpp>
#include <adlib/runtime/error.hpp>
#include <adlib/schedules/data_schedule.hpp>
#include "expect_error_everywhere.hpp"
#include "test_layouts.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_data_schedule {

namespace {

using adlib::ElementRequest;
using adlib::RemoteAccess;
using adlib_test::Rng;
using Schedule = adlib::DataSchedule<Kokkos::HostSpace>;

// One pattern: the elements each rank owns and every rank's requests.
struct Pattern {
  std::vector<std::int64_t> owned;                    // per rank
  std::vector<std::vector<ElementRequest>> requests;  // per rank
  std::vector<std::int64_t> local_span;               // per rank
};

// Rank r's requests: distinct local offsets (a read writes each once) in a
// random order, owner offsets anywhere in the owner's memory, repeats.
Pattern draw(std::uint64_t seed, int P) {
  Rng rng(seed);
  Pattern p;
  for (int r = 0; r < P; ++r) p.owned.push_back(rng.chance(20) ? 0 : rng.uniform(1, 40));
  for (int r = 0; r < P; ++r) {
    std::vector<ElementRequest> mine;
    const std::int64_t n = rng.chance(20) ? 0 : rng.uniform(1, 60);
    std::vector<std::int64_t> local(static_cast<std::size_t>(n));
    for (std::int64_t k = 0; k < n; ++k)
      local[static_cast<std::size_t>(k)] = 3 * k + (k % 3);  // distinct, with gaps
    for (std::int64_t k = n - 1; k > 0; --k)                 // shuffled: local offsets in no order
      std::swap(local[static_cast<std::size_t>(k)],
                local[static_cast<std::size_t>(rng.uniform(0, k))]);
    for (std::int64_t k = 0; k < n; ++k) {
      int owner = static_cast<int>(rng.uniform(0, P - 1));
      for (int tries = 0; p.owned[static_cast<std::size_t>(owner)] == 0 && tries < P; ++tries)
        owner = (owner + 1) % P;
      if (p.owned[static_cast<std::size_t>(owner)] == 0) break;  // nobody owns anything
      const std::int64_t span = p.owned[static_cast<std::size_t>(owner)];
      // Few distinct targets now and then, so that repeats are common.
      const std::int64_t offset =
          rng.uniform(0, rng.chance(30) ? std::min<std::int64_t>(span, 3) - 1 : span - 1);
      mine.push_back({owner, offset, local[static_cast<std::size_t>(k)]});
    }
    std::int64_t span = 0;
    for (const auto& q : mine) span = std::max(span, q.local_offset + 1);
    p.local_span.push_back(span + 2);  // two positions nobody writes
    p.requests.push_back(std::move(mine));
  }
  return p;
}

double encode(int rank, std::int64_t offset) {
  return 1000.0 * rank + static_cast<double>(offset);
}

TEST(DataSchedule, ReadsDeliverEveryRequestedElement) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size(), me = comm.rank();
  for (std::uint64_t trial = 0; trial < 40; ++trial) {
    const Pattern p = draw(1000 + trial, P);
    std::vector<double> owned(static_cast<std::size_t>(p.owned[me]) + 1);
    for (std::size_t i = 0; i < owned.size(); ++i)
      owned[i] = encode(me, static_cast<std::int64_t>(i));
    Schedule read(comm, p.requests[me], RemoteAccess::read);
    std::vector<double> local(static_cast<std::size_t>(p.local_span[me]), -1.0);
    std::vector<double> want(local.size(), -1.0);
    for (const ElementRequest& q : p.requests[me])
      want[static_cast<std::size_t>(q.local_offset)] = encode(q.owner, q.owner_offset);
    for (int repeat = 0; repeat < 2; ++repeat) {  // built once, run twice
      std::fill(local.begin(), local.end(), -1.0);
      read.execute_read(local.data(), local.size(), owned.data(), owned.size());
      ASSERT_EQ(local, want) << "trial " << trial << " repeat " << repeat;
    }
  }
}

TEST(DataSchedule, WritesCombineEveryContributionInAFixedOrder) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size(), me = comm.rank();
  // Not commutative: the result depends on the order of the contributions.
  const auto ordered =
      adlib::op::combine([](double& target, const double& value) { target = 2 * target + value; });
  for (std::uint64_t trial = 0; trial < 40; ++trial) {
    const Pattern p = draw(5000 + trial, P);
    const auto value = [](int rank, std::int64_t local_offset) {
      return static_cast<double>((rank * 7 + local_offset) % 5);
    };
    // The reference: own contributions first, then ranks ascending; each
    // rank's in ascending local offset.
    std::vector<double> sums(static_cast<std::size_t>(p.owned[me]), 0.0), ordered_want = sums;
    std::vector<int> order(static_cast<std::size_t>(P));
    order[0] = me;
    for (int r = 0, k = 1; r < P; ++r)
      if (r != me) order[static_cast<std::size_t>(k++)] = r;
    for (const int r : order) {
      std::vector<ElementRequest> theirs = p.requests[static_cast<std::size_t>(r)];
      std::sort(theirs.begin(), theirs.end(), [](const ElementRequest& a, const ElementRequest& b) {
        return a.local_offset < b.local_offset;
      });
      for (const ElementRequest& q : theirs) {
        if (q.owner != me) continue;
        auto& s = sums[static_cast<std::size_t>(q.owner_offset)];
        auto& o = ordered_want[static_cast<std::size_t>(q.owner_offset)];
        s += value(r, q.local_offset);
        o = 2 * o + value(r, q.local_offset);
      }
    }
    std::vector<double> local(static_cast<std::size_t>(p.local_span[me]));
    for (std::size_t i = 0; i < local.size(); ++i)
      local[i] = value(me, static_cast<std::int64_t>(i));
    Schedule write(comm, p.requests[me], RemoteAccess::write);
    std::vector<double> owned(sums.size(), 0.0);
    write.execute_write(owned.data(), owned.size(), local.data(), local.size(), adlib::op::add);
    ASSERT_EQ(owned, sums) << "trial " << trial;
    std::fill(owned.begin(), owned.end(), 0.0);
    write.execute_write(owned.data(), owned.size(), local.data(), local.size(), ordered);
    ASSERT_EQ(owned, ordered_want) << "trial " << trial;
  }
}

// ---- misuse ------------------------------------------------------------------------

TEST(DataScheduleMisuse, AnOwnerOutOfRangeOnOneRankIsAnErrorEverywhere) {
  adlib::Comm comm(MPI_COMM_WORLD);
  std::vector<ElementRequest> requests = {{0, 0, 0}};
  if (comm.rank() == comm.size() - 1) requests.push_back({comm.size(), 0, 1});
  adlib_test::expect_error_everywhere([&] { Schedule s(comm, requests, RemoteAccess::read); },
                                      "outside [0, ");
}

TEST(DataScheduleMisuse, ExecutingTheOtherAccessOnOneRankIsAnErrorEverywhereWhenChecked) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::Configuration checked = adlib::Configuration::environment();
  checked.checked = true;
  const std::vector<ElementRequest> requests = {{0, 0, 0}};
  Schedule schedule(comm, requests, RemoteAccess::write, checked);
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

}  // namespace

}  // namespace mpi_data_schedule
