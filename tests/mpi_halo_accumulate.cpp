// SPDX-License-Identifier: BSD-3-Clause
// WriteHalo::accumulate (the reverse of the halo exchange with a combine
// operation) against a serial reference: for random ghost-extended layouts
// (random_halo_config.hpp: 1-D to 3-D, every boundary, both stencils, wide
// ghosts, grids smaller than the communicator), every rank computes from
// the layout alone, for EVERY rank's local cells, which ghost cells the
// exchange fills and from which global element (halo_reference.hpp, which
// shares nothing with the planner), and so what each owned element must hold
// after the ghost values are combined into it.  Ghost values differ per rank
// and cell; all values are integers, so sums are exact.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <map>
#include <random>
#include <vector>

#include <adlib/adlib.hpp>
#include "expect_error_everywhere.hpp"
#include "halo_reference.hpp"
#include "random_halo_config.hpp"

// Own namespace: the test programs compile several files per translation
// unit (unity batches, tests/CMakeLists.txt), and names must not meet.
namespace mpi_halo_accumulate {

namespace {

using adlib::Boundary;
using adlib::Index;

// Calls f(local multi-index, C-order offset) for every cell of rank q's
// local memory (ghost cells included).
template <int R, class F>
void for_each_local_cell(const adlib::ArrayLayout& layout, int q, F&& f) {
  if (!layout.holds_data(q)) return;
  const adlib::LocalBox<R> box = adlib::ghost_box<R>(layout, q);
  std::array<Index, R> at{};
  Index total = 1;
  for (int d = 0; d < R; ++d) total *= box.extent(d);
  for (Index flat = 0; flat < total; ++flat) {
    f(at, flat);
    for (int d = R - 1; d >= 0; --d) {
      if (++at[d] < box.extent(d)) break;
      at[d] = 0;
    }
  }
}

// The initial values: an owned element g holds 1000 g; the ghost cell at
// offset `flat` of rank q holds 1 + (7 q + flat) mod 5.
double owned_value(Index linear) {
  return 1000.0 * double(linear);
}
double ghost_value(int q, Index flat) {
  return 1.0 + double((7 * q + flat) % 5);
}

// What every local cell of this rank holds after accumulate with `combine`
// (applied in any order: add and max are commutative).
template <int R, class Combine>
std::vector<double> expected_cells(const adlib::ArrayLayout& layout, const adlib::HaloWidths& halo,
                                   int me, int processes, Combine combine) {
  // Replicated layouts (no distributed dimension) fill their ghosts from
  // their own copy, and give back to it only.
  const bool replicated = !layout.replicated_axes().empty();
  std::map<Index, std::vector<double>> arriving;  // global linear index -> values
  for (int q = 0; q < processes; ++q) {
    if (replicated && q != me) continue;
    const adlib_test::HaloReference<R> reference(layout, halo, q);
    for_each_local_cell<R>(layout, q, [&](const std::array<Index, R>& local, Index flat) {
      const adlib_test::HaloCell cell = reference.cell(local);
      if (!cell.owned && cell.filled) arriving[cell.linear].push_back(ghost_value(q, flat));
    });
  }
  std::vector<double> cells;
  const adlib_test::HaloReference<R> reference(layout, halo, me);
  for_each_local_cell<R>(layout, me, [&](const std::array<Index, R>& local, Index flat) {
    const adlib_test::HaloCell cell = reference.cell(local);
    if (!cell.owned) {
      cells.push_back(ghost_value(me, flat));  // ghosts keep their values
      return;
    }
    double v = owned_value(cell.linear);
    for (double a : arriving[cell.linear]) combine(v, a);
    cells.push_back(v);
  });
  return cells;
}

template <int R>
void fill_initial(adlib::DistArray<double, R>& a) {
  if (!a.holds_data()) return;
  const adlib::ArrayLayout& layout = a.layout();
  const int me = a.process_rank();
  auto host = Kokkos::create_mirror_view(a.local_view());
  for_each_local_cell<R>(layout, me, [&](const std::array<Index, R>& local, Index flat) {
    bool owned = true;
    const adlib::LocalBox<R> box = adlib::owned_box<R>(layout, me);
    Index linear = 0;
    for (int d = 0; d < R; ++d) {
      owned = owned && box.contains(d, local[d]);
      linear = linear * layout.range(d).extent() + box.global(d, local[d]);
    }
    host.data()[flat] = owned ? owned_value(linear) : ghost_value(me, flat);
  });
  Kokkos::deep_copy(a.local_view(), host);
}

template <int R>
int count_mismatches(const adlib::DistArray<double, R>& a, const std::vector<double>& want,
                     const char* what) {
  if (!a.holds_data()) return 0;
  auto host = Kokkos::create_mirror_view(a.local_view());
  Kokkos::deep_copy(host, a.local_view());
  int bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    if (host.data()[i] != want[i] && ++bad <= 3)
      ADD_FAILURE() << what << ": local cell " << i << " holds " << host.data()[i] << ", expected "
                    << want[i] << " in " << a.layout().describe();
  return bad;
}

template <int R>
void run_random(int configurations, unsigned seed) {
  adlib::Comm comm(MPI_COMM_WORLD);
  std::mt19937 rng(seed);  // the same sequence on every rank
  for (int i = 0; i < configurations; ++i) {
    adlib_test::RandomHaloCase<R> c = adlib_test::random_halo_case<R>(comm, rng);
    adlib::DistArray<double, R>& a = c.array;
    adlib::WriteHalo<double, R> halo(a.layout(), c.halo);
    const int me = comm.rank();
    auto add = [](double& t, double v) { t += v; };
    auto max = [](double& t, double v) { t = t < v ? v : t; };
    fill_initial(a);
    halo.accumulate(a, adlib::op::add);
    ASSERT_EQ(
        count_mismatches(a, expected_cells<R>(a.layout(), c.halo, me, comm.size(), add), "add"), 0)
        << "configuration " << i;
    // The schedule is reusable, in two halves, with another operation.
    fill_initial(a);
    halo.start_accumulate(a, adlib::op::max);
    halo.finish();
    ASSERT_EQ(
        count_mismatches(a, expected_cells<R>(a.layout(), c.halo, me, comm.size(), max), "max"), 0)
        << "configuration " << i;
    // And forwards again afterwards: the exchange is unaffected.
    fill_initial(a);
    halo.execute(a);
  }
}

TEST(HaloAccumulate, Random1D) {
  run_random<1>(100, 21);
}
TEST(HaloAccumulate, Random2D) {
  run_random<2>(80, 22);
}
TEST(HaloAccumulate, Random3D) {
  run_random<3>(40, 23);
}

// A user's operation as device code may run it: a named functor (a plain
// host lambda would not compile into a device kernel).
struct Subtract {
  KOKKOS_INLINE_FUNCTION void operator()(long long& target, const long long& value) const {
    target -= value;
  }
};

// The finite-element assembly of the docs, in small: a periodic 1-D line of
// cells where every rank's two ghost cells hold 1: after accumulate every
// owned boundary cell has gained 1 per neighbour that holds it as a ghost.
TEST(HaloAccumulate, IntegersAndAUserOperation) {
  adlib::Comm comm(MPI_COMM_WORLD);
  adlib::ProcessGrid line(comm, {comm.size()});
  const Index n = 3 * comm.size() + 1;  // uneven blocks
  adlib::DistArray<long long, 1> a(line, {adlib::block(n).ghosts(1).periodic()});
  adlib::WriteHalo halo(a);
  Kokkos::deep_copy(a.local_view(), 1LL);
  a.fill([](const std::array<Index, 1>&) { return 0LL; });
  halo.accumulate(a);  // op::add by default
  // Every element is a ghost of its left and right neighbours' blocks
  // exactly when it sits at a block boundary.
  const auto owned = a.owned_box();
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.local_view());
  for (Index l = owned.begin(0); l < owned.end(0); ++l) {
    const Index g = owned.global(0, l);
    long long want = 0;
    for (int q = 0; q < comm.size(); ++q) {
      const auto box = adlib::owned_box<1>(a.layout(), q);
      if (box.extent(0) == 0) continue;
      const Index left = (box.global(0, box.begin(0)) - 1 + n) % n;
      const Index right = (box.global(0, box.end(0) - 1) + 1) % n;
      want += (left == g) + (right == g);
    }
    EXPECT_EQ(host(l), want) << "global " << g;
  }
  // A user's operation: the arriving values are subtracted.
  Kokkos::deep_copy(a.local_view(), 1LL);
  a.fill([](const std::array<Index, 1>&) { return 100LL; });
  halo.accumulate(a, adlib::op::combine(Subtract{}));
  Kokkos::deep_copy(host, a.local_view());
  for (Index l = owned.begin(0); l < owned.end(0); ++l) EXPECT_LE(host(l), 100);
}

TEST(HaloAccumulate, DifferentOperationsOnDifferentRanksAreRefusedWhenChecked) {
  adlib::Comm comm(MPI_COMM_WORLD);
  if (comm.size() < 2) GTEST_SKIP() << "needs two ranks";
  adlib::Configuration config = adlib::Configuration::environment();
  config.checked = true;
  adlib::ProcessGrid line(comm, {comm.size()});
  adlib::DistArray<double, 1> a(line, {adlib::block(8).ghosts(1)});
  adlib::WriteHalo<double, 1> halo(a, config);
  adlib_test::expect_error_everywhere(
      [&] {
        if (comm.rank() == 0)
          halo.accumulate(a, adlib::op::add);
        else
          halo.accumulate(a, adlib::op::max);
      },
      "arguments differ between ranks");
}

}  // namespace

}  // namespace mpi_halo_accumulate
