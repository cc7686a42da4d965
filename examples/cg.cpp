// SPDX-License-Identifier: BSD-3-Clause
// cg: conjugate gradients for the Poisson equation -Δu = f on the unit square
// with u = 0 on the boundary, on an N x N grid of interior points over a 2-D
// process grid.  Two schedules are built once and executed every iteration:
// one WriteHalo (the ghosts of p for the matrix-vector product) and one
// ArrayReduction (the dot products p.Ap and r.r, twice an iteration).
//
//   (A u)(i,j) = 4u(i,j) - u(i-1,j) - u(i+1,j) - u(i,j-1) - u(i,j+1),  b = h^2 f
//
// h = 1/(N+1); the ghost cells outside the domain are never written (edge
// boundaries leave them alone), so they stay 0: the Dirichlet condition.
//
// Manufactured solution: u* = s + q with s = sin(pi x) sin(pi y) and
// q = x(1-x) y(1-y), so f = 2 pi^2 s + 2(x(1-x) + y(1-y)).  The 5-point
// stencil is exact on q and multiplies s by lambda_h = 4(1 - cos(pi h)) / h^2,
// so the discrete solution is known in closed form: u_h = c s + q with
// c = 2 pi^2 / lambda_h.  The demo checks that CG converged, the true residual
// b - Ax, the error against u_h (the solver's error, far below the
// discretisation error) and the error against u* (the discretisation error,
// |c - 1| = pi^2 h^2 / 12 + O(h^4), below h^2).  The q part spreads the
// right-hand side over many eigenmodes, so CG needs O(N) iterations.
//
//   mpirun -np 4 cg [--n N] [--tol T] [--max-iterations M] [--grid PxQ] [--every K]
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <adlib/adlib.hpp>
#include <adlib/collectives/group_comm.hpp>
#include <adlib/schedules/redx_schedule.hpp>

namespace {

using adlib::Index;
using Field = adlib::DistArray<double, 2>;
using View = Field::view_type;
using Box = adlib::LocalBox<2>;
using Policy = Kokkos::MDRangePolicy<Kokkos::Rank<2>>;
// One value per execution, from and to the host.
using MaxSchedule = adlib::RedxSchedule<double, adlib::op::Max, Kokkos::HostSpace>;

struct Options {
  Index n = 256;
  double tol = 1e-10;      // on the relative residual |r| / |b|
  int max_iterations = 0;  // 0: 10 N
  int every = 50;
  std::vector<int> grid;  // empty: balanced over all ranks
};

Options parse(int argc, char** argv, int size) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--n" && v) {
      o.n = std::atol(argv[++i]);
    } else if (a == "--tol" && v) {
      o.tol = std::atof(argv[++i]);
    } else if (a == "--max-iterations" && v) {
      o.max_iterations = std::atoi(argv[++i]);
    } else if (a == "--every" && v) {
      o.every = std::atoi(argv[++i]);
    } else if (a == "--grid" && v) {
      int p = 0, q = 0;
      if (std::sscanf(argv[++i], "%dx%d", &p, &q) != 2) throw std::runtime_error("--grid PxQ");
      o.grid = {p, q};
    } else {
      throw std::runtime_error("unknown option " + a +
                               " (use --n N --tol T --max-iterations M --grid PxQ --every K)");
    }
  }
  if (o.max_iterations == 0) o.max_iterations = int(10 * o.n);
  if (o.n < 1 || !(o.tol > 0) || o.max_iterations < 1 || o.every < 1)
    throw std::runtime_error("need n >= 1, tol > 0, max-iterations >= 1, every >= 1");
  if (!o.grid.empty() && o.grid[0] * o.grid[1] != size)
    throw std::runtime_error("--grid must multiply to the number of ranks");
  return o;
}

// The manufactured problem at grid point (i, j), x = (i+1) h, y = (j+1) h
// (host code: it sets b through fill() and checks x through a host mirror).
struct Problem {
  double h;
  double c;  // u_h = c s + q
  double s(Index i, Index j) const {
    return std::sin(M_PI * h * double(i + 1)) * std::sin(M_PI * h * double(j + 1));
  }
  double q(Index i, Index j) const {
    const double x = h * double(i + 1), y = h * double(j + 1);
    return x * (1 - x) * y * (1 - y);
  }
  /// b = h^2 f.
  double rhs(Index i, Index j) const {
    const double x = h * double(i + 1), y = h * double(j + 1);
    return h * h * (2 * M_PI * M_PI * s(i, j) + 2 * (x * (1 - x) + y * (1 - y)));
  }
  double continuous(Index i, Index j) const { return s(i, j) + q(i, j); }
  double discrete(Index i, Index j) const { return c * s(i, j) + q(i, j); }
};

