// SPDX-License-Identifier: BSD-3-Clause
// heat2d: the explicit heat equation on an N x N grid over a 2-D process
// grid, with one WriteHalo schedule built once and executed every exchange
// (and adlib::max_over, the maxima over ranks of the progress and report).
//
//   u(t+1) = u + r * (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1] - 4u),  r = 0.2
//
// Dirichlet boundary u = 0: the ghost cells outside the domain are never
// written (edge boundaries leave them alone).  With ghost width w the halo
// is exchanged every w steps (a deep halo, corners included) and the steps
// in between update a region that shrinks by one cell per step.  Each
// exchange overlaps with the update of the cells that need no ghost value.
//
// The initial field is the lowest discrete eigenmode sin(pi i h) sin(pi j h),
// h = 1/(N+1), which the scheme multiplies by lambda = 1 - 4r(1 - cos(pi h))
// per step (2r(1 - cos(pi h)) from each dimension): every cell is checked
// against lambda^steps times its start value, for any N; small N is also
// re-run serially.
//
//   mpirun -np 4 heat2d [--n N] [--steps S] [--ghost W] [--grid PxQ] [--every K]
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <adlib/adlib.hpp>

namespace {

using adlib::Index;
using Field = adlib::DistArray<double, 2>;
using Box = adlib::LocalBox<2>;

constexpr double kRate = 0.2;  // r <= 1/4 keeps the explicit scheme stable

struct Options {
  Index n = 1024;
  int steps = 600;
  int ghost = 1;
  int every = 100;
  std::vector<int> grid;  // empty: balanced over all ranks
};

Options parse(int argc, char** argv, int size) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--n" && v) {
      o.n = std::atol(argv[++i]);
    } else if (a == "--steps" && v) {
      o.steps = std::atoi(argv[++i]);
    } else if (a == "--ghost" && v) {
      o.ghost = std::atoi(argv[++i]);
    } else if (a == "--every" && v) {
      o.every = std::atoi(argv[++i]);
    } else if (a == "--grid" && v) {
      int p = 0, q = 0;
      if (std::sscanf(argv[++i], "%dx%d", &p, &q) != 2) throw std::runtime_error("--grid PxQ");
      o.grid = {p, q};
    } else {
      throw std::runtime_error("unknown option " + a +
                               " (use --n N --steps S --ghost W --grid PxQ --every K)");
    }
  }
  if (o.n < 1 || o.steps < 0 || o.ghost < 1 || o.every < 1)
    throw std::runtime_error("need n >= 1, steps >= 0, ghost >= 1, every >= 1");
  if (!o.grid.empty() && o.grid[0] * o.grid[1] != size)
    throw std::runtime_error("--grid must multiply to the number of ranks");
  return o;
}

double mode(Index i, Index j, Index n) {
  const double h = M_PI / double(n + 1);
  return std::sin(h * double(i + 1)) * std::sin(h * double(j + 1));
}

// This rank's owned cells widened by `e` ghost cells, but never beyond the
// global domain: the ghost cells outside it hold the boundary's zeros.
Box widened(const Field& a, Index e) {
  Box box = a.owned_box();
  for (int d = 0; d < 2; ++d) {
    const Index start = box.global_begin(d), end = start + box.extent(d);
    box.lo[d] -= std::min(e, start);
    box.hi[d] += std::min(e, a.extent(d) - end);
  }
  return box;
}

