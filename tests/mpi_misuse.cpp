// SPDX-License-Identifier: BSD-3-Clause
// Bad input must give adlib::Error on every rank, with the same message, and
// never hang: invalid ranges, sections and layouts, Remaps between
// incompatible or rank-dependent arguments, arrays of the wrong layout at
// execution, and BlockMessSchedule misuse.  After each failure a valid
// collective is run and its values checked, so a rank left behind (a stray
// message, a half-posted schedule, a leaked tag) shows up as a wrong value or
// a timeout rather than going unnoticed.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <functional>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>
#include "expect_error_everywhere.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_misuse {

namespace {

using adlib::Index;
using adlib::Triplet;

using adlib_test::expect_error_everywhere;

// A small valid remap (block -> cyclic), checked against global indices:
// proof that the communicator is still in step after a failure.
void expect_communicator_healthy() {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid grid(comm, {comm.size()});
  const Index n = 17;
  adlib::DistArray<double, 1> a(grid, {std::make_shared<adlib::BlockRange>(n, grid.dim(0))});
  adlib::DistArray<double, 1> b(grid, {std::make_shared<adlib::CyclicRange>(n, grid.dim(0))});
  a.fill([](auto g) { return 3.0 * double(g[0]); });
  Kokkos::deep_copy(b.local_view(), -1.0);
  adlib::remap(b, a);
  int bad = 0;
  b.host_mirror().for_each_local([&](auto g, double v) { bad += v != 3.0 * double(g[0]); });
  EXPECT_EQ(bad, 0) << "the follow-up remap after a failure went wrong";
}

class Misuse : public ::testing::Test {
 protected:
  void SetUp() override { tags_before_ = comm_.live_tags(); }
  void TearDown() override {
    // A failed collective must not keep a tag, and the communicator must work.
    EXPECT_EQ(comm_.live_tags(), tags_before_) << "a tag leaked";
    expect_communicator_healthy();
  }
  adlib::Comm comm_{MPI_COMM_WORLD};
  int tags_before_ = 0;
};

TEST_F(Misuse, InvalidRangesAndGrids) {
  const int P = comm_.size();
  adlib::ProcessGrid grid(comm_, {P});
  // Ghosts wider than the extent are accepted (DMDA accepts s > M too).
  EXPECT_NO_THROW(adlib::BlockRange(5, grid.dim(0), adlib::Ghosts{6, 1, false}));
  expect_error_everywhere(
      [&] {
        adlib::BlockRange(5, grid.dim(0), adlib::Ghosts{-1, 0, false});
      },
      "negative ghost");
  expect_error_everywhere(
      [&] {
        adlib::BlockRange(5, grid.dim(0), adlib::Ghosts{0, -2, false});
      },
      "negative ghost");
  expect_error_everywhere([&] { adlib::BlockRange(-3, grid.dim(0)); }, "negative extent");
  expect_error_everywhere(
      [&] { adlib::IrregularBlockRange(std::vector<Index>(P + 1, 2), grid.dim(0)); },
      "block sizes");
  expect_error_everywhere(
      [&] {
        std::vector<Index> sizes(P, 2);
        sizes[0] = -1;
        adlib::IrregularBlockRange(sizes, grid.dim(0));
      },
      "negative block size");
  expect_error_everywhere([&] { adlib::BlockCyclicRange(10, grid.dim(0), 0); }, "block size");
  expect_error_everywhere([&] { adlib::ProcessGrid(comm_, {P + 1}); }, "does not fit");
  expect_error_everywhere([&] { adlib::ProcessGrid(comm_, {P, 0}); }, "at least 1");
  expect_error_everywhere([&] { grid.dim(1); }, "not an axis");
  adlib::ProcessGrid grid2(comm_, {1, P});
  const adlib::Group g(grid2);
  expect_error_everywhere([&] { g.restrict(1, P); }, "outside axis");
  expect_error_everywhere([&] { g.restrict(2, 0); }, "not an axis");
  expect_error_everywhere([&] { g.restrict(0, 0).restrict(0, 0); }, "already restricted");
}

TEST_F(Misuse, InvalidLayouts) {
  const int P = comm_.size();
  adlib::ProcessGrid grid(comm_, {P, 1}), other(comm_, {P});  // different at any P
  auto rows = std::make_shared<adlib::BlockRange>(10, grid.dim(0));
  auto rows_too = std::make_shared<adlib::CyclicRange>(6, grid.dim(0));
  auto cols = std::make_shared<adlib::BlockRange>(7, grid.dim(1));
  auto foreign = std::make_shared<adlib::BlockRange>(10, other.dim(0));
  auto whole = std::make_shared<adlib::CollapsedRange>(4);
  using A2 = adlib::DistArray<double, 2>;
  // Ranges on a grid different from the group's.
  expect_error_everywhere([&] { A2(grid, {foreign, whole}); }, "not over the group");
  // Two ranges on the same axis.
  expect_error_everywhere([&] { A2(grid, {rows, rows_too}); }, "two ranges");
  // A range on an axis the group restricts.
  expect_error_everywhere(
      [&] {
        A2(adlib::Group(grid).restrict(1, 0), {rows, cols});
      },
      "restricts");
  expect_error_everywhere([&] { A2(grid, {rows, nullptr}); }, "null");
  // A layout of another rank, and a section layout, cannot be allocated.
  const adlib::ArrayLayout one_d(grid, {rows});
  expect_error_everywhere([&] { A2{one_d}; }, "rank");
  const adlib::ArrayLayout two_d(grid, {rows, whole});
  expect_error_everywhere(
      [&] {
        A2{two_d.section({Triplet{0, 4, 1}, Triplet::all(4)})};
      },
      "section");
}

TEST_F(Misuse, InvalidSections) {
  const int P = comm_.size();
  adlib::ProcessGrid grid(comm_, {P});
  adlib::DistArray<double, 1> a(grid, {std::make_shared<adlib::BlockRange>(10, grid.dim(0))});
  expect_error_everywhere([&] { a.section({Triplet{0, 10, 1}}); }, "out of bounds");
  expect_error_everywhere([&] { a.section({Triplet{-1, 5, 1}}); }, "out of bounds");
  expect_error_everywhere([&] { a.section({Triplet{9, -1, -2}}); }, "out of bounds");
  expect_error_everywhere([&] { a.section({Triplet{0, 9, 0}}); }, "zero stride");
  // Bounds of a section of a section are its own extent, not the parent's.
  const auto half = a.section({Triplet{0, 8, 2}});  // 5 elements
  expect_error_everywhere([&] { half.section({Triplet{0, 5, 1}}); }, "out of bounds");
  EXPECT_NO_THROW(half.section({Triplet{4, 0, -1}}));
}

TEST_F(Misuse, RemapOfIncompatibleArrays) {
  const int P = comm_.size();
  adlib::ProcessGrid grid(comm_, {P});
  auto r10 = std::make_shared<adlib::BlockRange>(10, grid.dim(0));
  auto r11 = std::make_shared<adlib::CyclicRange>(11, grid.dim(0));
  adlib::DistArray<double, 1> a(grid, {r10}), b(grid, {r11});
  expect_error_everywhere([&] { adlib::Remap<double, 1>(b, a); }, "shape mismatch");
  expect_error_everywhere([&] { adlib::remap(b, a); }, "shape mismatch");
  // Sections can make the shapes agree, or not.
  EXPECT_NO_THROW(adlib::remap(b.section({Triplet{10, 1, -1}}), a));
  expect_error_everywhere(
      [&] {
        adlib::remap(b.section({Triplet{0, 10, 2}}), a);
      },
      "shape mismatch");
  // Layouts of another rank than the Remap's.
  auto whole = std::make_shared<adlib::CollapsedRange>(3);
  const adlib::ArrayLayout two_d(grid, {r10, whole});
  expect_error_everywhere([&] { adlib::Remap<double, 1>(two_d, two_d); }, "rank");
  // Source and destination on different communicators.
  adlib::Comm self(MPI_COMM_SELF);
  adlib::ProcessGrid alone(self, {1});
  adlib::DistArray<double, 1> c(alone, {std::make_shared<adlib::BlockRange>(10, alone.dim(0))});
  expect_error_everywhere([&] { adlib::Remap<double, 1>(c, a); }, "communicators");
  // In place between overlapping sections of one array.
  expect_error_everywhere([&] { adlib::remap(a.section({Triplet{9, 0, -1}}), a); }, "overlapping");
  expect_error_everywhere(
      [&] {
        adlib::remap(a.section({Triplet{0, 4, 1}}), a.section({Triplet{4, 8, 1}}));
      },
      "overlapping");
  // ... also on a grid smaller than the communicator, where some ranks hold nothing.
  adlib::ProcessGrid small(comm_, {1});
  adlib::DistArray<double, 1> s(small, {std::make_shared<adlib::BlockRange>(6, small.dim(0))});
  expect_error_everywhere(
      [&] {
        adlib::remap(s.section({Triplet{0, 2, 1}}), s.section({Triplet{4, 0, -2}}));
      },
      "overlapping");
}

TEST_F(Misuse, ArgumentsThatDifferBetweenRanks) {
  const int P = comm_.size();
  if (P == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const int me = comm_.rank();
  adlib::ProcessGrid grid(comm_, {P});
  // Rank 0 passes another extent (consistent on its own: no local error).
  {
    const Index n = me == 0 ? 11 : 10;
    adlib::DistArray<double, 1> a(grid, {std::make_shared<adlib::BlockRange>(n, grid.dim(0))});
    adlib::DistArray<double, 1> b(grid, {std::make_shared<adlib::CyclicRange>(n, grid.dim(0))});
    expect_error_everywhere([&] { adlib::Remap<double, 1>(b, a); }, "differ between ranks");
  }
  // The last rank passes another distribution of the same shape.
  {
    adlib::DistArray<double, 1> a(grid, {std::make_shared<adlib::BlockRange>(10, grid.dim(0))});
    adlib::RangePtr r;
    if (me == P - 1)
      r = std::make_shared<adlib::BlockCyclicRange>(10, grid.dim(0), 2);
    else
      r = std::make_shared<adlib::CyclicRange>(10, grid.dim(0));
    adlib::DistArray<double, 1> b(grid, {r});
    expect_error_everywhere([&] { adlib::Remap<double, 1>(b, a); }, "differ between ranks");
  }
  // One rank passes another section.
  {
    adlib::DistArray<double, 1> a(grid, {std::make_shared<adlib::BlockRange>(10, grid.dim(0))});
    adlib::DistArray<double, 1> b(grid, {std::make_shared<adlib::BlockRange>(10, grid.dim(0))});
    const Triplet t = me == 1 ? Triplet{9, 0, -1} : Triplet{0, 9, 1};
    expect_error_everywhere([&] { adlib::Remap<double, 1>(b, a.section({t})); },
                            "differ between ranks");
  }
  // Rank 1 alone has a real error: every rank throws rank 1's message.
  {
    adlib::DistArray<double, 1> a(grid, {std::make_shared<adlib::BlockRange>(10, grid.dim(0))});
    adlib::DistArray<double, 1> b(
        grid, {std::make_shared<adlib::BlockRange>(me == 1 ? 12 : 10, grid.dim(0))});
    int root = -1;
    expect_error_everywhere(
        [&] {
          try {
            adlib::Remap<double, 1>(b, a);
          } catch (const adlib::Error& e) {
            root = e.rank();
            throw;
          }
        },
        "shape mismatch");
    EXPECT_EQ(root, 1) << "the error should name the rank that found it";
  }
}

// The misuse matrix (issue 24): one case per collective argument that can
// differ between ranks, the last rank passing the odd value, each in
// unchecked and in checked mode.  Every case must be an adlib::Error on
// every rank, with the same message naming the disagreement, before any
// message is posted (the fixture then runs a remap that must still work;
// ctest's timeout turns a hang into a failure).  Execution-time arguments
// (another array, depth or dirty state at execute) are agreed in checked
// mode only: they are the last cases, run checked.
TEST_F(Misuse, MatrixOfArgumentsThatDifferBetweenRanks) {
  const int P = comm_.size();
  if (P == 1) GTEST_SKIP() << "needs two ranks to disagree";
  const bool odd = comm_.rank() == P - 1;
  adlib::ProcessGrid line(comm_, {P});
  adlib::ProcessGrid plane(comm_, {P, 1});
  const Index n = 4 * P + 3;
  const auto block = [&](Index extent) {
    return adlib::DistArray<double, 1>(line, {adlib::block(extent).ghosts(2).periodic()});
  };
  const auto cyclic = [&](Index extent) {
    return adlib::DistArray<double, 1>(line, {adlib::cyclic(extent)});
  };
  auto u = block(n), v = block(n), c = cyclic(n);
  using Space = decltype(c)::memory_space;
  adlib::DistArray<double, 2> m(plane, {adlib::block(n), adlib::collapsed(3)});
  adlib::DistArray<Index, 1> s(line, {adlib::cyclic(n)});
  s.fill([n](auto g) { return n - 1 - g[0]; });
  adlib::DistArray<Index, 1> s_block(line, {adlib::block(n)});
  s_block.fill([n](auto g) { return n - 1 - g[0]; });
  adlib::DistArray<bool, 1> mask(line, {adlib::cyclic(n)});
  const std::vector<Index> everything = [&] {
    std::vector<Index> all;
    for (Index i = comm_.rank(); i < n; i += P) all.push_back(i);
    return all;
  }();

  struct Case {
    const char* name;
    std::function<void(const adlib::Configuration&)> run;
    const char* needle;
  };
  const std::vector<Case> cases{
      {"extent",
       [&](auto& k) {
         adlib::Remap<double, 1> r(odd ? cyclic(n + 1) : c, odd ? block(n + 1) : u, k);
       },
       "destination layout: "},
      {"layout", [&](auto& k) { adlib::Remap<double, 1> r(odd ? u : c, v, k); },
       "destination layout: "},
      {"element type",
       [&](auto& k) {
         if (odd)
           adlib::Remap<float, 1> r(c.layout(), u.layout(), k);
         else
           adlib::Remap<double, 1> r(c.layout(), u.layout(), k);
       },
       "element type: "},
      {"combine",
       [&](auto& k) {
         if (odd)
           adlib::Scatter<double, Space, adlib::op::Max> r(c, everything, adlib::op::max, k);
         else
           adlib::Scatter<double, Space, adlib::op::Add> r(c, everything, adlib::op::add, k);
       },
       "combine: add on rank"},
      {"key", [&](auto&) { adlib::broadcast_value(c, odd ? Index(1) : Index(0)); }, "section: "},
      {"width",
       [&](auto& k) {
         const Index w = odd ? 1 : 2;
         adlib::WriteHalo<double, 1> h(u, {w}, {w}, {adlib::Boundary::cyclic}, adlib::Stencil::box,
                                       k);
       },
       "halo widths and boundaries: "},
      {"boundary",
       [&](auto& k) {
         adlib::WriteHalo<double, 1> h(u, {1}, {1},
                                       {odd ? adlib::Boundary::mirror : adlib::Boundary::cyclic},
                                       adlib::Stencil::box, k);
       },
       "halo widths and boundaries: "},
      {"shift amount", [&](auto& k) { adlib::CShift<double, 1> h(v, u, odd ? 2 : 1, 0, k); },
       "amount: "},
      {"shift mode",
       [&](auto& k) {
         adlib::Shift<double, 1> h(
             v, u, 1, 0, odd ? adlib::ShiftMode::end_off : adlib::ShiftMode::cyclic, 0.0, k);
       },
       "mode: "},
      {"dimension", [&](auto& k) { adlib::DimensionReduction<double, 2> r(m, odd ? 1 : 0, k); },
       "dimension: "},
      {"mask presence",
       [&](auto& k) {
         adlib::DistArray<double, 1> y(line, {adlib::cyclic(n)});
         if (odd)
           adlib::ArrayGather<double, 1, 1> g(y, c, std::array{s}, mask, k);
         else
           adlib::ArrayGather<double, 1, 1> g(y, c, std::array{s}, k);
       },
       "mask: none on rank"},
      {"subscripts' layout",
       [&](auto& k) {
         adlib::DistArray<double, 1> y(line, {adlib::cyclic(n)});
         adlib::DistArray<double, 1> yb(line, {adlib::block(n)});
         if (odd)
           adlib::ArrayGather<double, 1, 1> g(yb, c, std::array{s_block}, k);
         else
           adlib::ArrayGather<double, 1, 1> g(y, c, std::array{s}, k);
       },
       "destination layout: "},
      {"reduction",
       [&](auto& k) {
         adlib::ArrayReduction<double, 1> r(c.layout(), k);
         if (odd)
           r.maxval(c);
         else
           r.sum(c);
       },
       "differ between ranks"},
  };
  for (const bool checked : {false, true}) {
    adlib::Configuration config = adlib::Configuration::environment();
    config.checked = checked;
    for (const Case& k : cases) {
      SCOPED_TRACE(std::string(k.name) + (checked ? ", checked" : ", unchecked"));
      expect_error_everywhere([&] { k.run(config); }, k.needle);
      if (::testing::Test::HasFailure()) return;
    }
  }
  // Execution-time arguments, checked mode.
  adlib::Configuration checked = adlib::Configuration::environment();
  checked.checked = true;
  adlib::WriteHalo<double, 1> halo(u, checked);
  expect_error_everywhere([&] { halo.execute(odd ? block(n + 1) : u); },
                          "but the schedule was built for");
  expect_error_everywhere(
      [&] {
        if (odd)
          halo.execute(u, v);
        else
          halo.execute(u);
      },
      "arrays passed: ");
  adlib::Remap<double, 1> remap(c, u, checked);
  expect_error_everywhere([&] { remap.execute(c, odd ? block(n + 1) : u); },
                          "but the schedule was built for");
  expect_error_everywhere(
      [&] {
        if (odd)
          remap.reverse(u, c, adlib::op::max);
        else
          remap.reverse(u, c, adlib::op::add);
      },
      "combine: ");
  // And the schedules still work with the right arguments.
  halo.execute(u);
  remap.execute(c, u);
}

TEST_F(Misuse, ExecutingWithArraysOfAnotherLayout) {
  const int P = comm_.size();
  adlib::ProcessGrid grid(comm_, {P});
  const Index n = 13;
  auto block = std::make_shared<adlib::BlockRange>(n, grid.dim(0));
  auto cyclic = std::make_shared<adlib::CyclicRange>(n, grid.dim(0));
  auto ghosted = std::make_shared<adlib::BlockRange>(n, grid.dim(0), adlib::Ghosts{1, 1, false});
  adlib::DistArray<double, 1> src(grid, {block}), dst(grid, {cyclic});
  adlib::DistArray<double, 1> other_dst(grid, {ghosted}), other_src(grid, {cyclic});
  adlib::Remap<double, 1> remap(dst, src);
  expect_error_everywhere([&] { remap.execute(other_dst, src); }, "destination has layout");
  expect_error_everywhere([&] { remap.execute(dst, other_src); }, "source has layout");
  expect_error_everywhere(
      [&] {
        remap.start(dst, src.section({Triplet{n - 1, 0, -1}}));
      },
      "source has layout");
  // Swapped arguments are caught too (both layouts differ).
  expect_error_everywhere([&] { remap.execute(src, dst); }, "layout");
  expect_error_everywhere([&] { remap.finish(); }, "without start");
  // Nothing was left in flight: the schedule still works, repeatedly.
  for (int rep = 0; rep < 3; ++rep) {
    src.fill([&](auto g) { return double(g[0]) + rep; });
    Kokkos::deep_copy(dst.local_view(), -1.0);
    remap.execute(dst, src);
    int bad = 0;
    dst.host_mirror().for_each_local([&](auto g, double v) { bad += v != double(g[0]) + rep; });
    EXPECT_EQ(bad, 0) << "rep " << rep;
  }
}

// A ring exchange of 6 contiguous elements, forward to rank + 1.
void declare_ring(adlib::BlockMessSchedule<Kokkos::HostSpace>& s, int me, int P) {
  s.send((me + 1) % P, adlib::StridedBlock::make(0, {6}, {1}));
  s.recv((me + P - 1) % P, adlib::StridedBlock::make(2, {2, 3}, {4, 1}));
}

TEST_F(Misuse, BlockMessScheduleMisuse) {
  const int P = comm_.size(), me = comm_.rank();
  // Its memory is std::vectors': host memory, so a HostSpace schedule (a GPU
  // build's default memory space is the device's).
  using Schedule = adlib::BlockMessSchedule<Kokkos::HostSpace>;
  // Invalid declarations are reported by the collective build(), on every
  // rank, even when only one rank made them.
  auto expect_build_error = [&](auto&& declare, const std::string& needle) {
    Schedule s(comm_);
    declare(s);
    expect_error_everywhere([&] { s.build(); }, needle);
  };
  expect_build_error([&](Schedule& s) { s.send(P, adlib::StridedBlock::make(0, {1}, {1})); },
                     "outside the communicator");
  expect_build_error([&](Schedule& s) { s.recv(-1, adlib::StridedBlock::make(0, {1}, {1})); },
                     "outside the communicator");
  expect_build_error([&](Schedule& s) { s.send(0, adlib::StridedBlock::make(1, {3}, {-1})); },
                     "below the start");
  expect_build_error(
      [&](Schedule& s) {
        declare_ring(s, me, P);
        if (me == P - 1) s.send(P + 3, adlib::StridedBlock::make(0, {1}, {1}));
      },
      "outside the communicator");
  {
    Schedule s(comm_);
    declare_ring(s, me, P);
    std::vector<double> src(6, 1.0), dst(12, 0.0);
    expect_error_everywhere([&] { s.execute(dst.data(), dst.size(), src.data(), src.size()); },
                            "before build");
    expect_error_everywhere([&] { s.prepare<double>(); }, "before build");
    s.build();
    expect_error_everywhere([&] { s.build(); }, "twice");
    expect_error_everywhere([&] { s.send((me + 1) % P, adlib::StridedBlock::make(0, {1}, {1})); },
                            "after build");
    // Memory too small on either side (the receive needs 2 + 4 + 3 = 9 elements).
    expect_error_everywhere([&] { s.execute(dst.data(), 8, src.data(), src.size()); },
                            "memory too small");
    expect_error_everywhere([&] { s.execute(dst.data(), dst.size(), src.data(), 5); },
                            "memory too small");
    // Backward, the roles swap: the send blocks are written, receive blocks read.
    expect_error_everywhere(
        [&] { s.execute(src.data(), src.size(), dst.data(), 8, adlib::Direction::backward); },
        "memory too small");
    expect_error_everywhere([&] { s.finish(); }, "without start");
    // start twice: the second refuses, the first completes normally.
    for (int i = 0; i < 6; ++i) src[i] = 100.0 * me + i;
    s.start(dst.data(), dst.size(), src.data(), src.size());
    expect_error_everywhere([&] { s.start(dst.data(), dst.size(), src.data(), src.size()); },
                            "not finished");
    s.finish();
    const int from = (me + P - 1) % P;
    const std::vector<double> want{0,
                                   0,
                                   100.0 * from,
                                   100.0 * from + 1,
                                   100.0 * from + 2,
                                   0,
                                   100.0 * from + 3,
                                   100.0 * from + 4,
                                   100.0 * from + 5,
                                   0,
                                   0,
                                   0};
    EXPECT_EQ(dst, want);
  }
  {
    // Messages of different sizes at the two ends of a pair are the
    // caller's contract; self-messages are checked at build.
    Schedule s(comm_);
    s.send(me, adlib::StridedBlock::make(0, {4}, {1}));
    s.recv(me, adlib::StridedBlock::make(0, {5}, {1}));
    expect_error_everywhere([&] { s.build(); }, "received from self");
  }
  if (P > 1) {
    // Declarations whose two ends do not pair up pass a plain build() (the
    // caller's contract) but not a build that checks peers: every rank
    // throws the receiver's view of the first mismatch.
    {
      Schedule s(comm_);
      declare_ring(s, me, P);  // 6 elements to rank + 1
      if (me == 0) s.send(1, adlib::StridedBlock::make(10, {1}, {1}));
      expect_error_everywhere([&] { s.build(/*check_peers=*/true); },
                              "rank 0 sends 7 elements to rank 1, which declared 6");
    }
    {
      Schedule s(comm_);
      if (me == P - 1) s.send(0, adlib::StridedBlock::make(0, {3}, {2}));
      expect_error_everywhere(
          [&] { s.build(true); },
          "rank " + std::to_string(P - 1) + " sends 3 elements to rank 0, which declared 0");
    }
    {
      Schedule s(comm_);
      declare_ring(s, me, P);
      s.build(true);  // consistent: no error, and it still runs
      std::vector<double> src(6, double(me)), dst(12, -1.0);
      s.execute(dst.data(), dst.size(), src.data(), src.size());
      EXPECT_EQ(dst[2], double((me + P - 1) % P));
    }
  }
}

}  // namespace

}  // namespace mpi_misuse
