// SPDX-License-Identifier: BSD-3-Clause
// The hang watchdog (runtime/watchdog.hpp): a collective called on some
// ranks only is reported by the ranks that wait, naming the collective, the
// step, the ranks it waits for and what the other ranks are doing; with the
// watchdog on, collectives that complete give the same values as without.
//
// The reporting tests time out on purpose (0.5 s) in raise mode and leave
// the waiting ranks' requests posted, so each makes its own duplicate of
// MPI_COMM_WORLD and never uses it again.  WatchdogAbort runs only in the
// mpi_watchdog.abort entry (tests/CMakeLists.txt), whose environment turns
// the watchdog on in its default mode: the report, then MPI_Abort, which
// that entry's PASS_REGULAR_EXPRESSION checks.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>
#include "expect_error_everywhere.hpp"

namespace mpi_watchdog {

namespace {

using adlib::Index;
using adlib_test::expect_error_everywhere;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// A periodic ring of n elements with one ghost on each side, every owned
// element its global index.
adlib::DistArray<double, 1> ring(const adlib::ProcessGrid& grid, Index n) {
  adlib::DistArray<double, 1> u(
      grid, {std::make_shared<adlib::BlockRange>(n, grid.dim(0), adlib::Ghosts{1, 1, true})});
  u.fill([](auto g) { return double(g[0]); });
  return u;
}

adlib::Configuration with_checked(bool checked) {
  adlib::Configuration c = adlib::Configuration::environment();
  c.checked = checked;
  return c;
}

class Watchdog : public ::testing::Test {
 protected:
  void SetUp() override { saved_ = adlib::watchdog_settings(); }
  void TearDown() override { adlib::set_watchdog(saved_); }

  // A fresh duplicate of MPI_COMM_WORLD for a test that leaves requests
  // posted on it: never freed, never used again.
  static MPI_Comm abandoned_world() {
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    return c;
  }