// One explicit step from u into v on the local cells of `box`.
void step(const Field& u, const Field& v, const Box& box) {
  if (box.empty()) return;
  auto from = u.local_view();
  auto to = v.local_view();
  using Policy = Kokkos::MDRangePolicy<Kokkos::Rank<2>>;
  Kokkos::parallel_for(
      "heat2d::step", Policy({box.begin(0), box.begin(1)}, {box.end(0), box.end(1)}),
      KOKKOS_LAMBDA(Index i, Index j) {
        to(i, j) = from(i, j) + kRate * (from(i - 1, j) + from(i + 1, j) + from(i, j - 1) +
                                         from(i, j + 1) - 4.0 * from(i, j));
      });
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
    const Index w = std::min<Index>(o.ghost, o.n);
    Field u(grid, {adlib::block(o.n).ghosts(w), adlib::block(o.n).ghosts(w)}, "u");
    Field v(u.layout(), "v");
    u.fill([&](auto g) { return mode(g[0], g[1], o.n); });

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    adlib::WriteHalo halo(u);  // every ghost cell, corners: the deep-halo stencil
    const double build_s = adlib::max_over(grid, MPI_Wtime() - t0);
    if (root)
      std::printf(
          "heat2d: %ld x %ld on a %d x %d grid, %d steps, ghost width %ld\n"
          " %8s %14s %10s\n",
          long(o.n), long(o.n), grid.extent(0), grid.extent(1), o.steps, long(w), "step",
          "residual", "steps/s");

    double comm_s = 0, loop_s = 0;
    int exchanges = 0;
    const Box owned = u.owned_box();
    MPI_Barrier(MPI_COMM_WORLD);
    const double loop_start = MPI_Wtime();
    Field* now = &u;
    Field* next = &v;
    for (int s = 0; s < o.steps; ++s) {
      const Index sub = s % w;  // sub-step within one exchange period
      const Box box = widened(*now, w - 1 - sub);
      if (sub == 0) {
        // Exchange, overlapped with the cells whose stencil stays inside
        // the owned block.
        double t = MPI_Wtime();
        halo.start(*now);
        comm_s += MPI_Wtime() - t;
        const Box inner = owned.interior(1);
        step(*now, *next, inner);
        Kokkos::fence();
        t = MPI_Wtime();
        halo.finish();
        comm_s += MPI_Wtime() - t;
        ++exchanges;
        const auto frame = box.strips_around(inner);
        for (int k = 0; k < int(frame.size()); ++k) step(*now, *next, frame[k]);
      } else {
        step(*now, *next, box);
      }
      Kokkos::fence();
      std::swap(now, next);
      if ((s + 1) % o.every == 0 || s + 1 == o.steps) {
        // Residual: the largest change of the last step, over all ranks.
        // A kernel, not a host loop: the fields may live in device memory.
        double change = 0;
        const auto a = now->local_view(), b = next->local_view();
        using Policy = Kokkos::MDRangePolicy<Kokkos::Rank<2>>;
        Kokkos::parallel_reduce(
            "heat2d::residual",
            Policy({owned.begin(0), owned.begin(1)}, {owned.end(0), owned.end(1)}),
            KOKKOS_LAMBDA(Index i, Index j, double& largest) {
              const double d = a(i, j) - b(i, j);
              const double size = d < 0 ? -d : d;
              if (size > largest) largest = size;
            },
            Kokkos::Max<double>(change));
        const double residual = adlib::max_over(grid, change);
        const double rate = double(s + 1) / (MPI_Wtime() - loop_start);
        if (root) std::printf(" %8d %14.6e %10.1f\n", s + 1, residual, rate);
      }
    }
    loop_s = adlib::max_over(grid, MPI_Wtime() - loop_start);
    comm_s = adlib::max_over(grid, comm_s);

    // Check 1: the eigenmode decays by lambda per step.
    const double lambda = 1.0 - 4.0 * kRate * (1.0 - std::cos(M_PI / double(o.n + 1)));
    const double decay = std::pow(lambda, double(o.steps));
    // Read through a host mirror: the field may live in device memory.
    double error = 0;
    const auto field = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), now->local_view());
    for (Index i = owned.begin(0); i < owned.end(0); ++i)
      for (Index j = owned.begin(1); j < owned.end(1); ++j)
        error = std::max(error, std::abs(field(i, j) - decay * mode(owned.global(0, i),
                                                                    owned.global(1, j), o.n)));
    error = adlib::max_over(grid, error);
    // Check 2 (small N): the same scheme run serially, cell by cell.
    double serial_error = -1;
    if (o.n <= 256) {
      std::vector<double> a(size_t((o.n + 2) * (o.n + 2)), 0.0), b = a;
      auto at = [&](std::vector<double>& x, Index i, Index j) -> double& {
        return x[size_t((i + 1) * (o.n + 2) + j + 1)];
      };
      for (Index i = 0; i < o.n; ++i)
        for (Index j = 0; j < o.n; ++j) at(a, i, j) = mode(i, j, o.n);
      for (int s = 0; s < o.steps; ++s) {
        for (Index i = 0; i < o.n; ++i)
          for (Index j = 0; j < o.n; ++j)
            at(b, i, j) =
                at(a, i, j) + kRate * (at(a, i - 1, j) + at(a, i + 1, j) + at(a, i, j - 1) +
                                       at(a, i, j + 1) - 4.0 * at(a, i, j));
        std::swap(a, b);
      }
      const std::vector<double> all = adlib::gather_all(*now);
      serial_error = 0;
      for (Index i = 0; i < o.n; ++i)
        for (Index j = 0; j < o.n; ++j)
          serial_error = std::max(serial_error, std::abs(all[size_t(i * o.n + j)] - at(a, i, j)));
    }

    const auto& plan = halo.schedule().plan();
    const double bytes = double(plan.send_count()) * sizeof(double);
    const double max_bytes = adlib::max_over(grid, bytes);
    if (root) {
      const double per_exchange = exchanges ? comm_s / exchanges : 0;
      std::printf(
          "\nschedule: WriteHalo built once in %.3f ms; %d exchanges, mean %.3f ms each "
          "(build = %.2f exchanges)\n",
          build_s * 1e3, exchanges, per_exchange * 1e3,
          per_exchange > 0 ? build_s / per_exchange : 0.0);
      std::printf("  per exchange: %zu messages from rank 0, at most %.1f KiB sent by a rank\n",
                  plan.send_messages().size(), max_bytes / 1024);
      std::printf(
          "time: %.3f s = communication %.3f s (%.0f%%) + computation %.3f s, %.1f steps/s\n",
          loop_s, comm_s, loop_s > 0 ? 100 * comm_s / loop_s : 0.0, loop_s - comm_s,
          loop_s > 0 ? o.steps / loop_s : 0.0);
      std::printf("check against lambda^steps * initial mode: max error %.3e\n", error);
      if (serial_error >= 0)
        std::printf("check against the serial run: max error %.3e\n", serial_error);
    }
    const bool ok = error <= 1e-12 && serial_error <= 1e-12;
    if (root) std::printf("%s\n", ok ? "PASSED" : "FAILED");
    status = ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "heat2d: %s\n", e.what());
    status = 2;
  }
  return status;
}
