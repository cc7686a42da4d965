// SPDX-License-Identifier: BSD-3-Clause
// Broadcast of sections: a 2-D array distributed by blocks of rows and
// cyclically over columns; one row piece broadcast with a Broadcast planned
// once and executed for two arrays of the layout, a column piece with the
// one-shot function, one element with broadcast_value.  Every rank checks
// what it received against the global indices.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <array>
#include <cstdio>

#include <adlib/adlib.hpp>

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const adlib::Index n = 12, m = 10;
  int wrong = 0;
  {
    using Position = std::array<adlib::Index, 2>;
    adlib::ProcessGrid grid(comm, {comm.size(), 1});
    adlib::DistArray<double, 2> u(grid, {adlib::block(n), adlib::cyclic(m)});
    adlib::DistArray<double, 2> v(grid, {adlib::block(n), adlib::cyclic(m)});
    u.fill([&](const Position& g) { return double(g[0] * m + g[1]); });
    v.fill([&](const Position& g) { return -double(g[0] * m + g[1]); });

    // Row n - 1, every other column: held by one process (the last row's).
    const auto row = u.section({adlib::Triplet{n - 1, n - 1, 1}, adlib::Triplet{0, m - 1, 2}});
    adlib::Broadcast from_owner(row);  // planned once for the section's layout
    Kokkos::View<double**, Kokkos::LayoutRight> copy("copy", 1, m / 2);
    from_owner.execute(row, copy);  // on every process: u(n - 1, 0:m-1:2)
    const auto row_of_v = v.section({adlib::Triplet{n - 1, n - 1, 1}, adlib::Triplet{0, m - 1, 2}});
    from_owner.execute(row_of_v, copy);  // any array of the same layout

    // One-shot forms: a View of the section, or one element's value.
    const auto column =
        u.section({adlib::Triplet{0, n / comm.size() - 1, 1}, adlib::Triplet{3, 3, 1}});
    const auto top = adlib::broadcast(column);  // (n / P) x 1, from process 0
    const double corner = adlib::broadcast_value(u, n - 1, m - 1);

    auto got = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), copy);
    for (adlib::Index j = 0; j < m / 2; ++j)
      if (got(0, j) != -double((n - 1) * m + 2 * j)) ++wrong;
    auto first = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), top);
    for (adlib::Index i = 0; i < n / comm.size(); ++i)
      if (first(i, 0) != double(i * m + 3)) ++wrong;
    if (corner != double(n * m - 1)) ++wrong;
  }
  if (comm.rank() == 0) std::printf(wrong ? "broadcast: WRONG\n" : "broadcast: ok\n");
  return wrong ? 1 : 0;
}
