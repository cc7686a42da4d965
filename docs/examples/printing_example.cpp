// SPDX-License-Identifier: BSD-3-Clause
// Printing distributed arrays: a small 2-D array in full, a section of it, a
// large 1-D array summarised (only its first and last elements travel to rank
// 0), a complex 3-D array, and who owns what (adlib::print_layout).  Every
// picture but the ownership ones reads the same at any number of ranks; rank
// 0 checks that to_string gives it the printed text and the others nothing.
#include <mpi.h>

#include <array>
#include <complex>
#include <cstdio>
#include <string>

#include <adlib/adlib.hpp>

using adlib::Index;

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  int wrong = 0;
  {
    const Index n = 5, m = 7;
    adlib::ProcessGrid grid = adlib::ProcessGrid::balanced(comm, 2);
    adlib::DistArray<double, 2> u(grid, {adlib::block(n), adlib::cyclic(m)});
    u.fill([&](const std::array<Index, 2>& g) { return g[0] + 0.1 * g[1]; });

    adlib::PrintOptions options;
    options.name = "u";
    adlib::print(u, options);  // collective: rank 0 writes, in global order

    options.name = "u(1:4:2, ::-3)";
    adlib::print(u.section({adlib::Triplet{1, 4, 2}, adlib::Triplet{6, 0, -3}}), options);

    // 10^6 elements: summarised, and only the 6 shown ones are gathered.
    adlib::ProcessGrid line(comm, {comm.size()});
    adlib::DistArray<long, 1> big(line, {adlib::block(1000000)});
    big.fill([](const std::array<Index, 1>& g) { return long(g[0]) * 3; });
    options.name = "big";
    adlib::print(big, options);

    // Complex elements; a 3-D array is printed as slices [i, :, :].
    adlib::DistArray<std::complex<double>, 3> z(
        grid, {adlib::block(2), adlib::cyclic(2), adlib::collapsed(3)});
    z.fill([](const std::array<Index, 3>& g) {
      return std::complex<double>(double(g[0] * 100 + g[1] * 10 + g[2]), 0.5 - double(g[2]));
    });
    options.name = "z";
    adlib::print(z, options);

    // Who owns what: ranks of the communicator (this depends on the rank count).
    adlib::PrintOptions owners;
    owners.name = "owners of u";
    adlib::print_layout(u, owners);

    // A layout alone, on a planning grid (no MPI: printed by the caller).
    if (comm.rank() == 0) {
      adlib::ProcessGrid three({3});
      adlib::print_layout(adlib::ArrayLayout(three, {adlib::block(10).ghosts(1).on(three.dim(0))}));
    }

    // to_string: the text on the root, "" elsewhere (for tests and logs).
    adlib::PrintOptions bare;
    bare.index_labels = false;
    const std::string text =
        adlib::to_string(u.section({adlib::Triplet{1, 4, 2}, adlib::Triplet{6, 0, -3}}), bare);
    const std::string expected = comm.rank() == 0 ? "1.6 1.3   1\n3.6 3.3   3\n" : "";
    if (text != expected) ++wrong;
  }
  int all = 0;
  MPI_Allreduce(&wrong, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (comm.rank() == 0) std::printf("%s\n", all == 0 ? "printing: ok" : "printing: WRONG");
  return all == 0 ? 0 : 1;
}
