// SPDX-License-Identifier: BSD-3-Clause
// Layouts other libraries bring: process grids over a list of ranks (two
// grids side by side on one communicator), a ScaLAPACK block-cyclic matrix
// whose first block is on another process than coordinate 0, and memory the
// application already owns (a std::vector with a padded leading dimension)
// used by Remap and WriteHalo without a copy.  Every result is checked
// against the global indices; the exit code says whether all checks passed.
// Runs at any number of ranks.
#include <mpi.h>

#include <cstdio>
#include <memory>
#include <vector>

#include <adlib/adlib.hpp>

using adlib::Index;

// The memory the application owns below is a std::vector's, host memory, so
// every array here lives in HostSpace (a GPU build's default memory space is
// the device's, which cannot address a std::vector).
using HostArray = adlib::DistArray<double, 2, Kokkos::HostSpace>;

// True on every rank when every element of `a` this rank holds equals
// 1000 * row + column (collective).
bool holds_indices(const HostArray& a) {
  int wrong = 0, wrong_anywhere = 0;
  a.host_mirror().for_each_local([&](const auto& g, double value) {
    if (value != double(1000 * g[0] + g[1])) ++wrong;
  });
  MPI_Allreduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return wrong_anywhere == 0;
}

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  const int size = adlib::Comm(MPI_COMM_WORLD).size();
  bool ok = true;

  // Two grids side by side: the first half of the ranks and the others (at
  // one rank, both are rank 0).
  const int half = size > 1 ? size / 2 : 1;
  std::vector<int> left_ranks, right_ranks;
  for (int r = 0; r < half; ++r) left_ranks.push_back(r);
  for (int r = half; r < size; ++r) right_ranks.push_back(r);
  if (right_ranks.empty()) right_ranks.push_back(0);
  const int nl = static_cast<int>(left_ranks.size()), nr = static_cast<int>(right_ranks.size());
  adlib::ProcessGrid left(MPI_COMM_WORLD, {nl, 1}, left_ranks);
  adlib::ProcessGrid right(MPI_COMM_WORLD, {1, nr}, right_ranks);
  if (!left.is_member() && !right.is_member()) ok = false;  // every rank is in one of them

  // A 10 x 12 matrix, ScaLAPACK style on the left grid: 3 x 4 blocks, the
  // first block row on the last process row (RSRC = nl - 1, CSRC = 0).
  const Index m = 10, n = 12;
  auto rows = std::make_shared<adlib::BlockCyclicRange>(m, left.dim(0), 3, /*source=*/nl - 1);
  auto cols = std::make_shared<adlib::BlockCyclicRange>(n, left.dim(1), 4, /*source=*/0);
  adlib::DistArray<double, 2, Kokkos::HostSpace> a(left, {rows, cols});
  a.fill([](auto g) { return double(1000 * g[0] + g[1]); });

  // The same matrix in column blocks on the right grid, and back.
  auto whole_rows = std::make_shared<adlib::CollapsedRange>(m);
  auto column_blocks = std::make_shared<adlib::BlockRange>(n, right.dim(1));
  adlib::DistArray<double, 2, Kokkos::HostSpace> b(right, {whole_rows, column_blocks});
  adlib::Remap left_to_right(b, a);
  left_to_right.execute(b, a);
  ok = holds_indices(b) && ok;

  // Memory the application owns: each rank's block of the column-block
  // layout with ghost columns, rows padded to a leading dimension lld.
  const adlib::ArrayLayout layout(
      right, {whole_rows,
              std::make_shared<adlib::BlockRange>(n, right.dim(1), adlib::Ghosts{1, 1, true})});
  const std::vector<Index> local = layout.local_extents(adlib::Comm(MPI_COMM_WORLD).rank());
  const Index lld = local[1] + 4;  // 4 unused elements at the end of every row
  std::vector<double> memory(static_cast<size_t>(local[0] * lld), -1.0);
  auto c = adlib::DistArray<double, 2, Kokkos::HostSpace>::wrap(layout, memory.data(), {lld, 1});
  adlib::remap(c, a);  // owned elements, straight into `memory`
  adlib::WriteHalo halo(c);
  halo.execute(c);  // ghost columns too
  ok = holds_indices(c) && ok;
  for (Index i = 0; i < local[0]; ++i)  // the padding is never touched
    for (Index j = local[1]; j < lld; ++j) ok = ok && memory[i * lld + j] == -1.0;
  // Ghost columns hold their (periodic) neighbours' values.
  if (c.holds_data()) {
    const int coord = right.coordinate(adlib::Comm(MPI_COMM_WORLD).rank(), 1);
    const Index first = layout.range(1).global_index(coord, 1);
    for (Index i = 0; i < local[0]; ++i) {
      ok = ok && memory[i * lld] == double(1000 * i + (first + n - 1) % n);
      ok = ok && memory[i * lld + local[1] - 1] == double(1000 * i + (first + local[1] - 2) % n);
    }
  }

  // A block of the wrong size is an error on every rank.
  try {
    auto wrong = adlib::DistArray<double, 2, Kokkos::HostSpace>::wrap(layout, memory.data(),
                                                                      {local[1] - 1, 1});
    ok = false;
  } catch (const adlib::Error& e) {
    if (adlib::Comm(MPI_COMM_WORLD).rank() == 0) std::printf("wrap refused: %s\n", e.what());
  }

  int all_ok = ok ? 1 : 0, every = 0;
  MPI_Allreduce(&all_ok, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (adlib::Comm(MPI_COMM_WORLD).rank() == 0)
    std::printf("wrapping memory example: %s\n", every ? "all checks passed" : "FAILED");
  return every ? 0 : 1;
}
