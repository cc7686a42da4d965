// SPDX-License-Identifier: BSD-3-Clause
// The example of docs/unstructured_range.md: a vector of n elements whose
// processes hold scattered global indices (as a partitioned mesh does),
// remapped to a block layout and back, and gathered from by global index;
// every value checked against the global index it came from.
#include <adlib/adlib.hpp>

#include <cstdio>
#include <memory>
#include <vector>

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank(), P = comm.size();
  adlib::ProcessGrid grid(comm, {P});
  const adlib::Index n = 30;

  // Rank r holds the indices g with (7 g) mod P == r, in decreasing order:
  // any lists will do, as long as together they hold each index once.
  std::vector<adlib::Index> mine;
  for (adlib::Index g = n - 1; g >= 0; --g)
    if (7 * g % P == me) mine.push_back(g);

  // Collective: counts shared, the directory of owners filled.
  auto cells = std::make_shared<adlib::UnstructuredRange>(n, grid.dim(0), mine);
  adlib::DistArray<double, 1> u(grid, {cells});
  adlib::DistArray<double, 1> x(grid, {adlib::block(n)});
  u.fill([](auto g) { return 10.0 * g[0]; });  // local position l holds mine[l]

  adlib::Remap to_block(x, u);  // planned by negotiation: owners found through the directory
  to_block.execute(x, u);
  adlib::Remap(u, x).execute(u, x);  // and back

  // Gather by global index from the unstructured array.
  const std::vector<adlib::Index> wanted = {0, n - 1, n / 2};
  adlib::Gather fetch(u, wanted);
  Kokkos::View<double*> out("out", wanted.size());  // in the array's memory space
  fetch.execute(out, u);

  // Read on the host: through host mirrors (the arrays themselves where the
  // host can address their memory).
  bool ok = true;
  x.host_mirror().for_each_local([&](auto g, double v) { ok &= v == 10.0 * g[0]; });
  u.host_mirror().for_each_local([&](auto g, double v) { ok &= v == 10.0 * g[0]; });
  const auto out_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  for (std::size_t k = 0; k < wanted.size(); ++k) ok &= out_host(k) == 10.0 * wanted[k];
  int all = ok ? 1 : 0, every = 0;
  MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (me == 0) std::printf("unstructured_range_example: %s\n", every ? "ok" : "FAILED");
  return every ? 0 : 1;
}