Problem problem(Index n) {
  const double h = 1.0 / double(n + 1);
  const double lambda = 4 * (1 - std::cos(M_PI * h)) / (h * h);
  return {h, 2 * M_PI * M_PI / lambda};
}

// The kernels, over the owned box (local indices); namespace-scope functors
// so that they build for every Kokkos backend.
struct ApplyA {  // out = A in (in's ghosts filled)
  View in, out;
  KOKKOS_INLINE_FUNCTION void operator()(Index i, Index j) const {
    out(i, j) = 4 * in(i, j) - in(i - 1, j) - in(i + 1, j) - in(i, j - 1) - in(i, j + 1);
  }
};
struct UpdateSolution {  // x += alpha p, r -= alpha Ap
  View x, r, p, ap;
  double alpha;
  KOKKOS_INLINE_FUNCTION void operator()(Index i, Index j) const {
    x(i, j) += alpha * p(i, j);
    r(i, j) -= alpha * ap(i, j);
  }
};
struct UpdateDirection {  // p = r + beta p
  View p, r;
  double beta;
  KOKKOS_INLINE_FUNCTION void operator()(Index i, Index j) const {
    p(i, j) = r(i, j) + beta * p(i, j);
  }
};
struct Residual {  // r = b - A x (x's ghosts filled)
  View x, b, r;
  KOKKOS_INLINE_FUNCTION void operator()(Index i, Index j) const {
    r(i, j) = b(i, j) - (4 * x(i, j) - x(i - 1, j) - x(i + 1, j) - x(i, j - 1) - x(i, j + 1));
  }
};
Policy over(const Box& box) {
  return Policy({box.lo[0], box.lo[1]}, {box.hi[0], box.hi[1]});
}

