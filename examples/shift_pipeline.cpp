// SPDX-License-Identifier: BSD-3-Clause
// shift_pipeline: 1-D advection by the first-order upwind scheme on a
// periodic domain of N cells, with ONE CShift schedule built once and
// executed every step.
//
//   u_new[i] = u[i] - c * (u[i] - u[i-1]),  c = 1,  i - 1 taken modulo N
//
// u is block-distributed over all ranks (BlockRange, no ghost cells).  Each
// step the schedule copies u, shifted by one position towards higher
// indices, into a scratch array `left` (left[i] = u[i-1], from the
// neighbouring rank at a block edge: Fortran's CSHIFT(u, -1)), and the
// update then reads only local memory.
//
// With c = 1 the scheme moves the profile exactly one cell per step, so after
// S steps u[i] = u0[(i - S) mod N].  The initial profile holds small
// integers, for which every operation of the update is exact in double
// precision: every element is compared for equality with the initial
// profile shifted by S, and the program exits non-zero on any mismatch.
//
//   mpirun -np 4 shift_pipeline [--n N] [--steps S] [--every K]
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include <adlib/adlib.hpp>
#include <adlib/collectives/group_comm.hpp>
#include <adlib/schedules/redx_schedule.hpp>

namespace {

using adlib::Index;
using Field = adlib::DistArray<double, 1>;

constexpr double kCourant = 1.0;  // c = 1: the exact one-cell-per-step transport

struct Options {
  Index n = 100000;
  int steps = 1000;
  int every = 100;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--n" && v) {
      o.n = std::atol(argv[++i]);
    } else if (a == "--steps" && v) {
      o.steps = std::atoi(argv[++i]);
    } else if (a == "--every" && v) {
      o.every = std::atoi(argv[++i]);
    } else {
      throw std::runtime_error("unknown option " + a + " (use --n N --steps S --every K)");
    }
  }
  if (o.n < 1 || o.steps < 0 || o.every < 1)
    throw std::runtime_error("need n >= 1, steps >= 0, every >= 1");
  return o;
}

// The initial profile: a square pulse on a sawtooth, small integers only, so
// that the update with c = 1 is exact in floating point.
double initial(Index g, Index n) {
  const double pulse = g >= n / 4 && g < n / 2 ? 100.0 : 0.0;
  return pulse + double(g % 17);
}

// The reductions over the ranks: schedules built once over the line's group.
struct Reductions {
  adlib::RedxSchedule<double, adlib::op::Add, Kokkos::HostSpace> sum;
  adlib::RedxSchedule<double, adlib::op::Max, Kokkos::HostSpace> largest;
  explicit Reductions(const adlib::Comm& members) : sum(members, 1), largest(members, 1) {}
};

// The sum of every element (collective); the periodic upwind scheme
// conserves it.
double total(const Field& u, const Reductions& over_ranks) {
  const auto local = u.local_view();
  double sum = 0;
  Kokkos::parallel_reduce(
      "shift_pipeline::total", local.extent(0),
      KOKKOS_LAMBDA(std::size_t i, double& s) { s += local(i); }, sum);
  return over_ranks.sum.reduce(sum);
}

}  // namespace

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  int status = 0;
  try {
    adlib::Comm comm(MPI_COMM_WORLD);
    const bool root = comm.rank() == 0;
    const Options o = parse(argc, argv);
    adlib::ProcessGrid line(comm, {comm.size()});
    auto blocks = std::make_shared<adlib::BlockRange>(o.n, line.dim(0));
    Field u(line, {blocks}, "u"), left(line, {blocks}, "left");
    u.fill([&](const auto& g) { return initial(g[0], o.n); });
    const Reductions over_ranks(adlib::group_comm(adlib::Group(line)));
    const auto max_over_ranks = [&](double x) { return over_ranks.largest.reduce(x); };
    const double mass = total(u, over_ranks);

    // The one schedule: left[i] = u[(i - 1) mod n], planned once from the layout.
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    adlib::CShift from_left(left, u, -1, 0);
    const double build_s = max_over_ranks(MPI_Wtime() - t0);
    if (root)
      std::printf("shift_pipeline: %ld cells on %d ranks, %d steps, c = %g\n %8s %14s %10s\n",
                  long(o.n), comm.size(), o.steps, kCourant, "step", "sum", "steps/s");

    double shift_s = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double loop_start = MPI_Wtime();
    for (int s = 0; s < o.steps; ++s) {
      double t = MPI_Wtime();
      from_left.execute(left, u);  // the same schedule every step
      shift_s += MPI_Wtime() - t;
      const auto now = u.local_view();
      const auto l = left.local_view();
      Kokkos::parallel_for(
          "shift_pipeline::upwind", now.extent(0),
          KOKKOS_LAMBDA(std::size_t i) { now(i) = now(i) - kCourant * (now(i) - l(i)); });
      Kokkos::fence();
      if ((s + 1) % o.every == 0 || s + 1 == o.steps) {
        const double sum = total(u, over_ranks);
        const double rate = double(s + 1) / (MPI_Wtime() - loop_start);
        if (root) std::printf(" %8d %14.1f %10.1f\n", s + 1, sum, rate);
      }
    }
    const double loop_s = max_over_ranks(MPI_Wtime() - loop_start);
    shift_s = max_over_ranks(shift_s);

    // The check: u[i] == u0[(i - steps) mod n] for every element, exactly.
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), u.local_view());
    adlib::DistArray<double, 1, Kokkos::HostSpace> on_host(u, host);
    const Index moved = Index(o.steps) % o.n;
    long wrong = 0;
    on_host.for_each_local([&](const auto& g, double value) {
      if (value != initial((g[0] - moved + o.n) % o.n, o.n)) ++wrong;
    });
    const long wrong_anywhere = long(over_ranks.sum.reduce(double(wrong)));  // exact below 2^53
    const double final_mass = total(u, over_ranks);

    const auto& plan = from_left.schedule().plan();
    if (root) {
      const double per_step = o.steps > 0 ? shift_s / o.steps : 0;
      std::printf(
          "\nschedule: CShift built once in %.3f ms; %d executions, mean %.3f ms each "
          "(build = %.2f executions)\n",
          build_s * 1e3, o.steps, per_step * 1e3, per_step > 0 ? build_s / per_step : 0.0);
      std::printf("  per execution: %zu messages from rank 0, %ld elements sent by rank 0\n",
                  plan.send_messages().size(), long(plan.send_count()));
      std::printf("time: %.3f s = shift %.3f s (%.0f%%) + update %.3f s, %.1f steps/s\n", loop_s,
                  shift_s, loop_s > 0 ? 100 * shift_s / loop_s : 0.0, loop_s - shift_s,
                  loop_s > 0 ? o.steps / loop_s : 0.0);
      std::printf("check against the initial profile shifted by %ld: %ld of %ld elements differ\n",
                  long(moved), wrong_anywhere, long(o.n));
      std::printf("sum: %.1f at the start, %.1f at the end\n", mass, final_mass);
    }
    const bool ok = wrong_anywhere == 0 && final_mass == mass;
    if (root) std::printf("%s\n", ok ? "PASSED" : "FAILED");
    status = ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "shift_pipeline: %s\n", e.what());
    status = 2;
  }
  return status;
}
