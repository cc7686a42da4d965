// SPDX-License-Identifier: BSD-3-Clause
// Regression tests for the holes once found in the cross-rank agreement:
// rank-dependent element types, numbers of arrays, destruction orders,
// enum values, configurations and array layouts must each give an
// adlib::Error on every rank (or, for tags, simply work), never a hang, an
// abort or wrong values.  After each failure a valid collective runs and is
// checked, so a rank left behind shows up.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <memory>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>
#include "expect_error_everywhere.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_agreement {

namespace {

using adlib::Boundary;
using adlib::Configuration;
using adlib::Index;
using adlib::ShiftMode;
using adlib_test::expect_error_everywhere;

// {min, max} over the ranks.
std::pair<long long, long long> min_max(long long v) {
  long long low = 0, high = 0;
  MPI_Allreduce(&v, &low, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&v, &high, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  return {low, high};
}

Configuration checked() {
  Configuration c = Configuration::environment();
  c.checked = true;
  return c;
}
Configuration unchecked() {
  Configuration c = Configuration::environment();
  c.checked = false;
  return c;
}

class Agreement : public ::testing::Test {
 protected:
  void SetUp() override { tags_before_ = comm_.live_tags(); }
  void TearDown() override {
    EXPECT_EQ(comm_.live_tags(), tags_before_) << "a tag leaked";
    expect_halo_works();
  }

  // A periodic 1-D array with one ghost on each side, every element set to
  // its global index, ghosts poisoned.
  template <class T = double>
  adlib::DistArray<T, 1> ring(Index n) const {
    adlib::DistArray<T, 1> u(
        grid_, {std::make_shared<adlib::BlockRange>(n, grid_.dim(0), adlib::Ghosts{1, 1, true})});
    Kokkos::deep_copy(u.local_view(), T(-1));
    u.fill([](auto g) { return T(g[0]); });
    return u;
  }
  Index n() const { return 5 * comm_.size() + 2; }

  // Number of ghost cells of `u` (made by ring()) that do not hold the
  // global index they stand for.
  template <class T>
  int wrong_ghosts(const adlib::DistArray<T, 1>& u) const {
    auto v = Kokkos::create_mirror_view(u.local_view());
    Kokkos::deep_copy(v, u.local_view());
    const Index last = static_cast<Index>(v.extent(0)) - 1, size = n();
    int wrong = 0;
    if (last < 2) return 0;  // nothing owned
    wrong += v(0) != T((Index(v(1)) - 1 + size) % size);
    wrong += v(last) != T((Index(v(last - 1)) + 1) % size);
    return wrong;
  }

  // The proof that the communicator is still in step after a failure.
  void expect_halo_works() {
    auto u = ring(n());
    adlib::WriteHalo<double, 1> halo(u);
    halo.execute(u);
    EXPECT_EQ(wrong_ghosts(u), 0) << "the follow-up halo exchange went wrong";
  }

  adlib::Comm comm_{MPI_COMM_WORLD};
  adlib::ProcessGrid grid_{comm_, {comm_.size()}};
  int tags_before_ = 0;
};

// ---- element type ------------------------------------------------------------

TEST_F(Agreement, RemapElementTypeDiffersBetweenRanks) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const auto a = ring(n()).layout();
  adlib::DistArray<double, 1> b(grid_, {std::make_shared<adlib::CyclicRange>(n(), grid_.dim(0))});
  expect_error_everywhere(
      [&] {
        if (comm_.rank() == 0)
          adlib::Remap<float, 1> r(b.layout(), a);
        else
          adlib::Remap<double, 1> r(b.layout(), a);
      },
      "differ between ranks");
  // Same size, another kind: int against float.
  expect_error_everywhere(
      [&] {
        if (comm_.rank() == 0)
          adlib::Remap<int, 1> r(b.layout(), a);
        else
          adlib::Remap<float, 1> r(b.layout(), a);
      },
      "differ between ranks");
}

TEST_F(Agreement, ShiftElementTypeDiffersBetweenRanks) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const auto layout = ring(n()).layout();
  expect_error_everywhere(
      [&] {
        if (comm_.rank() == 0)
          adlib::Shift<float, 1> s(layout, 1, 0, ShiftMode::cyclic);
        else
          adlib::Shift<double, 1> s(layout, 1, 0, ShiftMode::cyclic);
      },
      "differ between ranks");
  expect_error_everywhere(
      [&] {
        if (comm_.rank() == comm_.size() - 1)
          adlib::Skew<unsigned, 1> s(layout, {1}, 0, ShiftMode::keep);
        else
          adlib::Skew<int, 1> s(layout, {1}, 0, ShiftMode::keep);
      },
      "differ between ranks");
}

