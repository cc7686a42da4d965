// SPDX-License-Identifier: BSD-3-Clause
#include <adlib/adlib.hpp>

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);  // MPI, then Kokkos (finalised in reverse)
  adlib::Comm comm(MPI_COMM_WORLD);            // the library's own duplicate
  adlib::ProcessGrid grid(comm, {comm.size()});
  const adlib::Index n = 1000;

  // One vector, two distributions: contiguous blocks and round-robin.
  adlib::DistArray<double, 1> x(grid, {adlib::block(n)});
  adlib::DistArray<double, 1> y(grid, {adlib::cyclic(n)});
  x.fill([](const auto& g) { return double(g[0]); });  // values from global indices

  adlib::Remap x_to_y(y, x);  // plan once (collective): a Remap<double, 1>
  for (int step = 0; step < 100; ++step) {
    // ... update x locally through x.local_view() ...
    x_to_y.execute(y, x);  // y = x, as often as needed
  }

  const std::vector<double> all = adlib::gather_all(y);  // small data only: every element
  for (adlib::Index g = 0; g < n; ++g)                   // on every rank
    if (all[g] != double(g)) return 1;
  return 0;
}
