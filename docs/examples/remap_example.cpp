// SPDX-License-Identifier: BSD-3-Clause
// Remap in practice: a schedule built once and executed many times,
// start / finish, the one-shot remap(), sections, arrays on different
// grids, a replicated destination, and what happens on bad input.  Every
// result is checked against the global indices; the exit code says whether
// all checks passed.  Runs at any number of ranks.
#include <mpi.h>

#include <cstdio>
#include <memory>

#include <adlib/adlib.hpp>

using adlib::Index;

// True on every rank when every element of `a` this rank holds equals
// expected(position) (collective).
template <int Rank, class Expected>
bool holds(const adlib::DistArray<double, Rank>& a, Expected expected) {
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), a.local_view());
  adlib::DistArray<double, Rank, Kokkos::HostSpace> on_host(a, host);
  int wrong = 0, wrong_anywhere = 0;
  on_host.for_each_local([&](const auto& p, double value) {
    if (value != expected(p)) ++wrong;
  });
  MPI_Allreduce(&wrong, &wrong_anywhere, 1, MPI_INT, MPI_SUM, a.comm().get());
  return wrong_anywhere == 0;
}

int main(int argc, char** argv) {
  adlib::Environment environment(argc, argv);
  adlib::Comm comm(MPI_COMM_WORLD);
  const int p = comm.size();
  bool ok = true;

  adlib::ProcessGrid line(comm, {p});
  const Index n = 20;
  adlib::DistArray<double, 1> x(line, {std::make_shared<adlib::BlockRange>(n, line.dim(0))});
  adlib::DistArray<double, 1> y(line,
                                {std::make_shared<adlib::BlockCyclicRange>(n, line.dim(0), 3)});
  x.fill([](const auto& g) { return double(g[0]); });

  // Built once (collective, planned from the layouts), executed many times;
  // the template arguments come from the arrays (a Remap<double, 1>).
  adlib::Remap x_to_y(y, x);
  for (int step = 0; step < 10; ++step) x_to_y.execute(y, x);
  ok &= holds(y, [](const auto& g) { return double(g[0]); });

  // start() posts the messages and does the local copies; work that touches
  // neither array can run before finish().
  x_to_y.start(y, x);
  double unrelated_work = 0.0;
  for (int i = 1; i <= 1000; ++i) unrelated_work += 1.0 / i;
  x_to_y.finish();
  ok &= holds(y, [](const auto& g) { return double(g[0]); });
  ok &= unrelated_work > 0.0;

  // The backward pattern needs its own schedule (or the one-shot function).
  adlib::remap(x, y);
  ok &= holds(x, [](const auto& g) { return double(g[0]); });

  // Sections are views: y = x reversed, then y's even positions = x's first half.
  adlib::remap(y, x.section({adlib::Triplet{n - 1, 0, -1}}));
  ok &= holds(y, [&](const auto& g) { return double(n - 1 - g[0]); });
  auto y_even = y.section({adlib::Triplet{0, n - 1, 2}});
  adlib::remap(y_even, x.section({adlib::Triplet{0, n / 2 - 1, 1}}));
  ok &= holds(y_even, [](const auto& k) { return double(k[0]); });

  // Different grids over one communicator: rows on a P x 1 grid, a copy of
  // the whole matrix on every rank (no range uses the grid's axis: the array
  // is replicated over it), and a block-cyclic copy on only half the ranks.
  const Index rows = 7, columns = 5;
  auto matrix_value = [&](const auto& g) { return double(g[0] * columns + g[1]); };
  adlib::ProcessGrid row_grid(comm, {p, 1});
  adlib::DistArray<double, 2> by_rows(row_grid,
                                      {std::make_shared<adlib::BlockRange>(rows, row_grid.dim(0)),
                                       std::make_shared<adlib::CollapsedRange>(columns)});
  by_rows.fill(matrix_value);
  adlib::DistArray<double, 2> everywhere(line, {std::make_shared<adlib::CollapsedRange>(rows),
                                                std::make_shared<adlib::CollapsedRange>(columns)});
  adlib::remap(everywhere, by_rows);
  ok &= holds(everywhere, matrix_value);
  adlib::ProcessGrid half(comm, {(p + 1) / 2});  // ranks beyond it hold nothing
  adlib::DistArray<double, 2> on_half(
      half, {std::make_shared<adlib::CollapsedRange>(rows),
             std::make_shared<adlib::BlockCyclicRange>(columns, half.dim(0), 2)});
  adlib::remap(on_half, everywhere);
  ok &= holds(on_half, matrix_value);

  // Bad input throws the same adlib::Error on every rank: the constructor
  // agrees on its verdict over the communicator, so different shapes fail
  // everywhere ...
  adlib::DistArray<double, 1> longer(line,
                                     {std::make_shared<adlib::BlockRange>(n + 1, line.dim(0))});
  try {
    adlib::Remap mismatched(longer, x);
    ok = false;
  } catch (const adlib::Error& e) {
    if (comm.rank() == 0) std::printf("constructor refused: %s\n", e.what());
  }
  // ... and arrays that do not have the planned layouts by execute().
  try {
    x_to_y.execute(x, y);
    ok = false;
  } catch (const adlib::Error& e) {
    if (comm.rank() == 0) std::printf("execute refused: %s\n", e.message().c_str());
  }

  if (comm.rank() == 0) std::printf("remap example: %s\n", ok ? "all checks passed" : "FAILED");
  return ok ? 0 : 1;
}