TEST_F(Agreement, WriteHaloElementTypeDiffersBetweenRanks) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const auto u = ring(n());
  const adlib::HaloWidths all = adlib::full_halo(u.layout());
  expect_error_everywhere(
      [&] {
        if (comm_.rank() == 0)
          adlib::WriteHalo<float, 1> h(u.layout(), all);
        else
          adlib::WriteHalo<double, 1> h(u.layout(), all);
      },
      "differ between ranks");
}

// ---- configuration -------------------------------------------------------------

// An ADLIB_* value rejected on one rank only (the environment differs
// between ranks): every rank's first schedule throws that rank's message.
TEST_F(Agreement, RejectedEnvironmentValueOnOneRankIsErrorEverywhere) {
  const auto u = ring(n());
  const int odd = comm_.size() - 1;
  const Configuration bad =
      Configuration::parse_recording_errors([](const char* name) -> const char* {
        return std::string(name) == "ADLIB_GPU_AWARE_MPI" ? "enabled" : nullptr;
      });
  const Configuration c = comm_.rank() == odd ? bad : Configuration::environment();
  expect_error_everywhere([&] { adlib::WriteHalo<double, 1> h(u, c); },
                          "ADLIB_GPU_AWARE_MPI=enabled");
  expect_error_everywhere([&] { adlib::CShift<double, 1> s(u.layout(), 1, 0, c); },
                          "ADLIB_GPU_AWARE_MPI=enabled");
  const auto v = ring(n());
  expect_error_everywhere([&] { adlib::Remap<double, 1> r(v, u, c); },
                          "ADLIB_GPU_AWARE_MPI=enabled");
  expect_error_everywhere(
      [&] {
        adlib::BlockMessSchedule<Kokkos::HostSpace> s(comm_, c);
        s.build();
      },
      "ADLIB_GPU_AWARE_MPI=enabled");
}

TEST_F(Agreement, ConfigurationDiffersBetweenRanks) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const auto u = ring(n());
  const Configuration base = Configuration::environment();
  for (int field = 0; field < 5; ++field) {
    Configuration c = base;
    if (comm_.rank() == 1) {
      if (field == 0)
        c.transfer = c.transfer == adlib::TransferMethod::pack ? adlib::TransferMethod::datatype
                                                               : adlib::TransferMethod::pack;
      if (field == 1) c.datatype_min_bytes += 1;
      if (field == 2) c.check_peers = !c.check_peers;
      if (field == 3) c.gpu_aware_mpi = !c.gpu_aware_mpi;
      if (field == 4) c.checked = !c.checked;
    }
    expect_error_everywhere([&] { adlib::WriteHalo<double, 1> h(u, c); }, "differ between ranks");
    expect_error_everywhere([&] { adlib::CShift<double, 1> s(u.layout(), 1, 0, c); },
                            "differ between ranks");
    expect_error_everywhere(
        [&] {
          adlib::BlockMessSchedule<Kokkos::HostSpace> s(comm_, c);
          s.build();
        },
        "differ between ranks");
  }
}

// ---- number of arrays -----------------------------------------------------------

