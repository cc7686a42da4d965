// SPDX-License-Identifier: BSD-3-Clause
// Gather and Scatter with subscript lists: every rank reads and updates
// elements of a block-distributed vector at global indices that only it
// knows, as a solver does with the off-process columns of its matrix rows.
// The schedules are negotiated once and executed many times.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <vector>

#include <adlib/adlib.hpp>

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank(), p = comm.size();
  const adlib::Index n = 10 * p;
  int wrong = 0;
  {
    adlib::ProcessGrid line(comm, {p});
    adlib::DistArray<double, 1> x(line, {adlib::block(n)});
    x.fill([](const std::array<adlib::Index, 1>& g) { return 100.0 * double(g[0]); });

    // This rank's subscripts: anywhere in the vector, one of them twice.
    std::vector<adlib::Index> wanted = {(7 * me + 3) % n, (7 * me + 11) % n, n - 1,
                                        (7 * me + 3) % n};

    // Negotiated once (collective): each owner learns what this rank needs.
    adlib::Gather fetch(x, wanted);
    Kokkos::View<double*> out("out", wanted.size());
    for (int step = 0; step < 3; ++step) fetch.execute(out, x);  // out[k] = x[wanted[k]]

    // The reverse: every rank adds 1 at each of its subscripts (repeats too).
    adlib::Scatter assemble(x, wanted, adlib::op::add);
    std::vector<double> ones(wanted.size(), 1.0);
    assemble.execute(x, ones.data());  // x[wanted[k]] += 1

    // One-shot forms: plan, execute, drop.
    std::vector<double> again(wanted.size());
    adlib::gather(again.data(), x, wanted);
    adlib::scatter(x, wanted, ones.data(), adlib::op::max);

    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    for (std::size_t k = 0; k < wanted.size(); ++k)
      if (host(k) != 100.0 * double(wanted[k]) || again[k] < host(k) + 1.0) ++wrong;
  }
  int total = 0;
  ADLIB_MPI(MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, comm.get()), "example");
  if (me == 0) std::printf("gather / scatter on %d ranks: %s\n", p, total == 0 ? "right" : "WRONG");
  return total == 0 ? 0 : 1;
}
