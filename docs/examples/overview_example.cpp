// SPDX-License-Identifier: BSD-3-Clause
// The concepts in one program: a process grid, one Range per dimension, two
// distributed arrays of the same shape, a Remap schedule built once and
// executed every step, and local work on local data in between.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <memory>
#include <vector>

#include <adlib/adlib.hpp>

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);

  // A 2-D grid of all ranks (2 x 2 at 4 ranks, 3 x 1 at 3).
  adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
  const adlib::Index rows = 6, columns = 8;

  // a: blocks of rows x blocks of columns (ranges bind to grid axes 0 and 1
  // by position).  b: rows dealt round-robin over grid axis 0, columns not
  // distributed; no range of b uses grid axis 1, so b is replicated over
  // it (every grid column holds a copy).
  adlib::DistArray<double, 2> a(grid, {adlib::block(rows), adlib::block(columns)});
  adlib::DistArray<double, 2> b(grid, {adlib::cyclic(rows), adlib::collapsed(columns)});

  // Think globally: values as a function of global indices ...
  a.fill([&](const auto& g) { return double(g[0] * columns + g[1]); });

  adlib::Remap a_to_b(b, a);  // planned once, from the layouts (a Remap<double, 2>)
  const int steps = 3;
  for (int step = 0; step < steps; ++step) {
    // ... act locally: every element this rank owns, with no communication.
    auto local = a.local_view();
    Kokkos::parallel_for(
        "add_one", local.size(), KOKKOS_LAMBDA(std::size_t k) { local.data()[k] += 1.0; });
    a_to_b.execute(b, a);  // the same schedule every step
  }

  // b holds (row-major index + steps); gather_all reads one replica of each element.
  const std::vector<double> all = adlib::gather_all(b);
  int wrong = 0;
  for (adlib::Index k = 0; k < rows * columns; ++k) wrong += all[k] != double(k + steps);
  if (comm.rank() == 0)
    std::printf("grid %s, rank 0 holds %zu x %zu of a and %zu x %zu of b: %s\n",
                grid.describe().c_str(), a.local_view().extent(0), a.local_view().extent(1),
                b.local_view().extent(0), b.local_view().extent(1),
                wrong == 0 ? "values correct" : "WRONG VALUES");
  return wrong == 0 ? 0 : 1;
}