TEST_F(Agreement, HaloBatchOnOneRankSingleOnOthersCheckedIsErrorEverywhere) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  auto u = ring(n()), v = ring(n());
  adlib::WriteHalo<double, 1> halo(u, checked());
  expect_error_everywhere(
      [&] {
        if (comm_.rank() == 0)
          halo.execute(u, v);
        else
          halo.execute(u);
      },
      "differ between ranks");
  // The schedule is still usable, batched and single.
  halo.execute(u, v);
  EXPECT_EQ(wrong_ghosts(u) + wrong_ghosts(v), 0);
}

// Without checked mode nothing is agreed before the messages, but the
// messages have the wrong size: the ranks that exchange with the odd rank
// (here every rank but those two hops away on the ring) get adlib::Error
// instead of an MPI_ERR_TRUNCATE abort or unnoticed wrong data.
TEST_F(Agreement, HaloBatchOnOneRankSingleOnOthersUncheckedThrowsAtItsNeighbours) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  auto u = ring(n()), v = ring(n());
  adlib::WriteHalo<double, 1> halo(u, unchecked());
  int threw = 0;
  try {
    if (comm_.rank() == 0)
      halo.execute(u, v);
    else
      halo.execute(u);
  } catch (const adlib::Error& e) {
    threw = 1;
    EXPECT_NE(e.message().find("rank"), std::string::npos) << e.what();
  }
  const int p = comm_.size(), me = comm_.rank();
  const bool exchanges_with_0 = me == 0 || me == 1 || me == p - 1;
  EXPECT_EQ(threw, exchanges_with_0 ? 1 : 0);
  // Every request completed: the schedule works again.
  halo.execute(u);
  EXPECT_EQ(wrong_ghosts(u), 0);
}

TEST_F(Agreement, BlockMessScheduleArraysDifferCheckedIsErrorEverywhere) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const int p = comm_.size(), me = comm_.rank();
  adlib::BlockMessSchedule<Kokkos::HostSpace> s(comm_, checked());
  s.send((me + 1) % p, adlib::StridedBlock::make(0, {4}, {1}));
  s.recv((me + p - 1) % p, adlib::StridedBlock::make(0, {4}, {1}));
  s.build();
  std::vector<double> a(4, me), b(4, -1.0), c(4, me), d(4, -1.0);
  expect_error_everywhere(
      [&] {
        if (me == 0)
          s.execute_many<double>({b.data(), d.data()}, 4, {a.data(), c.data()}, 4);
        else
          s.execute(b.data(), 4, a.data(), 4);
      },
      "differ between ranks");
  expect_error_everywhere(
      [&] {
        std::vector<float> x(4, 0.f), y(4, 0.f);
        if (me == 0)
          s.execute(y.data(), 4, x.data(), 4);
        else
          s.execute(b.data(), 4, a.data(), 4);
      },
      "differ between ranks");
  s.execute(b.data(), 4, a.data(), 4);
  for (double x : b) EXPECT_EQ(x, (me + p - 1) % p);
}

// ---- tags ------------------------------------------------------------------

// One rank destroys a schedule after building the next, the others before:
// lowest-free tags chosen locally would differ and the next schedule's
// first execution would hang.  Tags are agreed at construction.
TEST_F(Agreement, TagsAgreeWhenRanksDestroySchedulesInDifferentOrders) {
  auto u = ring(n());
  // Unchecked: b and c are started in rank-dependent order below, which
  // checked executions (collective calls) do not allow.
  const Configuration config = unchecked();
  auto a = std::make_unique<adlib::WriteHalo<double, 1>>(u, config);
  auto b = std::make_unique<adlib::WriteHalo<double, 1>>(u, config);
  std::unique_ptr<adlib::WriteHalo<double, 1>> c;
  if (comm_.rank() % 2 == 0) {
    a.reset();
    c = std::make_unique<adlib::WriteHalo<double, 1>>(u, config);
  } else {
    c = std::make_unique<adlib::WriteHalo<double, 1>>(u, config);
    a.reset();
  }
  const auto [low, high] = min_max(c->schedule().tag());
  ASSERT_EQ(low, high) << "ranks gave the new schedule different tags";
  EXPECT_NE(c->schedule().tag(), b->schedule().tag());
  c->execute(u);
  EXPECT_EQ(wrong_ghosts(u), 0);
  // b and c in flight together, started in rank-dependent order.
  auto w = ring(n());
  if (comm_.rank() % 2) {
    b->start(u);
    c->start(w);
  } else {
    c->start(w);
    b->start(u);
  }
  b->finish();
  c->finish();
  EXPECT_EQ(wrong_ghosts(u) + wrong_ghosts(w), 0);
}