template <class Kernel>
void for_owned(const char* label, const Box& box, const Kernel& kernel) {
  if (!box.empty()) Kokkos::parallel_for(label, over(box), kernel);
}

}  // namespace

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  int status = 0;
  try {
    adlib::Comm comm(MPI_COMM_WORLD);
    const bool root = comm.rank() == 0;
    const Options o = parse(argc, argv, comm.size());
    adlib::ProcessGrid grid =
        o.grid.empty() ? adlib::ProcessGrid::balanced(comm, 2) : adlib::ProcessGrid(comm, o.grid);
    Field x(grid, {adlib::block(o.n).ghosts(1), adlib::block(o.n).ghosts(1)}, "x");
    Field b(x.layout(), "b"), r(x.layout(), "r"), p(x.layout(), "p"), ap(x.layout(), "Ap");
    const Box owned = x.owned_box();
    const Problem pb = problem(o.n);
    b.fill([&](auto g) { return pb.rhs(g[0], g[1]); });

    // The schedules, built once: the halo of p (the 5-point stencil needs
    // faces only, but the default box stencil costs the same messages here)
    // and the dot products over the array's group.
    MPI_Barrier(MPI_COMM_WORLD);
    const double build_start = MPI_Wtime();
    adlib::WriteHalo halo(p);
    const adlib::ArrayReduction dots(x);
    const double bb = dots.dot(b, b);  // the first dot builds its reduction schedule
    const double build_s = MPI_Wtime() - build_start;
    const adlib::Comm members = adlib::group_comm(adlib::Group(grid));
    const MaxSchedule largest(members, 1);  // the report's maxima over ranks
    if (root)
      std::printf(
          "cg: %ld x %ld Poisson on a %d x %d grid, tolerance %.1e, reductions: %s\n"
          " %8s %14s %12s\n",
          long(o.n), long(o.n), grid.extent(0), grid.extent(1), o.tol,
          adlib::algorithm_name(largest.algorithm()), "iteration", "|r|/|b|", "iter/s");

    // x = 0, r = b, p = r.
    Kokkos::deep_copy(r.local_view(), b.local_view());
    Kokkos::deep_copy(p.local_view(), b.local_view());
    const double b_norm = std::sqrt(bb);
    double rr = bb;
    std::vector<double> history{b_norm > 0 ? 1.0 : 0.0};  // |r_k| / |b|, k = 0, 1, ...

    double halo_s = 0, reduce_s = 0;
    int iterations = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double loop_start = MPI_Wtime();
    while (history.back() > o.tol && iterations < o.max_iterations) {
      double t = MPI_Wtime();
      halo.execute(p);
      halo_s += MPI_Wtime() - t;
      for_owned("cg::apply", owned, ApplyA{p.local_view(), ap.local_view()});
      t = MPI_Wtime();
      const double pap = dots.dot(p, ap);
      reduce_s += MPI_Wtime() - t;

      const double alpha = rr / pap;
      for_owned(
          "cg::update", owned,
          UpdateSolution{x.local_view(), r.local_view(), p.local_view(), ap.local_view(), alpha});
      t = MPI_Wtime();
      const double rr_next = dots.dot(r, r);
      reduce_s += MPI_Wtime() - t;

      for_owned("cg::direction", owned,
                UpdateDirection{p.local_view(), r.local_view(), rr_next / rr});
      rr = rr_next;
      ++iterations;
      history.push_back(std::sqrt(rr) / b_norm);
      if (iterations % o.every == 0 && root)
        std::printf(" %8d %14.6e %12.1f\n", iterations, history.back(),
                    double(iterations) / (MPI_Wtime() - loop_start));
    }
    Kokkos::fence();
    double times[4] = {MPI_Wtime() - loop_start, halo_s, reduce_s, 0};
    times[3] = times[0] - halo_s - reduce_s;  // computation, this rank's
    const MaxSchedule time_maxima(members, 4);
    time_maxima.execute(times);  // each the maximum over ranks
    const double loop_s = times[0];
    const double build_max = largest.reduce(build_s);
    if (root && iterations % o.every != 0)
      std::printf(" %8d %14.6e %12.1f\n", iterations, history.back(),
                  loop_s > 0 ? iterations / loop_s : 0.0);

    // Check 1: the true residual |b - A x| / |b| (the recurrence's r drifts).
    halo.execute(x);
    for_owned("cg::residual", owned, Residual{x.local_view(), b.local_view(), r.local_view()});
    const double true_residual = std::sqrt(dots.dot(r, r)) / b_norm;
    // Checks 2 and 3: the error against the discrete and continuous solutions.
    double errors[2] = {0, 0};  // against u_h, against u*
    const auto xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x.local_view());
    for (Index i = owned.begin(0); i < owned.end(0); ++i)
      for (Index j = owned.begin(1); j < owned.end(1); ++j) {
        const Index gi = owned.global(0, i), gj = owned.global(1, j);
        errors[0] = std::max(errors[0], std::abs(xh(i, j) - pb.discrete(gi, gj)));
        errors[1] = std::max(errors[1], std::abs(xh(i, j) - pb.continuous(gi, gj)));
      }
    const double solver_error = largest.reduce(errors[0]);
    const double error = largest.reduce(errors[1]);
    double predicted = 0;  // |c - 1| max s over the grid points: u_h - u*
    for (Index i = 0; i < o.n; ++i)
      predicted = std::max(predicted, std::abs(pb.c - 1) * pb.s(i, i));
    const double h2 = pb.h * pb.h;

    const bool converged = history.back() <= o.tol;
    const bool ok = converged && true_residual <= 10 * o.tol &&
                    solver_error <= 1e-2 * predicted + 1e-14 && error <= h2;
    if (root) {
      std::printf("\n%d iterations, relative residual %.3e (true |b - Ax|/|b| %.3e)%s\n",
                  iterations, history.back(), true_residual, converged ? "" : ", NOT CONVERGED");
      std::printf("residual history:");
      for (int k = 0; k < 5; ++k) {
        const int at = int(std::lround(double(iterations) * k / 4));
        std::printf("%s %d: %.2e", k ? "," : "", at, history[size_t(at)]);
      }
      std::printf(
          "\nschedules built once in %.3f ms: WriteHalo of p (rank 0 sends %zu messages), "
          "ArrayReduction of the dot products (%s%s)\n",
          build_max * 1e3, halo.schedule().plan().send_messages().size(),
          adlib::algorithm_name(largest.algorithm()), largest.staged() ? ", staged" : "");
      std::printf("  executed %d halo exchanges and %d reductions\n", iterations, 2 * iterations);
      const auto share = [&](double s) { return loop_s > 0 ? 100 * s / loop_s : 0.0; };
      std::printf(
          "time: %.3f s, max over ranks: halo exchange %.3f s (%.0f%%), reductions %.3f s "
          "(%.0f%%), computation %.3f s (%.0f%%); %.3f ms per iteration\n",
          loop_s, times[1], share(times[1]), times[2], share(times[2]), times[3], share(times[3]),
          iterations ? 1e3 * loop_s / iterations : 0.0);
      std::printf("check against the discrete solution c s + q: max error %.3e (limit %.3e)\n",
                  solver_error, 1e-2 * predicted + 1e-14);
      std::printf(
          "check against u* = s + q: max error %.3e = %.3f h^2 (predicted %.3e, limit h^2 = "
          "%.3e)\n",
          error, error / h2, predicted, h2);
      std::printf("%s\n", ok ? "PASSED" : "FAILED");
    }
    status = ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cg: %s\n", e.what());
    status = 2;
  }
  return status;
}