  adlib::WatchdogSettings saved_;
};

TEST_F(Watchdog, SettingsAreParsedStrictly) {
  EXPECT_FALSE(adlib::parse_watchdog_settings(nullptr, nullptr).enabled());
  EXPECT_FALSE(adlib::parse_watchdog_settings("", "").enabled());
  EXPECT_FALSE(adlib::parse_watchdog_settings("0", nullptr).enabled());
  const adlib::WatchdogSettings s = adlib::parse_watchdog_settings("2.5", "raise");
  EXPECT_EQ(s.timeout_seconds, 2.5);
  EXPECT_EQ(s.action, adlib::TimeoutAction::raise);
  EXPECT_EQ(adlib::parse_watchdog_settings("30", nullptr).action, adlib::TimeoutAction::abort);
  EXPECT_EQ(adlib::describe(s), "2.5 s, then raise");
  EXPECT_EQ(adlib::describe(adlib::WatchdogSettings{}), "off");
  for (const char* bad : {"abc", "-1", "5s", "nan", "1e99"}) {
    try {
      adlib::parse_watchdog_settings(bad, nullptr);
      ADD_FAILURE() << "ADLIB_TIMEOUT=" << bad << " accepted";
    } catch (const adlib::Error& e) {
      EXPECT_TRUE(contains(e.what(), std::string("ADLIB_TIMEOUT=") + bad)) << e.what();
    }
  }
  EXPECT_THROW(adlib::parse_watchdog_settings("1", "kill"), adlib::Error);
  EXPECT_THROW(adlib::set_watchdog({-1.0, adlib::TimeoutAction::raise}), adlib::Error);
}

// With the watchdog on, every watched path (agreement, messages, MPI's
// reduction and broadcast, reduction schedules' own messages, the sparse
// exchange) gives the values it gives without.
TEST_F(Watchdog, CollectivesThatCompleteGiveTheSameValues) {
  adlib::set_watchdog({60.0, adlib::TimeoutAction::raise});
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  const Index n = 5 * comm.size() + 3;
  auto u = ring(grid, n);
  adlib::WriteHalo<double, 1> halo(u);
  halo.execute(u);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.local_view());
  const Index owned = static_cast<Index>(host.extent(0)) - 2;
  if (owned > 0) {
    EXPECT_EQ(host(0), double((Index(host(1)) - 1 + n) % n));
    EXPECT_EQ(host(owned + 1), double((Index(host(owned)) + 1) % n));
  }
  adlib::DistArray<double, 1> c(grid, {std::make_shared<adlib::CyclicRange>(n, grid.dim(0))});
  adlib::remap(c, u);
  int wrong = 0;
  c.host_mirror().for_each_local([&](const auto& g, double& v) { wrong += v != double(g[0]); });
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(adlib::sum_over(grid, 1.0), double(comm.size()));
  EXPECT_EQ(adlib::max_over(grid, double(comm.rank())), double(comm.size() - 1));
  for (auto algorithm : {adlib::ReductionAlgorithm::mpi, adlib::ReductionAlgorithm::ring,
                         adlib::ReductionAlgorithm::recursive_doubling}) {
    adlib::Configuration config = adlib::Configuration::environment();
    config.reduction = algorithm;
    adlib::RedxSchedule<double, adlib::op::Add, Kokkos::HostSpace> sum(comm, 7, adlib::op::Add{},
                                                                       config);
    std::vector<double> v(7, double(comm.rank() + 1));
    sum.execute(v.data());
    for (double x : v) EXPECT_EQ(x, double(comm.size() * (comm.size() + 1) / 2));
  }
  EXPECT_EQ(adlib::broadcast_value(c, n - 1), double(n - 1));
  // Gather with subscripts read through the sparse exchange.
  adlib::DistArray<Index, 1> s(grid, {std::make_shared<adlib::CyclicRange>(n, grid.dim(0))});
  s.fill([n](auto g) { return n - 1 - g[0]; });
  adlib::DistArray<double, 1> y(grid, {std::make_shared<adlib::CyclicRange>(n, grid.dim(0))});
  adlib::gather(y, c, std::array{s});
  wrong = 0;
  y.host_mirror().for_each_local(
      [&](const auto& g, double& v) { wrong += v != double(n - 1 - g[0]); });
  EXPECT_EQ(wrong, 0);
}

// Ranks whose watchdog settings differ would match a nonblocking collective
// with a blocking one: the reductions refuse it at construction.
TEST_F(Watchdog, SettingThatDiffersBetweenRanksIsAnErrorEverywhere) {
  if (world_size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::set_watchdog(world_rank() == 0 ? adlib::WatchdogSettings{60.0, adlib::TimeoutAction::raise}
                                        : adlib::WatchdogSettings{});
  expect_error_everywhere(
      [&] { adlib::RedxSchedule<double, adlib::op::Add, Kokkos::HostSpace> sum(comm, 3); },
      "differ between ranks");
}

// A constructor that rank 0 never calls: the others wait in its agreement,
// and their report names it, the ranks it waits for, and that rank 0 is not
// waiting in adlib (it last waited in a WriteHalo execution).
TEST_F(Watchdog, ConstructorCalledOnSomeRanksOnlyIsReported) {
  if (world_size() == 1) GTEST_SKIP() << "needs a rank that does not call";
  adlib::set_watchdog({0.5, adlib::TimeoutAction::raise});
  adlib::Comm comm(abandoned_world());
  adlib::ProcessGrid grid(comm, {comm.size()});
  const Index n = 4 * comm.size() + 1;
  auto u = ring(grid, n);
  adlib::WriteHalo<double, 1> halo(u, with_checked(false));
  halo.execute(u);
  adlib::DistArray<double, 1> c(grid, {std::make_shared<adlib::CyclicRange>(n, grid.dim(0))});
  std::string report;
  if (comm.rank() != 0) {
    try {
      adlib::Remap<double, 1> remap(c, u);
      ADD_FAILURE() << "Remap was built without rank 0";
    } catch (const adlib::Error& e) {
      report = e.what();
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (comm.rank() == 0) return;
  EXPECT_TRUE(
      contains(report, "adlib watchdog: rank " + std::to_string(world_rank()) + " has waited"))
      << report;
  EXPECT_TRUE(contains(report, "in Remap (agreement on the arguments)")) << report;
  EXPECT_TRUE(contains(report, "It waits for every rank of its communicator (ranks 0")) << report;
  EXPECT_TRUE(contains(report, "rank 0: not waiting in adlib (last waited in WriteHalo::execute"))
      << report;
  EXPECT_TRUE(contains(report, ": waiting in Remap (agreement on the arguments), for ")) << report;
}

// An unchecked execution that rank 0 never starts: its neighbours wait for
// its messages, and say so; ranks that get every message finish normally.
TEST_F(Watchdog, ExecutionOnSomeRanksOnlyNamesTheMissingSender) {
  if (world_size() == 1) GTEST_SKIP() << "needs a rank that does not call";
  adlib::set_watchdog({0.5, adlib::TimeoutAction::raise});
  adlib::Comm comm(abandoned_world());
  adlib::ProcessGrid grid(comm, {comm.size()});
  // Four elements per rank: every rank owns some, its neighbours on the
  // ring are the ranks next to it.
  auto u = ring(grid, 4 * comm.size());
  adlib::WriteHalo<double, 1> halo(u, with_checked(false));
  std::string report;
  if (comm.rank() != 0) {
    try {
      halo.execute(u);
    } catch (const adlib::Error& e) {
      report = e.what();
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const bool next_to_rank_0 = comm.rank() == 1 || comm.rank() == comm.size() - 1;
  if (comm.rank() == 0) return;
  if (!next_to_rank_0) {
    EXPECT_EQ(report, "") << "a rank whose neighbours both executed timed out";
    return;
  }
  EXPECT_TRUE(contains(report, "in WriteHalo::execute (messages)")) << report;
  EXPECT_TRUE(contains(report, "It waits for messages from rank 0 (tag ")) << report;
}

// The same execution checked: the ranks wait in its agreement instead.
TEST_F(Watchdog, CheckedExecutionOnSomeRanksOnlyIsReportedAtItsAgreement) {
  if (world_size() == 1) GTEST_SKIP() << "needs a rank that does not call";
  adlib::set_watchdog({0.5, adlib::TimeoutAction::raise});
  adlib::Comm comm(abandoned_world());
  adlib::ProcessGrid grid(comm, {comm.size()});
  auto u = ring(grid, 4 * comm.size());
  adlib::WriteHalo<double, 1> halo(u, with_checked(true));
  std::string report;
  if (comm.rank() != 0) {
    try {
      halo.execute(u);
      ADD_FAILURE() << "a checked execution completed without rank 0";
    } catch (const adlib::Error& e) {
      report = e.what();
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (comm.rank() == 0) return;
  EXPECT_TRUE(contains(report, "in WriteHalo::execute (agreement on the arguments)")) << report;
  EXPECT_TRUE(contains(report, "rank 0: not waiting in adlib")) << report;
}

// Run only by the mpi_watchdog.abort entry (ADLIB_TIMEOUT set, default
// action): ranks other than 0 build a Remap that rank 0 never builds; the
// first to time out reports and aborts the job.
TEST(WatchdogAbort, ReportsThenAbortsTheJob) {
  if (!std::getenv("ADLIB_TIMEOUT") || world_size() == 1)
    GTEST_SKIP() << "run by the mpi_watchdog.abort entry, with ADLIB_TIMEOUT set";
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  const Index n = 3 * comm.size();
  adlib::DistArray<double, 1> a(grid, {std::make_shared<adlib::BlockRange>(n, grid.dim(0))});
  adlib::DistArray<double, 1> b(grid, {std::make_shared<adlib::CyclicRange>(n, grid.dim(0))});
  if (comm.rank() != 0) adlib::Remap<double, 1> remap(b, a);
  MPI_Barrier(MPI_COMM_WORLD);
  ADD_FAILURE() << "the job went on past a collective that rank 0 never called";
}

}  // namespace

}  // namespace mpi_watchdog
