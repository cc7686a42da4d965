// SPDX-License-Identifier: BSD-3-Clause
// Gather and Scatter with subscript lists: every rank reads and updates
// elements of a block-distributed vector at global indices that only it
// knows, as a solver does with the off-process columns of its matrix rows.
// Then the array forms: subscript arrays (and a mask) distributed like the
// destination of a gather, the source of a scatter.  The schedules are
// negotiated once and executed many times.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <array>
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
    Kokkos::View<double*> ones("ones", wanted.size());  // in the array's memory space
    Kokkos::deep_copy(ones, 1.0);
    assemble.execute(x, ones);  // x[wanted[k]] += 1

    // One-shot forms: plan, execute, drop.
    Kokkos::View<double*> again("again", wanted.size());
    adlib::gather(again.data(), x, wanted);
    adlib::scatter(x, wanted, ones.data(), adlib::op::max);

    // Device memory is read on the host through mirrors.
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    auto again_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), again);
    for (std::size_t k = 0; k < wanted.size(); ++k)
      if (host(k) != 100.0 * double(wanted[k]) || again_host(k) < host(k) + 1.0) ++wrong;

    // The array form: a matrix distributed by rows, and a vector distributed
    // cyclically with two subscript arrays (row, column) distributed like it.
    using Position = std::array<adlib::Index, 1>;
    adlib::DistArray<double, 2> matrix(line, {adlib::block(n), adlib::collapsed(3)});
    matrix.fill([](const std::array<adlib::Index, 2>& g) { return 10.0 * g[0] + g[1]; });
    adlib::DistArray<double, 1> picked(line, {adlib::cyclic(n)});
    adlib::DistArray<adlib::Index, 1> rows(line, {adlib::cyclic(n)});
    adlib::DistArray<adlib::Index, 1> cols(line, {adlib::cyclic(n)});
    rows.fill([&](const Position& i) { return n - 1 - i[0]; });
    cols.fill([](const Position& i) { return i[0] % 3; });

    // Planned once (collective), executed on any arrays of these layouts.
    adlib::ArrayGather pick(picked, matrix, std::array{rows, cols});
    pick.execute(picked, matrix);  // picked[i] = matrix[rows[i], cols[i]]

    // The mirror, one-shot, where a mask is true: matrix[rows[i], cols[i]] += picked[i].
    adlib::DistArray<bool, 1> even(line, {adlib::cyclic(n)});
    even.fill([](const Position& i) { return i[0] % 2 == 0; });
    adlib::scatter(matrix, picked, std::array{rows, cols}, even, adlib::op::add);

    auto picked_host =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), picked.local_view());
    adlib::DistArray<double, 1, Kokkos::HostSpace> picked_mirror(picked, picked_host);
    picked_mirror.for_each_local([&](const Position& i, double& v) {
      if (v != 10.0 * double(n - 1 - i[0]) + double(i[0] % 3)) ++wrong;
    });
    auto matrix_host =
        Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), matrix.local_view());
    adlib::DistArray<double, 2, Kokkos::HostSpace> matrix_mirror(matrix, matrix_host);
    matrix_mirror.for_each_local([&](const std::array<adlib::Index, 2>& g, double& v) {
      const adlib::Index i = n - 1 - g[0];
      const double original = 10.0 * double(g[0]) + double(g[1]);
      if (v != (g[1] == i % 3 && i % 2 == 0 ? 2.0 : 1.0) * original) ++wrong;
    });
  }
  int total = 0;
  ADLIB_MPI(MPI_Allreduce(&wrong, &total, 1, MPI_INT, MPI_SUM, comm.get()), "example");
  if (me == 0) std::printf("gather / scatter on %d ranks: %s\n", p, total == 0 ? "right" : "WRONG");
  return total == 0 ? 0 : 1;
}
