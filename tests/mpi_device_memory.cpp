// SPDX-License-Identifier: BSD-3-Clause
// The collectives over arrays in the default execution space's memory, with
// every host access through a mirror: the suite that must run unchanged on
// a device build (Kokkos with CUDA or HIP, where that memory is the GPU's),
// as on the Serial and OpenMP builds, where the mirrors are the arrays
// themselves.  Kernels the library runs there (packs, index lists,
// combining unpacks) and the staging through host buffers when MPI is not
// GPU-aware are exercised against serial references from global indices.
//
// Device-clean by construction: no host loop touches a device View; the
// user's combine operation is a named functor with KOKKOS_INLINE_FUNCTION
// (nvcc rejects extended lambdas in gtest's private TestBody).
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <cstdint>
#include <map>
#include <vector>

#include <adlib/adlib.hpp>

namespace mpi_device_memory {

namespace {

using adlib::Index;
using Position = std::array<Index, 1>;
using Space = Kokkos::DefaultExecutionSpace::memory_space;

// A user's combine operation, callable in kernels: target += 2 * value.
struct AddTwice {
  KOKKOS_INLINE_FUNCTION void operator()(double& target, const double& value) const {
    target += 2.0 * value;
  }
};

// A View in the default space holding `values`.
template <class T>
Kokkos::View<T*, Space> device_copy(const std::vector<T>& values) {
  Kokkos::View<T*, Space> view("values", values.size());
  auto host = Kokkos::create_mirror_view(view);
  for (std::size_t k = 0; k < values.size(); ++k) host(k) = values[k];
  Kokkos::deep_copy(view, host);
  return view;
}

double value_at(Index g) {
  return 3.0 * double(g) + 1.0;
}

// Uneven: n is not a multiple of the process count, and the last rank of a
// block distribution may hold less.
Index extent_for(int processes) {
  return 5 * processes + 3;
}

TEST(DeviceMemory, RemapAndHaloCheckedThroughMirrors) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Index n = extent_for(P);
  adlib::ProcessGrid line(comm, {P});
  adlib::DistArray<double, 1, Space> u(line, {adlib::block(n).ghosts(1).periodic()});
  adlib::DistArray<double, 1, Space> c(line, {adlib::cyclic(n)});
  u.fill([](const Position& g) { return value_at(g[0]); });

  adlib::Remap remap(c, u);
  for (int repeat = 0; repeat < 3; ++repeat) {
    Kokkos::deep_copy(c.local_view(), -1.0);
    remap.execute(c, u);
    int wrong = 0;
    c.host_mirror().for_each_local(
        [&](const Position& g, double v) { wrong += v != value_at(g[0]); });
    EXPECT_EQ(wrong, 0) << "repeat " << repeat;
  }

  // The ghosts of a periodic block distribution: element 0 of the local
  // block is the left ghost, the last the right one.
  adlib::WriteHalo halo(u);
  halo.execute(u);
  auto host = u.host_mirror();
  Index first = n, owned = 0;
  host.for_each_local([&](const Position& g, double) {
    first = std::min(first, g[0]);
    ++owned;
  });
  if (owned > 0) {
    const auto view = host.local_view();
    EXPECT_EQ(view(0), value_at((first - 1 + n) % n));
    EXPECT_EQ(view(static_cast<std::size_t>(owned + 1)), value_at((first + owned) % n));
  }
}

// Every rank's subscripts, known to all ranks so that each can compute the
// reference: repeats within a list and across ranks.
std::vector<Index> subscripts_of(int rank, Index n) {
  return {(7 * rank + 3) % n, n - 1, (7 * rank + 3) % n, (5 * rank) % n, 0};
}

TEST(DeviceMemory, GatherAndScatterWithRepeatsAndAUserCombine) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Index n = extent_for(P);
  adlib::ProcessGrid line(comm, {P});
  adlib::DistArray<double, 1, Space> x(line, {adlib::block(n)});
  x.fill([](const Position& g) { return value_at(g[0]); });
  const std::vector<Index> wanted = subscripts_of(comm.rank(), n);

  adlib::Gather fetch(x, wanted);
  Kokkos::View<double*, Space> out("out", wanted.size());
  fetch.execute(out, x);
  auto out_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (std::size_t k = 0; k < wanted.size(); ++k)
    EXPECT_EQ(out_host(k), value_at(wanted[k])) << "subscript " << wanted[k];

  // x[wanted[k]] += 2 * (k + 1), on every rank: repeated targets combine
  // every contribution.
  std::vector<double> contributions(wanted.size());
  for (std::size_t k = 0; k < wanted.size(); ++k) contributions[k] = double(k + 1);
  const auto values = device_copy(contributions);
  adlib::Scatter assemble(x, wanted, adlib::op::combine(AddTwice{}));
  assemble.execute(x, values);

  std::map<Index, double> added;
  for (int r = 0; r < P; ++r) {
    const std::vector<Index> theirs = subscripts_of(r, n);
    for (std::size_t k = 0; k < theirs.size(); ++k) added[theirs[k]] += 2.0 * double(k + 1);
  }
  int wrong = 0;
  x.host_mirror().for_each_local([&](const Position& g, double v) {
    const auto found = added.find(g[0]);
    wrong += v != value_at(g[0]) + (found == added.end() ? 0.0 : found->second);
  });
  EXPECT_EQ(wrong, 0);
}

TEST(DeviceMemory, ArrayGatherAndReductions) {
  adlib::Comm comm(MPI_COMM_WORLD);
  const int P = comm.size();
  const Index n = extent_for(P);
  adlib::ProcessGrid line(comm, {P});
  adlib::DistArray<double, 2, Space> matrix(line, {adlib::block(n), adlib::collapsed(3)});
  matrix.fill([](const std::array<Index, 2>& g) { return 10.0 * double(g[0]) + double(g[1]); });
  adlib::DistArray<double, 1, Space> picked(line, {adlib::cyclic(n)});
  adlib::DistArray<Index, 1, Space> rows(line, {adlib::cyclic(n)});
  adlib::DistArray<Index, 1, Space> cols(line, {adlib::cyclic(n)});
  rows.fill([&](const Position& i) { return n - 1 - i[0]; });
  cols.fill([](const Position& i) { return i[0] % 3; });

  adlib::ArrayGather pick(picked, matrix, std::array{rows, cols});
  pick.execute(picked, matrix);
  int wrong = 0;
  picked.host_mirror().for_each_local([&](const Position& i, double v) {
    wrong += v != 10.0 * double(n - 1 - i[0]) + double(i[0] % 3);
  });
  EXPECT_EQ(wrong, 0);

  // Reductions read the device memory in kernels; exact in double.
  adlib::DistArray<double, 1, Space> u(line, {adlib::block(n).ghosts(2)});
  u.fill([](const Position& g) { return double(g[0]); });
  adlib::ArrayReduction reduce(u);
  EXPECT_EQ(reduce.sum(u), double(n * (n - 1) / 2));
  EXPECT_EQ(reduce.maxval(u), double(n - 1));
  EXPECT_EQ(adlib::sum(picked), [&] {
    double total = 0;
    for (Index i = 0; i < n; ++i) total += 10.0 * double(n - 1 - i) + double(i % 3);
    return total;
  }());
}

}  // namespace

}  // namespace mpi_device_memory