TEST_F(Agreement, TagsAgreeWhenOneRankHoldsManyMore) {
  // Rank 0 holds 600 extra leases (more than one agreement window of 512
  // tags): the next schedule still gets one tag, free everywhere.
  std::vector<adlib::TagLease> held;
  if (comm_.rank() == 0)
    for (int k = 0; k < 600; ++k) held.push_back(comm_.lease_tag());
  auto u = ring(n());
  adlib::WriteHalo<double, 1> halo(u);
  const auto [low, high] = min_max(halo.schedule().tag());
  ASSERT_EQ(low, high);
  halo.execute(u);
  EXPECT_EQ(wrong_ghosts(u), 0);
}

// ---- enum values ------------------------------------------------------------

TEST_F(Agreement, OutOfRangeBoundaryAndShiftModeRejected) {
  const auto u = ring(n());
  expect_error_everywhere(
      [&] { adlib::Shift<double, 1> s(u.layout(), 1, 0, static_cast<ShiftMode>(7)); },
      "not one of adlib::ShiftMode's");
  expect_error_everywhere(
      [&] { adlib::Skew<double, 1> s(u.layout(), {1}, 0, static_cast<ShiftMode>(-1)); },
      "not one of adlib::ShiftMode's");
  expect_error_everywhere(
      [&] { adlib::WriteHalo<double, 1> h(u, {1}, {1}, {static_cast<Boundary>(9)}); },
      "not one of adlib::Boundary's");
  // On one rank only: still every rank.
  if (comm_.size() > 1)
    expect_error_everywhere(
        [&] {
          const ShiftMode mode = comm_.rank() == 1 ? static_cast<ShiftMode>(7) : ShiftMode::keep;
          adlib::Shift<double, 1> s(u.layout(), 1, 0, mode);
        },
        "not one of adlib::ShiftMode's");
}

// ---- layouts at execution ------------------------------------------------------

TEST_F(Agreement, CheckedExecutionWithWrongLayoutOnOneRankIsErrorEverywhere) {
  auto u = ring(n()), v = ring(n());
  auto other = ring(n() + 1);  // another extent: another layout
  const int odd = comm_.size() - 1;
  adlib::WriteHalo<double, 1> halo(u, checked());
  expect_error_everywhere([&] { halo.execute(comm_.rank() == odd ? other : u); },
                          "but the schedule was built for");
  expect_error_everywhere([&] { halo.execute(u, comm_.rank() == odd ? other : v); },
                          "but the schedule was built for");
  adlib::CShift<double, 1> shift(v, u, 1, 0, checked());
  expect_error_everywhere([&] { shift.execute(v, comm_.rank() == odd ? other : u); },
                          "same layout");
  adlib::DistArray<double, 1> cyclic(grid_,
                                     {std::make_shared<adlib::CyclicRange>(n(), grid_.dim(0))});
  adlib::Remap<double, 1> remap(cyclic, u, checked());
  expect_error_everywhere([&] { remap.execute(cyclic, comm_.rank() == odd ? other : u); },
                          "but the schedule was built for");
  // The schedules still work with the right arrays.
  halo.execute(u);
  EXPECT_EQ(wrong_ghosts(u), 0);
  remap.execute(cyclic, u);
  int bad = 0;
  cyclic.host_mirror().for_each_local([&](auto g, double x) { bad += x != double(g[0]); });
  EXPECT_EQ(bad, 0);
}

