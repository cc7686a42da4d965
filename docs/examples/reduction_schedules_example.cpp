// SPDX-License-Identifier: BSD-3-Clause
// The low-level reduction and broadcast schedules: an all-reduce of a
// vector, a scalar reduction, MAXLOC, a broadcast, each built once and
// executed in a loop, checked against values computed from the ranks.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>

#include <adlib/adlib.hpp>

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const int me = comm.rank(), p = comm.size();
  int wrong = 0;

  // An all-reduce of 1000 values, built once, executed every iteration.
  adlib::RedxSchedule<double, adlib::op::Add, Kokkos::HostSpace> sum(comm, 1000);
  Kokkos::View<double*, Kokkos::HostSpace> x("x", 1000);
  for (int iteration = 0; iteration < 3; ++iteration) {
    for (int k = 0; k < 1000; ++k) x(k) = me + k;
    sum.execute(x);  // x(k) = sum over ranks of (rank + k)
    for (int k = 0; k < 1000; ++k)
      if (x(k) != p * (p - 1) / 2.0 + double(p) * k) ++wrong;
  }

  // One value from and to the host: a scalar reduction.
  adlib::RedxSchedule<double, adlib::op::Max, Kokkos::HostSpace> largest(comm, 1, adlib::op::max);
  if (largest.reduce(0.5 * me) != 0.5 * (p - 1)) ++wrong;

  // MAXLOC: the largest value and where it is; ties go to the first location.
  adlib::Redx2Schedule<double, 1, adlib::op::MaxLocation, Kokkos::HostSpace> where(
      comm, 1, adlib::op::max_location);
  adlib::Located<double, 1> best = where.reduce({double(me % 2), {me}});
  if (best.value != (p > 1 ? 1.0 : 0.0) || best.location[0] != (p > 1 ? 1 : 0)) ++wrong;

  // A broadcast of 10 values from the last rank.
  adlib::TreeSchedule<int, Kokkos::HostSpace> from_last(comm, 10, /*root=*/p - 1);
  Kokkos::View<int*, Kokkos::HostSpace> y("y", 10);
  for (int k = 0; k < 10; ++k) y(k) = me == p - 1 ? 7 * k : -1;
  from_last.execute(y.data());
  for (int k = 0; k < 10; ++k)
    if (y(k) != 7 * k) ++wrong;

  adlib::RedxSchedule<int, adlib::op::Add, Kokkos::HostSpace> count(comm, 1);
  const int total = count.reduce(wrong);
  if (me == 0)
    std::printf("reduction schedules on %d ranks (%s): %s\n", p,
                adlib::algorithm_name(sum.algorithm()), total == 0 ? "all right" : "WRONG");
  return total == 0 ? 0 : 1;
}
