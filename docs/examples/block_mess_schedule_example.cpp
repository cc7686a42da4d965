// SPDX-License-Identifier: BSD-3-Clause
// BlockMessSchedule, the low-level schedule under Remap: strided blocks of
// local memory, declared per peer, merged into one message per peer.
//
// Every rank holds a 4 x 4 matrix (row-major, 16 doubles) and sends two
// blocks to its right neighbour in a ring: column 1 (4 elements, stride 4)
// and the 2 x 2 top-left corner.  The neighbour receives them into rows 2
// and 3: the corner arrives as 4 consecutive elements, because only the
// element order of a message must agree on both ends, not its block shapes.
// The backward direction then sends everything back where it came from.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>

#include <adlib/adlib.hpp>

using Memory = Kokkos::DefaultExecutionSpace::memory_space;
using Matrix = Kokkos::View<double*, Memory>;  // 4 x 4, element (i, j) at 4 * i + j

// Value of element (i, j) of `rank`'s source matrix.
KOKKOS_INLINE_FUNCTION double value(int rank, int i, int j) {
  return 100.0 * rank + 10.0 * i + j;
}

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank(), p = comm.size();
  const int right = (me + 1) % p, left = (me + p - 1) % p;

  adlib::BlockMessSchedule<Memory> ring(comm);
  ring.send(right, adlib::StridedBlock::make(1, {4}, {4}));        // column 1
  ring.send(right, adlib::StridedBlock::make(0, {2, 2}, {4, 1}));  // top-left 2 x 2
  ring.recv(left, adlib::StridedBlock::make(8, {4}, {1}));         // row 2
  ring.recv(left, adlib::StridedBlock::make(12, {4}, {1}));        // row 3
  ring.build();  // collective: agrees that every rank's declarations are valid

  Matrix a("a", 16), b("b", 16), c("c", 16);
  Kokkos::parallel_for(
      "fill", 16, KOKKOS_LAMBDA(int k) { a(k) = value(me, k / 4, k % 4); });

  // Forward: send blocks of a -> receive blocks of b.  Executed many times
  // with the same Views, it reuses its persistent MPI requests.
  for (int step = 0; step < 5; ++step) ring.execute(b, a);
  // Backward: receive blocks of b -> send blocks of c, on the sending rank.
  ring.start(c, b, adlib::Direction::backward);
  ring.finish();

  auto a_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a);
  auto b_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b);
  auto c_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
  int wrong = 0;
  for (int j = 0; j < 4; ++j) {
    wrong += b_host(8 + j) != value(left, j, 1);                          // row 2 = left's column 1
    wrong += b_host(12 + j) != value(left, j / 2, j % 2);                 // row 3 = left's corner
    wrong += c_host(4 * j + 1) != a_host(4 * j + 1);                      // column 1 came back
    wrong += c_host(4 * (j / 2) + j % 2) != a_host(4 * (j / 2) + j % 2);  // so did the corner
  }
  int wrong_anywhere = 0;
  MPI_Allreduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, comm.get());

  const adlib::BlockMessagePlan& plan = ring.plan();
  if (me == 0)
    std::printf("rank 0: %zu message(s) out of %lld elements, %lld copied locally; %s\n",
                plan.send_messages().size(), static_cast<long long>(plan.send_count()),
                static_cast<long long>(plan.local_count()),
                wrong_anywhere == 0 ? "all values correct" : "WRONG VALUES");
  return wrong_anywhere == 0 ? 0 : 1;
}