TEST_F(Agreement, CheckedExecutionsOfDifferentSchedulesAreAnError) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  auto u = ring(n());
  adlib::WriteHalo<double, 1> first(u, checked()), second(u, checked());
  expect_error_everywhere([&] { (comm_.rank() == 0 ? first : second).start(u); },
                          "differ between ranks");
}

// The collectives name the argument that differs: a Shift's amount, a
// WriteHalo's widths, a Remap's destination layout.
TEST_F(Agreement, CollectivesNameTheArgumentThatDiffers) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const bool odd = comm_.rank() == 1;
  auto u = ring(n()), v = ring(n());
  expect_error_everywhere([&] { adlib::CShift<double, 1> s(v, u, odd ? 2 : 1, 0); },
                          "arguments differ between ranks: amount: 1 on rank");
  adlib::DistArray<double, 1> wide(
      grid_, {std::make_shared<adlib::BlockRange>(n(), grid_.dim(0), adlib::Ghosts{2, 2, true})});
  expect_error_everywhere(
      [&] {
        const adlib::Index w = odd ? 1 : 2;
        adlib::WriteHalo<double, 1> h(wide, {w}, {w}, {adlib::Boundary::cyclic});
      },
      "arguments differ between ranks: halo widths and boundaries:");
  adlib::DistArray<double, 1> cyclic(grid_,
                                     {std::make_shared<adlib::CyclicRange>(n(), grid_.dim(0))});
  expect_error_everywhere([&] { adlib::Remap<double, 1> r(odd ? v : cyclic, u); },
                          "arguments differ between ranks: destination layout: ");
}

// A user's combine operation whose state differs between ranks (here a
// weight) is refused by a checked accumulation when the operation gives its
// state's fingerprint; a built-in operation that differs is refused too.
struct Weighted {
  double weight = 1.0;
  KOKKOS_INLINE_FUNCTION void operator()(double& target, const double& value) const {
    target += weight * value;
  }
  std::uint64_t fingerprint() const { return adlib::fingerprint_of(std::to_string(weight)); }
};

TEST_F(Agreement, CheckedAccumulationWithCombineDifferingBetweenRanksIsAnError) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  auto u = ring(n());
  adlib::WriteHalo<double, 1> halo(u, checked());
  expect_error_everywhere(
      [&] { halo.accumulate(u, adlib::op::combine(Weighted{comm_.rank() == 0 ? 2.0 : 1.0})); },
      "differ between ranks");
  expect_error_everywhere(
      [&] {
        if (comm_.rank() == 0)
          halo.accumulate(u, adlib::op::max);
        else
          halo.accumulate(u, adlib::op::add);
      },
      "differ between ranks");
  // The same weight everywhere is fine.
  halo.accumulate(u, adlib::op::combine(Weighted{2.0}));
  EXPECT_EQ(adlib::op::fingerprint(adlib::op::combine(Weighted{2.0})),
            adlib::op::fingerprint(adlib::op::combine(Weighted{2.0})));
  EXPECT_NE(adlib::op::fingerprint(adlib::op::combine(Weighted{2.0})),
            adlib::op::fingerprint(adlib::op::combine(Weighted{1.0})));
}

// ---- which argument differs, and where --------------------------------------

