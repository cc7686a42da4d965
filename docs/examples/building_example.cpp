// SPDX-License-Identifier: BSD-3-Clause
// The smallest useful adlib program, built against the installed package:
// a block-distributed vector remapped to a cyclic one, every value checked
// against its global index.  Exits non-zero when any rank sees a wrong value.
#include <mpi.h>

#include <cstdio>
#include <memory>

#include <adlib/adlib.hpp>

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  int wrong_values = 0;
  {
    adlib::Comm comm(MPI_COMM_WORLD);
    adlib::ProcessGrid grid(comm, {comm.size()});
    const adlib::Index n = 1000;
    auto block = std::make_shared<adlib::BlockRange>(n, grid.dim(0));
    auto cyclic = std::make_shared<adlib::CyclicRange>(n, grid.dim(0));
    adlib::DistArray<double, 1> by_blocks(grid, {block});
    adlib::DistArray<double, 1> round_robin(grid, {cyclic});
    by_blocks.fill([](const auto& global) { return 2.0 * double(global[0]); });
    round_robin.fill([](const auto&) { return -1.0; });  // poison: a missed element shows

    adlib::Remap to_cyclic(round_robin, by_blocks);
    to_cyclic.execute(round_robin, by_blocks);

    round_robin.host_mirror().for_each_local([&](const auto& global, double value) {
      if (value != 2.0 * double(global[0])) ++wrong_values;
    });
    int wrong_anywhere = 0;
    MPI_Allreduce(&wrong_values, &wrong_anywhere, 1, MPI_INT, MPI_SUM, comm.get());
    if (comm.rank() == 0)
      std::printf("consumer: remap of %lld elements over %d ranks: %s (%d wrong)\n",
                  static_cast<long long>(n), comm.size(), wrong_anywhere == 0 ? "ok" : "FAILED",
                  wrong_anywhere);
    wrong_values = wrong_anywhere;
  }  // schedules and arrays go before Kokkos and MPI are finalised
  return wrong_values == 0 ? 0 : 1;
}