// The message names the first argument that differs, each variant and the
// ranks that pass it, identically on every rank.
TEST_F(Agreement, MessageNamesTheArgumentAndTheRanks) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const bool odd = comm_.rank() == 1;
  const std::string combine = odd ? "max" : "add";
  std::string others = "0";
  if (comm_.size() == 3) others = "0, 2";
  if (comm_.size() == 4) others = "0, 2, 3";
  if (comm_.size() > 4) others = "0, 2-" + std::to_string(comm_.size() - 1);
  const std::string expected = "arguments differ between ranks: combine: add on rank" +
                               std::string(comm_.size() > 2 ? "s " : " ") + others +
                               "; max on rank 1";
  expect_error_everywhere(
      [&] {
        adlib::agree_on_arguments(
            comm_, "",
            {{"layout", 7, [] { return std::string("block(10)"); }},
             {"combine", adlib::fingerprint_of(combine), [&] { return combine; }}},
            "Test");
      },
      expected);
  // Ranks in different collectives are told which operation each entered.
  expect_error_everywhere([&] { adlib::agree_on_arguments(comm_, "", {}, odd ? "Other" : "Test"); },
                          "arguments differ between ranks: operation: Test on rank");
  // So are ranks in different collectives whose plain fingerprints agree.
  expect_error_everywhere([&] { adlib::agree_on_errors(comm_, "", 7, odd ? "Other" : "Test"); },
                          "arguments differ between ranks: operation: Test on rank");
  // Variants that read alike are numbered.
  expect_error_everywhere(
      [&] {
        adlib::agree_on_arguments(
            comm_, "", {{"combine", odd ? 2u : 1u, [] { return std::string("MyFunctor"); }}},
            "Test");
      },
      "MyFunctor, variant 2 on rank 1");
  // A local error wins over a disagreement: the lowest failing rank's message.
  expect_error_everywhere(
      [&] {
        adlib::agree_on_arguments(comm_, odd ? "bad width" : "", {{"w", odd ? 1u : 0u, {}}},
                                  "Test");
      },
      "bad width");
}

TEST(AgreementRanks, RanksAreListedWithRuns) {
  EXPECT_EQ(adlib::describe_ranks({0}), "0");
  EXPECT_EQ(adlib::describe_ranks({0, 1}), "0, 1");
  EXPECT_EQ(adlib::describe_ranks({0, 2, 3, 4, 7}), "0, 2-4, 7");
  EXPECT_EQ(adlib::describe_ranks({1, 2, 3, 5, 6}), "1-3, 5, 6");
}

// ---- reductions and broadcasts: the layout agreed at construction --------------

// An array whose extent differs on one rank: in unchecked mode too, the
// reduction's construction is an error on every rank (adlib.sum once gave
// 62 at 3 ranks and 66 at 2 for a true 55).
TEST_F(Agreement, ReductionOfArrayWithExtentDifferingOnOneRankIsErrorEverywhere) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const Index extent = comm_.rank() == 1 ? 11 : 10;
  adlib::DistArray<double, 1> a(grid_, {adlib::block(extent)});
  a.fill([](auto g) { return double(g[0] + 1); });
  expect_error_everywhere([&] { adlib::sum(a); }, "arguments differ between ranks: layout: ");
  expect_error_everywhere([&] { adlib::ArrayReduction<double, 1> r(a, unchecked()); }, "on rank 1");
  expect_error_everywhere([&] { adlib::maxval(a); }, "layout: ");
  adlib::DistArray<double, 2> b(grid_, {adlib::block(extent), adlib::collapsed(3)});
  expect_error_everywhere([&] { adlib::DimensionReduction<double, 2> r(b, 1, unchecked()); },
                          "arguments differ between ranks: layout: ");
}

// broadcast_value with an index that differs on one rank, on the same
// owner: an error everywhere (a rank asking for x[4] once got x[3]).
TEST_F(Agreement, BroadcastValueWithIndexDifferingOnOneRankIsErrorEverywhere) {
  if (comm_.size() == 1) GTEST_SKIP() << "needs two ranks to disagree";
  adlib::DistArray<double, 1> x(grid_, {adlib::block(10 * comm_.size())});
  x.fill([](auto g) { return double(g[0]); });
  const Index at = comm_.rank() == 1 ? 4 : 3;
  expect_error_everywhere([&] { adlib::broadcast_value(x, at); },
                          "arguments differ between ranks: section: ");
  // The same index everywhere still works.
  EXPECT_EQ(adlib::broadcast_value(x, Index(4)), 4.0);
}

}  // namespace

}  // namespace mpi_agreement
